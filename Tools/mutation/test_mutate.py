"""The mutator's self-test: each operator on sample Swift lines, and lines it must leave alone.

Run by `Tools/mutation/mutate.py --selftest` (and CI's quick step). With `swiftc` on the PATH,
the schemata of the sample file are also type-checked.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swiftmut  # noqa: E402


def mutants_of(body, wrap=True):
    source = "func sample(_ a: Int, _ b: Int) -> Int {\n%s\n}\n" % body if wrap else body
    return swiftmut.plan_files([("Sample.swift", source)])[0].mutants


def ops(body, wrap=True):
    return sorted(m.op for m in mutants_of(body, wrap))


class OperatorTests(unittest.TestCase):
    def test_relational_swapped(self):
        found = {m.mutated for m in mutants_of("    var c = 0\n    if a < b { c = 1 }\n    return c") if m.op == "relational"}
        self.assertIn("if a <= b { c = 1 }", found)

    def test_each_relational_operator(self):
        for original, swapped in swiftmut.RELATIONAL_SWAP.items():
            found = [m.mutated for m in mutants_of("    return a %s b ? 1 : 0" % original) if m.op == "relational"]
            self.assertEqual(found, ["return a %s b ? 1 : 0" % swapped], original)

    def test_condition_negated(self):
        found = [m.mutated for m in mutants_of("    guard a > 0 else { return 0 }\n    return a") if m.op == "negate"]
        self.assertEqual(found, ["guard !(a > 0) else { return 0 }"])
        found = [m.mutated for m in mutants_of("    var n = a\n    while n > b { n -= 1 }\n    return n") if m.op == "negate"]
        self.assertEqual(found, ["while !(n > b) { n -= 1 }"])

    def test_condition_made_constant(self):
        found = sorted((m.op, m.mutated) for m in mutants_of("    guard a > 0 else { return 0 }\n    return a") if m.op.startswith("cond-"))
        self.assertEqual(found, [("cond-true", "guard true else { return 0 }")], "a guard that never exits; never one that always does")
        found = sorted((m.op, m.mutated) for m in mutants_of("    var c = 0\n    if a < b { c = 1 }\n    return c") if m.op.startswith("cond-"))
        self.assertEqual(found, [("cond-false", "if false { c = 1 }"), ("cond-true", "if true { c = 1 }")])
        self.assertNotIn("cond-true", ops("    var n = a\n    while n > b { n -= 1 }\n    return n"), "a loop made endless is a timeout, not a finding")

    def test_returned_bool_made_constant(self):
        found = sorted(m.mutated for m in mutants_of("    return a < b && b > 0", wrap=True) if m.op.startswith("return-"))
        self.assertEqual(found, ["return false", "return true"])
        self.assertEqual([m.mutated for m in mutants_of("    return true") if m.op.startswith("return-")], ["return false"])
        for boolean in ("!done", "items.isEmpty", "set.contains(a)", "a == b"):
            self.assertIn("return-true", ops("    return %s" % boolean), boolean)
        for other in ("a + b", "a < b ? 1 : 0", "f(a < b)", "x?.isEmpty ?? false"):
            self.assertNotIn("return-true", ops("    return %s" % other), other)
        self.assertNotIn("return-true", ops("    let c = a < b\n    return c"), "only what a return gives back")

    def test_multi_line_signatures(self):
        source = (
            "struct S {\n"
            "    let limit: Int\n"
            "    init(\n"
            "        limit: Int\n"
            "    ) {\n"
            "        self.limit = limit\n"
            "    }\n"
            "    func over<T: BinaryInteger>(\n"
            "        _ value: T\n"
            "    ) -> Bool\n"
            "        where T: Sendable {\n"
            "        return value > limit\n"
            "    }\n"
            "}\n")
        found = {(m.line, m.op) for m in mutants_of(source, wrap=False)}
        self.assertIn((12, "relational"), found, "a body after a signature over several lines is code")
        self.assertIn((12, "return-true"), found)
        self.assertNotIn((6, "remove"), found, "an initializer's assignment to a let stays, however its signature is laid out")

    def test_repeat_while_negated(self):
        found = [m.mutated for m in mutants_of("    var n = a\n    repeat {\n        n -= 1\n    } while n > b\n    return n") if m.op == "negate"]
        self.assertEqual(found, ["} while !(n > b)"])

    def test_constant_plus_and_minus_one(self):
        found = sorted(m.mutated for m in mutants_of("    let limit = 512\n    return limit") if m.op.startswith("constant"))
        self.assertEqual(found, ["let limit = 511", "let limit = 513"])
        found = [m.op for m in mutants_of("    let none = 0\n    return none") if m.op.startswith("constant")]
        self.assertEqual(found, ["constant+1"], "no constant below 0")

    def test_statement_removed(self):
        found = [m for m in mutants_of("    var c = a\n    c += b\n    return c") if m.op == "remove"]
        self.assertEqual([m.line for m in found], [3])

    def test_sync_call_removed(self):
        found = [m.op for m in mutants_of("    condition.signal()\n    group.leave()\n    done.wait()\n    return a")]
        self.assertEqual(found.count("sync-remove"), 3)
        self.assertNotIn("remove", found)

    def test_single_line_section_split(self):
        found = [m.mutated for m in mutants_of("    state.withLock { $0.a = 1; $0.b = 2 }\n    return a") if m.op == "split-section"]
        self.assertEqual(found, ["state.withLock { $0.a = 1 }; state.withLock { $0.b = 2 }"])

    def test_multi_line_section_split(self):
        body = "    state.withLock { s in\n        s.a = 1\n        s.b = 2\n    }\n    return a"
        found = [m for m in mutants_of(body) if m.op == "split-section"]
        self.assertEqual(len(found), 1)
        text, _ = swiftmut.plan_files([("S.swift", "func f() {\n%s\n}\n" % body)])[0].render()
        self.assertEqual(text.count("state.withLock { s in"), 3, "two halves and the original")

    def test_lock_region_split(self):
        body = "    lock.lock()\n    defer { lock.unlock() }\n    var c = a\n    c += b\n    return c"
        found = [m.mutated for m in mutants_of(body) if m.op == "split-section"]
        self.assertEqual(found, ["lock.unlock(); lock.lock() before: c += b", "lock.unlock(); lock.lock() before: return c"])


class LeftAloneTests(unittest.TestCase):
    def assertUntouched(self, body, wrap=True):
        self.assertEqual(mutants_of(body, wrap), [], body)

    def test_strings_and_comments(self):
        self.assertUntouched('    print("a < b, 3")\n    // if a < b { return 1 }\n    /* c = 2 */')
        self.assertEqual(ops('    let s = "x == 1"\n    use(s)'), ["remove"], "the string's == and 1 are not code")
        self.assertUntouched('    let s = """\n    if a < b { c = 1 }\n    """')

    def test_compiler_directives_and_attributes(self):
        self.assertUntouched("#if DEBUG && swift(>=6.0)\nlet x = 1\n#endif\n", wrap=False)
        self.assertUntouched("    @available(macOS 15, *)\n    func g() {}")

    def test_generic_brackets_and_arrows(self):
        self.assertUntouched("struct Box<T: Equatable> {\n    var items: Array<T> = []\n    func f() -> Int { 0 }\n}\n", wrap=False)
        self.assertEqual([m.op for m in mutants_of("    let xs = Array<Int>()\n    use(xs)")], ["remove"])

    def test_optional_binding_conditions(self):
        self.assertUntouched("    guard let c = Optional(a) else { return 0 }\n    if let d = Optional(b), d > 1 { }", wrap=True)
        self.assertUntouched("    if case .some = Optional(a) { }")

    def test_type_scope(self):
        self.assertUntouched("struct S {\n    let limit = 512\n    var flag = a < b\n}\n", wrap=False)

    def test_continuation_lines(self):
        self.assertUntouched("    return [a,\n        b + 1].count")
        body = "    let c = a\n        .advanced(by: 1)\n    _ = c"
        self.assertNotIn(2, [m.line for m in mutants_of(body)])
        self.assertNotIn(3, [m.line for m in mutants_of(body)])

    def test_defer_and_declarations(self):
        self.assertUntouched("    defer { state.unlock() }\n    return a")

    def test_checks_are_not_removed(self):
        self.assertUntouched('    precondition(true, "x")\n    assert(true)\n    return a')

    def test_sole_line_of_a_closure_is_not_removed(self):
        self.assertNotIn("remove", ops("    let f = {\n        compute()\n    }\n    return a"))

    def test_literal_loop_conditions(self):
        self.assertNotIn("negate", ops("    while true {\n        break\n    }\n    return a"))


class SchemataTests(unittest.TestCase):
    SAMPLE = """import Synchronization

final class Sample: @unchecked Sendable {
    private let state = Mutex((a: 0, b: 0))
    let limit = 3

    func step(_ n: Int) throws -> Int {
        var total = 0
        if n < limit { total += 1 }
        guard n >= 0 else { return -1 }
        state.withLock { $0.a += n; $0.b += 1 }
        state.withLock { s in
            s.a += 1
            s.b = s.a
        }
        let doubled = try twice(n)
        while total < 2 { total += 1 }
        return total + doubled
    }

    func twice(_ n: Int) throws -> Int { n * 2 }

    func small(_ n: Int) -> Bool {
        return n < limit && n >= 0
    }
}
"""

    def test_every_mutant_is_switched_by_its_id(self):
        plan = swiftmut.plan_files([("Sample.swift", self.SAMPLE)])[0]
        text, mapping = plan.render()
        ids = {m.id for m in plan.mutants}
        self.assertGreater(len(ids), 10)
        for i in ids:
            self.assertIn("%s(%d)" % (swiftmut.SWITCH, i), text)
        self.assertEqual(set().union(*mapping.values()), ids)

    def test_dropped_mutants_are_gone(self):
        plan = swiftmut.plan_files([("Sample.swift", self.SAMPLE)])[0]
        everything = {m.id for m in plan.mutants}
        text, mapping = plan.render(excluded=everything)
        self.assertNotIn("%s(" % swiftmut.SWITCH, text.replace("func %s(" % swiftmut.SWITCH, ""))
        self.assertEqual(mapping, {})

    @unittest.skipUnless(shutil.which("swiftc"), "swiftc not on the PATH")
    def test_schemata_type_check(self):
        plan = swiftmut.plan_files([("Sample.swift", self.SAMPLE)])[0]
        text, _ = plan.render()
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "Sample.swift")
            with open(path, "w") as f:
                f.write(text)
            result = subprocess.run(["swiftc", "-typecheck", "-swift-version", "6", path], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr + "\n" + text)


class HungRunTests(unittest.TestCase):
    """A mutant killed at the timeout is named by the rule checks the suite saw still running."""

    def test_still_running_lines_name_their_rules(self):
        import importlib.util
        spec = importlib.util.spec_from_file_location("mutate", os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutate.py"))
        mutate = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mutate)
        log = ("[0/1] Planning build\n"
               "rule suite [probe]: 76 checks of 48 rules, each within 60.0 s, all within 660 s\n"
               "rule suite [probe]: C1.4 already-completed tasks can be made directly: still running after 10.0 s (limit 60.0 s)\n"
               "rule suite [probe]: C1 outcome: 6 checks in 0.1 s, passed\n")
        self.assertEqual(mutate.STILL_RUNNING.findall(log), ["C1.4"])


class CrashedRunTests(unittest.TestCase):
    """A mutant whose run traps is killed as a crash, named by the rule the harness wrote first."""

    def test_named_trap_gives_its_rule(self):
        import importlib.util
        spec = importlib.util.spec_from_file_location("mutate", os.path.join(os.path.dirname(os.path.abspath(__file__)), "mutate.py"))
        mutate = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mutate)
        log = ("rule suite [gcd]: C5 combinators: 6 checks in 0.5 s, passed\n"
               "gcd: C5.1 broken: the process crashed in the rule check \"whenAll given tasks of another class\", at "
               "backend.whenAll([own, foreign]) (a task of another class taken for the backend's own?)\n"
               "threads: C2.7 broken: stack overflow in the resource check chain of 10000 links\n"
               "error: Exited with unexpected signal code 4\n")
        self.assertEqual(mutate.NAMED_TRAP.findall(log), ["C5.1", "C2.7"])
        self.assertEqual(mutate.BROKEN_RULE.findall(log), [])
        self.assertTrue(mutate.CRASH.search(log))


if __name__ == "__main__":
    unittest.main()
