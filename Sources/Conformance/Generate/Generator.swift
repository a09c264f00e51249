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
    /// Whether programs may use timers (`delay`, `timeout`, `cancel(after:)`) and Swift tasks
    /// (`await`): work that a controlled run does not schedule. Controlled mode turns it off.
    public var usesOutsideWork = true

    public init(maxSteps: Int = 300, maxDrivers: Int = 4) {
        self.maxSteps = max(1, maxSteps)
        self.maxDrivers = max(1, maxDrivers)
    }

    public func program(seed: UInt64) -> Program {
        var builder = Builder(rng: SplitMix64(seed: seed), maxDrivers: maxDrivers)
        builder.usesOutsideWork = usesOutsideWork
        let size = builder.size(max: maxSteps)
        while builder.steps.count < size { builder.addRandomStep() }
        builder.completeOpenSources()
        return Program(
            seed: seed, drivers: builder.drivers, serialExecutors: builder.serials,
            countingExecutors: builder.countings, steps: builder.steps
        )
    }
}

/// The generator's state while it builds one program.
private struct Builder {
    var rng: SplitMix64
    let drivers: Int
    let serials: Int
    let countings: Int
    var steps: [Step] = []
    var usesOutsideWork = true

    private var nextTask = 0
    private var nextToken = 0
    /// Tasks of type Int, not dropped: what continuations and combinators take.
    private var intTasks: [Int] = []
    /// Every task not dropped: what waits, awaits and drops take.
    private var liveTasks: [Int] = []
    private var openSources: [Int] = []
    private var completedSources: [Int] = []
    /// Sources released (C8.3): their tasks are completed, as if set, from the release on.
    private var releasedSources: [Int] = []
    /// Prepared tasks with no start yet: pending like a held source until one comes (C9.3).
    private var unstarted: [Int] = []
    private var started: [Int] = []
    private var sourcesDependedOn: [[Int]] = []
    private var dependsOnHeld: [Bool] = []
    private var tokens: [Int] = []
    /// User cancellation handlers registered so far (`h0..<handlers`).
    private var handlers = 0
    /// The last continuation's antecedent and executor: often reused, for registration order (C2.4).
    private var lastChain: (antecedent: Int, executor: ExecutorRef)?

    init(rng: SplitMix64, maxDrivers: Int) {
        self.rng = rng
        drivers = self.rng.int(in: 1...maxDrivers)
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

    mutating func addRandomStep() {
        let weights = [
            14, // makeSource
            openSources.isEmpty && completedSources.isEmpty ? 0 : 18, // complete
            3, // makeCompleted
            8, // run
            intTasks.isEmpty ? 0 : 22, // chain
            6, // combine
            5, // makeToken
            tokens.isEmpty ? 0 : 5, // cancel
            liveTasks.isEmpty ? 0 : 6, // wait
            liveTasks.isEmpty || !usesOutsideWork ? 0 : 4, // await
            liveTasks.isEmpty ? 0 : 2, // drop
            usesOutsideWork ? 2 : 0, // delay
            intTasks.isEmpty || !usesOutsideWork ? 0 : 3, // timeout
            openSources.isEmpty && completedSources.isEmpty ? 0 : 3, // releaseSource
            2, // submit
            3, // prepare
            unstarted.isEmpty ? 0 : 4, // start
            usesOutsideWork ? 3 : 0, // runAsync
            tokens.isEmpty ? 0 : 4, // registerHandler
            handlers == 0 ? 0 : 2, // disposeHandler
            usesOutsideWork ? 1 : 0, // schedule
            usesOutsideWork ? 1 : 0, // nestedWait
            usesOutsideWork ? 1 : 0, // combineProbed
            liveTasks.isEmpty || !usesOutsideWork ? 0 : 1, // awaitThenCancel
            1, // longChain
        ]
        switch rng.weighted(weights) {
        case 0: addSource()
        case 1: addCompletions()
        case 2: addTask(.makeCompleted(task: nextTask, outcome: setterOutcome()), sources: [], held: false)
        case 3: addTask(.run(task: nextTask, executor: executor(), token: token(), body: body()), sources: [], held: false)
        case 4: addChain()
        case 5: addCombinator()
        case 6: addToken()
        case 7: addCancel()
        case 8: addWait()
        case 9: add(.await(task: rng.pick(liveTasks) ?? 0, cancelled: rng.chance(30)))
        case 10: addDrop()
        case 13: addRelease()
        case 14: add(.submit(executor: executor()))
        case 15: addPrepare()
        case 16: addStart()
        case 17: addTask(.runAsync(task: nextTask, token: token(), body: body()), sources: [], held: false)
        case 11:
            addTask(.delay(task: nextTask, microseconds: rng.int(in: 0...2000), token: token()),
                    sources: [], held: false, intValued: false)
        case 18:
            add(.registerHandler(handler: handlers, token: rng.pick(tokens) ?? 0))
            handlers += 1
        case 19: add(.disposeHandler(handler: rng.below(handlers)))
        case 20: add(.schedule(microseconds: rng.int(in: 0...2000)))
        case 21: add(.nestedWait(depth: rng.chance(30) ? 16 : rng.int(in: 2...8)))
        case 22: addProbedCombinator()
        case 23: add(.awaitThenCancel(task: rng.pick(liveTasks) ?? 0))
        case 24: add(.longChain(links: rng.int(in: 200...400)))
        default:
            guard let antecedent = rng.pick(intTasks) else { return }
            // Never held: the timer completes it whatever its antecedent does.
            addTask(.timeout(task: nextTask, antecedent: antecedent, microseconds: rng.int(in: 0...2000)),
                    sources: [], held: false)
        }
    }

    /// Every source not held gets a completing step, so every program can finish.
    mutating func completeOpenSources() {
        for source in openSources {
            add(.complete(source: source, outcome: setterOutcome(), throwing: rng.chance(30)))
        }
        openSources = []
    }

    // MARK: - Operations

    private mutating func addSource() {
        let held: SetterOutcome? = rng.chance(15) ? setterOutcome() : nil
        let task = nextTask
        addTask(.makeSource(task: task, held: held), sources: [task], held: held != nil)
        if held == nil { openSources.append(task) }
    }

    /// One setter, or a burst of up to three from different drivers racing on one source (C1.2).
    private mutating func addCompletions() {
        let preferOpen = !openSources.isEmpty && (completedSources.isEmpty || rng.chance(75))
        guard let source = rng.pick(preferOpen ? openSources : completedSources) else { return }
        let count = rng.chance(30) ? rng.int(in: 2...3) : 1
        for _ in 0..<count {
            add(.complete(source: source, outcome: setterOutcome(), throwing: rng.chance(30)))
        }
        if let index = openSources.firstIndex(of: source) {
            openSources.remove(at: index)
            completedSources.append(source)
        }
    }

    private mutating func addChain() {
        let reuse = lastChain.flatMap { last in intTasks.contains(last.antecedent) && rng.chance(35) ? last : nil }
        guard let antecedent = reuse?.antecedent ?? rng.pick(intTasks) else { return }
        var sources = sourcesDependedOn[antecedent]
        var held = dependsOnHeld[antecedent]
        let kind: ContinuationKind
        switch rng.weighted([20, 12, 8, 10, 10, 12, 8, 20]) {
        case 0: kind = .continueWith
        case 1: kind = .map
        case 2: kind = .then
        case 3:
            let inner = rng.pick(intTasks) ?? antecedent
            sources += sourcesDependedOn[inner]
            held = held || dependsOnHeld[inner]
            kind = .flatMapExisting(inner)
        case 4: kind = .flatMapNew
        case 5: kind = .recover
        case 6: kind = .catch
        default: kind = .finally
        }
        let token = kind == .finally ? nil : self.token()
        let executor = reuse?.executor ?? self.executor()
        lastChain = (antecedent, executor)
        addTask(
            .chain(task: nextTask, kind: kind, antecedent: antecedent, executor: executor, token: token, body: body()),
            sources: sources, held: held
        )
    }

    private mutating func addCombinator() {
        let kind = [CombinatorKind.whenAll, .whenAllSettled, .race, .any][rng.below(4)]
        let count = rng.chance(10) ? 0 : rng.int(in: 1...5)
        let inputs = rng.subset(of: intTasks, count: count)
        let sources = inputs.flatMap { sourcesDependedOn[$0] }
        let held = inputs.contains { dependsOnHeld[$0] }
        let intValued = kind == .race || kind == .any
        addTask(.combine(task: nextTask, kind: kind, inputs: inputs), sources: sources, held: held, intValued: intValued)
    }

    /// 0 to 32 inputs, a few of them failing now and then (C5.1-C5.3, C5.5).
    private mutating func addProbedCombinator() {
        let kind = [CombinatorKind.whenAll, .whenAllSettled, .race, .any][rng.below(4)]
        let count = rng.chance(15) ? 0 : rng.chance(50) ? rng.int(in: 1...6) : rng.int(in: 7...32)
        let failing = (0..<count).filter { _ in rng.chance(count > 1 && rng.chance(60) ? 0 : 20) }
        add(.combineProbed(kind: kind, inputs: count, failing: failing))
    }

    private mutating func addToken() {
        let parent = rng.chance(30) ? rng.pick(tokens) : nil
        add(.makeToken(token: nextToken, linkedTo: parent))
        tokens.append(nextToken)
        nextToken += 1
    }

    private mutating func addCancel() {
        guard let token = rng.pick(tokens) else { return }
        if rng.chance(30) && usesOutsideWork {
            add(.cancelAfter(token: token, microseconds: rng.int(in: 0...2000)))
        } else {
            add(.cancel(token: token))
        }
    }

    private mutating func addWait() {
        guard let task = rng.pick(liveTasks) else { return }
        let completedEarlier = Set(completedSources + releasedSources + started)
        let canBlock = !dependsOnHeld[task] && sourcesDependedOn[task].allSatisfy { completedEarlier.contains($0) }
        if canBlock && rng.chance(70) {
            add(.wait(task: task))
        } else {
            add(.waitTimeout(task: task, microseconds: rng.int(in: 0...1000)))
        }
    }

    private mutating func addDrop() {
        let droppable = liveTasks.filter { !openSources.contains($0) && !completedSources.contains($0) }
        guard let task = rng.pick(droppable) else { return }
        add(.drop(task: task))
        liveTasks.removeAll { $0 == task }
        intTasks.removeAll { $0 == task }
    }

    /// Releases a source, pending (its task fails `abandoned`) or completed (nothing changes):
    /// no setter on it follows (C8.3).
    private mutating func addRelease() {
        let pending = !openSources.isEmpty && (completedSources.isEmpty || rng.chance(60))
        guard let source = rng.pick(pending ? openSources : completedSources) else { return }
        add(.releaseSource(source: source))
        openSources.removeAll { $0 == source }
        completedSources.removeAll { $0 == source }
        releasedSources.append(source)
    }

    /// A prepared task; most get a start later, the rest are started by the harness after the
    /// drivers, so that their continuations wait in phase one (C9.3).
    private mutating func addPrepare() {
        let task = nextTask
        addTask(.prepare(task: task, token: token(), body: body()), sources: [task], held: true)
        unstarted.append(task)
    }

    /// A start of a prepared task, sometimes a second one racing from another driver (C9.3).
    private mutating func addStart() {
        guard let task = rng.pick(unstarted) else { return }
        let executor = rng.chance(20) ? ExecutorRef.inline : self.executor()
        add(.start(task: task, executor: executor))
        if rng.chance(30) { add(.start(task: task, executor: self.executor())) }
        unstarted.removeAll { $0 == task }
        started.append(task)
        // Started: no longer waits on the harness (a body cannot block on anything held).
        dependsOnHeld[task] = false
    }

    // MARK: - Helpers

    private mutating func addTask(_ operation: Operation, sources: [Int], held: Bool, intValued: Bool = true) {
        add(operation)
        var unique: [Int] = []
        for source in sources where !unique.contains(source) { unique.append(source) }
        sourcesDependedOn.append(unique)
        dependsOnHeld.append(held)
        liveTasks.append(nextTask)
        if intValued { intTasks.append(nextTask) }
        nextTask += 1
    }

    private mutating func add(_ operation: Operation) {
        steps.append(Step(driver: rng.below(drivers), operation: operation, pause: pause()))
    }

    private mutating func pause() -> Pause {
        switch rng.weighted([40, 20, 25, 15]) {
        case 0: return .none
        case 1: return .yield(rng.int(in: 1...3))
        case 2: return .spin(rng.int(in: 10...2000))
        default: return .sleep(microseconds: rng.int(in: 1...200))
        }
    }

    private mutating func setterOutcome() -> SetterOutcome {
        [SetterOutcome.success, .failure, .cancel][rng.weighted([60, 25, 15])]
    }

    private mutating func body() -> BodyAction {
        [BodyAction.returns, .throwsError, .throwsCancellation, .checkpoint][rng.weighted([50, 15, 10, 25])]
    }

    private mutating func token() -> Int? {
        rng.chance(40) ? rng.pick(tokens) : nil
    }

    private mutating func executor() -> ExecutorRef {
        switch rng.weighted([40, 20, serials > 0 ? 25 : 0, countings > 0 ? 15 : 0]) {
        case 0: return .default
        case 1: return .inline
        case 2: return .serial(rng.below(serials))
        default: return .counting(rng.below(countings))
        }
    }
}
