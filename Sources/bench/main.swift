import Foundation
import TaskAPI

// The entry point is synchronous on purpose: valgrind's callgrind cannot run an async main, and
// the await scenario blocks on detached tasks instead (see `blockOn`).

_ = Progress.start
let backendNames = backendRegistry.map(\.name)
let scenarioNames = scenarioRegistry.map(\.name)
let usageText = usage(backends: backendNames, scenarios: scenarioRegistry.map { ($0.name, $0.summary) })

let status: Int32
do {
    switch try parseCommand(Array(CommandLine.arguments.dropFirst()), backends: backendNames, scenarios: scenarioNames) {
    case .help:
        print(usageText)
        status = 0
    case .stackProbe(let arguments):
        status = StackProbe.main(arguments)
    case .allocProbe(let arguments):
        status = AllocProbe.main(arguments)
    case .chainProbe(let arguments):
        status = ChainProbe.main(arguments)
    case .scalingProbe(let arguments):
        status = ScalingProbe.main(arguments)
    case .repetition(let arguments):
        status = Isolated.main(arguments)
    case .compare(let old, let new):
        status = runCompare(old: old, new: new)
    case .gate(let baseline, let new, let maxGrowth):
        status = runGate(baseline: baseline, new: new, maxGrowth: maxGrowth)
    case .show(let path, let format, let svg):
        if let problem = svg.flatMap(outputPathProblem) {
            printError("bench: \(problem)")
            status = 2
        } else if var report = readReport(path) {
            // The aims are those of this binary: a saved run is judged against today's aims.
            report.aims = evaluateAims(report.results, backends: report.backends)
            report.judgeScaling()
            report.judgeRatioStability()
            print(render(report, as: format), terminator: "")
            status = svg.map { writeChart(report, to: $0) } ?? 0
        } else {
            status = 1
        }
    case .run(let options):
        status = runBenchmark(options)
    }
} catch {
    printError("bench: \(error.message)\n")
    printError(usageText)
    status = 2
}
exit(status)
