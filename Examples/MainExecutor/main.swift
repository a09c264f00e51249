// How a command-line program drives a backend's main executor (C9.8), for each backend:
//
//     swift run main-executor-example gcd       # ends with dispatchMain()
//     swift run main-executor-example actors    # ends with dispatchMain() (the main actor's queue)
//     swift run main-executor-example threads   # ends with ThreadsBackend.runMainLoop(until:)
//
// Work runs on the default executor; its result comes back on the main executor, where
// `MainActor.assumeIsolated` gives access to main-actor state. Exits 0 when every check held,
// 1 otherwise; Tests/RuleTests/C9MainExecutorTests.swift runs it for every backend.
import Dispatch
import TaskAPI
import BackendGCD
import BackendThreads
import BackendActors

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Main-actor state: what a UI would hold.
@MainActor enum Screen {
    static var shown: [Int] = []
}

let name = CommandLine.arguments.dropFirst().first ?? "gcd"
let backend: any TaskBackend
switch name {
case "threads": backend = ThreadsBackend()
case "actors": backend = ActorsBackend()
default: backend = GCDBackend()
}
let main = backend.mainExecutor

// Jobs on the main executor run in order, on the main executor, isolated to the main actor.
for index in 0..<100 {
    main.execute {
        guard main.isCurrent else { exit(1) }
        MainActor.assumeIsolated { Screen.shown.append(index) }
    }
}
// A result computed elsewhere, shown on the main executor.
let done = backend.run { (1...10).reduce(0, +) }
    .continueWith(on: main) { outcome in
        let ok = MainActor.assumeIsolated { () -> Bool in
            Screen.shown.append(outcome.value ?? -1)
            return Screen.shown == Array(0..<100) + [55]
        }
        print("\(name): \(ok ? "ok" : "FAILED")")
        exit(ok && main.isCurrent && !backend.defaultExecutor.isCurrent ? 0 : 1)
    }

if name == "threads" {
    // The threads backend has no run loop of its own: the main thread runs its main executor.
    ThreadsBackend.runMainLoop(until: done)
} else {
    // GCD's main executor is the main queue, the actors backend's the main actor: both are
    // served once the main thread hands itself to Dispatch.
    dispatchMain()
}
