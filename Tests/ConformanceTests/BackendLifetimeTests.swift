import BackendThreads
import Conformance
import Foundation
import Synchronization
import TaskAPI
import Testing

/// The harness lets go of every backend it made once that backend's program has run, in every
/// mode: a backend author's check of thousands of programs must not keep thousands of backends
/// (and their pools' threads) alive. A seated run's table was kept by the threads the backend
/// handed work to (their seat), and it kept the run's execution, and so the backend and its pool:
/// every controlled program on an instrumented backend left its pool's idle workers behind (78 of
/// 81 backends alive after 40 controlled programs; 4,900 threads in a full `swift test`).
@Suite(.serialized) struct BackendLifetimeTests {
    /// Weak references to every backend `makeBackend` handed out.
    final class Made: Sendable {
        private let backends = Mutex<[WeakBackend]>([])
        struct WeakBackend: @unchecked Sendable {
            // @unchecked: `weak var` of a Sendable class; read and written only under `backends`'s lock.
            weak var backend: AnyObject?
        }
        func keep(_ backend: AnyObject) { backends.withLock { $0.append(WeakBackend(backend: backend)) } }
        var count: Int { backends.withLock { $0.count } }
        var alive: Int { backends.withLock { $0.filter { $0.backend != nil }.count } }
    }

    static let modes: [ScheduleMode] = [.stress, .controlled(.randomWalk), .controlled(.pct(depth: 3)), .mixed]

    /// An instrumented backend (the seated engine) and one that is not (interposed executors).
    @Test(
        "C8.2, of the harness itself: it keeps no backend of a program that has run, in any mode",
        arguments: ["threads", "reference"], modes)
    func everyBackendIsReleased(_ backend: String, _ mode: ScheduleMode) async throws {
        let made = Made()
        var configuration = ConformanceConfiguration(baseSeed: 0x5eed_1e55, programs: 24, output: { _ in })
        configuration.resourceLinks = 0
        configuration.mode = mode
        let report = await Conformance.check(
            makeBackend: {
                let made_: any TaskBackend = backend == "threads" ? ThreadsBackend() : ReferenceBackend()
                made.keep(made_ as AnyObject)
                return made_
            }, configuration: configuration)
        #expect(report.programsRun == 24)
        #expect(made.count >= 24)
        // A backend goes when the last of its workers' jobs returns, on that worker, and a timer
        // may hold it until it fires: polled for, up to 10 s (the harness's own leak limit is 2).
        let deadline = ContinuousClock.now + .seconds(10)
        while made.alive > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(made.alive == 0, "\(made.alive) of \(made.count) backends still alive after their programs ran (\(mode))")
    }
}
