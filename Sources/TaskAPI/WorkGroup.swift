internal import ScheduleKit

/// Tasks counted in as they are joined and awaited as a whole while more may still join: a
/// `DispatchGroup` for tasks, FATask's group variants (`startWithDispatchQueue:group:`,
/// `continueWithBlock:dispatchQueue:group:`) (C9.11).
///
///     let group = WorkGroup(backend: backend)
///     group.join(backend.run { download(first) })          // startWithDispatchQueue:group:
///     group.join(task.continueWith(on: queue) { show($0) }) // continueWithBlock:dispatchQueue:group:
///     group.idle().continueWith(on: backend.mainExecutor) { _ in screen.text = "all done" }   // notify
///     group.wait()                                          // dispatch_group_wait
///
/// - `join` counts a task in until it completes, whatever its outcome: the group knows how much
///   work is pending, not what it produced (join `whenAllSettled`'s task for that).
/// - `idle()` is a task that succeeds the next time no joined task is pending, at once if none is
///   now. A task joined before that moment delays it; one joined after it belongs to the next.
/// - Safe from any thread. The group is kept alive by the tasks it waits for.
public final class WorkGroup: Sendable {
    private struct State {
        var pending = 0
        var waiting: [any CompletionSource<Void>] = []
    }

    private let backend: any TaskBackend
    private let state = Locked(State())

    /// An empty group, whose `idle()` tasks are made by `backend`.
    public init(backend: any TaskBackend) {
        self.backend = backend
    }

    /// How many joined tasks are pending now.
    public var pendingCount: Int { state.withLock { $0.pending } }

    /// Counts `task` in until it completes (C9.11), and returns it, for chaining:
    /// `let shown = group.join(task.continueWith { ... })`.
    @discardableResult
    public func join<T: Sendable>(_ task: any AsyncTask<T>) -> any AsyncTask<T> {
        state.withLock { $0.pending += 1 }
        task.whenComplete(on: task.backend.inlineExecutor) { _ in self.leave() }
        return task
    }

    /// A task that succeeds once no joined task is pending (`dispatch_group_notify`): at once if
    /// none is now, else when the last pending one completes, including tasks joined meanwhile.
    public func idle() -> any AsyncTask<Void> {
        let source = backend.sourceWithoutOrigin(of: Void.self)
        let now = state.withLock { state -> Bool in
            if state.pending == 0 { return true }
            state.waiting.append(source)
            return false
        }
        if now { source.trySucceed() }
        return source.task
    }

    /// Blocks until no joined task is pending (`dispatch_group_wait`).
    @available(*, noasync, message: "wait() blocks the thread; in async code use 'await group.idle().value'")
    public func wait() {
        idle().wait()
    }

    /// Blocks until no joined task is pending or `timeout` elapses; `false` if it elapsed.
    @available(*, noasync, message: "wait(timeout:) blocks the thread; in async code use 'await group.idle().value'")
    @discardableResult
    public func wait(timeout: Duration) -> Bool {
        idle().wait(timeout: timeout) != nil
    }

    private func leave() {
        let idle = state.withLock { state -> [any CompletionSource<Void>] in
            state.pending -= 1
            assert(state.pending >= 0, "WorkGroup: a joined task completed twice (C1.1)")
            guard state.pending == 0 else { return [] }
            defer { state.waiting = [] }
            return state.waiting
        }
        for source in idle { source.trySucceed() }
    }
}
