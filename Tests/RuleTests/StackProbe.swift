import Conformance
import Dispatch
import Foundation
import TaskAPI

/// The C2.7 and C8.2 workloads, run inside exit tests so that an overflow fails the test instead
/// of killing the test process.
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

    /// C2.7: the harness's chains on every kind of executor (`Conformance.checkResources` on its
    /// 512 KiB thread, what a backend from outside runs too), then the shapes only this suite
    /// checks.
    static func runAll(_ backend: any TaskBackend) -> Bool {
        let chains = ResourceCheck.allCases.filter { $0.rule == .c2_7 }
        let findings = Conformance.checkResources(backend, links: links, checks: chains)
        for finding in findings { print("\(finding.rule): \(finding.message); observed \(finding.observed)") }
        guard findings.isEmpty else { return false }
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

    /// A chain built on an already-completed task, each link running as it is registered.
    static func chainOnCompleted(_ backend: any TaskBackend) -> Int? {
        var last: any AsyncTask<Int> = backend.succeeded(0)
        for _ in 0..<links {
            last = last.map(on: backend.inlineExecutor) { $0 + 1 }
        }
        return try? last.wait(timeout: .seconds(120))?.get()
    }

    /// A chain of `links` inline maps registered on a derived task whose executor drops its job;
    /// `true` if the whole chain was freed once that job was dropped.
    static func chainDroppedByExecutor(_ backend: any TaskBackend) -> Bool {
        let dropper = ClosureExecutor { _ in }  // lets every job go unrun
        let source = backend.makeSource(of: Int.self)
        weak var head: (any AsyncTask<Int>)?
        weak var leaf: (any AsyncTask<Int>)?
        do {
            let first = source.task.map(on: dropper) { $0 }
            head = first
            var last = first
            for _ in 0..<links {
                last = last.map(on: backend.inlineExecutor) { $0 + 1 }
            }
            leaf = last
        }
        // The completion hands `first` to the dropper, whose dropped job was its only holder:
        // `first` is freed pending, holding the chain.
        source.trySucceed(0)
        return head == nil && leaf == nil
    }

    /// One task completing with 100,000 continuations registered.
    static func wideFanOut(_ backend: any TaskBackend) -> Int? {
        let source = backend.makeSource(of: Int.self)
        let counter = Counter()
        var tasks: [any AsyncTask<Void>] = []
        tasks.reserveCapacity(fanOut)
        for _ in 0..<fanOut {
            tasks.append(
                source.task.continueWith(on: backend.inlineExecutor, token: .none) { _ in
                    counter.increment()
                })
        }
        source.trySucceed(1)
        guard backend.whenAll(tasks).wait(timeout: .seconds(120)) != nil else { return nil }
        return counter.count
    }
}
