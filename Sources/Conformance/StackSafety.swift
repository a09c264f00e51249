import Foundation
import TaskAPI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// C2.7, which generated programs are too short to test: a chain of `depth` continuations on the
/// inline executor, completed at its root, on a thread with a small stack. A backend that
/// recurses instead of trampolining overflows that stack. That cannot be caught in-process: while
/// the check runs, a SIGSEGV handler on an alternate stack prints a C2.7 failure line to stderr
/// and exits the process with status 70, so a test running the check in a child process (an exit
/// test) sees the rule. Outside the check the previous handler is back.
enum StackSafety {
    /// The exit status of a process that overflowed its stack in the check.
    static let overflowExitStatus: Int32 = 70

    static func check(_ backend: any TaskBackend, depth: Int, limit: Duration) -> Finding? {
        let result = Locked<Completion<Int>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            // One check at a time in the process: the handler and its message are process-wide.
            SegfaultReporter.serial.lock()
            defer { SegfaultReporter.serial.unlock() }
            SegfaultReporter.install(message: "\(backend.name): C2.7 broken: stack overflow in the stack-safety check, "
                                     + "a chain of \(depth) continuations on the inline executor (recursion instead of a trampoline?)\n")
            // Every task stays referenced here until the end, then is released root first: a
            // backend that wrongly keeps continuations (C8.1) would otherwise free the chain
            // recursively, one task's deinit inside the previous one's.
            var source: (any CompletionSource<Int>)? = backend.makeSource(of: Int.self)
            var tasks: [any AsyncTask<Int>] = source.map { [$0.task] } ?? []
            tasks.reserveCapacity(depth + 1)
            for _ in 0..<depth {
                tasks.append(tasks[tasks.count - 1].continueWith(on: backend.inlineExecutor, token: .none) { try $0.get() + 1 })
            }
            tasks[tasks.count - 1].whenComplete(on: backend.inlineExecutor) { completion in result.withLock { $0 = completion } }
            source?.trySucceed(0)
            source = nil
            SegfaultReporter.uninstall()
            tasks.reverse()
            while tasks.popLast() != nil {}
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        // Only a hang detector: generous, since under the thread sanitizer and with other checks
        // waiting for `serial` the chain may take seconds.
        let limit = max(limit, .seconds(60))
        let (seconds, attoseconds) = limit.components
        let nanos = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard done.wait(timeout: .now() + .nanoseconds(nanos)) == .success else {
            return Finding(.c2_7, "stack-safety check: a chain of \(depth) inline continuations did not complete within \(limit)",
                           expected: "success(\(depth))", observed: "still pending")
        }
        let observed = result.withLock { $0 }
        guard case .success(depth) = observed else {
            return Finding(.c2_7, "stack-safety check: a chain of \(depth) inline continuations completed wrongly",
                           expected: "success(\(depth)) before the completing call returned",
                           observed: observed.map { "\(Outcome($0))" } ?? "not completed when trySucceed returned")
        }
        return nil
    }
}

/// The SIGSEGV handler of the stack-safety check.
private enum SegfaultReporter {
    static let serial = NSLock()
    // nonisolated(unsafe): written only by `install`/`uninstall`, which the checking thread calls
    // before and after the check while holding `serial`; the signal handler only reads them in
    // between.
    nonisolated(unsafe) static var message: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static var messageLength = 0
    nonisolated(unsafe) static var alternateStack: UnsafeMutableRawPointer?
    nonisolated(unsafe) static var previous = sigaction()

    static let alternateStackSize = 1 << 16

    static func install(message text: String) {
        let bytes = Array(text.utf8CString)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        buffer.initialize(from: bytes, count: bytes.count)
        message = buffer
        messageLength = bytes.count - 1
        let stackMemory = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize, alignment: 16)
        alternateStack = stackMemory
        var stack = stack_t()
        stack.ss_sp = stackMemory
        stack.ss_size = alternateStackSize
        stack.ss_flags = 0
        sigaltstack(&stack, nil)
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = segfaultHandler
        #else
        action.__sigaction_u.__sa_handler = segfaultHandler
        #endif
        action.sa_flags = Int32(SA_ONSTACK)
        sigemptyset(&action.sa_mask)
        sigaction(SIGSEGV, &action, &previous)
    }

    static func uninstall() {
        sigaction(SIGSEGV, &previous, nil)
        var disable = stack_t()
        disable.ss_flags = Int32(SS_DISABLE)
        sigaltstack(&disable, nil)
        alternateStack?.deallocate()
        alternateStack = nil
        message?.deallocate()
        message = nil
    }
}

/// Async-signal-safe: only `write` and `_exit`.
private func segfaultHandler(_ signal: Int32) {
    if let message = SegfaultReporter.message {
        _ = write(2, message, SegfaultReporter.messageLength)
    }
    _exit(StackSafety.overflowExitStatus)
}
