import Foundation

/// Timed repetitions in child processes of their own, for every timed case: those whose figures
/// cross threads (hop, fan-out, contention, await, the default-executor chain) and the inline
/// chains.
///
/// Why: such a figure is bimodal on a shared machine (pool threads kept spinning or put to sleep,
/// two racing threads on two cores or time-sharing one), and the mode lasts longer than a
/// repetition: every repetition taken in one process lands in the same mode, and the next
/// process may land in the other. `bench compare`'s rank test assumes independent repetitions;
/// taken in one process they are not, and a mode switch between two runs looked like a change.
/// In a process each, the repetitions sample the modes as two runs do, so the test and the spread
/// rule (`Comparison.noiseOf`) see that variance inside each run. The inline chains run on one
/// thread but are bimodal between processes too (the same binary: 173-175 ns/link in every
/// repetition of one run, 228-248 in the next, most likely where the address layout put the hot
/// data), so they take a process per repetition as well.
///
/// The parent still warms every subject up in its own process to fit sizes (see `RoundRobin`);
/// each child builds the same subjects from the same plan, warms the named one up, runs it once
/// at the given size and prints what it measured. `--quick` keeps its repetitions in process:
/// it trades this independence for speed (its aim allows 2 false changes per pair of runs).
enum Isolated {
    static let command = "__repetition"
    /// Joins the subjects of a child that measures several, interleaved (`gcd+dispatch`).
    static let pairSeparator = "+"

    /// What a child measured: the figures of its one timed run (seconds for a round-robin
    /// subject, nanosecond latency samples for a hop subject), and whether its result was right.
    struct ChildFigures {
        var values: [Double]
        var ok: Bool
    }

    /// How a child makes the subjects of one case: the same code the parent measures with.
    enum Maker {
        /// Round-robin subjects, and what to stop once measured (thread pools).
        case rounds(@Sendable (ScenarioContext) -> (subjects: [RoundRobin.Subject], stop: () -> Void))
        /// Latency samplers for `total` samples, and what to stop once measured.
        case samples(@Sendable (ScenarioContext, _ total: Int?) -> (specs: [Sampler.Spec], stop: () -> Void))
    }

    /// Every isolated case, by variant (the case name without its size).
    static let makers: [String: Maker] = [
        "hop.default": .samples(HopScenario.specs),
        "hop.serial": .samples(HopScenario.specs),
        "hop.default-warm": .samples(HopScenario.specs),
        "hop.default-parked": .samples(HopScenario.specs),
        "fanout.whenAll": .rounds(FanoutScenario.subjects),
        "contention.register-race": .rounds(ContentionScenario.subjects),
        AwaitScenario.runValue: .rounds(AwaitScenario.subjects),
        AwaitScenario.completedValue: .rounds(AwaitScenario.completedSubjects),
        "chain.completed-inline": .rounds(ChainScenario.completedInlineSubjects),
        "chain.completed-default": .rounds(ChainScenario.completedDefaultSubjects),
        "chain.pending-inline": .rounds(ChainScenario.pendingInlineSubjects)
    ]

    /// One timed run of `size` items of each of `subjects` after a warm-up of `warm` of each, in
    /// one process; several run in turn and then in reverse (A, B, C, C, B, A), each one's figure
    /// the mean of its two runs, so that none always runs first. The seconds of each in turn.
    private static func timedTogether(_ subjects: [RoundRobin.Subject], size: Int, warm: Int) -> ChildFigures {
        var ok = true
        if warm > 0 {
            for subject in subjects { ok = subject.run(warm).ok && ok }
        }
        let order = subjects.count > 1 ? Array(subjects.indices) + subjects.indices.reversed() : Array(subjects.indices)
        var seconds = [Double](repeating: 0, count: subjects.count)
        for index in order {
            let timed = subjects[index].run(size)
            ok = ok && timed.ok && timed.seconds.isFinite
            seconds[index] += timed.seconds
        }
        let runs = Double(order.count / subjects.count)
        return ChildFigures(values: seconds.map { $0 / runs }, ok: ok)
    }

    /// `size` samples of each of `specs` after `warm` of each, taken in turn (the order reversed
    /// every other sample, so that neither always follows the other); each one's values in turn.
    private static func interleaved(_ specs: [Sampler.Spec], size: Int, warm: Int) -> ChildFigures {
        for _ in 0..<warm {
            for spec in specs { _ = spec.paced() }
        }
        var values = [[Double]](repeating: [], count: specs.count)
        for sample in 0..<size {
            let order = sample.isMultiple(of: 2) ? Array(specs.indices) : specs.indices.reversed()
            for index in order { values[index].append(Double(specs[index].paced())) }
        }
        return ChildFigures(values: values.flatMap { $0 }, ok: true)
    }

    /// Runs one repetition of `subject` in `variant` in a child process: `warm` items to warm up,
    /// then `size` timed. `nil` values with `ok` false if the child failed.
    static func repetition(_ variant: String, subject: String, size: Int, warm: Int) -> ChildFigures {
        let arguments = [command, variant, subject, String(size), String(warm)]
        guard let exit = Children.run(StackScenario.selfPath(), arguments) else { return ChildFigures(values: [], ok: false) }
        return parse(exit.output, exitStatus: exit.status)
    }

    /// A child's output: `ok` or `wrong`, then its values, separated by spaces.
    static func parse(_ output: String, exitStatus: Int32) -> ChildFigures {
        let words = output.split(whereSeparator: \.isWhitespace)
        guard exitStatus == 0 || exitStatus == 1, let verdict = words.first, verdict == "ok" || verdict == "wrong" else {
            return ChildFigures(values: [], ok: false)
        }
        let values = words.dropFirst().compactMap { Double($0) }
        guard values.count == words.count - 1, !values.isEmpty else { return ChildFigures(values: [], ok: false) }
        return ChildFigures(values: values, ok: verdict == "ok")
    }

    /// The child: `bench __repetition VARIANT SUBJECT SIZE WARM`, SUBJECT one subject's name or
    /// several joined by `pairSeparator` (`gcd+dispatch`), measured in this one process. Prints
    /// `ok` or `wrong` and the values (each subject's in turn); exit status 0, 1 for a wrong
    /// result, 2 for bad arguments. Its plan is a default
    /// run's: only a default run isolates its repetitions (`Plan.isolates`).
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 4, let maker = makers[arguments[0]], let size = Int(arguments[2]), size > 0,
            let warm = Int(arguments[3]), warm >= 0
        else {
            printError("usage: bench \(command) VARIANT SUBJECT SIZE WARM")
            return 2
        }
        let subject = arguments[1]
        var plan = Plan(quick: false, cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)), budget: .infinity)
        plan.slowdown = Slowdown(ProcessInfo.processInfo.environment[Slowdown.variable])
        // Only the named backends: no other backend's threads start in the child.
        let names = subject.split(separator: pairSeparator).map(String.init)
        let context = ScenarioContext(backends: backendRegistry.filter { names.contains($0.name) }, plan: plan)
        let result: ChildFigures?
        switch maker {
        case .rounds(let make):
            let (subjects, stop) = make(context)
            defer { stop() }
            let named = names.compactMap { name in subjects.first { $0.name == name } }
            result = named.count == names.count ? timedTogether(named, size: size, warm: warm) : nil
        case .samples(let make):
            let (specs, stop) = make(context, warm + size)
            defer { stop() }
            let named = names.compactMap { name in
                specs.first { $0.caseName.hasPrefix(arguments[0] + "@") && $0.subject == name }
            }
            result = named.count == names.count ? interleaved(named, size: size, warm: warm) : nil
        }
        guard let result else {
            printError("bench \(command): no subject '\(subject)' in \(arguments[0])")
            return 2
        }
        print(([result.ok ? "ok" : "wrong"] + result.values.map { String($0) }).joined(separator: " "))
        return result.ok ? 0 : 1
    }
}
