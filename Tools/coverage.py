#!/usr/bin/env python3
"""Coverage of the code under test by the conformance runs alone (issue 28).

Builds the package with coverage instrumentation (in its own scratch path, .build/coverage, so
the normal build is untouched), runs the default `Conformance.checkAll` of each backend (the rule
suite, also on the backend's limit configurations, the resource checks and the generated
programs, through `MeasuredCheckAllTests` and `MeasuredPluginCheckAllTests`; no unit test runs),
merges the profiles with the toolchain's `llvm-profdata` and reports line and region coverage
with `llvm-cov`:

    Tools/coverage.py                       # build, run gcd, threads, actors, reference, plugin; report
    Tools/coverage.py --backends gcd        # one backend
    Tools/coverage.py --report-only         # report the profiles of the last runs again
    Tools/coverage.py --markdown table.md --regions unreached.md

`reference` (the ConformanceTests target's ReferenceBackend) and `plugin` (PluginTests'
PluginBackend, written as an outside author writes one) keep TaskAPI's default implementations,
which the package's three backends replace: they are how a measure reaches those defaults.

Groups: TaskAPI's default implementations (the files `DEFAULTS` names; globs, so files that move
keep their group by name), the rest of TaskAPI, BackendKit and each backend. A region no run
reached is listed with a guessed reason class, to be confirmed by hand: `planted-bug branch`
(behind `mutants.isOn`), `trap` (precondition/fatalError on an impossible state), `main thread
only (C9.8)`, `thread start failure`, `test-only SPI`, `not generated yet` (a shape or check to
add), ... Darwin-only code is not compiled on Linux and has no region. The classes in `EXCLUDED`
no conformance run can reach by construction: the last column leaves their unreached lines out
of the denominator (llvm-cov's own columns keep them) and says how many.
"""

import argparse
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SCRATCH = os.path.join(ROOT, ".build", "coverage")

# TaskAPI's default implementations: combinators, retry, delay and timeout, the cancellation
# source, prepared tasks, groups, the async bridge (file names, wherever they live).
DEFAULTS = [
    "AsyncTask+Combinators.swift", "AsyncTask+ContinueWith.swift", "AsyncTask+Unwrapping.swift",
    "TaskBackend+Race.swift", "TaskBackend+WhenAll.swift", "TaskBackend+Retry.swift", "TaskBackend+Run.swift",
    "AsyncTask+Timeout.swift", "StandardCancellationSource.swift", "CancellationState.swift",
    "PreparedTask.swift", "WorkGroup.swift", "TaskBackend+Async.swift", "AsyncTask+Await.swift",
    "AsyncTask+Isolated.swift", "TaskFactory+Continuations.swift", "LinkedCancellationSource.swift",
    "AsyncTask+Then.swift",
]
GROUPS = [
    ("TaskAPI default implementations", lambda rel: rel.startswith("Sources/TaskAPI/") and os.path.basename(rel) in DEFAULTS),
    ("TaskAPI (the rest)", lambda rel: rel.startswith("Sources/TaskAPI/") and os.path.basename(rel) not in DEFAULTS),
    ("BackendKit", lambda rel: rel.startswith("Sources/BackendKit/")),
    ("BackendGCD", lambda rel: rel.startswith("Sources/BackendGCD/")),
    ("BackendThreads", lambda rel: rel.startswith("Sources/BackendThreads/")),
    ("BackendActors", lambda rel: rel.startswith("Sources/BackendActors/")),
]
TRAP = re.compile(r"\b(preconditionFailure|fatalError|precondition|assertionFailure|assert|impossible)\s*\(")
# Read by hand: TaskAPI's check of the answer of a backend's array `whenAll` inside the tuple
# `whenAll` (a missing or mistyped value throws instead of trapping): only a backend that breaks
# C5.1 reaches it, as only a planted bug reaches a planted branch.
BROKEN_BACKEND_ONLY = [("Sources/TaskAPI/TaskBackend+WhenAll.swift", re.compile(r"unboxNext"))]
# Read by hand: lines that only a planted bug's flag makes run, whose flag is a constant `false`
# without the `PlantedBugs` trait (the serial executor's drain that ends before its last job).
PLANTED_LINES = [("Sources/BackendThreads/ThreadsExecutors.swift", re.compile(r"\bendsBeforeLast\b|\bif last\b"))]
# Read by hand: what only a trap's message reads (a state's description), per file and function.
TRAP_MESSAGES = [
    ("Sources/BackendKit/KitState.swift", re.compile(r"^(KitState\.description|KitState\.Event\.description)\.getter")),
    ("Sources/TaskAPI/TaskStateMachine.swift", re.compile(r"^TaskStateMachine\.stateDescription\.getter")),
]
PLANTED = re.compile(r"\bisOn\(")
# A constructor with parameters, the limit it sets, or what happens at that limit: reached only by
# a backend built with non-default parameters (issue 28's "backend configurations" class).
CONFIGURATION = re.compile(r"init\((workers|maxBlockedThreads|drainers|width|limit|name)|\.limit\.getter|maxBlockedThreads\.getter")
CONFIGURATION_TEXT = re.compile(r"reportLimit|limitReached|BackendDiagnostics|BackendConfigurationError")
# Serving the main executor on the process's main thread (C9.8): a test process's main thread is
# the test runner's, so no run in it can; the child processes of RuleTests' C9MainExecutorTests
# do, as unit tests.
MAIN_THREAD = re.compile(r"runMainLoop|drainMainLoop|ThreadsMainLoop\.(run\(until:\)|drain\(\)|runJob|isCurrent)|MainActorExecutor\.(serve|drain)")
# `pthread_create` failing: unreachable without fault injection.
THREAD_START_FAILURE = re.compile(r"if !spawned \{|if result != 0 \{")
# Constructors for the package's own mutant tests, not part of a user's API.
TEST_SPI = re.compile(r"@_spi\((Testing|Mutants)\)")
# Classes no conformance run can reach by construction. They stay in the plain columns; the
# "reachable" column leaves their unreached lines out of the denominator, and the tables say how
# many lines each group leaves out, so both figures are there to read.
EXCLUDED = ["planted-bug branch", "trap on impossible state", "empty base-class body", "main thread only (C9.8)",
            "thread start failure", "test-only SPI", "a broken backend's answer"]


def tool(name):
    for folder in (os.environ.get("SWIFT_TOOLCHAIN_BIN"), "/opt/swift/usr/bin"):
        if folder and os.path.exists(os.path.join(folder, name)):
            return os.path.join(folder, name)
    found = shutil.which(name)
    if not found:
        sys.exit("coverage: %s not found (set SWIFT_TOOLCHAIN_BIN to the toolchain's bin folder)" % name)
    return found


def group_of(rel):
    for name, test in GROUPS:
        if test(rel):
            return name
    return None


def run_backends(backends, profiles):
    os.makedirs(profiles, exist_ok=True)
    for old in glob.glob(os.path.join(SCRATCH, "debug", "codecov", "*.profraw")):
        os.remove(old)
    for backend in backends:
        for old in glob.glob(os.path.join(profiles, backend + "-*.profraw")):
            os.remove(old)
        env = dict(os.environ, CONFORMANCE_MEASURE=backend, LLVM_PROFILE_FILE=os.path.join(profiles, backend + "-%p-%m.profraw"))
        started = time.time()
        log = os.path.join(profiles, backend + ".log")
        with open(log, "w") as f:
            status = subprocess.call(
                ["swift", "test", "--skip-build", "--enable-code-coverage", "--scratch-path", SCRATCH, "--filter", "MeasuredCheckAllTests|MeasuredPluginCheckAllTests"],
                cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)
        summary = [line for line in open(log, errors="replace") if "base seed" in line and ("passed" in line or "failed" in line)]
        print("coverage: %s: %s in %.0f s%s" % (backend, "passed" if status == 0 else "FAILED (see %s)" % log, time.time() - started,
                                               "\n  " + summary[-1].strip() if summary else ""), flush=True)
        # `swift test --enable-code-coverage` may write its own profiles in codecov/: keep them.
        for raw in glob.glob(os.path.join(SCRATCH, "debug", "codecov", "*.profraw")):
            shutil.move(raw, os.path.join(profiles, "%s-swiftpm-%s" % (backend, os.path.basename(raw))))


def export(profiles, backends):
    """llvm-cov's JSON export of the merged profiles of `backends`' last runs."""
    raws = [raw for backend in backends for raw in glob.glob(os.path.join(profiles, backend + "-*.profraw"))]
    if not raws:
        sys.exit("coverage: no profile in %s: run without --report-only first" % profiles)
    merged = os.path.join(profiles, "-".join(backends) + ".profdata")
    subprocess.check_call([tool("llvm-profdata"), "merge", "-sparse", "-o", merged] + raws)
    binaries = glob.glob(os.path.join(SCRATCH, "debug", "*.xctest"))
    if not binaries:
        sys.exit("coverage: no test binary in %s/debug" % SCRATCH)
    out = subprocess.check_output([tool("llvm-cov"), "export", "-format=text", "-instr-profile=" + merged, binaries[0]])
    return json.loads(out)


def summarize(data, excluded=None):
    """Per group and per file: llvm-cov's lines covered and lines (summed over functions, so a
    closure's lines count for it and for its function), regions covered and regions; then the
    distinct source lines reached, the distinct lines with code, and those of `excluded` (per
    file) that the reachable column leaves out."""
    excluded = excluded or {}
    distinct = reached_lines(data)
    totals = {name: [0] * 7 for name, _ in GROUPS}
    files = {}
    for entry in data["data"][0]["files"]:
        rel = os.path.relpath(entry["filename"], ROOT)
        group = group_of(rel)
        if group is None:
            continue
        s = entry["summary"]
        lines = distinct.get(rel, {"reached": [], "code": []})
        row = [s["lines"]["covered"], s["lines"]["count"], s["regions"]["covered"], s["regions"]["count"],
               len(lines["reached"]), len(lines["code"]), excluded.get(rel, 0)]
        files[rel] = row
        totals[group] = [a + b for a, b in zip(totals[group], row)]
    return totals, files


def pct(covered, count):
    return "%.1f %%" % (100.0 * covered / count) if count else "n/a"


def table(totals, files, per_file):
    """The groups' table: llvm-cov's line and region coverage, then the distinct source lines
    reached of those no conformance run can be expected to reach left out (`EXCLUDED`; how many
    in "left out")."""
    lines = ["| code under test | lines | line coverage | regions | region coverage | left out | reachable lines reached |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, _ in GROUPS:
        lc, ln, rc, rn, dr, dn, ex = totals[name]
        lines.append("| %s | %d / %d | %s | %d / %d | %s | %d | %d / %d = %s |" % (
            name, lc, ln, pct(lc, ln), rc, rn, pct(rc, rn), ex, dr, dn - ex, pct(dr, dn - ex)))
    if per_file:
        lines += ["", "| file | line coverage | region coverage | reachable lines reached |", "| --- | ---: | ---: | ---: |"]
        for rel in sorted(files):
            lc, ln, rc, rn, dr, dn, ex = files[rel]
            lines.append("| %s | %s (%d missed) | %s (%d missed) | %s (%d missed, %d left out) |" % (
                rel, pct(lc, ln), ln - lc, pct(rc, rn), rn - rc, pct(dr, dn - ex), dn - ex - dr, ex))
    return "\n".join(lines) + "\n"


def unreached(data):
    """Per file, the outermost code regions with count 0: (first line, last line, function)."""
    regions = {}
    for function in data["data"][0]["functions"]:
        for filename in function["filenames"][:1]:
            rel = os.path.relpath(filename, ROOT)
            if group_of(rel) is None:
                continue
            for r in function["regions"]:
                line_start, col_start, line_end, col_end, count, file_id, _, kind = r[:8]
                if count == 0 and kind == 0 and file_id == 0:
                    regions.setdefault(rel, []).append((line_start, col_start, line_end, col_end, function["name"]))
    out = {}
    for rel, found in regions.items():
        found = sorted(set(found), key=lambda r: (r[0], r[1], -r[2], -r[3]))
        kept = []
        for r in found:
            if kept and (r[0], r[1]) >= (kept[-1][0], kept[-1][1]) and (r[2], r[3]) <= (kept[-1][2], kept[-1][3]):
                continue  # inside an unreached region already listed
            kept.append(r)
        out[rel] = kept
    return out


def demangle(names):
    demangler = shutil.which("swift-demangle") or os.path.join("/opt/swift/usr/bin", "swift-demangle")
    if not os.path.exists(demangler):
        return {n: n for n in names}
    result = subprocess.run([demangler, "--simplified", "--compact"], input="\n".join(names), capture_output=True, text=True)
    return dict(zip(names, result.stdout.splitlines()))


def classify(text, function):
    """A guess at why no run reached a region, from its text and its function's name."""
    if MAIN_THREAD.search(function):
        return "main thread only (C9.8)"
    if THREAD_START_FAILURE.search(text.split("\n")[0]):
        return "thread start failure"
    if TEST_SPI.search(text):
        return "test-only SPI"
    if PLANTED.search(text):
        return "planted-bug branch"
    lines = text.split("\n")
    # `text` ends with the line before the region. A region of up to 4 lines (a `case` and its
    # `impossible(...)`, a `guard ... else { assertionFailure(...); return }`) is searched whole,
    # a longer one on its first line and that context only: a body with a trap inside is no trap.
    if TRAP.search(text if len(lines) <= 5 else lines[0] + "\n" + lines[-1]):
        return "trap on impossible state"
    first = text.strip().split("\n")[0].strip()
    if re.search(r"\)\s*(->\s*[^{]+)?\{\s*\}$", first):
        return "empty base-class body"
    if CONFIGURATION.search(function) or CONFIGURATION_TEXT.search(text):
        return "non-default configuration"
    return "not generated yet"


def line_counts(segments):
    """{line: execution count} of the lines llvm-cov counts as code, from a file's segments
    ([line, column, count, has count, region entry, gap]), as llvm-cov's `LineCoverageStats`
    decides them, so that these lines add up to its summary."""
    by_line = {}
    for segment in segments:
        by_line.setdefault(segment[0], []).append(segment)
    out = {}
    wrapped = None  # the last segment of the last line that had segments
    for line in range(segments[0][0], segments[-1][0] + 1) if segments else []:
        here = by_line.get(line, [])
        starts = [s for s in here if s[3] and s[4] and not s[5]]
        skipped = bool(here) and not here[0][3] and here[0][4]
        mapped = (not skipped and ((wrapped is not None and wrapped[3]) or starts)) or any(s[3] and s[4] for s in here)
        if mapped:
            out[line] = max([wrapped[2] if wrapped is not None else 0] + [s[2] for s in starts])
        if here:
            wrapped = here[-1]
    return out


def reached_lines(data, root=ROOT, keep=lambda rel: group_of(rel) is not None):
    """Per file (relative to `root`, those `keep` accepts) of an llvm-cov export:
    {"reached": [lines a run executed], "code": [lines with code]}."""
    out = {}
    for entry in data["data"][0]["files"]:
        rel = os.path.relpath(entry["filename"], root)
        if not keep(rel):
            continue
        counts = line_counts(entry["segments"])
        out[rel] = {"reached": sorted(l for l, n in counts.items() if n > 0), "code": sorted(counts)}
    return out


def reached_regions(data):
    """(file, start line, start column, end line, end column) of every region a run reached."""
    reached = set()
    for function in data["data"][0]["functions"]:
        for filename in function["filenames"][:1]:
            rel = os.path.relpath(filename, ROOT)
            for r in function["regions"]:
                if r[4] > 0 and r[7] == 0 and r[5] == 0:
                    reached.add((rel, r[0], r[1], r[2], r[3]))
    return reached


def classified(data, reference=None):
    """Every region no run reached, as (file, start line, end line, function, reason), with its
    guessed class; with `reference` (the export of the reference backend's run), a region the
    reference reaches is a default the package's backends replace."""
    found = unreached(data)
    by_reference = reached_regions(reference) if reference else set()
    # Functions a planted branch calls (`claimApart()`), and flags it sets, are planted too.
    planted_names = set()
    for rel, regions in found.items():
        source = open(os.path.join(ROOT, rel), encoding="utf-8").read().split("\n")
        for number, line in enumerate(source, 1):
            if PLANTED.search(line):
                planted_names.update(re.findall(r"(\w+)\(", line.split("isOn(", 1)[1]))
                planted_names.update(re.findall(r"let (\w+) = mutants\.isOn", line))
    names = demangle(sorted({r[4].split(":")[-1] for rs in found.values() for r in rs}))
    out = []
    for rel in sorted(found):
        source = open(os.path.join(ROOT, rel), encoding="utf-8").read().split("\n")
        for start, col_start, end, col_end, function in found[rel]:
            text = "\n".join(source[start - 1 : end])
            context = source[start - 2] if start >= 2 else ""
            function_name = names.get(function.split(":")[-1], function)
            reason = classify(text + "\n" + context, function_name)
            # An assert's message spread over lines: the autoclosure's region starts below the call.
            if reason == "not generated yet" and function_name.startswith("implicit closure") and TRAP.search(
                    "\n".join(source[max(0, start - 4) : start - 1])):
                reason = "trap on impossible state"
            if any(rel == path and pattern.search(function_name) for path, pattern in TRAP_MESSAGES):
                reason = "trap on impossible state"
            if any(rel == path and pattern.search(source[start - 1]) for path, pattern in PLANTED_LINES):
                reason = "planted-bug branch"
            if any(rel == path and pattern.search(function_name) for path, pattern in BROKEN_BACKEND_ONLY):
                reason = "a broken backend's answer"
            base = re.sub(r"\(.*", "", function_name).split(".")[-1]
            if reason == "not generated yet" and (base in planted_names or any(re.search(r"\b%s\b" % n, text) for n in planted_names if n.startswith("ends"))):
                reason = "planted-bug branch"
            if reason == "not generated yet" and (rel, start, col_start, end, col_end) in by_reference:
                reason = "default the backends replace (the reference reaches it)"
            out.append((rel, start, end, function_name, reason))
    return out


def excluded_lines(data, regions):
    """Per group, the lines with code that no run reached inside regions of an `EXCLUDED` class
    (a line that some run reached is never left out)."""
    lines = reached_lines(data)
    per_file = {}
    for rel, start, end, _, reason in regions:
        if reason in EXCLUDED and rel in lines:
            per_file.setdefault(rel, set()).update(range(start, end + 1))
    out = {}
    for rel, candidates in per_file.items():
        code, reached = set(lines[rel]["code"]), set(lines[rel]["reached"])
        out[rel] = len((candidates & code) - reached)
    return out


def regions_report(regions):
    """The unreached regions as Markdown, per file, with their classes and a count of each."""
    lines = []
    counts = {}
    current = None
    for rel, start, end, function_name, reason in regions:
        if rel != current:
            if current is not None:
                lines.append("")
            lines += ["### %s" % rel, ""]
            current = rel
        source = open(os.path.join(ROOT, rel), encoding="utf-8").read().split("\n")
        counts[reason] = counts.get(reason, 0) + 1
        first = source[start - 1].strip()
        span = "%d" % start if start == end else "%d-%d" % (start, end)
        lines.append("- `%s:%s` (%s) in `%s`: `%s`" % (os.path.basename(rel), span, reason, function_name, first[:110]))
    lines.append("")
    head = ["%d unreached regions: %s." % (sum(counts.values()), ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items()))),
            "Left out of the reachable column: %s." % ", ".join(EXCLUDED), ""]
    return "\n".join(head + lines)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backends", default="gcd,threads,actors,reference,plugin",
                   help="backends whose checkAll runs (and whose profiles are merged); `reference` (the ConformanceTests "
                        "target's ReferenceBackend) and `plugin` (PluginTests' PluginBackend, written as an outside author "
                        "writes one) run the TaskAPI defaults the package's backends replace")
    p.add_argument("--reference-apart", action="store_true",
                   help="with --regions: mark the unreached regions the reference backend's last run reaches")
    p.add_argument("--report-only", action="store_true", help="report the profiles of the last run")
    p.add_argument("--per-file", action="store_true", help="also print each file's coverage")
    p.add_argument("--markdown", help="write the table(s) to this file")
    p.add_argument("--regions", help="write every unreached region, with its guessed reason, to this file")
    p.add_argument("--lines", help="write the lines the runs reached, per file (JSON), for `mutate.py --coverage`")
    args = p.parse_args(argv)
    profiles = os.path.join(SCRATCH, "profiles")
    if not args.report_only:
        print("coverage: building with --enable-code-coverage in %s" % SCRATCH, flush=True)
        subprocess.check_call(["swift", "build", "--build-tests", "--enable-code-coverage", "--scratch-path", SCRATCH], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
        run_backends(args.backends.split(","), profiles)
    data = export(profiles, args.backends.split(","))
    reference = None
    if args.reference_apart and "reference" not in args.backends.split(","):
        reference = export(profiles, ["reference"])
    regions = classified(data, reference)
    totals, files = summarize(data, excluded_lines(data, regions))
    text = table(totals, files, args.per_file)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table(totals, files, True))
    if args.lines:
        with open(args.lines, "w") as f:
            json.dump(reached_lines(data), f)
    if args.regions:
        with open(args.regions, "w") as f:
            f.write(regions_report(regions))
        print("coverage: unreached regions in %s" % args.regions)


if __name__ == "__main__":
    main(sys.argv[1:])
