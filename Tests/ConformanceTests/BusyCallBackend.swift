import Dispatch
import Foundation
import Synchronization
import TaskAPI

/// A correct backend (`base`: the reference backend, whose controlled runs are interposed, or an
/// instrumented one, whose controlled runs are seated) whose first `makeSource` call does
/// something for a long time before it returns, as `conduct` says: works (a bounded amount of
/// CPU time), blocks, or spins until the test lets it go. For the watchdog's tests
/// (`BusyDriverTests`): a driver step that logs nothing while its thread works is not a hang;
/// one whose thread is blocked is, at the hang limit; one that spins forever is a livelock, at
/// the cap.
final class BusyCallBackend: BackendForwarding {
    enum Conduct: Sendable {
        /// Works until the calling thread used this much CPU time (so the call lasts at least as
        /// long on the wall clock, however crowded the machine), then returns.
        case works(cpu: Duration)
        /// Blocks on a semaphore until `letGo()`: a deadlock, as the watchdog sees it.
        case blocks
        /// Keeps the CPU busy until `letGo()`: a livelock.
        case spins
    }

    let forwardedTo: any TaskBackend
    let conduct: Conduct
    private let called = Atomic(false)
    private let released = Atomic(false)
    private let semaphore = DispatchSemaphore(value: 0)
    /// The CPU time the busy call used, once it returned (nanoseconds; 0 before).
    private let usedNanoseconds = Atomic<Int64>(0)

    init(_ conduct: Conduct, base: any TaskBackend = ReferenceBackend()) {
        self.conduct = conduct
        forwardedTo = base
    }

    var name: String { "busy-call" }

    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
        if !called.exchange(true, ordering: .acquiringAndReleasing) { behave() }
        return forwardedTo.sourceWithoutOrigin(of: type)
    }

    /// How much CPU time the busy call used (zero until it returned).
    var cpuUsed: Duration { .nanoseconds(usedNanoseconds.load(ordering: .acquiring)) }

    /// Ends a blocked or spinning call; harmless otherwise, and more than once.
    func letGo() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) { semaphore.signal() }
    }

    private func behave() {
        switch conduct {
        case .works(let cpu):
            let start = Self.threadCPUTime()
            var sink = 0
            while Self.threadCPUTime() - start < cpu {
                for i in 0..<10_000 { sink &+= i }
            }
            withExtendedLifetime(sink) {}
            usedNanoseconds.store(Self.nanoseconds(Self.threadCPUTime() - start), ordering: .releasing)
        case .blocks:
            semaphore.wait()
        case .spins:
            var sink = 0
            while !released.load(ordering: .acquiring) {
                for i in 0..<10_000 { sink &+= i }
            }
            withExtendedLifetime(sink) {}
        }
    }

    /// The calling thread's CPU time so far.
    private static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
