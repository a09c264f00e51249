#!/usr/bin/env python3
"""Mutation analysis of Swift sources against the conformance check (issue 28).

Plants mutants in the listed files (ours or an outside backend's) as schemata in a copy of the
package, builds the copy once, and runs the test that calls `Conformance.checkAll` once per
mutant with MUTANT_ID=<id>: a mutant is killed when that test fails (or hangs past the timeout).
The real sources are never edited. See docs/CONFORMANCE.md, "Mutation analysis".

    Tools/mutation/mutate.py 'Sources/BackendKit/*.swift'                 # full: every mutant, default budget
    Tools/mutation/mutate.py --quick --sample 40 --shard 2/4 'Sources/BackendGCD/*.swift'
    Tools/mutation/mutate.py --list 'Sources/BackendKit/*.swift'          # the mutants only
    Tools/mutation/mutate.py --selftest                                   # the mutator's unit tests
"""

import argparse
import glob
import hashlib
import importlib.util
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swiftmut  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ERROR_LINE = re.compile(r"^(/[^:\n]+\.swift):(\d+):(\d+): error: (.*)$", re.M)
CRASH = re.compile(r"unexpected signal code \d+|Fatal error:|Illegal instruction|Segmentation fault")  # a trap or a fault
BROKEN_RULE = re.compile(r"\] (C\d\.\d+) broken")  # a finding's first line: "[gcd] C2.1 broken: ..."
# A trap the harness named before the process died of it: "gcd: C5.1 broken: the process crashed
# in the rule check ..." (CrashReporter.namingTraps), "gcd: C2.7 broken: stack overflow in ...".
NAMED_TRAP = re.compile(r"^[\w.-]+: (C\d\.\d+) broken: (?:the process crashed|stack overflow)", re.M)
STILL_RUNNING = re.compile(r"^rule suite \[[^\]]*\]: (C\d\.\d+) .*: still running after", re.M)  # a rule check hung
UNSET_CONSTANT = re.compile(r"(?:constant|variable) '(\w+)' (?:used|captured by a closure) before being initialized")
STRUCTURAL = {"remove", "sync-remove", "split-section"}
SKIP_DIRS = {".build", ".git", ".swiftpm", ".mutation"}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", help="Swift files or globs, relative to --package")
    p.add_argument("--targets", help="a file of globs, one a line (# comments), added to FILES")
    p.add_argument("--merge", nargs="+", metavar="RESULTS_JSON", help="merge the results of shards into one summary and stop")
    p.add_argument("--package", default=os.path.abspath(os.path.join(HERE, "..", "..")), help="the package root (default: this repository)")
    p.add_argument("--work", help="work folder for the copy, logs and results (default: <package>/.build/mutation)")
    p.add_argument("--test-filter", default="MeasuredCheckAllTests", help="`swift test --filter` of the test that runs checkAll")
    p.add_argument("--backend-variable", default="CONFORMANCE_MEASURE", help="environment variable naming the backend for that test")
    p.add_argument("--backend-for", action="append", default=[], metavar="SUBSTRING=NAMES",
                   help="mutants of files whose path contains SUBSTRING run on backends NAMES (comma-separated, in order, until one kills)")
    p.add_argument("--backends", default="gcd,threads,actors",
                   help="backends for files no --backend-for matches (default: gcd,threads,actors; BackendGCD/Threads/Actors paths map to their own)")
    p.add_argument("--quick", action="store_true", help="a shorter budget per mutant (--programs 100, resource checks at 10,000 links)")
    p.add_argument("--programs", type=int, help="CONFORMANCE_PROGRAMS per run (default 1,000; 100 with --quick)")
    p.add_argument("--sample", type=int, help="run N mutants drawn at random (with --seed) instead of all")
    p.add_argument("--seed", type=int, default=20261127, help="seed of the sample and CONFORMANCE_SEED of every run")
    p.add_argument("--ids", help="run only these mutants (comma-separated ids, e.g. a run's survivors at a larger budget)")
    p.add_argument("--shard", help="k/n: run the k-th of n disjoint slices of the (sampled) mutants")
    p.add_argument("--timeout", type=float, help="seconds a run may take before it counts as a hang (a kill); default 3x the baseline + 120")
    p.add_argument("--equivalents", default=os.path.join(HERE, "equivalent.txt"), help="file of mutants recorded as equivalent")
    p.add_argument("--results", help="JSON file the results are written to (default: <work>/results[-k-of-n].json)")
    p.add_argument("--markdown", help="also write the summary and survivors as Markdown to this file")
    p.add_argument("--coverage", metavar="LINES_JSON",
                   help="the lines the conformance runs reach (`Tools/coverage.py --lines FILE`): a survivor on a line no run "
                        "reached is reported apart (the runs never executed it; a shape, not a sharper check, is missing)")
    p.add_argument("--list", action="store_true", help="list the mutants and stop")
    p.add_argument("--no-build", action="store_true", help="run the copy as last built from this same plan (another run may be using it)")
    p.add_argument("--build-only", action="store_true", help="plant, build (dropping mutants that do not compile) and stop")
    p.add_argument("--skip-baseline", action="store_true", help="do not run the unmutated check first")
    p.add_argument("--selftest", action="store_true", help="run the mutator's unit tests and stop")
    return p.parse_args(argv)


# -- planning -------------------------------------------------------------------------------

def expand_files(package, patterns):
    files = []
    for pattern in patterns:
        matches = sorted(glob.glob(os.path.join(package, pattern), recursive=True))
        if not matches:
            sys.exit("mutate: no file matches %r under %s" % (pattern, package))
        for path in matches:
            rel = os.path.relpath(path, package)
            if rel.endswith(".swift") and rel not in files and os.path.basename(rel) != "main.swift":
                files.append(rel)
    return files


def backends_for(path, args):
    for rule in args.backend_for:
        substring, _, names = rule.partition("=")
        if substring and substring in path:
            return names.split(",")
    for directory, name in (("BackendGCD", "gcd"), ("BackendThreads", "threads"), ("BackendActors", "actors")):
        if directory in path:
            return [name]
    return args.backends.split(",")


def plan(package, files):
    sources = [(rel, open(os.path.join(package, rel), encoding="utf-8").read()) for rel in files]
    plans = swiftmut.plan_files(sources)
    for p in plans:
        texts = [line.text.strip() for line in p.lines]
        for m in p.mutants:
            # The equivalents file matches on the text; a line whose text occurs more than once in
            # its file gets its occurrence (`@2`: the second such line), so each is judged apart.
            same = [i for i, text in enumerate(texts) if text == m.original]
            m.label = m.mutated + (" @%d" % (same.index(m.line - 1) + 1) if len(same) > 1 else "")
    return plans


def select(mutants, args):
    chosen = list(mutants)
    if args.ids:
        wanted = {int(i) for i in args.ids.split(",") if i.strip()}
        chosen = [m for m in chosen if m.id in wanted]
    if args.sample is not None and args.sample < len(chosen):
        chosen = sorted(random.Random(args.seed).sample(chosen, args.sample), key=lambda m: m.id)
    if args.shard:
        k, n = parse_shard(args.shard)
        chosen = [m for i, m in enumerate(chosen) if i % n == k - 1]
    return chosen


def parse_shard(text):
    m = re.fullmatch(r"(\d+)/(\d+)", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        sys.exit("mutate: --shard must be k/n with 1 <= k <= n, not %r" % text)
    return int(m.group(1)), int(m.group(2))


def load_equivalents(path):
    """Lines `file :: operator :: mutated line :: why` (the report prints the first three)."""
    equivalents = {}
    if not os.path.exists(path):
        return equivalents
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [part.strip() for part in line.split(" :: ")]
        if len(parts) != 4 or not parts[3]:
            sys.exit("mutate: %s:%d: expected `file :: operator :: mutated line :: why`" % (path, number))
        equivalents[tuple(parts[:3])] = parts[3]
    return equivalents


# -- the copy and its build -----------------------------------------------------------------

def sync_copy(package, copy, overrides):
    """Makes `copy` the package with `overrides` (rel path -> text), writing only what differs,
    so the copy's own .build rebuilds only what changed."""
    wanted = set()
    for root, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".build")]
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), package)
            wanted.add(rel)
            target = os.path.join(copy, rel)
            if rel in overrides:
                data = overrides[rel].encode("utf-8")
            else:
                with open(os.path.join(package, rel), "rb") as f:
                    data = f.read()
            if os.path.exists(target):
                with open(target, "rb") as f:
                    if f.read() == data:
                        continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
    for root, dirs, names in os.walk(copy):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith(".build")]
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), copy)
            if rel not in wanted:
                os.remove(os.path.join(root, name))


def render_all(plans, excluded):
    texts, maps = {}, {}
    for p in plans:
        if p.mutants:
            texts[p.path], maps[p.path] = p.render(excluded)
    return texts, maps


def fingerprint(plans):
    """Identifies a plan: the mutator's code and every mutated file's path and text."""
    digest = hashlib.sha256()
    for name in ("swiftmut.py",):
        digest.update(open(os.path.join(HERE, name), "rb").read())
    for p in plans:
        digest.update(p.path.encode() + b"\0" + p.source.encode() + b"\0")
    return digest.hexdigest()


def build_schemata(package, copy, plans, log_dir, rounds=10):
    """Builds the copy with every mutant planted; drops the mutants on the lines the compiler
    rejects and builds again. Returns the set of dropped ids. The dropped set of the last build
    of the same plan is the starting point, so a second run does not repeat the rounds."""
    memo = os.path.join(os.path.dirname(copy), "dropped.json")
    key = fingerprint(plans)
    excluded = set()
    if os.path.exists(memo):
        saved = json.load(open(memo))
        if saved.get("fingerprint") == key:
            excluded = set(saved["dropped"])
    all_ids = {m.id for p in plans for m in p.mutants}
    ops = {m.id: m.op for p in plans for m in p.mutants}
    for attempt in range(1, rounds + 1):
        texts, maps = render_all(plans, excluded)
        sync_copy(package, copy, texts)
        started = time.time()
        result = subprocess.run(["swift", "build", "--build-tests"], cwd=copy, capture_output=True, text=True)
        output = result.stdout + result.stderr
        with open(os.path.join(log_dir, "build-%d.log" % attempt), "w") as f:
            f.write(output)
        if result.returncode == 0:
            with open(memo, "w") as f:
                json.dump({"fingerprint": key, "dropped": sorted(excluded)}, f)
            print("mutate: the schemata build passed (round %d, %.0f s): %d mutants planted, %d dropped as not compiling"
                  % (attempt, time.time() - started, len(all_ids - excluded), len(excluded)), flush=True)
            return excluded
        dropped = set()
        for path, line, _, message in ERROR_LINE.findall(output):
            rel = os.path.relpath(os.path.realpath(path), os.path.realpath(copy))
            line = int(line)
            if rel not in maps:
                sys.exit("mutate: the copy does not build, at a file with no mutant (%s:%d: %s); see %s"
                         % (rel, line, message, log_dir))
            ids = maps[rel].get(line)
            unset = UNSET_CONSTANT.search(message)
            if not ids and unset:
                # "constant 'x' used before being initialized": a removed assignment to x.
                assigns = re.compile(r"^\s*(self\.)?%s\s*=[^=]" % re.escape(unset.group(1)))
                ids = {m.id for p in plans if p.path == rel for m in p.mutants
                       if m.op in STRUCTURAL and assigns.match(m.original)} - excluded
            if not ids:
                # An error off every mutant line (a missing return, a constant used before it
                # is set): a removed statement or a split section above it is the likely cause;
                # drop the nearest such line's mutants (or, if none, the nearest line's).
                above = sorted((n for n in maps[rel] if n < line), reverse=True)
                structural = [n for n in above if any(ops[i] in STRUCTURAL for i in maps[rel][n])]
                ids = maps[rel][(structural or above)[0]] if above else set()
            dropped |= ids - excluded
        if not dropped:
            sys.exit("mutate: the schemata build failed and no mutant could be blamed; see %s" % log_dir)
        excluded |= dropped
        print("mutate: build round %d: %d mutants do not compile, dropped; building again" % (attempt, len(dropped)), flush=True)
    sys.exit("mutate: the schemata build still fails after %d rounds; see %s" % (rounds, log_dir))


# -- running --------------------------------------------------------------------------------

def descendants(pid):
    """Every process below `pid` (children first found through /proc)."""
    children = {}
    if not os.path.isdir("/proc"):
        return []  # macOS: the process group kill is all there is
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def run_check(copy, args, backend, mutant_id, timeout, log_path):
    env = dict(os.environ)
    env.pop("MUTANT_ID", None)
    if mutant_id is not None:
        env["MUTANT_ID"] = str(mutant_id)
    env[args.backend_variable] = backend
    env["CONFORMANCE_SEED"] = str(args.seed)
    env["CONFORMANCE_PROGRAMS"] = str(args.programs)  # the budget is the tool's: --programs or --quick
    env.setdefault("CONFORMANCE_SHRINK", "0")  # a kill needs no counterexample
    env.setdefault("CONFORMANCE_MAX_FAILURES", "1")
    if args.quick:
        env.setdefault("CONFORMANCE_STACK_LINKS", "10000")
    env.pop("CONFORMANCE_SHARD", None)
    started = time.time()
    # --ignore-lock: a run builds nothing, and two runs (or a run beside a build of the copy) may
    # share the copy's .build without waiting for each other.
    command = ["swift", "test", "--skip-build", "--ignore-lock", "--filter", args.test_filter]
    # Line-buffered: `swift test` writing to a file holds the test's output in a buffer, and a
    # hung mutant killed at the timeout left a log of "[0/1] Planning build" alone, without the
    # rule suite's "still running" lines or any "broken" line naming a rule.
    if shutil.which("stdbuf"):
        command = ["stdbuf", "-oL", "-eL"] + command
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=copy, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            # `swift test` runs the test binary in a process group of its own: kill the whole
            # tree, or a hung mutant's process keeps running (and taking a core) after the verdict.
            tree = descendants(process.pid)
            os.killpg(process.pid, 9)
            for pid in tree:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            process.wait()
            status = "timeout"
    elapsed = time.time() - started
    text = open(log_path, encoding="utf-8", errors="replace").read()
    if status != "timeout" and status != 0 and "error: no tests found" in text:
        sys.exit("mutate: --test-filter %r selects no test; see %s" % (args.test_filter, log_path))
    rules = []
    for rule in BROKEN_RULE.findall(text):
        if rule not in rules:
            rules.append(rule)
    if status == "timeout" and not rules:
        # Killed before any finding: the rules of the checks the suite saw still running.
        rules = list(dict.fromkeys(STILL_RUNNING.findall(text)))
    if status not in (0, "timeout"):
        named = [rule for rule in dict.fromkeys(NAMED_TRAP.findall(text)) if rule not in rules]
        if named or (not rules and CRASH.search(text)):
            # A crash is a kill (the test process died: `swift test` exits non-zero), named by
            # the rule the harness wrote before the trap when it did.
            status = "crash"
            rules += named
    return status, elapsed, rules[:4]


def main(argv):
    args = parse_args(argv)
    if args.selftest:
        import unittest
        suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py")
        sys.exit(0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1)
    if args.merge:
        merge(args)
        return
    if args.targets:
        args.files += [line.split("#")[0].strip() for line in open(args.targets, encoding="utf-8") if line.split("#")[0].strip()]
    if not args.files:
        sys.exit("mutate: give the Swift files (or globs) to mutate, or --selftest")
    args.package = os.path.abspath(args.package)
    if args.programs is None:
        args.programs = 100 if args.quick else 1000
    work = os.path.abspath(args.work or os.path.join(args.package, ".build", "mutation"))
    copy = os.path.join(work, "package")
    shard_tag = "-%s" % args.shard.replace("/", "-of-") if args.shard else ""
    log_dir = os.path.join(work, "logs" + shard_tag)
    os.makedirs(log_dir, exist_ok=True)

    files = expand_files(args.package, args.files)
    plans = plan(args.package, files)
    mutants = [m for p in plans for m in p.mutants]
    for m in mutants:
        m.backend = ",".join(backends_for(m.file, args))
    if args.list:
        for m in mutants:
            print("%4d %s:%d %-13s %s" % (m.id, m.file, m.line, m.op, m.label))
        print("mutate: %d mutants in %d files" % (len(mutants), len(files)))
        return
    equivalents = load_equivalents(args.equivalents)
    print("mutate: %d mutants planted in %d files; copy at %s" % (len(mutants), len(files), copy), flush=True)
    if args.no_build:
        memo = os.path.join(work, "dropped.json")
        saved = json.load(open(memo)) if os.path.exists(memo) else {}
        if saved.get("fingerprint") != fingerprint(plans):
            sys.exit("mutate: --no-build, but the copy was not built from this plan: run once without it")
        dropped = set(saved["dropped"])
    else:
        dropped = build_schemata(args.package, copy, plans, log_dir)
    if args.build_only:
        return
    live = [m for m in mutants if m.id not in dropped]
    chosen = select(live, args)
    timeout = args.timeout
    if not args.skip_baseline:
        for backend in sorted({b for m in chosen for b in m.backend.split(",")}):
            status, elapsed, _ = run_check(copy, args, backend, None, None, os.path.join(log_dir, "baseline-%s.log" % backend))
            print("mutate: baseline (no mutant) on %s: %s in %.0f s" % (backend, "passed" if status == 0 else "FAILED", elapsed), flush=True)
            if status != 0:
                sys.exit("mutate: the unmutated check fails on %s; a kill would mean nothing (see %s)" % (backend, log_dir))
            timeout = timeout or 3 * elapsed + 120
    timeout = timeout or 900
    print("mutate: running %d mutants (%s budget: %d programs, seed %d%s), timeout %.0f s"
          % (len(chosen), "quick" if args.quick else "default", args.programs, args.seed,
             ", shard " + args.shard if args.shard else "", timeout), flush=True)
    results = []
    for n, m in enumerate(chosen, 1):
        outcome = {"id": m.id, "file": m.file, "line": m.line, "op": m.op, "original": m.original, "mutated": m.label}
        outcome["killed"] = False
        for backend in m.backend.split(","):
            status, elapsed, rules = run_check(copy, args, backend, m.id, timeout, os.path.join(log_dir, "mutant-%d-%s.log" % (m.id, backend)))
            if status != 0:
                how = {"timeout": "hang", "crash": "crash"}.get(status, "failed")
                outcome.update(killed=True, by=backend, how=how, rules=rules, seconds=round(elapsed, 1))
                break
        outcome["equivalent"] = equivalents.get((m.file, m.op, m.label))
        results.append(outcome)
        verdict = ("killed on %s (%s)" % (outcome["by"], " ".join([outcome["how"]] + outcome["rules"]))) if outcome["killed"] else (
            "EQUIVALENT" if outcome["equivalent"] else "SURVIVED")
        print("mutate: [%d/%d] #%d %s:%d %s: %s" % (n, len(chosen), m.id, m.file, m.line, m.op, verdict), flush=True)
    apply_coverage(results, args.coverage, args.package)
    summary = summarize(results, len(mutants), len(dropped), args)
    print(summary)
    path = args.results or os.path.join(work, "results%s.json" % shard_tag)
    with open(path, "w") as f:
        json.dump({"args": vars(args), "planted": len(mutants), "dropped": len(dropped), "results": results}, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(summary)
    print("mutate: results in %s" % path)


def apply_coverage(results, path, package):
    """Marks each result with whether a conformance run reached its line (`reached`). `path` is
    `Tools/coverage.py --lines` output, or any `llvm-cov export -format=text` of the runs."""
    if not path:
        return
    lines = json.load(open(path, encoding="utf-8"))
    if "data" in lines:
        spec = importlib.util.spec_from_file_location("tools_coverage", os.path.join(HERE, "..", "coverage.py"))
        tools_coverage = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(tools_coverage)
        lines = tools_coverage.reached_lines(lines, root=package, keep=lambda rel: not rel.startswith(".."))
    for r in results:
        entry = lines.get(r["file"])
        r["reached"] = None if entry is None else r["line"] in set(entry["reached"])


def merge(args):
    """One summary of the shards' result files (the same plan: same files, seed and sample)."""
    results, planted, dropped, first = [], 0, 0, None
    for path in args.merge:
        data = json.load(open(path, encoding="utf-8"))
        first = first or data["args"]
        planted, dropped = max(planted, data["planted"]), max(dropped, data["dropped"])
        results += data["results"]
    ids = [r["id"] for r in results]
    if len(ids) != len(set(ids)):
        sys.exit("mutate: the result files overlap (a mutant appears twice): not shards of one run")
    apply_coverage(results, args.coverage, os.path.abspath(args.package))
    equivalents = load_equivalents(args.equivalents)  # as recorded now, not when the shard ran
    for r in results:
        r["equivalent"] = equivalents.get((r["file"], r["op"], r["mutated"]))
    shape = argparse.Namespace(**dict(first, shard="merged from %d shards" % len(args.merge)))
    summary = summarize(sorted(results, key=lambda r: r["id"]), planted, dropped, shape)
    print(summary)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(summary)


def summarize(results, planted, dropped, args):
    killed = [r for r in results if r["killed"]]
    equivalent = [r for r in results if not r["killed"] and r["equivalent"]]
    survivors = [r for r in results if not r["killed"] and not r["equivalent"]]
    counted = len(results) - len(equivalent)
    score = 100.0 * len(killed) / counted if counted else 0.0
    lines = ["", "## Mutation score: %.1f %% (%d of %d non-equivalent mutants killed)" % (score, len(killed), counted), ""]
    lines.append("%d mutants planted, %d dropped as not compiling, %d run (%s budget, %d programs, seed %d%s), %d recorded equivalent."
                 % (planted, dropped, len(results), "quick" if args.quick else "default", args.programs, args.seed,
                    ", shard " + args.shard if args.shard else "", len(equivalent)))
    by_op = {}
    for r in results:
        k = by_op.setdefault(r["op"], [0, 0])
        k[1] += 1
        k[0] += r["killed"]
    lines.append("")
    lines.append("| operator | killed / run |")
    lines.append("| --- | --- |")
    for op in sorted(by_op):
        lines.append("| %s | %d / %d |" % (op, by_op[op][0], by_op[op][1]))
    lines.append("")
    lines.append("### Survivors (%d)" % len(survivors))
    lines.append("")
    for r in survivors:
        unreached = " (no run reached this line)" if r.get("reached") is False else ""
        lines.append("- #%d `%s:%d` %s: `%s`%s" % (r["id"], r["file"], r["line"], r["op"], r["mutated"], unreached))
    if equivalent:
        lines.append("")
        lines.append("### Recorded equivalent (%d)" % len(equivalent))
        lines.append("")
        for r in equivalent:
            lines.append("- #%d `%s:%d` %s: `%s`: %s" % (r["id"], r["file"], r["line"], r["op"], r["mutated"], r["equivalent"]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main(sys.argv[1:])
