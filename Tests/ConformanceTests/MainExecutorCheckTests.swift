import BackendGCD
import Conformance
import Dispatch
import Foundation
import TaskAPI
import Testing

/// `RuleSuite.runMainExecutorChecks`: the main-executor checks a backend author runs (C9.8, C7.3,
/// C9.7, C9.10, C4.3). They pass the package's three backends, served on a program's main
/// thread by the checks themselves (the example `main-executor-check`, a child process) and, for
/// the backends whose main executor is the main actor's, by `dispatchMain()` in an exit test's
/// child process; they fail outside backends whose main executor runs its jobs off the main
/// thread, twice, or out of order, naming the rule each breaks; and a call off the main thread
/// is an error, not a trap.
@Suite struct MainExecutorCheckTests {
    @Test("C9.8 the main-executor checks pass every backend, served on a program's main thread", arguments: ["gcd", "threads", "actors"])
    func passOnTheMainThread(_ name: String) throws {
        let program = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("main-executor-check")
        try #require(FileManager.default.isExecutableFile(atPath: program.path), "main-executor-check is built next to the tests")
        let process = Process()
        process.executableURL = program
        process.arguments = [name]
        let output = Pipe()
        process.standardOutput = output
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + .seconds(120)) == .timedOut {
            process.terminate()
            Issue.record("the main-executor checks of \(name) did not finish within 120 s")
            return
        }
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed.hasPrefix("rule suite [\(name)]: \(RuleSuite.mainExecutorChecks.count) checks of"), "\(printed)")
        #expect(printed.contains("passed"), "\(printed)")
    }

    @Test(
        "C9.8 the main-executor checks pass a main executor served by dispatchMain() (an exit test's child process)",
        arguments: ["gcd", "actors"])
    func passServedByTheProcess(_ name: String) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [name = name as String] in
            let backend = PackageBackends.make(name)
            let report = try RuleSuite.runMainExecutorChecks(backend, mainLoop: .servedByTheProcess)
            FileHandle.standardError.write(Data("\(report)\n".utf8))
            exit(report.passed && report.checks.count == RuleSuite.mainExecutorChecks.count ? 0 : 1)
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("\(String(decoding: result.standardErrorContent, as: UTF8.self))")
        }
    }

    @Test(
        "C9.8 C7.3 the main-executor checks fail an outside main executor that runs jobs off the main thread, twice, or out of order",
        arguments: [
            (MainMutant.offTheMainThread, Rule.c9_8, "runs its jobs on the process's main thread"),
            (MainMutant.twice, Rule.c7_3, "runs each job exactly once"),
            (MainMutant.outOfOrder, Rule.c9_8, "in submission order")
        ])
    func mutantsFail(_ mutant: MainMutant, _ rule: Rule, _ message: String) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [mutant = mutant.rawValue as String, rule = rule.rawValue as String, message = message as String] in
            let backend = (MainMutant(rawValue: mutant) ?? .twice).backend
            let report = try RuleSuite.runMainExecutorChecks(backend, mainLoop: .servedByTheProcess)
            FileHandle.standardError.write(Data("\(report)\n".utf8))
            let named = report.failures.contains { $0.rule.rawValue == rule && $0.message.contains(message) }
            exit(named ? 0 : 1)
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("\(mutant) did not fail \(rule) (\(message)): \(String(decoding: result.standardErrorContent, as: UTF8.self))")
        }
    }

    @Test("C9.8 called off the main thread, runMainExecutorChecks throws, checking nothing")
    func offTheMainThreadIsAnError() throws {
        try #require(!MainThread.isCurrent, "this check needs a test thread other than the main one")
        #expect(throws: MainExecutorCheckError.notOnTheMainThread) { try RuleSuite.runMainExecutorChecks(GCDBackend()) }
        #expect(MainExecutorCheckError.notOnTheMainThread.description.contains(".servedByTheProcess"))
    }
}

/// The ways an outside backend's main executor breaks in these tests.
enum MainMutant: String, Sendable, CustomStringConvertible {
    /// Its jobs run on a serial queue of their own, not on the main thread (C9.8).
    case offTheMainThread
    /// Each job runs twice, on the main actor (C7.3).
    case twice
    /// Every other job is queued again behind the jobs submitted meanwhile (C9.8's order).
    case outOfOrder

    var description: String { rawValue }
}

extension MainMutant {
    /// GCD underneath, with a main executor of its own that this mutant breaks.
    var backend: GCDWrapper {
        switch self {
        case .offTheMainThread:
            return GCDWrapper(
                name: "main-mutant", mainExecutor: MainExecutor(DispatchQueueExecutor(DispatchQueue(label: "not the main thread"))))
        case .twice, .outOfOrder:
            return GCDWrapper(name: "main-mutant", mainExecutor: MainExecutor(MutantMainActorExecutor(self)))
        }
    }
}

/// The main actor's executor, each job given to it twice, or every other one queued again.
final class MutantMainActorExecutor: AsyncTaskExecutor {
    private let mutant: MainMutant
    private let submitted = RuleSuite.Counter()
    private let base = MainActorExecutor.shared

    init(_ mutant: MainMutant) {
        self.mutant = mutant
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        switch mutant {
        case .twice:
            base.execute(job)
            base.execute(job)
        case .outOfOrder where submitted.increment() % 2 == 0:
            base.execute { [base] in base.execute(job) }
        case .outOfOrder, .offTheMainThread:
            base.execute(job)
        }
    }

    var isCurrent: Bool { base.isCurrent }
}
