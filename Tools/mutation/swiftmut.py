"""Plants mutants in Swift sources as schemata: every mutant of a file is compiled in, each behind
`mutantSchemaOn(<id>)`, which is true only in a process whose MUTANT_ID is that id.

The parser is deliberately conservative: it mutates only what it can see whole on one line (or a
critical section whose braces it can match), in code scope (inside a function, closure or
accessor, never at type scope), outside string literals, comments and compiler directives. What
it cannot judge it leaves alone; what it got wrong the compiler finds, and `mutate.py` drops the
mutants on the lines the compiler names.

Operators (the names every report uses):
  relational      a relational operator swapped (<  <=, >  >=, ==  !=)
  negate          a condition of if / while / guard / repeat-while negated
  cond-true       a condition of if / guard replaced by `true` (a guard that never exits, a
                  branch always taken)
  cond-false      a condition of if replaced by `false` (a branch never taken)
  return-true     a returned Bool expression replaced by `true`
  return-false    a returned Bool expression replaced by `false`
  constant+1      an integer literal plus one
  constant-1      an integer literal minus one (not below 0)
  remove          a statement removed
  sync-remove     a wait / signal / broadcast / notify / leave / resume call removed
  split-section   one critical section split in two (`withLock { a; b }` into two, or an
                  unlock()+lock() pair between two statements of a lock() ... unlock() region)
"""

import re
from dataclasses import dataclass, field

SWITCH = "mutantSchemaOn"

# Appended to every mutated file: file-private, so no module needs to know about it, and no
# production file carries it. Imports at the end of a file are valid Swift; the line numbers of
# the original code do not move.
HELPER = """
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
/// Planted by Tools/mutation (a copy of the package only): the mutant this process runs.
private let mutantSchemaActive: Int = {
    guard let raw = getenv("MUTANT_ID") else { return -1 }
    return Int(String(cString: raw)) ?? -1
}()
@inline(__always) private func mutantSchemaOn(_ id: Int) -> Bool { mutantSchemaActive == id }
"""

RELATIONAL_SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
SYNC_CALL = re.compile(r"\.(wait|signal|broadcast|notify\w*|leave|resume)\(\)\s*$")
LOCK_CALL = re.compile(r"^([A-Za-z_][\w.]*)\.lock\(\)$")
WITHLOCK_OPEN = re.compile(r"^([A-Za-z_][\w.()]*?)\.(withLock|withCriticalRegion)\s*\{\s*((?:[\w$]+|\(.*\))\s+in)?\s*$")
WITHLOCK_LINE = re.compile(r"^([A-Za-z_][\w.()]*?)\.(withLock|withCriticalRegion)\s*\{\s*((?:[\w$]+|\(.*\))\s+in)?(.*)\}\s*$")

TYPE_KEYWORDS = re.compile(r"\b(struct|class|enum|extension|protocol|actor)\b")
DECL_START = re.compile(
    r"^(import|typealias|associatedtype|struct|class|enum|extension|protocol|actor|func|init|deinit|subscript|"
    r"public|private|fileprivate|internal|package|open|static|final|override|nonisolated|mutating|"
    r"convenience|required|lazy|weak|unowned|indirect|consuming|borrowing|get|set|willSet|didSet|"
    r"case|default|precedencegroup|operator|prefix|postfix|infix|macro)\b"
)
NOT_STATEMENT = re.compile(
    r"^(?:(?:let|var|return|throw|break|continue|fallthrough|defer|guard|if|else|for|while|repeat|switch|do|catch)\b|"
    r"try\s*\{|@|#|\}|\)|\]|\.|\?|:|&&|\|\||\+|-|\*|/|%|==|!=|<|>|\")"
)
NOT_REMOVED = re.compile(
    r"^(assert|assertionFailure|precondition|preconditionFailure|fatalError|dispatchPrecondition|print|debugPrint|"
    r"super\.init|self\.init|withExtendedLifetime|_fixLifetime)\b"
)
CONTINUES_NEXT = re.compile(r"(\(|\[|,|=|\.|&&|\|\||\+|-|\*|/|\?|:|<|>|!|\bin|\belse|\breturn|\btry|\bawait)\s*$")
STARTS_AS_CONTINUATION = re.compile(r"^(\.|&&|\|\||\?|:|\+|-(?!>)|\*|/|==|!=|<|>|\)|\]|else\b|catch\b|where\b)")
CONDITION_UNSAFE = re.compile(r"\b(let|var|case)\b|#available|#unavailable|\{")
SIGNATURE_GOES_ON = re.compile(r"^(\)|->|where\b|throws\b|rethrows\b|async\b)")
INT_LITERAL = re.compile(r"(?<![\w.$#])(\d[\d_]*)(?![\w.])")
RELATIONAL = re.compile(r"(?<=\s)(==|!=|<=|>=|<|>)(?=\s)")


@dataclass
class Mutant:
    id: int
    file: str
    line: int  # 1-based, in the original file
    op: str
    original: str  # the original line, stripped
    mutated: str  # the mutated line (or, for a split section, its description), stripped
    backend: str = ""
    label: str = ""  # the mutated line as reports print it and the equivalents file matches it


@dataclass
class Segment:
    """A switchable piece of one line: [start, end) in the line; `kind` says how to switch it."""

    kind: str  # "cond" (a Bool expression), "expr" (a value expression), "stmt" (a whole statement)
    start: int
    end: int
    variants: list = field(default_factory=list)  # (mutant, replacement text of the segment)


def mask(source):
    """The source with every comment and string literal's content replaced by spaces (quotes
    kept), same length, so positions in the mask are positions in the source."""
    out = list(source)
    i, n = 0, len(source)
    depth_comment = 0
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif source.startswith("/*", i):
            depth_comment = 1
            j = i + 2
            while j < n and depth_comment:
                if source.startswith("/*", j):
                    depth_comment += 1
                    j += 2
                elif source.startswith("*/", j):
                    depth_comment -= 1
                    j += 2
                else:
                    j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == '"' or (c == "#" and re.match(r'#+"', source[i:])):
            hashes = len(re.match(r"#*", source[i:]).group(0))
            start = i + hashes
            multi = source.startswith('"""', start)
            quote = '"""' if multi else '"'
            closing = quote + "#" * hashes
            j = start + len(quote)
            while j < n:
                if source.startswith(closing, j):
                    break
                if source[j] == "\\" and hashes == 0:
                    j += 2
                    continue
                if not multi and source[j] == "\n":
                    break
                j += 1
            end = min(n, j + len(closing))
            # A multi-line literal's closing delimiter is blanked too: its line holds no code.
            for k in range(start + len(quote), end if multi else min(j, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = end
        else:
            i += 1
    return "".join(out)


def depth_profile(text, openers="([{", closers=")]}"):
    """Net depth change of a masked line, and the lowest depth reached in it (relative to its start)."""
    depth = low = 0
    for c in text:
        if c in openers:
            depth += 1
        elif c in closers:
            depth -= 1
            low = min(low, depth)
    return depth, low


def top_level_find(text, needle, start=0):
    """Index of `needle` in masked `text` at bracket depth 0 (from `start`), or -1."""
    depth = 0
    i = start
    while i < len(text):
        c = text[i]
        if depth == 0 and text.startswith(needle, i):
            return i
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        i += 1
    return -1


def word_find(text, word, start=0):
    """Index of the keyword `word` at bracket depth 0, as a whole word, or -1."""
    i = start
    while True:
        i = top_level_find(text, word, i)
        if i < 0:
            return -1
        before = text[i - 1] if i > 0 else " "
        after = text[i + len(word)] if i + len(word) < len(text) else " "
        if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
            return i
        i += 1


class LineInfo:
    def __init__(self, number, text, masked):
        self.number = number  # 1-based
        self.text = text
        self.masked = masked
        self.code_scope = False  # inside a function, closure or accessor body
        self.starts_open = False  # the line starts inside an unclosed ( or [ (a continuation)
        self.in_literal = False  # the line starts inside a multi-line string or comment
        self.opener = ""  # the masked text of the line that opened the innermost brace


def analyse(source):
    """Per line: whether it is in code scope, whether it continues an earlier line."""
    masked = mask(source)
    texts = source.split("\n")
    masks = masked.split("\n")
    lines = [LineInfo(i + 1, t, m) for i, (t, m) in enumerate(zip(texts, masks))]
    scope = []  # per open brace: (is_code, opener line masked)
    paren = 0
    header = ""  # the declaration or statement the line belongs to, its earlier lines included
    previous = ""
    for info in lines:
        stripped = info.masked.strip()
        info.in_literal = info.masked.strip() == "" and info.text.strip() != "" and not info.text.strip().startswith("//")
        info.code_scope = bool(scope) and scope[-1][0]
        info.opener = scope[-1][1] if scope else ""
        info.starts_open = paren > 0
        if stripped.startswith("#"):
            continue
        # A signature over several lines (`func f(\n    a: Int\n) -> Bool {`, a `where` clause
        # on a line of its own): the brace that opens the body is judged with the whole header.
        if stripped and (info.starts_open or SIGNATURE_GOES_ON.match(stripped) or continues(previous)):
            header = header + " " + stripped
        elif stripped:
            header = stripped
        if stripped:
            previous = info.masked
        for c in info.masked:
            if c in "([":
                paren += 1
            elif c in ")]":
                paren = max(0, paren - 1)
            elif c == "{":
                is_type = bool(TYPE_KEYWORDS.search(header)) and not re.search(r"\bfunc\b|\bin\b|=", header.split("{")[0])
                is_code = not is_type
                if not (scope and scope[-1][0]) and not is_type:
                    # At type or file scope: a function, initializer, accessor or computed
                    # property body is code; a plain `{` at file scope (main.swift) is not mutated.
                    is_code = bool(re.search(r"\b(func|init|deinit|subscript|get|set|willSet|didSet|var)\b", header))
                scope.append((is_code, header))
            elif c == "}":
                if scope:
                    scope.pop()
    return lines


def continues(masked_line):
    """The line goes on on the next one (an open operator, comma, `=`...), not a block or closure header."""
    text = masked_line.rstrip()
    if text.endswith("{") or re.search(r"\{[^{}]*\bin$", text):
        return False
    return bool(CONTINUES_NEXT.search(text))


def previous_code_line(lines, index):
    for j in range(index - 1, -1, -1):
        if lines[j].masked.strip():
            return lines[j]
    return None


def next_code_line(lines, index):
    for j in range(index + 1, len(lines)):
        if lines[j].masked.strip():
            return lines[j]
    return None


def standalone(lines, index):
    """The line holds whole statements or a whole header: it neither continues the previous line
    nor is continued by the next, and its own brackets balance (braces may open at its end)."""
    info = lines[index]
    stripped = info.masked.strip()
    if not info.code_scope or info.starts_open or info.in_literal or not stripped:
        return False
    prev = previous_code_line(lines, index)
    if prev is not None and continues(prev.masked):
        return False
    if STARTS_AS_CONTINUATION.match(stripped) and not stripped.startswith("} while"):
        return False
    nxt = next_code_line(lines, index)
    if nxt is not None and STARTS_AS_CONTINUATION.match(nxt.masked.strip()) and not nxt.masked.strip().startswith(("}", ")")):
        return False
    if continues(stripped):
        return False
    net, low = depth_profile(stripped, "([", ")]")
    return net == 0 and low == 0


def sole_statement_of_closure(lines, index):
    """The only line of a closure body (its value may be the closure's result)."""
    prev = previous_code_line(lines, index)
    nxt = next_code_line(lines, index)
    if prev is None or nxt is None:
        return False
    if not prev.masked.rstrip().endswith(("{", " in")) or not nxt.masked.strip().startswith("}"):
        return False
    opener = prev.masked.strip()
    control = re.match(r"^(\}\s*)?(if|else|while|for|guard|do|catch|defer|repeat|switch|case|default)\b", opener)
    void_func = re.search(r"\b(func|init|deinit)\b", opener) and "->" not in opener
    return not (control or void_func)


def int_literal_variants(text, start, end):
    """(position, length, replacement, op) for every integer literal in text[start:end]."""
    out = []
    for m in INT_LITERAL.finditer(text, start, end):
        digits = m.group(1).replace("_", "")
        value = int(digits)
        out.append((m.start(1), len(m.group(1)), str(value + 1), "constant+1"))
        if value > 0:
            out.append((m.start(1), len(m.group(1)), str(value - 1), "constant-1"))
    return out


def relational_variants(text, start, end):
    out = []
    for m in RELATIONAL.finditer(text, start, end):
        out.append((m.start(1), len(m.group(1)), RELATIONAL_SWAP[m.group(1)], "relational"))
    return out


BOOLEAN_OPERATOR = re.compile(r"(?<=\s)(==|!=|<=|>=|<|>|&&|\|\|)(?=\s)|^!(?!=)|\.(is[A-Z]\w*|contains|allSatisfy|hasPrefix|hasSuffix)\b")


def looks_boolean(masked_expr):
    """Whether a returned expression is a Bool by its look: a comparison or a logical operator at
    its top level, a negation, a Bool literal, or a call of a well-known predicate; not a ternary
    or a coalescing (`?`), whose value can be of any type. A guess the compiler corrects: a
    mutant on a line that does not type-check is dropped."""
    expr = masked_expr.strip()
    if expr in ("true", "false"):
        return True
    if top_level_find(expr, "?") >= 0:
        return False
    return any(depth_at(expr, m.start()) == 0 for m in BOOLEAN_OPERATOR.finditer(expr))


def depth_at(text, index, openers="([{", closers=")]}"):
    """The bracket depth at `index` of `text`."""
    depth = 0
    for c in text[:index]:
        if c in openers:
            depth += 1
        elif c in closers:
            depth -= 1
    return depth


def split_single_line_section(masked_stmt, stmt):
    """`x.withLock { a; b }` as `x.withLock { a }; x.withLock { b }` (each split point), or []."""
    m = WITHLOCK_LINE.match(masked_stmt)
    if not m:
        return []
    body_start = m.start(4)
    body_end = m.end(4)
    head = stmt[: body_start]
    out = []
    pos = body_start
    while True:
        k = top_level_find(masked_stmt[:body_end], ";", pos)
        if k < 0:
            break
        first = stmt[body_start:k].strip()
        second = stmt[k + 1 : body_end].strip()
        if first and second:
            out.append("%s %s }; %s %s }" % (head.rstrip(), first, head.rstrip(), second))
        pos = k + 1
    return out


class FilePlan:
    """The mutants of one file and the schemata text that holds them."""

    def __init__(self, path, source):
        self.path = path
        self.source = source
        self.lines = analyse(source)
        self.segments = {}  # line index -> [Segment]
        self.sections = []  # (open index, close index, [(mutant, split index)])
        self.lock_splits = {}  # line index -> [(mutant, lock receiver)]
        self.mutants = []

    # -- planning ---------------------------------------------------------------------------

    def plan(self, next_id):
        self.next_id = next_id
        for index, info in enumerate(self.lines):
            if not standalone(self.lines, index):
                continue
            stripped = info.masked.strip()
            if stripped.startswith("#") or DECL_START.match(stripped):
                continue
            self.plan_condition(index) or self.plan_value(index) or self.plan_statement(index)
        self.plan_sections()
        self.plan_lock_splits()
        return self.next_id

    def new_mutant(self, index, op, mutated):
        mutant = Mutant(self.next_id, self.path, index + 1, op, self.lines[index].text.strip(), mutated.strip())
        self.next_id += 1
        self.mutants.append(mutant)
        return mutant

    def add_segment(self, index, kind, start, end, extra=()):
        """Adds a segment with its relational and constant variants (and `extra`: (op, text))."""
        text = self.lines[index].text
        masked = self.lines[index].masked
        segment = Segment(kind, start, end)
        for op, replacement in extra:
            mutated_line = text[:start] + replacement + text[end:] if replacement else "(removed) " + text.strip()
            segment.variants.append((self.new_mutant(index, op, mutated_line), replacement))
        for pos, length, replacement, op in relational_variants(masked, start, end) + int_literal_variants(masked, start, end):
            piece = text[start:pos] + replacement + text[pos + length : end]
            mutated_line = text[:start] + piece + text[end:]
            segment.variants.append((self.new_mutant(index, op, mutated_line), piece))
        if segment.variants:
            self.segments.setdefault(index, []).append(segment)
        return True

    def plan_condition(self, index):
        masked = self.lines[index].masked
        m = re.match(r"^(\s*)(\}\s*else\s+if|else\s+if|if|while|guard|\}\s*while)\s+", masked)
        if not m:
            return False
        keyword = m.group(2)
        start = m.end()
        if keyword == "guard":
            end = word_find(masked, "else", start)
        elif keyword.endswith("while") and keyword.startswith("}"):
            end = len(masked.rstrip())
        else:
            end = top_level_find(masked, "{", start)
        if end <= start:
            return True
        while end > start and masked[end - 1] == " ":
            end -= 1
        condition = masked[start:end]
        if CONDITION_UNSAFE.search(condition) or top_level_find(condition, ",") >= 0 or condition.strip() in ("", "true", "false"):
            return True
        text = self.lines[index].text
        extra = [("negate", "!(" + text[start:end] + ")")]
        if keyword.endswith("if") or keyword == "guard":
            extra.append(("cond-true", "true"))
        if keyword.endswith("if"):
            extra.append(("cond-false", "false"))
        return self.add_segment(index, "cond", start, end, extra)

    def plan_value(self, index):
        masked = self.lines[index].masked
        m = re.match(r"^(\s*)(?:(?:let|var)\s+[^=]+?\s=\s|return\s+)((?:try[?!]?\s+|await\s+)*)", masked)
        if not m or re.match(r"^\s*(let|var)\s+\w+\s*:[^=]*$", masked):
            return bool(re.match(r"^\s*(let|var|return)\b", masked))
        start = m.end()
        end = len(masked.rstrip())
        if "{" in masked[start:end] or end <= start:
            return True
        extra = []
        if masked.lstrip().startswith("return") and looks_boolean(masked[start:end]):
            value = masked[start:end].strip()
            extra = [(op, literal) for op, literal in (("return-true", "true"), ("return-false", "false")) if value != literal]
        return self.add_segment(index, "expr", start, end, extra)

    def plan_statement(self, index):
        info = self.lines[index]
        masked = info.masked
        stripped = masked.strip()
        if NOT_STATEMENT.match(stripped) or stripped.endswith("{") or stripped.endswith(" in"):
            return False
        net, low = depth_profile(stripped)
        if net != 0 or low != 0 or sole_statement_of_closure(self.lines, index):
            return False
        if NOT_REMOVED.match(stripped):
            return False  # a check or a message: removing it keeps every correct behaviour
        if re.match(r"^(_\s*=\s*)?[\w.$]+\s*$", stripped) and "(" not in stripped:
            return False  # a bare name: an expression whose removal cannot be told from its value
        start = len(masked) - len(masked.lstrip())
        end = len(masked.rstrip())
        text = info.text
        statement = text[start:end]
        op = "sync-remove" if SYNC_CALL.search(stripped) else "remove"
        removable = not (re.search(r"\binit\b", info.opener) and re.match(r"^(self\.)?\w+\s*=[^=]", stripped))
        extra = [(op, "")] if removable else []
        for split in split_single_line_section(masked[start:end], statement):
            extra.append(("split-section", split))
        return self.add_segment(index, "stmt", start, end, extra)

    def plan_sections(self):
        """Multi-line `x.withLock { ... }` statements with two or more statements in their body:
        one mutant per split point."""
        used_until = -1
        for index, info in enumerate(self.lines):
            if index <= used_until or not standalone(self.lines, index):
                continue
            stripped = info.masked.strip()
            m = WITHLOCK_OPEN.match(stripped)
            if not m:
                continue
            close = self.matching_close(index)
            if close is None or self.lines[close].masked.strip() not in ("}", "})"):
                continue
            body = [j for j in range(index + 1, close) if self.lines[j].masked.strip()]
            if not body:
                continue
            base = min(len(self.lines[j].masked) - len(self.lines[j].masked.lstrip()) for j in body)
            splits = []
            for pos, j in enumerate(body):
                if pos == 0:
                    continue
                line = self.lines[j]
                indent = len(line.masked) - len(line.masked.lstrip())
                prev = self.lines[body[pos - 1]]
                prev_indent = len(prev.masked) - len(prev.masked.lstrip())
                if indent != base or line.starts_open or STARTS_AS_CONTINUATION.match(line.masked.strip()):
                    continue
                if prev_indent != base and not prev.masked.strip().startswith("}"):
                    continue
                if continues(prev.masked):
                    continue
                if prev.masked.rstrip().endswith("{"):
                    continue
                splits.append(j)
            if not splits:
                continue
            entries = []
            for j in splits:
                desc = "%s | %s (section split before line %d)" % (info.text.strip(), self.lines[j].text.strip(), j + 1)
                mutant = self.new_mutant(index, "split-section", desc)
                entries.append((mutant, j))
            self.sections.append((index, close, entries))
            used_until = close

    def matching_close(self, index):
        depth = 0
        for j in range(index, len(self.lines)):
            if self.lines[j].masked.strip().startswith("#"):
                continue
            for c in self.lines[j].masked:
                if c == "{":
                    depth += 1
                elif c == "}":
                    depth -= 1
                    if depth == 0:
                        return j
        return None

    def plan_lock_splits(self):
        """`x.lock()` ... (`defer { x.unlock() }`) statements at the same indent ... : an
        unlock()+lock() pair planted before each later statement of the region."""
        for index, info in enumerate(self.lines):
            stripped = info.masked.strip()
            m = LOCK_CALL.match(stripped)
            if not m or not info.code_scope:
                continue
            receiver = m.group(1)
            indent = len(info.masked) - len(info.masked.lstrip())
            count = 0
            for j in range(index + 1, len(self.lines)):
                line = self.lines[j]
                s = line.masked.strip()
                if not s:
                    continue
                line_indent = len(line.masked) - len(line.masked.lstrip())
                if line_indent < indent or s.startswith("#") or (receiver + ".unlock()") in s and not s.startswith("defer"):
                    break
                if line_indent != indent or s.startswith("defer") or not standalone(self.lines, j):
                    continue
                prev = previous_code_line(self.lines, j)
                if prev is None or prev.masked.strip().startswith("defer") or prev is info:
                    continue
                if STARTS_AS_CONTINUATION.match(s) or s.startswith("}"):
                    continue
                desc = "%s.unlock(); %s.lock() before: %s" % (receiver, receiver, line.text.strip())
                mutant = self.new_mutant(j, "split-section", desc)
                self.lock_splits.setdefault(j, []).append((mutant, receiver))
                count += 1
                if count >= 3:
                    break

    # -- rendering --------------------------------------------------------------------------

    def render(self, excluded=frozenset()):
        """The schemata text, and per output line the ids of the mutants whose code is on it."""
        line_texts = []
        for index, info in enumerate(self.lines):
            line_texts.append(self.render_line(index, excluded))
        out = []  # (text, ids)
        index = 0
        sections = {open_index: (close, entries) for open_index, close, entries in self.sections}
        while index < len(self.lines):
            if index in sections:
                close, entries = sections[index]
                live = [(mutant, j) for mutant, j in entries if mutant.id not in excluded]
                if live:
                    self.render_section(index, close, live, line_texts, out, excluded)
                    index = close + 1
                    continue
            ids = self.ids_on_line(index, excluded)
            out.append((line_texts[index], ids))
            index += 1
        out.append((HELPER, set()))
        return "\n".join(text for text, _ in out), self.expand(out)

    @staticmethod
    def expand(out):
        """Output line number (1-based) -> mutant ids, expanding entries spanning lines."""
        mapping = {}
        number = 1
        for text, ids in out:
            for _ in text.split("\n"):
                if ids:
                    mapping[number] = set(ids)
                number += 1
        return mapping

    def ids_on_line(self, index, excluded):
        ids = set()
        for segment in self.segments.get(index, []):
            ids.update(m.id for m, _ in segment.variants if m.id not in excluded)
        ids.update(m.id for m, _ in self.lock_splits.get(index, []) if m.id not in excluded)
        return ids

    def render_line(self, index, excluded):
        text = self.lines[index].text
        for segment in sorted(self.segments.get(index, []), key=lambda s: -s.start):
            live = [(m, r) for m, r in segment.variants if m.id not in excluded]
            if not live:
                continue
            original = text[segment.start : segment.end]
            if segment.kind == "stmt":
                parts = ["if %s(%d) { %s }" % (SWITCH, m.id, r) for m, r in live]
                piece = " else ".join(parts) + " else { %s }" % original
            else:
                piece = "(" + "".join("%s(%d) ? (%s) : " % (SWITCH, m.id, r) for m, r in live) + "(%s))" % original
            text = text[: segment.start] + piece + text[segment.end :]
        splits = [(m, receiver) for m, receiver in self.lock_splits.get(index, []) if m.id not in excluded]
        if splits:
            indent = len(text) - len(text.lstrip())
            prefix = "".join("if %s(%d) { %s.unlock(); %s.lock() }; " % (SWITCH, m.id, r, r) for m, r in splits)
            text = text[:indent] + prefix + text[indent:]
        return text

    def render_section(self, open_index, close, live, line_texts, out, excluded):
        indent = self.lines[open_index].text[: len(self.lines[open_index].text) - len(self.lines[open_index].text.lstrip())]
        header = self.lines[open_index].text
        closing = self.lines[close].text
        for n, (mutant, split) in enumerate(live):
            keyword = "if" if n == 0 else "} else if"
            out.append(("%s%s %s(%d) {" % (indent, keyword, SWITCH, mutant.id), {mutant.id}))
            body_first = [self.lines[j].text for j in range(open_index + 1, split)]
            body_second = [self.lines[j].text for j in range(split, close)]
            for text in [header] + body_first + [closing, header] + body_second + [closing]:
                out.append((text, {mutant.id}))
        out.append(("%s} else {" % indent, set()))
        for j in range(open_index, close + 1):
            out.append((line_texts[j], self.ids_on_line(j, excluded)))
        out.append(("%s}" % indent, set()))


def plan_files(paths_and_sources, first_id=1):
    """FilePlans for [(path, source)], ids numbered across all files in order."""
    plans = []
    next_id = first_id
    for path, source in paths_and_sources:
        plan = FilePlan(path, source)
        next_id = plan.plan(next_id)
        plans.append(plan)
    return plans
