/// Bugs planted in this package's production code, for the conformance harness to prove it finds
/// them (Tests/ConformanceTests/MutantTests.swift, `productionMutants`): debug builds only. A
/// release build stores nothing for them and never plants one (`MutantSwitch.isOn` is `false`
/// there, and the optimizer drops the planted branch).
///
/// An object that can carry a mutant keeps a `MutantSwitch`, made when the object is: it holds
/// the mutant planted around that moment (`Mutant.$planted.withValue(.someBug) { makeBackend() }`),
/// so a mutant lives in one backend's objects and never in the backends other tests use at the
/// same time. Adding one is a case here and a branch at the site:
///
///     if mutants.isOn(.drainerEndsInTwoSections) { /* the bug */ } else { /* the code */ }
@_spi(Mutants)
public enum Mutant: String, CaseIterable, Sendable {
    /// BackendKit's `Waiter.wait` checks whether it was woken and goes to sleep in two critical
    /// sections: a completion in between signals no one, and the waiter sleeps for good (a lost
    /// wake-up: C6.1, C6.3).
    case waiterChecksThenSleeps
    /// BackendGCD's drainer, finding the queue empty, ends in two critical sections: a push in
    /// between sees every drainer running and submits none, and its job is never run (a lost job:
    /// C2.1, C7.3).
    case drainerEndsInTwoSections
    /// BackendKit's `ThreadPool`: an idle worker that found the queue empty parks without looking
    /// at it again under the lock, so a push made meanwhile (which saw no parked worker to wake)
    /// waits for good (a lost job: C2.1, C7.3).
    case poolParksWithoutRecheck
    /// BackendKit's `Waiter`, in a timed wait only (`wait(timeout:)`), checks whether it was woken
    /// and goes to sleep in two critical sections: a completion in between signals no one, and
    /// the wait sleeps to its deadline, returning the outcome late (a lost wake-up in
    /// `wait(timeout:)`: C6.2).
    case waiterSleepsToDeadline
    /// BackendKit's `ThreadPool`: a push wakes a parked worker, then queues its job, in two
    /// critical sections; the worker, woken before the job is there, parks again, and the job
    /// waits for good (a lost wake-up: C2.1, C7.3).
    case poolSignalsBeforePush
    /// BackendThreads' serial executor marks its drain unscheduled when it takes the last queued
    /// job, before running it: a job queued meanwhile schedules a second drain, which runs it
    /// beside the first (two jobs at once: C7.2).
    case serialEndsBeforeLastJob
    /// BackendActors' `Mailbox`: a drain that found nothing left gives up ownership with a plain
    /// store instead of a compare-exchange, dropping a message pushed in between (a lost job:
    /// C2.1, C7.3).
    case mailboxGivesUpBlindly
    /// BackendActors' `Mailbox`: a drain that took a single message gives up ownership before
    /// running it; a push meanwhile becomes the owner and starts a second drain, which runs its
    /// message beside the first (two jobs at once: C7.2).
    case mailboxGivesUpBeforeLastMessage
    /// TaskAPI's `StandardCancellationSource.register` checks for a cancellation and stores the
    /// handler in two critical sections, and drops a handler that a cancellation in between
    /// refuses: it never runs (a handler racing `cancel`: C4.2).
    case registerChecksCancelApart
    /// TaskAPI's `StandardCancellationSource.register` stores the handler, then runs it itself if
    /// it finds the source cancelled, in two critical sections: a cancellation in between runs
    /// it too (a handler run twice: C4.2).
    case registerRunsHandlerAgain
    /// TaskAPI's `StandardCancellationSource.cancel`: a second `cancel()` that finds cancellation
    /// requested returns at once, without waiting for the first one's handlers (C4.1).
    case secondCancelSkipsWait
    /// TaskAPI's `PreparedTask.tryStart` checks that the task is not started and marks it started
    /// in two critical sections: two racing starts both win and the body runs twice (C9.3).
    case preparedStartChecksApart
    /// BackendKit's task core hands a source's kept inline body (its first inline `whenComplete`)
    /// over after the continuations registered after it (`whenComplete` order: C2.4).
    case inlineBodyHandedLast
    /// BackendKit's task core runs an inline registration on a completed task in place even while
    /// the thread runs inline work, instead of queueing it behind that work (C2.7).
    case inPlaceInsideInlineWork
    /// BackendKit's task core hands a continuation registered during a delivery (from inside a
    /// continuation) over before the rest of the batch being delivered, which was registered
    /// before it (nested registration: C2.4).
    case nestedRegistrationOvertakes

    /// The mutant planted in the objects made inside `Mutant.$planted.withValue(_:operation:)`.
    @TaskLocal public static var planted: Mutant?
}

/// An object that carries a mutant for the objects it makes later (a backend for its waiters):
/// they look it up in debug builds only.
@_spi(Mutants)
public protocol MutantCarrier {
    var mutants: MutantSwitch { get }
}

/// The mutant an object was made with (debug builds; nothing in release builds).
@_spi(Mutants)
public struct MutantSwitch: Sendable {
    #if DEBUG
    @usableFromInline let planted: Mutant?
    #endif

    /// The mutant planted now (`Mutant.planted`), if any.
    @inlinable
    public init() {
        #if DEBUG
        planted = Mutant.planted
        #endif
    }

    /// No mutant.
    @inlinable
    public static var off: MutantSwitch {
        #if DEBUG
        return MutantSwitch(planted: nil)
        #else
        return MutantSwitch()
        #endif
    }

    #if DEBUG
    @usableFromInline
    init(planted: Mutant?) {
        self.planted = planted
    }
    #endif

    /// The mutant `object` carries, if it is a `MutantCarrier` (a backend, for the objects it makes
    /// while a program runs, outside `Mutant.$planted`): debug builds; `off` in release builds,
    /// which never look.
    @inlinable
    public static func carried(by object: Any) -> MutantSwitch {
        #if DEBUG
        return (object as? any MutantCarrier)?.mutants ?? .off
        #else
        return .off
        #endif
    }

    /// Whether `mutant` is planted here: always `false` in a release build.
    @inlinable @inline(__always)
    public func isOn(_ mutant: Mutant) -> Bool {
        #if DEBUG
        return planted == mutant
        #else
        return false
        #endif
    }
}
