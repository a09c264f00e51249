import Dispatch
import Foundation
import Synchronization
import TaskAPI

// What the rule checks share: bounded waits, counters, recorders, user-written executors and
// racing threads. Counter, Recorder and Unsynchronized are public for tests of a backend's own.

/// The generous bound every check waits for an outcome; a correct backend needs milliseconds.
let patience: Duration = .seconds(10)

extension RuleContext {
    /// A time bound the contract states (C6.4's "within 1 s"), stretched as the timing oracle's
    /// slack is (`timingSlack` over the default 2 s): 1 s normally, 5 s under the thread
    /// sanitizer, which slows every thread hand-off several times over.
    func contractBound(_ bound: Duration) -> Duration {
        bound * max(1, timingSlack / .seconds(2))
    }
}

/// The error the checks' bodies throw.
struct TestError: Error, Equatable {
    let code: Int
}

extension AsyncTask {
    /// Waits for the outcome with a generous bound; `nil` means the task hung.
    func settle() -> Completion<Success>? {
        wait(timeout: patience)
    }
}

extension Completion {
    /// The failure's error as a `TestError`, if it is one.
    var testError: TestError? { error as? TestError }
}

extension RuleSuite {
    /// A counter safe to bump from any thread.
    public final class Counter: Sendable {
        private let value = Atomic(0)
        public init() {}
        @discardableResult
        public func increment() -> Int { value.add(1, ordering: .sequentiallyConsistent).newValue }
        public var count: Int { value.load(ordering: .sequentiallyConsistent) }
    }

    /// A list safe to append to from any thread.
    public final class Recorder<Element: Sendable>: Sendable {
        private let items = PlainLocked<[Element]>([])
        public init() {}
        public func append(_ item: Element) { items.withLock { $0.append(item) } }
        public var all: [Element] { items.withLock { $0 } }
    }

    /// A value shared between threads without synchronization of its own: C2.2 checks that the
    /// library's completion publishes it (and the thread sanitizer checks it too).
    public final class Unsynchronized<Value>: @unchecked Sendable {
        // Deliberately unsynchronized: the checks that use it rely on the contract's happens-before.
        public var value: Value
        public init(_ value: Value) { self.value = value }
    }
}

typealias Counter = RuleSuite.Counter
typealias Recorder = RuleSuite.Recorder
typealias Unsynchronized = RuleSuite.Unsynchronized

/// Waits until `condition` holds, re-checking every millisecond up to `limit` (`patience` by
/// default). For outcomes with no task to wait on (an object's release on another thread, a
/// delivery to an executor); returns the final answer.
func eventually(within limit: Duration = patience, _ condition: () -> Bool) -> Bool {
    let deadline = Uptime.now + limit
    while Uptime.now < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return condition()
}

/// A user-written executor (C7.1): runs jobs on its own serial queue, counts them, and lets a
/// job tell whether it runs on this executor.
final class UserExecutor: AsyncTaskExecutor {
    private let queue: DispatchQueue
    private let key = DispatchSpecificKey<ObjectIdentifier>()
    let submitted = Counter()
    let ran = Counter()

    init(label: String = "user-executor") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: ObjectIdentifier(self))
    }

    func execute(_ job: @escaping @Sendable () -> Void) {
        submitted.increment()
        queue.async {
            self.ran.increment()
            job()
        }
    }

    /// `true` when called from a job this executor is running (C2.5).
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self) }
}

/// Starts `count` threads that each run `body(index)` as close together as possible, and waits
/// for all of them. For races (C1.2, C2.1, C4.1).
func race(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        Thread.detachNewThread {
            start.wait()
            body(index)
            group.leave()
        }
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}

/// A user executor whose `execute` blocks its caller on the first job until released: holds a
/// completing thread in the middle of handing continuations over (C2.4).
final class GateExecutor: AsyncTaskExecutor {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let first = Atomic(true)

    func execute(_ job: @escaping @Sendable () -> Void) {
        if first.exchange(false, ordering: .sequentiallyConsistent) {
            entered.signal()
            release.wait()
        }
        job()
    }
}

/// An executor that drops every job: the fault C8.3 turns into a failure instead of a hang.
final class DroppingJobsExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) {}
}

/// The executor's name in a failure's call: `default`, `inline`, `serial`, or `user`.
func executorName(_ executor: any AsyncTaskExecutor, in backend: any TaskBackend) -> String {
    executor === backend.defaultExecutor
        ? "default"
        : executor === backend.inlineExecutor
            ? "inline"
            : executor is UserExecutor ? "user" : "serial"
}

/// How many times each of a list of things ran, in words: "all once", or the ones that did not.
func runCounts(_ counts: [Int]) -> String {
    let off = counts.enumerated().filter { $0.element != 1 }
    guard !off.isEmpty else { return "each ran once" }
    return "\(off.count) of \(counts.count) did not run once: "
        + off.prefix(5).map { "#\($0.offset) ran \($0.element) times" }
        .joined(separator: ", ") + (off.count > 5 ? ", ..." : "")
}

/// A sequence expected to be 0, 1, 2, ...: where it first goes wrong.
func firstDisorder(_ seen: [Int]) -> String {
    guard let index = seen.indices.first(where: { seen[$0] != $0 }) else { return "\(seen.count) in order" }
    let window = seen[max(0, index - 2)..<min(seen.count, index + 3)].map(String.init).joined(separator: ", ")
    return "\(seen.count) runs, out of order at position \(index): ... \(window) ..."
}
