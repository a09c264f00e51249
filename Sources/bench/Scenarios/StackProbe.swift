import Dispatch
import Foundation
import Synchronization
import TaskAPI

/// The child side of the stack scenario: `bench __stack-probe SUBJECT EXECUTOR DEPTH STACK_KIB`
/// builds one chain of DEPTH links on a thread with a STACK_KIB stack, runs it, and prints
/// `ok USED_BYTES`. A stack overflow kills this child process, not the benchmark.
///
/// SUBJECT is a backend name, or `closure` (nested closures calling each other: what a
/// hand-written callback chain does) or `dispatch` (each step submitting the next).
enum StackProbe {
    static let command = "__stack-probe"

    /// Lowest stack address seen by a link running on the probe thread.
    private static let deepest = Atomic<UInt>(UInt.max)

    @inline(never)
    static func stackAddress() -> UInt {
        // The address of a local is where this frame sits on the stack; only the number is kept,
        // the pointer is never dereferenced.
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    @inline(__always)
    static func record() {
        let here = stackAddress()
        var current = deepest.load(ordering: .relaxed)
        while here < current {
            let (exchanged, original) = deepest.compareExchange(
                expected: current, desired: here, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Runs the probe; returns the process exit status (0: the chain completed).
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 4, let depth = Int(arguments[2]), let kib = Int(arguments[3]),
            depth >= 0, kib >= 64
        else {
            printError("usage: bench \(command) SUBJECT EXECUTOR DEPTH STACK_KIB")
            return 2
        }
        let subject = arguments[0]
        let executorName = arguments[1]
        let outcome = LockedBox<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let top = stackAddress()
            let ok = runChain(subject: subject, executor: executorName, depth: depth)
            let low = deepest.load(ordering: .relaxed)
            let used = low == UInt.max || low > top ? 0 : top - low
            outcome.withLock { $0 = ok ? "ok \(used)" : "wrong" }
            done.signal()
        }
        thread.stackSize = kib * 1024
        thread.start()
        guard done.wait(timeout: .now() + .seconds(120)) == .success else {
            print("timeout")
            return 3
        }
        let text = outcome.withLock { $0 } ?? "wrong"
        print(text)
        return text.hasPrefix("ok") ? 0 : 1
    }

    private static func runChain(subject: String, executor executorName: String, depth: Int) -> Bool {
        switch subject {
        case "closure":
            var chain: (Int) -> Int = { value in
                record()
                return value
            }
            for _ in 0..<depth {
                let inner = chain
                chain = { inner($0) &+ 1 }
            }
            return chain(0) == depth
        case "dispatch":
            let queue = executorName == "serial" ? DispatchQueue(label: "bench.probe") : DispatchQueue.global()
            let done = DispatchSemaphore(value: 0)
            let result = Counter()
            @Sendable func step(_ i: Int) {
                if i == depth {
                    result.add(i)
                    done.signal()
                } else {
                    queue.async { step(i + 1) }
                }
            }
            step(0)
            done.wait()
            return result.value == depth
        default:
            guard let backend = backendRegistry.first(where: { $0.name == subject }),
                let kind = ExecutorKind(rawValue: executorName)
            else { return false }
            let executor = kind.make(for: backend)
            let onThisThread = kind == .inline
            let source = backend.makeSource(of: Int.self)
            var task: any AsyncTask<Int> = source.task
            for _ in 0..<depth {
                task = task.map(on: executor) { value in
                    if onThisThread { record() }
                    return value &+ 1
                }
            }
            source.trySucceed(0)
            return task.wait().value == depth
        }
    }
}
