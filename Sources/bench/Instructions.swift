import Foundation

/// `--instructions`: instructions executed per chain link (and, when the run measures them, per
/// fanned-out task and per `await`), counted by valgrind's callgrind. Each count runs one of this binary's
/// child modes under callgrind at two sizes; the difference divided by the extra items cancels
/// start-up and set-up, leaving the cost of one item. Unlike a time, the count does not move
/// with the machine's load: the figure to quote and to gate on.
enum InstructionCounts {
    static let scenario = "instructions"

    /// The valgrind executable, or `nil` when none is installed.
    static func valgrind() -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/valgrind" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// What `--instructions` was measured with, e.g. `valgrind-3.19.0`.
    static func toolVersion(_ valgrind: String) -> String {
        runCommand(valgrind, ["--version"])?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "valgrind"
    }

    /// Counts per figure on the default executor, whose median is the figure: how long a pool's
    /// idle threads poll and when the allocator consolidates its free chunks depend on how
    /// callgrind interleaves the threads. At 2,000 and 4,000 links one binary's gcd link counted
    /// 2,086 to 2,301 in three counts, 2,002 to 2,170 in four of the next (docs/BENCHMARKS.md,
    /// "Ratio stability"); at 20,000 and 40,000 (`CountedCase.small`) gcd's spread 1,849 to
    /// 1,952 in a run beside other work, and Dispatch's chain once counted 1,382 against 1,658
    /// and 1,671. The inline chains, on one thread, count the same every time: one count each.
    static let poolRepetitions = 3

    /// The chain cases, counted in every run with `--instructions`.
    static let chainCases: [CountedCase] = [
        .chain("completed-inline", baseline: "closure"),
        .chain("completed-default", baseline: "dispatch"),
        .chain("pending-inline", baseline: "closure")
    ]

    /// The cases a run counts: the chains always; the fan-out and the `await`s when the run
    /// measures them.
    static func cases(scenarios: [String]) -> [CountedCase] {
        chainCases + (scenarios.contains(FanoutScenario.name) ? [.fanout] : [])
            + (scenarios.contains(AwaitScenario.name) ? CountedCase.awaits : [])
    }

    /// Counts `cases` for `backends` and each case's baselines, `width` valgrind runs at a time.
    static func measure(_ cases: [CountedCase], backends: [String], valgrind: String, width: Int) -> [Figure] {
        // valgrind refuses the DWARF that Swift emits: it runs a copy without debug information.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-callgrind-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let stripped = directory.appendingPathComponent("bench").path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            return [failed("could not create \(directory.path): \(error.localizedDescription)")]
        }
        guard runCommand("/usr/bin/env", ["objcopy", "--strip-debug", StackScenario.selfPath(), stripped]) != nil else {
            return [failed("objcopy --strip-debug failed (is binutils installed?)")]
        }
        if let unmatched = unmatchedExclusions(cases, in: stripped) { return [failed(unmatched)] }
        let jobs = cases.flatMap { $0.jobs(backends: backends) }
        Progress.note(
            "instructions: \(jobs.count) figures ("
                + cases.map { "\($0.name) at \($0.small) and \($0.large)" }.joined(separator: ", ")
                + "), \(width) at a time")
        let slowdown = Slowdown(ProcessInfo.processInfo.environment[Slowdown.variable])
        let counts = runConcurrently(
            jobs.map { job in
                { @Sendable () -> (counts: [Double]?, note: String?) in
                    let probe = Probe(
                        counted: job.counted, subject: job.subject, valgrind: valgrind, binary: stripped, directory: directory.path)
                    // BENCH_SLOWDOWN slows the chains' links, which the gate and compare read.
                    if let slowdown, slowdown.backend == job.subject, job.counted.chainCase != nil {
                        let slowed = probe.slowed(by: slowdown.fraction)
                        return (slowed.count.map { [$0] }, slowed.note)
                    }
                    let repetitions = job.counted.repetitions
                    let counts = (0..<repetitions).compactMap { _ in probe.perItem()?.rounded() }
                    return (counts.count == repetitions ? counts : nil, nil)
                }
            }, width: width)
        return zip(jobs, counts).map { job, counted in
            var m = Figure(
                scenario: scenario, caseName: job.counted.caseName,
                subject: job.subject, kind: job.kind, unit: job.counted.unit, better: .lower,
                values: counted.counts ?? [.nan], baseline: job.baseline,
                note: counted.counts == nil ? "callgrind failed" : counted.note)
            m.tolerance = job.counted.tolerance
            Progress.note("instructions: \(m.caseName) \(job.subject): \(formatNumber(m.median))")
            return m
        }
    }

    /// Why the counts would be wrong, or nil: a function a case leaves out
    /// (`CountedCase.excludedFunctions`, a pattern on the mangled name) that names no function of
    /// `binary` or of a shared library it loads (`ldd`: the mutex's slow paths are
    /// libswiftSynchronization's). A renamed function would otherwise be counted again without a
    /// word (its polls add tens of thousands of instructions per item), so the run says so and
    /// counts nothing.
    private static func unmatchedExclusions(_ cases: [CountedCase], in binary: String) -> String? {
        let patterns = Set(cases.flatMap(\.excludedFunctions))
        guard !patterns.isEmpty else { return nil }
        guard let listing = runCommand("/usr/bin/env", ["nm", "--defined-only", binary]) else {
            return "nm --defined-only failed (is binutils installed?)"
        }
        var symbols = symbolNames(listing)
        var unmatched = patterns.filter { pattern in !symbols.contains { fnmatch(pattern, $0, 0) == 0 } }
        if !unmatched.isEmpty {
            // `ldd` lists "name => /path (address)"; a library's exported functions by `nm -D`.
            let libraries = (runCommand("/usr/bin/env", ["ldd", binary]) ?? "").split(separator: "\n").compactMap {
                line in line.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("/") }.map(String.init)
            }
            symbols = libraries.flatMap { symbolNames(runCommand("/usr/bin/env", ["nm", "-D", "--defined-only", $0]) ?? "") }
            unmatched = unmatched.filter { pattern in !symbols.contains { fnmatch(pattern, $0, 0) == 0 } }
        }
        guard !unmatched.isEmpty else { return nil }
        return "the function(s) left out of the counts, \(unmatched.sorted().joined(separator: ", ")), match no "
            + "symbol of the binary (renamed?): update CountedCase.excludedFunctions"
    }

    /// The symbol names of an `nm` listing (the last field of each line).
    private static func symbolNames(_ listing: String) -> [String] {
        listing.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    private static func failed(_ why: String) -> Figure {
        printError("bench: --instructions: \(why)")
        return Figure(
            scenario: scenario, caseName: "\(scenario).unavailable", subject: "closure",
            kind: .baseline, unit: "instr/link", better: .lower, values: [.nan], note: why)
    }

    /// One counted case of one subject, counted by callgrind.
    struct Probe: Sendable {
        let counted: CountedCase
        let subject: String
        let valgrind: String
        let binary: String
        let directory: String

        /// Instructions per item (link, task): (count at `large` - count at `small`) / (`large`
        /// - `small`), unrounded; `environment` changes the probe's (a `nil` value removes a
        /// variable).
        func perItem(_ environment: [String: String?] = [:]) -> Double? {
            let (small, large) = (counted.small, counted.large)
            guard let low = total(small, environment), let high = total(large, environment) else { return nil }
            return (Double(high) - Double(low)) / Double(large - small)
        }

        /// The count of a link slowed by `fraction` of its own count (`BENCH_SLOWDOWN` under
        /// `--instructions`), calibrated by instructions: the link's own count B (the slowdown
        /// off), the slowed body's at 0 and at K₁ iterations of its work (a line: a fixed
        /// cost plus a cost per iteration), then the count at the iterations that add
        /// `fraction` × B, which is the figure. The note says what was added, as counted.
        func slowed(by fraction: Double) -> (count: Double?, note: String?) {
            let iterations = Slowdown.iterationsVariable
            guard let own = perItem([Slowdown.variable: nil, iterations: nil]),
                let atZero = perItem([iterations: "0"])
            else { return (nil, nil) }
            let probeIterations = max(16, Int(fraction * own / 10))
            guard let atProbe = perItem([iterations: String(probeIterations)]) else { return (nil, nil) }
            let perIteration = (atProbe - atZero) / Double(probeIterations)
            let fixed = atZero - own
            guard perIteration > 0 else { return (nil, "slowdown calibration failed: no cost per iteration") }
            let needed = max(0, Int(((fraction * own - fixed) / perIteration).rounded()))
            guard let count = perItem([iterations: String(needed)]) else { return (nil, nil) }
            let added = (count - own) / own * 100
            let note = String(
                format: "slowed down on purpose (%@): +%.1f%% of its own %.0f instructions (%d iterations of %.1f, %.0f fixed)",
                Slowdown.variable, added, own, needed, perIteration, fixed)
            return (count.rounded(), note)
        }

        /// Instructions callgrind counted for one probe run (every thread together).
        private func total(_ items: Int, _ changes: [String: String?]) -> Int? {
            let tag = changes.isEmpty ? "" : "-" + changes.keys.sorted().map { "\($0)=\((changes[$0] ?? nil) ?? "")" }.joined()
            let output = "\(directory)/callgrind-\(counted.name)-\(subject)-\(items)\(tag).out"
            var environment = ProcessInfo.processInfo.environment
            // Swift seeds its hash function per process; a fixed seed makes the count repeatable.
            environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
            for (name, value) in changes { environment[name] = value }
            // `--collect-atstart` after the toggles: a toggle makes collection start off.
            let toggles = counted.excludedFunctions.map { "--toggle-collect=\($0)" }
            let arguments =
                ["--tool=callgrind"] + toggles + (toggles.isEmpty ? [] : ["--collect-atstart=yes"])
                + ["--callgrind-out-file=\(output)", binary] + counted.child(subject, items)
            guard let exit = Children.run(valgrind, arguments, environment: environment), exit.status == 0,
                let text = try? String(contentsOfFile: output, encoding: .utf8)
            else { return nil }
            // The profile ends with "summary: N" (older versions: "totals: N"), N the instructions.
            for line in text.split(separator: "\n") where line.hasPrefix("summary:") || line.hasPrefix("totals:") {
                if let count = line.split(separator: " ").last.flatMap({ Int($0) }) { return count }
            }
            return nil
        }
    }
}

/// The child side of `--instructions`: `bench __chain-probe CASE SUBJECT N` builds and runs one
/// chain of N links, synchronously on the main thread (callgrind cannot run an async entry
/// point), and prints `ok` if its value is right.
enum ChainProbe {
    static let command = "__chain-probe"

    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, let n = Int(arguments[2]), n > 0,
            InstructionCounts.chainCases.contains(where: { $0.chainCase == arguments[0] })
        else {
            printError("usage: bench \(command) CASE SUBJECT N")
            return 2
        }
        let ok: Bool
        switch (arguments[0], arguments[1]) {
        case (_, "closure"): ok = closureChainSeconds(n, prefault: false) >= 0
        case (_, "dispatch"): ok = dispatchChainSeconds(n) >= 0
        case (let name, let subject):
            guard let backend = backendRegistry.first(where: { $0.name == subject }) else {
                printError("bench \(command): unknown subject '\(subject)'")
                return 2
            }
            // BENCH_SLOWDOWN reaches the counted chains too, as a fixed amount of work per link.
            let slowdown = Slowdown(ProcessInfo.processInfo.environment[Slowdown.variable])
            let link: ChainScenario.Link =
                slowdown?.backend == subject
                ? Slowdown.countedLink(iterations: Slowdown.countedIterations(slowdown?.fraction ?? 0)) : .plain
            switch name {
            case "completed-inline": ok = ChainScenario.completedChain(backend, backend.inlineExecutor, n, link: link).ok
            case "completed-default": ok = ChainScenario.completedChain(backend, backend.defaultExecutor, n, link: link).ok
            default: ok = ChainScenario.pendingChain(backend, backend.inlineExecutor, n, link: link).ok
            }
        }
        print(ok ? "ok" : "wrong")
        return ok ? 0 : 1
    }
}
