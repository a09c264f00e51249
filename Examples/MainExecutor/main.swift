import BackendActors
import BackendGCD
import BackendThreads
// How a command-line program serves a backend's main executor (C9.8), the same way on every
// backend, with no other import:
//
//     swift run main-executor-example gcd             # ends with backend.runMainLoop(until: done)
//     swift run main-executor-example threads forever # ends with backend.runMainLoop()
//
// (gcd, threads or actors; `until`, the default, or `forever`.) Work runs on the default
// executor, is summed on an actor pinned to one of the backend's serial executors, and comes back
// on the main executor, where a body is `@MainActor` and writes main-actor state directly (C9.10).
// `runMainLoop(until: done)` returns once `done` has completed, and the program goes on on its
// main thread; `runMainLoop()` never returns, and the last job exits. Exits 0 when every check
// held, 1 otherwise; Tests/RuleTests/C9MainExecutorTests.swift runs it for every backend and
// both forms.
import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Main-actor state: what a UI would hold.
@MainActor enum Screen {
    static var shown: [Int] = []
    static var status = ""
}

/// An actor pinned to one of the backend's serial executors (C9.9): continuations registered on
/// it take it `isolated` (C9.10).
actor Tally: PinnedActor {
    nonisolated let executor: any ActorExecutor
    var total = 0

    init(executor: any ActorExecutor) {
        self.executor = executor
    }
}

let arguments = CommandLine.arguments.dropFirst()
let name = arguments.first ?? "gcd"
let forever = arguments.dropFirst().first == "forever"
let backend: any TaskBackend
switch name {
case "threads": backend = ThreadsBackend()
case "actors": backend = ActorsBackend()
default: backend = GCDBackend()
}
let main = backend.mainExecutor
guard let tallyExecutor = backend.makeActorExecutor(label: "tally") else {
    print("\(name): no actor executor")
    exit(1)
}
let tally = Tally(executor: tallyExecutor)

// Bodies on the main executor are `@MainActor`, and run in submission order (C9.8, C9.10).
for index in 0..<100 {
    backend.run(on: main) {
        guard main.isCurrent else { exit(1) }
        Screen.shown.append(index)
    }
}
// A plain job on it: `MainActor.assumeIsolated` holds inside (C9.8).
main.execute {
    MainActor.assumeIsolated { Screen.status = "plain job" }
}
// A result computed elsewhere, added up on the actor, shown on the main executor.
let done = backend.run { (1...10).reduce(0, +) }
    .map(on: tally) { tally, sum in
        tally.total += sum
        return tally.total
    }
    .continueWith(on: main) { outcome in
        Screen.shown.append(outcome.value ?? -1)
        // Serving the main executor again from inside one of its jobs is refused: it would run
        // later jobs before the rest of this one.
        let refused = !backend.runMainLoop(until: backend.succeeded(0)) && !backend.runMainLoop()
        let ok =
            Screen.shown == Array(0..<100) + [55] && Screen.status == "plain job"
            && main.isCurrent && !backend.defaultExecutor.isCurrent && refused
        if forever {
            print("\(name) forever: \(ok ? "ok" : "FAILED")")
            exit(ok ? 0 : 1)
        }
        return ok
    }

if forever {
    // Serves the main executor for the rest of the program: the job above exits.
    backend.runMainLoop()
    print("\(name): runMainLoop() returned on the main thread")
    exit(1)
}
// Serves the main executor until `done` has completed, then goes on here, on the main thread.
let served = backend.runMainLoop(until: done)
let ok = served && done.isCompleted && done.completion?.value == true && !main.isCurrent
print("\(name) until: \(ok ? "ok" : "FAILED")")
exit(ok ? 0 : 1)
