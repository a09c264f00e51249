/// An actor whose methods run as jobs of one of a backend's serial executors
/// (`makeActorExecutor(label:)`, C9.9): the stand-in for the main actor that a "ui" serial
/// executor is for the main queue. Continuations registered on such an actor take it as an
/// `isolated` parameter, and so read and write its state directly (C9.10):
///
///     actor Screen: PinnedActor {
///         nonisolated let executor: any ActorExecutor
///         var title = ""
///         init(executor: any ActorExecutor) { self.executor = executor }
///     }
///     let shown = task.continueWith(on: screen) { screen, outcome in screen.title = "done" }
///
/// The protocol supplies the actor's `unownedExecutor` from `executor`; an actor that declares
/// its own must return `executor.asUnownedSerialExecutor()`.
public protocol PinnedActor: Actor {
    /// The serial executor the actor's methods run on.
    nonisolated var executor: any ActorExecutor { get }
}

extension PinnedActor {
    /// The actor's executor: `executor` (C9.9).
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// `body` as a closure for a job of `executor`: it calls `body` isolated to this actor,
    /// which holds inside that executor's jobs (C9.9, C9.10).
    @usableFromInline
    nonisolated func isolating<Input: Sendable, Output: Sendable>(
        _ body: @escaping @Sendable (isolated Self, Input) throws -> Output
    ) -> @Sendable (Input) throws -> Output {
        { input in try self.assumeIsolated { actor in try body(actor, input) } }
    }
}
