import BackendActors
import BackendGCD
import BackendThreads
// How a backend author checks a main executor (C9.8): its jobs run only while the process's main
// thread serves the backend's main loop, which a test process's main thread does not do, so the
// main-executor checks run from an executable's top-level code, on the main thread, which
// `RuleSuite.runMainExecutorChecks` serves the main loop on while the checks run:
//
//     swift run main-executor-check gcd        # or threads, actors
//
// Prints the report (the rule suite's words: rule ids, failures) and exits 0 when it passed, 1
// when a check failed, 2 when the call was refused (called off the main thread) or the backend's
// name is not one of the three.
// Tests/ConformanceTests/MainExecutorCheckTests.swift runs it for every backend. A backend of
// your own: an executable target like this one, with your backend in place of these.
import Conformance
import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let name = CommandLine.arguments.dropFirst().first ?? "gcd"
let backend: any TaskBackend
switch name {
case "gcd": backend = GCDBackend()
case "threads": backend = ThreadsBackend()
case "actors": backend = ActorsBackend()
default:
    print("main-executor-check: no backend named \"\(name)\"; use gcd, threads or actors")
    exit(2)
}
do {
    let report = try RuleSuite.runMainExecutorChecks(backend)
    print(report)
    exit(report.passed ? 0 : 1)
} catch {
    print("[\(name)] \(error)")
    exit(2)
}
