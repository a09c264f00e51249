/// Makes a random `Program` from a seed: the same seed gives the same program everywhere.
///
/// The generator keeps every program deadlock-free by construction: an operation only uses ids
/// made by earlier steps, and a blocking `wait()` is only generated on a task all of whose
/// sources have a completing step earlier in the program (held sources never), so the driver
/// that reaches the earliest blocked wait can always be unblocked by earlier steps.
public struct ProgramGenerator: Sendable {
    /// Largest number of steps before the final completions.
    public var maxSteps: Int
    /// Largest number of driver threads.
    public var maxDrivers: Int
    /// Smallest number of driver threads (at most `maxDrivers`).
    public var minDrivers: Int
    /// Whether programs may use timers (`delay`, `timeout`, `cancel(after:)`) and Swift tasks
    /// (`await`): work that a controlled run does not schedule. Controlled mode turns it off.
    public var usesOutsideWork = true

    public init(maxSteps: Int = 300, minDrivers: Int = 1, maxDrivers: Int = 4) {
        self.maxSteps = max(1, maxSteps)
        self.maxDrivers = max(1, maxDrivers)
        self.minDrivers = min(max(1, minDrivers), self.maxDrivers)
    }

    public func program(seed: UInt64) -> Program {
        var builder = ProgramBuilder(rng: SplitMix64(seed: seed), drivers: min(max(1, minDrivers), maxDrivers)...max(1, maxDrivers))
        builder.usesOutsideWork = usesOutsideWork
        let size = builder.size(max: maxSteps)
        while builder.steps.count < size { builder.addRandomStep() }
        builder.completeOpenSources()
        builder.addOwnStreamSteps(seed: seed)
        return Program(
            seed: seed, drivers: builder.drivers, serialExecutors: builder.serials,
            countingExecutors: builder.countings, steps: ForeignStream.marked(builder.steps, seed: seed)
        )
    }
}

/// The generator's state while it builds one program: what earlier steps made, which each
/// kind's `weight(in:)` reads and `generate(into:)` extends, and the draws they share.
struct ProgramBuilder {
    var rng: SplitMix64
    let drivers: Int
    let serials: Int
    let countings: Int
    var steps: [Step] = []
    var usesOutsideWork = true

    var nextTask = 0
    var nextToken = 0
    /// Tasks of type Int, not dropped: what continuations and combinators take.
    var intTasks: [Int] = []
    /// Every task not dropped: what waits, awaits and drops take.
    var liveTasks: [Int] = []
    var openSources: [Int] = []
    var completedSources: [Int] = []
    /// Sources released (C8.3): their tasks are completed, as if set, from the release on.
    var releasedSources: [Int] = []
    /// Prepared tasks with no start yet: pending like a held source until one comes (C9.3).
    var unstarted: [Int] = []
    var started: [Int] = []
    /// `Void` sources, whose setters' success takes no value.
    var voidSources: Set<Int> = []
    /// Sources a hosted setter takes: never released (the host keeps them).
    var hostedSetters: Set<Int> = []
    var sourcesDependedOn: [[Int]] = []
    var dependsOnHeld: [Bool] = []
    var tokens: [Int] = []
    /// User cancellation handlers registered so far (`h0..<handlers`).
    var handlers = 0
    /// Work groups not dropped, by the id of their first `idle()` task (C9.11).
    var groups: [Int] = []
    /// Groups with a blocking `wait()`, with the sources completed (or started) before the first
    /// one: they join only tasks that complete through those, as a `wait()` on the task itself would
    /// need at that step.
    var waitedGroups: [Int: Set<Int>] = [:]
    /// The tasks of `idle()` steps: never joined to a group (one may wait for itself).
    var idleTasks: Set<Int> = []
    /// The last continuation's antecedent and executor: often reused, for registration order (C2.4).
    var lastChain: (antecedent: Int, executor: ExecutorRef)?

    init(rng: SplitMix64, drivers range: ClosedRange<Int>) {
        self.rng = rng
        drivers = self.rng.int(in: range)
        serials = self.rng.int(in: 0...2)
        countings = self.rng.int(in: 0...2)
    }

    mutating func size(max: Int) -> Int {
        switch rng.weighted([60, 30, 10]) {
        case 0: return rng.int(in: 1...min(max, 20))
        case 1: return rng.int(in: min(max, 20)...min(max, 80))
        default: return rng.int(in: min(max, 80)...max)
        }
    }

    /// Draws a kind by the kinds' weights, in `OperationKind`'s order, and lets it add its steps.
    mutating func addRandomStep() {
        let kinds = OperationKind.allCases
        // A loop, not `map`: a closure would copy the builder (every array of it) per kind.
        var weights: [Int] = []
        weights.reserveCapacity(kinds.count)
        for kind in kinds { weights.append(kind.payloadType.weight(in: self)) }
        kinds[rng.weighted(weights)].payloadType.generate(into: &self)
    }

    /// The kinds with a stream of their own (`OperationPayload.ownStream`), in kind order, each
    /// drawn from `SplitMix64(seed: seed ^ salt)`: how many steps, then each step as its kind's
    /// `generate` draws it. The main stream is left where it was, and the steps go after every
    /// other, so a program keeps every line it had before the kind was added.
    mutating func addOwnStreamSteps(seed: UInt64) {
        let main = rng
        for kind in OperationKind.allCases {
            guard let stream = kind.payloadType.ownStream else { continue }
            rng = SplitMix64(seed: seed ^ stream.salt)
            for _ in 0..<rng.weighted(stream.steps) { kind.payloadType.generate(into: &self) }
        }
        rng = main
    }

    /// Every source not held gets a completing step, so every program can finish.
    mutating func completeOpenSources() {
        for source in openSources {
            add(
                .complete(
                    ProgramOperation.Complete(
                        source: source, outcome: setterOutcome(), throwing: rng.chance(30),
                        void: voidSources.contains(source))))
        }
        openSources = []
    }

    /// Whether some source can take a setter: open, or completed (a setter that loses).
    var hasSources: Bool { !openSources.isEmpty || !completedSources.isEmpty }

    // MARK: - Adding steps

    /// Adds `operation`, which makes task `nextTask` depending on `sources` (`held`: on a source
    /// the harness completes after the drivers). A `hidden` task (made inside a host, so only once
    /// the host ran) is taken by no later step.
    mutating func addTask(_ operation: ProgramOperation, sources: [Int], held: Bool, intValued: Bool = true, hidden: Bool = false) {
        add(operation)
        var unique: [Int] = []
        for source in sources where !unique.contains(source) { unique.append(source) }
        sourcesDependedOn.append(unique)
        dependsOnHeld.append(held)
        if !hidden {
            liveTasks.append(nextTask)
            if intValued { intTasks.append(nextTask) }
        }
        nextTask += 1
    }

    /// The sources `tasks` depend on, and whether any of them depends on a held one.
    func dependencies(_ tasks: [Int]) -> (sources: [Int], held: Bool) {
        (tasks.flatMap { sourcesDependedOn[$0] }, tasks.contains { dependsOnHeld[$0] })
    }

    /// The antecedent of a continuation: now and then (`reuse` percent) the last continuation's,
    /// with its executor, so that registration order (C2.4) has pairs to compare; else any task.
    mutating func continuationTarget(reuse: Int) -> (antecedent: Int, executor: ExecutorRef?)? {
        if let last = lastChain, intTasks.contains(last.antecedent), rng.chance(reuse) { return (last.antecedent, last.executor) }
        return rng.pick(intTasks).map { ($0, nil) }
    }

    /// Whether task `t` completes without the harness: none of its sources is held, and each has
    /// a completing step (or a start) earlier in the program. A blocking `wait()` may wait for it.
    func completesEarly(_ t: Int, through completedEarlier: Set<Int>? = nil) -> Bool {
        let completedEarlier = completedEarlier ?? self.completedEarlier
        return !dependsOnHeld[t] && sourcesDependedOn[t].allSatisfy { completedEarlier.contains($0) }
    }

    /// The sources with a completing step (or a start) so far.
    var completedEarlier: Set<Int> { Set(completedSources + releasedSources + started) }

    /// Adds `operation` for a driver drawn at random, with a pause drawn after it.
    mutating func add(_ operation: ProgramOperation) {
        steps.append(Step(driver: rng.below(drivers), operation: operation, pause: pause()))
    }

    // MARK: - Draws

    private mutating func pause() -> Pause {
        switch rng.weighted([40, 20, 25, 15]) {
        case 0: return .none
        case 1: return .yield(rng.int(in: 1...3))
        case 2: return .spin(rng.int(in: 10...2000))
        default: return .sleep(microseconds: rng.int(in: 1...200))
        }
    }

    mutating func setterOutcome() -> SetterOutcome {
        [SetterOutcome.success, .failure, .cancel][rng.weighted([60, 25, 15])]
    }

    mutating func body() -> BodyAction {
        [BodyAction.returns, .throwsError, .throwsCancellation, .checkpoint][rng.weighted([50, 15, 10, 25])]
    }

    mutating func token() -> Int? {
        rng.chance(40) ? rng.pick(tokens) : nil
    }

    mutating func executor() -> ExecutorRef {
        switch rng.weighted([40, 20, serials > 0 ? 25 : 0, countings > 0 ? 15 : 0]) {
        case 0: return .default
        case 1: return .inline
        case 2: return .serial(rng.below(serials))
        default: return .counting(rng.below(countings))
        }
    }

    /// A host for a call made from inside a continuation (on an earlier task, completed or not)
    /// or a job, on any executor, the inline one often (C2.7's shapes). `nesting`: the task the
    /// hosted call registers on; now and then the host is a continuation of that very task, so
    /// that the call registers on a task while it delivers (nested registration: C2.4, C2.7).
    mutating func host(nesting task: Int? = nil) -> CallHost {
        let executor = rng.chance(40) ? ExecutorRef.inline : self.executor()
        if let task, rng.chance(30) { return .continuation(of: task, on: executor) }
        if rng.chance(75), let task = rng.pick(liveTasks) { return .continuation(of: task, on: executor) }
        return .job(on: executor)
    }

    /// The task a body returns (C2.6, C9.5): an existing task of the program (with the sources it
    /// depends on), or one the body makes (new, succeeded, failed, cancelled).
    mutating func returnedTask() -> (inner: InnerTask, sources: [Int], held: Bool) {
        switch rng.weighted([40, 24, 14, 11, 11]) {
        case 0:
            guard let existing = rng.pick(intTasks) else { return (.new, [], false) }
            return (.existing(existing), sourcesDependedOn[existing], dependsOnHeld[existing])
        case 1: return (.new, [], false)
        case 2: return (.succeeded, [], false)
        case 3: return (.failed, [], false)
        default: return (.cancelled, [], false)
        }
    }

    mutating func combinatorKind() -> CombinatorKind {
        [CombinatorKind.whenAll, .whenAllSettled, .race, .any][rng.below(4)]
    }
}

/// A kind's own stream of draws (`OperationPayload.ownStream`).
struct OwnStream {
    /// Mixed into the program's seed: the stream's seed.
    let salt: UInt64
    /// How many steps of the kind a program gets: the weights of 0, 1, 2, ...
    let steps: [Int]
}
