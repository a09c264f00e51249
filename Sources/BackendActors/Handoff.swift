import TaskAPI

/// Handing a continuation to its executor (C2.3, C2.4, C2.5, C2.7).
enum Handoff {
    /// From the actor, inside a drain of its mailbox. The backend's own executors only queue
    /// the job, so they are called at once, in order. Inline jobs are queued on the thread's
    /// trampoline and run as soon as the drain is over, so user code never runs while the actor
    /// is held. A user executor is called at once (it may run the job before returning), unless
    /// the drain itself runs inside trampoline work: then the call is queued on the trampoline, so
    /// that a million-link chain on an executor that runs jobs synchronously stays a loop.
    /// Returns `true` if the hand-off was queued on the trampoline (a user executor in a nested
    /// drain): the actor then holds later hand-offs back until it has run (C2.4).
    @discardableResult
    static func fromActor<T>(_ registration: Registration<T>, _ completion: Completion<T>) -> Bool {
        let body = registration.body
        switch registration.executor {
        case nil:
            body(completion)
        case let executor as WorkerPool:
            executor.execute { body(completion) }
        case let executor as Mailbox:
            executor.execute { body(completion) }
        case is ActorsInlineExecutor:
            ThreadState.current.later { body(completion) }
        case let executor?:
            let thread = ThreadState.current
            if thread.nestedDrain {
                thread.later { executor.execute { body(completion) } }
                return true
            }
            executor.execute { body(completion) }
        }
        return false
    }

    /// From the registering thread, for a task that is already settled (no actor involved).
    /// Inline jobs and user executors go through the thread's trampoline (C2.7).
    static func fromCaller<T>(_ registration: Registration<T>, _ completion: Completion<T>) {
        let body = registration.body
        switch registration.executor {
        case nil:
            body(completion)
        case let executor as WorkerPool:
            executor.execute { body(completion) }
        case let executor as Mailbox:
            executor.execute { body(completion) }
        case is ActorsInlineExecutor:
            ThreadState.current.submit { body(completion) }
        case let executor?:
            ThreadState.current.submit { executor.execute { body(completion) } }
        }
    }
}
