import Dispatch
import Foundation
import TaskAPI

/// The C2.7 workloads, run inside an exit test so that an overflow fails the test instead of
/// killing the test process.
enum StackProbe {
    /// C2.7's chain length. `RULES_STACK_LINKS` lowers it for the thread-sanitizer run in CI,
    /// where each link costs ~10x more; the plain `swift test` always runs the full million.
    static let links = Int(ProcessInfo.processInfo.environment["RULES_STACK_LINKS"] ?? "") ?? 1_000_000
    static let fanOut = 100_000

    /// Runs `body` on a new thread with a 512 KiB stack and returns its answer.
    static func onSmallStack(_ body: @escaping @Sendable () -> Bool) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let answer = Unsynchronized(false)
        let thread = Thread {
            answer.value = body()
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        return answer.value
    }

    static func runAll(_ backend: any TaskBackend) -> Bool {
        let executors: [(String, any Executor)] = [
            ("inline", backend.inlineExecutor),
            ("synchronous user executor", SynchronousExecutor()),
            ("default", backend.defaultExecutor),
            ("serial", backend.makeSerialExecutor(label: "c2.7")),
        ]
        for (name, executor) in executors {
            guard chainOnPending(backend, executor) == links else {
                print("C2.7: chain registered on a pending task failed on the \(name) executor")
                return false
            }
        }
        guard chainOnCompleted(backend) == links else {
            print("C2.7: chain on a completed task failed")
            return false
        }
        guard wideFanOut(backend) == fanOut else {
            print("C2.7: fan-out of \(fanOut) continuations failed")
            return false
        }
        return true
    }

    /// A chain registered link by link on a pending source, then set off by completing it.
    static func chainOnPending(_ backend: any TaskBackend, _ executor: any Executor) -> Int? {
        let source = backend.makeSource(of: Int.self)
        var last: any AsyncTask<Int> = source.task
        for _ in 0..<links {
            last = last.map(on: executor) { $0 + 1 }
        }
        source.trySucceed(0)
        return try? last.wait(timeout: .seconds(120))?.get()
    }

    /// A chain built on an already-completed task, each link running as it is registered.
    static func chainOnCompleted(_ backend: any TaskBackend) -> Int? {
        var last: any AsyncTask<Int> = backend.succeeded(0)
        for _ in 0..<links {
            last = last.map(on: backend.inlineExecutor) { $0 + 1 }
        }
        return try? last.wait(timeout: .seconds(120))?.get()
    }

    /// One task completing with 100,000 continuations registered.
    static func wideFanOut(_ backend: any TaskBackend) -> Int? {
        let source = backend.makeSource(of: Int.self)
        let counter = Counter()
        var tasks: [any AsyncTask<Void>] = []
        tasks.reserveCapacity(fanOut)
        for _ in 0..<fanOut {
            tasks.append(source.task.continueWith(on: backend.inlineExecutor, token: .none) { _ in
                counter.increment()
            })
        }
        source.trySucceed(1)
        guard backend.whenAll(tasks).wait(timeout: .seconds(120)) != nil else { return nil }
        return counter.count
    }

    /// C8.2 at scale: a chain registered on a source that is never completed, then dropped whole.
    /// Links alternate map, continueWith and flatMap, so that node and closure continuations are
    /// both freed. `true` if the whole chain was freed (and the stack held).
    static func dropPendingChain(_ backend: any TaskBackend) -> Bool {
        weak var root: (any AsyncTask<Int>)?
        weak var leaf: (any AsyncTask<Int>)?
        do {
            let source = backend.makeSource(of: Int.self)
            root = source.task
            var last: any AsyncTask<Int> = source.task
            for index in 0..<links {
                switch index % 3 {
                case 0: last = last.map(on: backend.inlineExecutor) { $0 + 1 }
                case 1: last = last.continueWith(on: backend.inlineExecutor, token: .none) { try $0.get() + 1 }
                default: last = last.flatMap(on: backend.inlineExecutor) { backend.succeeded($0 + 1) }
                }
            }
            leaf = last
        }
        return root == nil && leaf == nil
    }
}
