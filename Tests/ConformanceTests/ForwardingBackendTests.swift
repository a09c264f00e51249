import BackendGCD
import Conformance
import TaskAPI
import Testing

/// A backend that wraps another and forwards its `makeSource(of:)` requirement (C8.3): with
/// `sourceWithoutOrigin(of:)` a source made through the requirement names no origin, as the
/// requirement promises; with `base.makeSource(of:)`, TaskAPI's recording overload, it names the
/// wrapper's forwarding line, which the checker reports with the fix in its message.
@Suite struct ForwardingBackendTests {
    /// GCD underneath, its `makeSource(of:)` forwarded one way or the other.
    final class Wrapper: TaskBackend {
        let forwardsThroughRequirement: Bool
        private let base = GCDBackend()

        init(forwardsThroughRequirement: Bool) {
            self.forwardsThroughRequirement = forwardsThroughRequirement
        }

        var name: String { forwardsThroughRequirement ? "forwarding" : "forwarding-naively" }
        var defaultExecutor: any AsyncTaskExecutor { base.defaultExecutor }
        var inlineExecutor: any AsyncTaskExecutor { base.inlineExecutor }
        func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { base.makeSerialExecutor(label: label) }
        func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
        func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable {
            base.schedule(after: delay, job)
        }

        func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> {
            forwardsThroughRequirement ? base.sourceWithoutOrigin(of: type) : base.makeSource(of: type)
        }
    }

    /// t0 made through the requirement, released pending: it fails abandoned, naming no origin.
    static let program = Program(
        seed: 11, drivers: 1, serialExecutors: 0, countingExecutors: 0,
        steps: [
            Step(driver: 0, operation: .makeSource(.init(task: 0, held: nil, form: .requirement)), pause: .none),
            Step(driver: 0, operation: .releaseSource(source: 0), pause: .none)
        ])

    static func run(_ backend: Wrapper) -> ProgramRun {
        Conformance.runProgram(backend, program: program, mode: .stress, configuration: ConformanceConfiguration(output: { _ in }))
    }

    @Test("C8.3: a wrapper forwarding with sourceWithoutOrigin(of:) names no origin for a requirement's source")
    func forwardingThroughTheRequirementNamesNoOrigin() {
        let run = Self.run(Wrapper(forwardsThroughRequirement: true))
        #expect(run.findings.isEmpty, "\(run.findings)")
    }

    @Test("C8.3: a wrapper forwarding with base.makeSource(of:) names its own line, reported with the fix")
    func forwardingThroughTheRecordingOverloadIsReportedWithTheFix() throws {
        let run = Self.run(Wrapper(forwardsThroughRequirement: false))
        let finding = try #require(run.findings.first { $0.rule == .c8_3 }, "\(run.findings)")
        #expect(finding.observed.contains("ForwardingBackendTests.swift"), "\(finding.observed)")
        #expect(finding.observed.contains("base.sourceWithoutOrigin(of: type)"), "\(finding.observed)")
    }

    @Test("C8.3: a user's call through the wrapper names the user's line whichever way it forwards")
    func aUsersCallNamesTheUsersLine() throws {
        for forwards in [true, false] {
            let backend: any TaskBackend = Wrapper(forwardsThroughRequirement: forwards)
            var source: (any CompletionSource<Int>)? = backend.makeSource(of: Int.self)
            let line = #line - 1
            let task = try #require(source?.task)
            source = nil
            let outcome = task.wait(timeout: .seconds(10))
            guard case .failure(let error as TaskError)? = outcome, case .abandoned(let origin) = error else {
                Issue.record("released pending: \(String(describing: outcome))")
                continue
            }
            #expect(origin?.line == UInt(line), "forwarding through the requirement: \(forwards): \(String(describing: origin))")
        }
    }
}
