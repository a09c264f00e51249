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
