import Foundation
import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The checks generated programs are too short for, at the contract's sizes: chains of
/// 1,000,000 continuations on every kind of executor and async loops of 1,000,000 steps on the
/// backend's inline, default and serial executors (C2.7), and a dropped pending chain of as many
/// links (C8.2), each started on a thread created with a 512 KiB stack.
public enum ResourceCheck: String, CaseIterable, Codable, Sendable, CustomStringConvertible {
    /// A chain registered link by link on a pending source, set off by completing it, on the
    /// backend's inline executor (C2.7).
    case inlineChain = "inline"
    /// The same on the backend's default executor.
    case defaultChain = "default"
    /// The same on a serial executor of the backend.
    case serialChain = "serial"
    /// The same on a user's executor that runs every job at once, inside `execute`: a backend
    /// must trampoline its hand-offs to users' executors too.
    case synchronousUserChain = "synchronous user"
    /// A pending chain (map, continueWith, flatMap) never completed and dropped whole: freeing it
    /// must not recurse one task's deinit inside the previous one's (C8.2).
    case droppedPendingChain = "dropped"
    /// An async loop on the backend's inline executor: each step registers the next on a
    /// completed task from inside the previous step's continuation. By C2.7's decision that
    /// registration is queued behind the running inline work; run in place, it recurses.
    case inlineLoop = "inline loop"
    /// The same on the backend's default executor.
    case defaultLoop = "default loop"
    /// The same on a serial executor of the backend.
    case serialLoop = "serial loop"

    public var rule: Rule { self == .droppedPendingChain ? .c8_2 : .c2_7 }

    public var description: String {
        switch self {
        case .droppedPendingChain: return "a dropped pending chain"
        case .inlineLoop, .defaultLoop, .serialLoop: return "an async loop on the \(rawValue.dropLast(" loop".count)) executor"
        case .inlineChain, .defaultChain, .serialChain, .synchronousUserChain: return "a chain on the \(rawValue) executor"
        }
    }

    /// The contract's size (C2.7, C8.2).
    public static let contractLinks = 1_000_000
    /// How soon a dropped chain must be freed once nothing references it and the work its drop
    /// set off is over (C8.2's decision): 2 s. Stretched under the thread sanitizer by
    /// `check`, as the timing slack is.
    public static let freeLimit: Duration = .seconds(2)
    /// The stack the checks run on (C2.7: "on a 512 KiB stack").
    public static let stackSize = 512 * 1024
}

extension Conformance {
    /// Runs `checks` against `backend` on a thread with a 512 KiB stack and returns what they
    /// found (empty: passed). An overflow cannot be caught: while a check runs, a SIGSEGV handler
    /// prints the backend, the rule, the check and the thread that overflowed (the check's own,
    /// or a backend's thread a job of the check ran on, such as its event loop) to stderr and
    /// exits the process with status 70 (`resourceCheckCrashStatus`; `CrashReporter` says how it
    /// reaches threads the harness did not create). Run this in a child process (an exit test) to keep the
    /// test process alive; `check` runs it in-process unless `configuration.resourceLinks` is 0.
    /// `links` is the contract's size by default; a test that lowers it where each link costs
    /// more (the thread sanitizer) passes `ConformanceConfiguration.fromEnvironment().resourceLinks`
    /// (`CONFORMANCE_STACK_LINKS`). `limit` bounds each chain's work (completing, or the work a
    /// dropped chain sets off); `freeLimit` is how soon after that a dropped chain must be freed.
    public static func checkResources(
        _ backend: any TaskBackend, links: Int = ResourceCheck.contractLinks,
        checks: [ResourceCheck] = ResourceCheck.allCases, limit: Duration = .seconds(120),
        freeLimit: Duration = ResourceCheck.freeLimit
    ) -> [Finding] {
        let findings = PlainLocked<[Finding]>([])
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            // One check at a time in the process: the handler and its message are process-wide.
            CrashReporter.serial.lock()
            defer { CrashReporter.serial.unlock() }
            for check in checks {
                CrashReporter.install(
                    message: "\(backend.name): \(check.rule) broken: stack overflow in the resource check "
                        + "\(check) of \(links) links (recursion instead of a trampoline?)")
                let finding = ResourceChecks(backend: backend, links: links, limit: limit, freeLimit: freeLimit).run(check)
                CrashReporter.uninstall()
                if let finding { findings.withLock { $0.append(finding) } }
            }
            done.signal()
        }
        thread.stackSize = ResourceCheck.stackSize
        thread.start()
        done.wait()
        return findings.withLock { $0 }
    }

    /// The exit status of a process whose stack overflowed in `checkResources`.
    public static let resourceCheckCrashStatus: Int32 = 70
}

/// The workloads of `ResourceCheck`, on the calling thread.
private struct ResourceChecks {
    let backend: any TaskBackend
    let links: Int
    let limit: Duration
    let freeLimit: Duration

    func run(_ check: ResourceCheck) -> Finding? {
        switch check {
        case .inlineChain: return chain(on: backend.inlineExecutor, check)
        case .defaultChain: return chain(on: backend.defaultExecutor, check)
        case .serialChain: return chain(on: backend.makeSerialExecutor(label: "conformance.c2.7"), check)
        case .synchronousUserChain: return chain(on: SynchronousUserExecutor(), check)
        case .droppedPendingChain: return droppedChain()
        case .inlineLoop: return asyncLoop(on: backend.inlineExecutor, check)
        case .defaultLoop: return asyncLoop(on: backend.defaultExecutor, check)
        case .serialLoop: return asyncLoop(on: backend.makeSerialExecutor(label: "conformance.c2.7.loop"), check)
        }
    }

    /// `links` steps, each registering the next on a completed task from inside the previous
    /// one's continuation on `executor`: the loop must finish with `links`.
    private func asyncLoop(on executor: any AsyncTaskExecutor, _ check: ResourceCheck) -> Finding? {
        let completed = backend.succeeded(0)
        let done = backend.makeSource(of: Int.self)
        let links = self.links
        @Sendable func step(_ index: Int) {
            if index == links {
                done.trySucceed(links)
                return
            }
            completed.whenComplete(on: executor) { _ in
                CrashReporter.armCurrentThread()
                step(index + 1)
            }
        }
        step(0)
        let observed = done.task.wait(timeout: limit)
        guard case .success(links) = observed else {
            return Finding(
                .c2_7,
                "resource check: \(check) of \(links) steps "
                    + (observed == nil ? "did not complete within \(limit)" : "completed wrongly"),
                expected: "success(\(links))", observed: observed.map { "\(Outcome($0))" } ?? "still pending")
        }
        return nil
    }

    /// A chain registered on a pending source, then set off by completing it: the last task must
    /// hold `links`.
    private func chain(on executor: any AsyncTaskExecutor, _ check: ResourceCheck) -> Finding? {
        // Every task stays referenced until the end, then is released root first: a backend
        // that wrongly keeps continuations (C8.1) would otherwise free the chain recursively.
        var source: (any CompletionSource<Int>)? = backend.makeSource(of: Int.self)
        var tasks: [any AsyncTask<Int>] = source.map { [$0.task] } ?? []
        tasks.reserveCapacity(links + 1)
        for _ in 0..<links {
            tasks.append(
                tasks[tasks.count - 1].map(on: executor) {
                    CrashReporter.armCurrentThread()
                    return $0 + 1
                })
        }
        source?.trySucceed(0)
        source = nil
        let observed = tasks[tasks.count - 1].wait(timeout: limit)
        tasks.reverse()
        while tasks.popLast() != nil {}
        guard case .success(links) = observed else {
            return Finding(
                .c2_7,
                "resource check: \(check) of \(links) links "
                    + (observed == nil ? "did not complete within \(limit)" : "completed wrongly"),
                expected: "success(\(links))", observed: observed.map { "\(Outcome($0))" } ?? "still pending")
        }
        return nil
    }

    /// A pending chain of every kind of link, dropped whole: root and leaf must be freed within
    /// `freeLimit` of the drop or, when the drop set work off, of that work finishing (C8.2's
    /// decision). Dropping the chain releases its source, which completes the root `abandoned`
    /// (C8.3); the chain's continuations then run, on the backend's threads if it delivers
    /// there (an event loop may take seconds for a long chain), and only then can it be freed.
    /// A continuation on the leaf, which holds nothing of the chain, says when that work is over;
    /// it may take `limit`, as long as a chain of the same size may take to complete (C2.7).
    private func droppedChain() -> Finding? {
        let backend = self.backend
        weak var root: (any AsyncTask<Int>)?
        weak var leaf: (any AsyncTask<Int>)?
        let workEnded = PlainLocked<Uptime?>(nil)
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
            last.whenComplete(on: backend.inlineExecutor) { _ in workEnded.withLock { $0 = .now } }
        }
        let dropped = Uptime.now
        // Freed, or the last moment it may still be: `freeLimit` after the drop or after the work
        // it set off ended, whichever is later; the work itself gets at most `limit`.
        func deadline() -> Uptime {
            max(dropped + freeLimit, workEnded.withLock { $0 }.map { $0 + freeLimit } ?? dropped + max(freeLimit, limit))
        }
        while root != nil || leaf != nil, !deadline().hasPassed {
            usleep(1_000)
        }
        guard root != nil || leaf != nil else { return nil }
        let ended = workEnded.withLock { $0 }
        let since =
            ended.map { "of the chain's completion (the work the drop set off, \($0 - dropped) after the drop)" }
            ?? "of the drop (the chain did not complete within \(limit) either)"
        return Finding(
            .c8_2, "resource check: a pending chain of \(links) links, dropped, was not freed within \(freeLimit) \(since)",
            expected: "root and leaf freed",
            observed: [root.map { _ in "root alive" }, leaf.map { _ in "leaf alive" }]
                .compactMap { $0 }.joined(separator: ", "))
    }
}

/// A user's executor that runs each job at once, on the calling thread (C2.7's "any executor").
final class SynchronousUserExecutor: AsyncTaskExecutor {
    func execute(_ job: @escaping @Sendable () -> Void) { job() }
}
