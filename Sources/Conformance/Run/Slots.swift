import Foundation
import TaskAPI

/// A task of a program, whatever its value type, behind one small interface.
enum TaskSlot: Sendable {
    case int(any AsyncTask<Int>)
    case values(any AsyncTask<[Int]>)
    case settled(any AsyncTask<[Completion<Int>]>)
    case void(any AsyncTask<Void>)

    var object: AnyObject {
        switch self {
        case .int(let t): return t
        case .values(let t): return t
        case .settled(let t): return t
        case .void(let t): return t
        }
    }

    var intTask: (any AsyncTask<Int>)? {
        if case .int(let t) = self { return t }
        return nil
    }

    func wait() -> Outcome {
        switch self {
        case .int(let t): return Outcome(t.wait())
        case .values(let t): return Outcome(t.wait())
        case .settled(let t): return Outcome(t.wait())
        case .void(let t): return Outcome(t.wait())
        }
    }

    func wait(timeout: Duration) -> Outcome? {
        switch self {
        case .int(let t): return t.wait(timeout: timeout).map { Outcome($0) }
        case .values(let t): return t.wait(timeout: timeout).map { Outcome($0) }
        case .settled(let t): return t.wait(timeout: timeout).map { Outcome($0) }
        case .void(let t): return t.wait(timeout: timeout).map { Outcome($0) }
        }
    }

    var isCompleted: Bool {
        switch self {
        case .int(let t): return t.isCompleted
        case .values(let t): return t.isCompleted
        case .settled(let t): return t.isCompleted
        case .void(let t): return t.isCompleted
        }
    }

    /// Whether `object`, one of the four kinds of task above, has completed (`nil`: another kind).
    static func isCompleted(_ object: AnyObject) -> Bool? {
        if let t = object as? any AsyncTask<Int> { return t.isCompleted }
        if let t = object as? any AsyncTask<[Int]> { return t.isCompleted }
        if let t = object as? any AsyncTask<[Completion<Int>]> { return t.isCompleted }
        if let t = object as? any AsyncTask<Void> { return t.isCompleted }
        return nil
    }

    var status: String {
        switch self {
        case .int(let t): return t.status.description
        case .values(let t): return t.status.description
        case .settled(let t): return t.status.description
        case .void(let t): return t.status.description
        }
    }

    /// `try get()`: the value, or the error it throws (`CancellationError` read as cancelled).
    func get() -> Outcome {
        func outcome(_ body: () throws -> Outcome) -> Outcome {
            do { return try body() } catch { return error is CancellationError ? .cancelled : .failure(ErrorValue(error)) }
        }
        switch self {
        case .int(let t): return outcome { .success(try t.get()) }
        case .values(let t): return outcome { .values(try t.get()) }
        case .settled(let t): return outcome { .settled(try t.get().map { Outcome($0) }) }
        case .void(let t):
            return outcome {
                try t.get(); return .success(0)
            }
        }
    }

    /// `whenComplete(on:)` with a body that gets the outcome as an `Outcome`.
    func whenComplete(on executor: any AsyncTaskExecutor, _ body: @escaping @Sendable (Outcome) -> Void) {
        switch self {
        case .int(let t): t.whenComplete(on: executor) { body(Outcome($0)) }
        case .values(let t): t.whenComplete(on: executor) { body(Outcome($0)) }
        case .settled(let t): t.whenComplete(on: executor) { body(Outcome($0)) }
        case .void(let t): t.whenComplete(on: executor) { body(Outcome($0)) }
        }
    }

    /// `status`, `completion` (as an `Outcome`), `isCompleted` and `backend.name`, read in that
    /// order (C1.1, C1.5).
    func inspect() -> (status: String, completion: Outcome?, isCompleted: Bool, backend: String) {
        func read<T>(_ t: any AsyncTask<T>, _ outcome: (Completion<T>) -> Outcome) -> (String, Outcome?, Bool, String) {
            let completion = t.completion.map(outcome)
            return (t.status.description, completion, t.isCompleted, t.backend.name)
        }
        switch self {
        case .int(let t): return read(t) { Outcome($0) }
        case .values(let t): return read(t) { Outcome($0) }
        case .settled(let t): return read(t) { Outcome($0) }
        case .void(let t): return read(t) { Outcome($0) }
        }
    }

    func value() async throws -> Outcome {
        switch self {
        case .int(let t): return .success(try await t.value)
        case .values(let t): return .values(try await t.value)
        case .settled(let t): return .settled(try await t.value.map { Outcome($0) })
        case .void(let t): try await t.value; return .success(0)
        }
    }

    /// Registers the harness's observer on the inline executor: it logs the outcome (C1.1), and
    /// the origin an abandoned error names (C8.3).
    func observe(_ task: Int, log: EventLog, inline: any AsyncTaskExecutor) {
        @Sendable func logged<T>(_ completion: Completion<T>, _ outcome: Outcome) {
            log.append(.completed(task: task, outcome: outcome))
            if case .failure(let error) = completion, case .abandoned(let origin)? = error as? TaskError {
                log.append(.abandonedOrigin(task: task, origin: origin?.description))
            }
        }
        switch self {
        case .int(let t): t.whenComplete(on: inline) { logged($0, Outcome($0)) }
        case .values(let t): t.whenComplete(on: inline) { logged($0, Outcome($0)) }
        case .settled(let t): t.whenComplete(on: inline) { logged($0, Outcome($0)) }
        case .void(let t): t.whenComplete(on: inline) { logged($0, Outcome($0)) }
        }
    }
}

/// A source of a program, `Int`- or `Void`-valued (C1.2, C1.3): the setters a step may call.
enum SourceSlot: Sendable {
    case int(any CompletionSource<Int>)
    case void(any CompletionSource<Void>)

    var object: AnyObject {
        switch self {
        case .int(let source): return source
        case .void(let source): return source
        }
    }

    /// `tryComplete` with the completion of `outcome` (its value `value`, `()` for a `Void` source).
    func tryComplete(_ outcome: SetterOutcome, value: Int) -> Bool {
        switch self {
        case .int(let source): return source.tryComplete(ProgramExecution.completion(outcome, value: value))
        case .void(let source): return source.tryComplete(ProgramExecution.completion(outcome, value: value).mapped { _ in () })
        }
    }

    /// `complete`, which throws when it loses (C1.3).
    func complete(_ outcome: SetterOutcome, value: Int) throws {
        switch self {
        case .int(let source): try source.complete(ProgramExecution.completion(outcome, value: value))
        case .void(let source): try source.complete(ProgramExecution.completion(outcome, value: value).mapped { _ in () })
        }
    }

    /// The named setters: `trySucceed` (`trySucceed()` on a `Void` source), `tryFail`, `tryCancel`.
    func tryNamed(_ outcome: SetterOutcome, value: Int) -> Bool {
        switch (self, outcome) {
        case (.int(let source), .success): return source.trySucceed(value)
        case (.void(let source), .success): return source.trySucceed()
        case (.int(let source), .failure): return source.tryFail(ProgramError(value))
        case (.void(let source), .failure): return source.tryFail(ProgramError(value))
        case (.int(let source), .cancel): return source.tryCancel()
        case (.void(let source), .cancel): return source.tryCancel()
        }
    }

    /// The named throwing setters: `succeed` (`succeed()` on a `Void` source), `fail`, `cancel`.
    func named(_ outcome: SetterOutcome, value: Int) throws {
        switch (self, outcome) {
        case (.int(let source), .success): try source.succeed(value)
        case (.void(let source), .success): try source.succeed()
        case (.int(let source), .failure): try source.fail(ProgramError(value))
        case (.void(let source), .failure): try source.fail(ProgramError(value))
        case (.int(let source), .cancel): try source.cancel()
        case (.void(let source), .cancel): try source.cancel()
        }
    }

    func tryStart() -> Bool {
        switch self {
        case .int(let source): return source.tryStart()
        case .void(let source): return source.tryStart()
        }
    }
}

/// What the drivers of one run share: tasks, sources and cancellation sources by id. A driver
/// that needs an id made by another driver's earlier step waits for it; a drop waits until
/// every earlier step that uses the task has taken it.
final class Slots: Sendable {
    private struct State {
        var tasks: [Int: TaskSlot] = [:]
        var sources: [Int: SourceSlot] = [:]
        var tokens: [Int: any CancellationSource] = [:]
        var usesBeforeDrop: [Int: Int] = [:]
        /// Setters before a source's release that have not taken it yet (C8.3).
        var setterUsesBeforeRelease: [Int: Int] = [:]
        /// Prepared tasks, by task id (C9.3).
        var prepared: [Int: PreparedTask<Int>] = [:]
        /// Work groups, by the id of their first `idle()` task (C9.11).
        var groups: [Int: WorkGroup] = [:]
    }

    // NSCondition guards `state`; every access holds it.
    private let condition = NSCondition()
    private nonisolated(unsafe) var state = State()

    init(program: Program) {
        // A task's uses before its drop, and a source's setters before its release (C8.3): what
        // a drop or a release waits for.
        var uses: [Int: Int] = [:]
        var setters: [Int: Int] = [:]
        var dropped: Set<Int> = []
        var released: Set<Int> = []
        for step in program.steps {
            for use in step.operation.uses {
                switch use {
                case .task(let t): if !dropped.contains(t) { uses[t, default: 0] += 1 }
                case .source(let s): if !released.contains(s) { setters[s, default: 0] += 1 }
                case .lastUse(let t): dropped.insert(t)
                case .lastSetter(let s): released.insert(s)
                case .token, .prepared: break
                }
            }
        }
        state.usesBeforeDrop = uses
        state.setterUsesBeforeRelease = setters
    }

    func put(_ id: Int, _ slot: TaskSlot, source: SourceSlot? = nil) {
        withState { state in
            state.tasks[id] = slot
            if let source { state.sources[id] = source }
        }
    }

    func putToken(_ id: Int, _ source: any CancellationSource) {
        withState { $0.tokens[id] = source }
    }

    /// The task `id`, once made; counts one use towards a later drop.
    func task(_ id: Int) -> TaskSlot? {
        waitFor { state in
            guard let slot = state.tasks[id] else { return nil }
            state.usesBeforeDrop[id, default: 0] -= 1
            return slot
        }
    }

    /// The source `id`, once made; counts one use towards a later release.
    func source(_ id: Int) -> SourceSlot? {
        waitFor { state in
            guard let source = state.sources[id] else { return nil }
            state.setterUsesBeforeRelease[id, default: 0] -= 1
            return source
        }
    }

    func putPrepared(_ id: Int, _ prepared: PreparedTask<Int>) {
        withState { $0.prepared[id] = prepared }
    }

    /// The prepared task `id`, once made.
    func prepared(_ id: Int) -> PreparedTask<Int>? {
        waitFor { $0.prepared[id] }
    }

    func putGroup(_ id: Int, _ group: WorkGroup) {
        withState { $0.groups[id] = group }
    }

    /// The work group `id`, once made.
    func group(_ id: Int) -> WorkGroup? {
        waitFor { $0.groups[id] }
    }

    /// The work group `id` if made, without waiting (controlled mode's blocking check).
    func peekGroup(_ id: Int) -> WorkGroup? {
        reading { $0.groups[id] }
    }

    /// Every prepared task, for the harness's own starts after the drivers.
    func allPrepared() -> [Int: PreparedTask<Int>] {
        reading { $0.prepared }
    }

    /// Forgets source `id` (keeping its task) once every earlier setter has taken it. The source
    /// is released here, on the calling thread, unless a setter still holds it (C8.3).
    func releaseSource(_ id: Int) {
        let released = waitFor { state -> SourceSlot? in
            guard let source = state.sources[id], state.setterUsesBeforeRelease[id, default: 0] <= 0 else { return nil }
            state.sources[id] = nil
            return source
        }
        // Released outside the lock: its deinit may complete the task and run continuations.
        withExtendedLifetime(released) {}
    }

    func token(_ id: Int) -> (any CancellationSource)? {
        waitFor { $0.tokens[id] }
    }

    /// Forgets task `id` once every earlier step using it has taken it. The slot is released
    /// after the lock: freeing a task can free a held source, whose deinit completes its task
    /// and, in a controlled run, parks at a schedule point, where the loop that would resume it
    /// needs this lock (a deadlock seen in CI).
    func drop(_ id: Int) {
        let dropped = waitFor { state -> TaskSlot? in
            guard state.tasks[id] != nil, state.usesBeforeDrop[id, default: 0] <= 0 else { return nil }
            return state.tasks.removeValue(forKey: id)
        }
        withExtendedLifetime(dropped) {}
    }

    /// The held sources, for the harness to complete after the drivers.
    func source(ifPresent id: Int) -> SourceSlot? {
        reading { $0.sources[id] }
    }

    /// Task `id` if made, without counting a use or waiting (every body asks: no broadcast).
    func peekTask(_ id: Int) -> TaskSlot? {
        reading { $0.tasks[id] }
    }

    /// Whether a step with `uses` would find every id it takes without waiting (controlled mode).
    func isReady(_ uses: [Use]) -> Bool {
        reading { state in
            uses.allSatisfy { use in
                switch use {
                case .task(let t): return state.tasks[t] != nil
                case .token(let k): return state.tokens[k] != nil
                case .source(let s): return state.sources[s] != nil
                case .prepared(let t): return state.prepared[t] != nil
                case .lastUse(let t): return state.tasks[t] != nil && state.usesBeforeDrop[t, default: 0] <= 0
                case .lastSetter(let s):
                    return state.sources[s] != nil && state.setterUsesBeforeRelease[s, default: 0] <= 0
                }
            }
        }
    }

    /// Forgets everything (the end of a run), released after the lock, as in `drop`.
    func clear() {
        let old = withState { state -> State in
            var old = State()
            swap(&old, &state)
            return old
        }
        withExtendedLifetime(old) {}
    }

    /// Reads the state: nothing changes, so no waiter needs waking.
    private func reading<R>(_ body: (State) -> R) -> R {
        condition.lock()
        defer { condition.unlock() }
        return body(state)
    }

    private func withState<R>(_ body: (inout State) -> R) -> R {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        return body(&state)
    }

    private func waitFor<R>(_ body: (inout State) -> R?) -> R? {
        condition.lock()
        defer { condition.broadcast(); condition.unlock() }
        let deadline = Uptime.now + .seconds(30)
        while true {
            if let result = body(&state) { return result }
            if !condition.wait(until: deadline) { return body(&state) }
        }
    }
}
