import Foundation

/// `bench __scaling-probe SERIES SUBJECT SIZE ROUNDS`: runs one point of one scaling curve, once,
/// with nothing else measured, and prints `ok` or `wrong`, the processor seconds it measured and
/// the nanoseconds per unit. The scaling scenario runs its largest points so
/// (`ScalingScenario.isolatedFrom`); a profiler runs it to see where a curve's cost goes
/// (docs/BENCHMARKS.md, "Scaling"), e.g. `valgrind --tool=callgrind bench __scaling-probe handlers gcd 16384 1`.
enum ScalingProbe {
    static let command = "__scaling-probe"

    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 4, let size = Int(arguments[2]), size > 0, let rounds = Int(arguments[3]), rounds > 0,
            let maker = ScalingScenario.makers.first(where: { $0.name == arguments[0] })
        else {
            let names = ScalingScenario.makers.map(\.name).joined(separator: ", ")
            printError("usage: bench \(command) SERIES SUBJECT SIZE ROUNDS (series: \(names))")
            return 2
        }
        let plan = Plan(quick: false, cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)), budget: .infinity)
        // Only the named backend: no other backend's threads start.
        let context = ScenarioContext(backends: backendRegistry.filter { $0.name == arguments[1] }, plan: plan)
        let series = maker.make(context)
        defer { series.stop() }
        guard let subject = series.subjects.first(where: { $0.name == arguments[1] }) else {
            printError("bench \(command): no subject '\(arguments[1])' in \(arguments[0])")
            return 2
        }
        // One small round first, untimed, as the scenario warms each subject up in its own
        // process: a point's first round would otherwise carry the process's first use of the
        // backend, which weighs most where a point has fewest rounds (the largest sizes).
        let warmed = subject.run(Swift.min(size, 1_000), 1).ok
        let (seconds, timedOK) = subject.run(size, rounds)
        let ok = warmed && timedOK
        print((ok ? "ok " : "wrong ") + "\(seconds) " + plainSignificant(seconds * 1e9 / Double(size * rounds)))
        return ok ? 0 : 1
    }

    /// One repetition of a point in a child process: its processor seconds and whether it was
    /// right; NaN seconds and not ok if the child failed.
    static func repetition(_ series: String, _ subject: String, size: Int, rounds: Int) -> (seconds: Double, ok: Bool) {
        let arguments = [command, series, subject, String(size), String(rounds)]
        guard let exit = Children.run(StackScenario.selfPath(), arguments) else { return (.nan, false) }
        let result = Isolated.parse(exit.output, exitStatus: exit.status)
        return (result.values.first ?? .nan, result.ok)
    }
}
