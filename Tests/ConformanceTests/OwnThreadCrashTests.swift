import Conformance
import Foundation
import Testing

/// The async-loop resource check on a backend that recurses on its event loop's thread: the
/// overflow there ends the process with status 70 and a line naming the check and the thread.
@Suite struct OwnThreadCrashTests {
    @Test("C2.7: a stack overflow on the backend's own thread exits with status 70, naming the check and the thread")
    func overflowOnTheBackendsThreadIsReported() async throws {
        let result = await #expect(
            processExitsWith: .exitCode(Conformance.resourceCheckCrashStatus), observing: [\.standardErrorContent]
        ) {
            _ = Conformance.checkResources(LoopBackend(latency: .zero, recursesOnLoop: true), checks: [.inlineLoop])
        }
        let text = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(text.contains("loop: C2.7 broken: stack overflow in the resource check an async loop on the inline executor"), "\(text)")
        #expect(text.contains(#"on a thread the check did not create, the backend's own: "loop-backend""#), "\(text)")
    }
}
