import Dispatch
import Foundation
import Synchronization
import TaskAPI

/// The generous bound every test waits for an outcome; a correct backend needs milliseconds.
let patience: Duration = .seconds(10)

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

/// A counter safe to bump from any thread.
final class Counter: Sendable {
    private let value = Atomic(0)
    @discardableResult
    func increment() -> Int { value.add(1, ordering: .sequentiallyConsistent).newValue }
    var count: Int { value.load(ordering: .sequentiallyConsistent) }
}

/// A list safe to append to from any thread.
final class Recorder<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// An object whose lifetime tests watch through a weak reference (C5.5, C8).
final class Probe: Sendable {}

/// Waits until `condition` holds, re-checking every millisecond up to `patience`. For outcomes
/// with no task to wait on (an object's release on another thread); returns the final answer.
func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + patience
    while ContinuousClock.now < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return condition()
}

/// A user-written executor (C7.1): runs jobs on its own serial queue, counts them, and lets a
/// job tell whether it runs on this executor.
final class UserExecutor: Executor {
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

/// A user executor that runs every job synchronously inside `execute`, the worst case for C2.7.
final class SynchronousExecutor: Executor {
    let ran = Counter()
    func execute(_ job: @escaping @Sendable () -> Void) {
        ran.increment()
        job()
    }
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

/// A value shared between threads without synchronization of its own: C2.2 checks that the
/// library's completion publishes it (and the thread sanitizer checks it too).
final class Unsynchronized<Value>: @unchecked Sendable {
    // Deliberately unsynchronized: the tests that use it rely on the contract's happens-before.
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A user executor whose `execute` blocks its caller on the first job until released: holds a
/// completing thread in the middle of handing continuations over (C2.4).
final class GateExecutor: Executor {
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
