import Foundation

/// `bench [run]`: checks the output paths, measures every selected scenario, writes the report.
func runBenchmark(_ options: Options) -> Int32 {
    if let problem = outputProblem(options) {
        printError("bench: \(problem); nothing was measured")
        return 2
    }
    var valgrind: String?
    if options.instructions {
        valgrind = InstructionCounts.valgrind()
        if valgrind == nil {
            printError(
                "bench: --instructions needs valgrind, which is not installed here "
                    + "(Debian/Ubuntu: apt-get install valgrind); nothing was measured")
            return 2
        }
    }
    Children.stopOnSignals()
    let started = monotonicNanos()
    let machine = MachineInfo.current()
    Progress.note("machine: \(machine.summary)")
    let backends = options.backends.compactMap { name in backendRegistry.first { $0.name == name } }
    // Seconds per case per backend: the whole run stays near 100 s (--quick: 15 s) however many
    // backends are selected and however slow they are.
    // More rounds (`--rounds`) get a budget as much larger.
    let rounds = options.rounds ?? Plan.defaultRounds
    let budget = (options.quick ? 0.6 : 5.0) / Double(max(1, backends.count)) * Double(rounds) / Double(Plan.defaultRounds)
    var plan = Plan(quick: options.quick, cores: machine.cores, budget: budget)
    plan.rounds = rounds
    plan.slowdown = Slowdown(ProcessInfo.processInfo.environment[Slowdown.variable])
    if let slowdown = plan.slowdown {
        Progress.note("\(Slowdown.variable): \(slowdown.backend)'s chain links slowed by \(Int(slowdown.fraction * 100))%")
    }
    let context = ScenarioContext(backends: backends, plan: plan)
    var results: [Figure] = []
    var scenarios = options.scenarios
    for scenario in scenarioRegistry where options.scenarios.contains(scenario.name) {
        let start = monotonicNanos()
        results += scenario.run(context)
        Progress.note(String(format: "%@ done in %.1f s", scenario.name, Double(monotonicNanos() - start) / 1e9))
    }
    if let valgrind {
        let counted = InstructionCounts.cases(scenarios: options.scenarios)
        results += InstructionCounts.measure(counted, backends: options.backends, valgrind: valgrind, width: machine.cores)
        scenarios.append(InstructionCounts.scenario)
    }
    attachRatios(&results)
    var report = Report(
        schema: "bench-report/2",
        date: ISO8601DateFormatter().string(from: Date()),
        machine: machine,
        quick: options.quick,
        backends: options.backends,
        scenarios: scenarios,
        durationSeconds: Double(monotonicNanos() - started) / 1e9,
        loadAverageEnd: MachineInfo.loadAverage(),
        instructionTool: valgrind.map(InstructionCounts.toolVersion),
        results: results,
        aims: evaluateAims(results, backends: options.backends)
    )
    report.judgeScaling()
    report.judgeRatioStability()
    let text = render(report, as: options.format)
    if let path = options.output {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            Progress.note("report written to \(path)")
        } catch {
            printError("bench: cannot write \(path): \(error.localizedDescription)")
            print(text, terminator: "")  // the run is not lost: the report goes to standard output
            return 1
        }
    } else {
        print(text, terminator: "")
    }
    return options.svg.map { writeChart(report, to: $0) } ?? 0
}

/// Writes the report's SVG chart; the exit status (1 if it could not be written).
func writeChart(_ report: Report, to path: String) -> Int32 {
    do {
        try Data(renderSVG(report).utf8).write(to: URL(fileURLWithPath: path))
        Progress.note("chart written to \(path)")
        return 0
    } catch {
        printError("bench: cannot write \(path): \(error.localizedDescription)")
        return 1
    }
}

func runCompare(old: String, new: String) -> Int32 {
    guard let before = readReport(old), let after = readReport(new) else { return 1 }
    print(Comparison(old: before, new: after).text, terminator: "")
    return 0
}

/// A saved JSON report, or `nil` after saying on standard error why it could not be read.
func readReport(_ path: String) -> Report? {
    do {
        return try loadReport(path)
    } catch let error as DecodingError {
        printError("bench: \(path) is not a bench JSON report (\(error))")
    } catch {
        printError("bench: cannot read \(path): \(error.localizedDescription)")
    }
    return nil
}
