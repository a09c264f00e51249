import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What ends the process when a resource check overflows a stack: a line naming the backend, the
/// rule, the check and the thread on standard error, and exit status 70
/// (`Conformance.resourceCheckCrashStatus`), instead of a bare signal 11.
///
/// An overflow may happen on a thread the harness did not create: a backend that runs
/// continuations on an event loop of its own recurses there. A SIGSEGV from an overflow reaches a
/// handler only on an alternate signal stack (`sigaltstack`) of the thread that overflowed, and
/// an alternate stack is per thread. So the handler is process-global (installed for the
/// duration of a check, `install`/`uninstall`), the check it reports is named in a
/// process-global message it only reads, and every job of the check arms the thread it runs on
/// (`armCurrentThread`): the first job of the check on a backend's thread gives that thread an
/// alternate stack before any recursion can start there. The stack stays with the thread and is
/// freed when the thread exits (a thread-specific key's destructor). A thread that already had
/// an alternate stack (its own or the runtime's) keeps it.
///
/// It also names a trap in a step of a rule check (`namingTraps`: a backend that casts a task
/// of another class to its own traps in a combinator): the same kind of line on standard error,
/// after which the trap goes on as it would have (contract 1.4, `RuleSuite.ForeignInputs`).
enum CrashReporter {
    /// One check at a time in the process: the handler and its message are process-wide.
    static let serial = NSLock()

    // nonisolated(unsafe): the texts and the previous actions are written only by `install` and
    // `uninstall`, which the checking thread calls before and after each check while holding
    // `serial`; the signal handler only reads them in between (no job of the check runs outside
    // that window: the check waits for its work before it uninstalls).
    /// The check's line up to the thread (no newline).
    nonisolated(unsafe) static var message: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static var messageLength = 0
    /// The checking thread, to tell an overflow there from one on a backend's thread.
    nonisolated(unsafe) static var checkingThread: pthread_t?
    nonisolated(unsafe) static var previous: [sigaction] = []

    static let alternateStackSize = 1 << 16
    /// The signals an overflow raises: SIGSEGV, and SIGBUS on some systems.
    static let signals = [SIGSEGV, SIGBUS]

    /// The per-thread alternate stack the harness gave a thread (`armCurrentThread`), freed by the
    /// key's destructor when the thread exits; `alreadyArmed` for a thread that had its own.
    static let stackKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, releaseAlternateStack)
        precondition(status == 0, "CrashReporter: pthread_key_create failed (\(status)) when arming the first thread")
        return key
    }()
    /// The key's value (as a bit pattern) for a thread that had an alternate stack before the
    /// harness looked.
    static let alreadyArmed = 1

    /// Reports an overflow as `text` (`<backend>: C2.7 broken: stack overflow in ...`) plus the
    /// thread, until `uninstall`; arms the calling (checking) thread.
    static func install(message text: String) {
        (message, messageLength) = CrashReporterText.cString(text)
        checkingThread = pthread_self()
        CrashReporterText.prepare()
        armCurrentThread()
        var action = signalAction(
            overflowHandler, flags: Int32(truncatingIfNeeded: SA_ONSTACK) | Int32(truncatingIfNeeded: SA_RESETHAND))
        previous = signals.map { signal in
            var old = sigaction()
            sigaction(signal, &action, &old)
            return old
        }
    }

    /// Restores the handlers there were; the threads keep their alternate stacks.
    static func uninstall() {
        for (signal, old) in zip(signals, previous) {
            var old = old
            sigaction(signal, &old, nil)
        }
        previous = []
        checkingThread = nil
        message?.deallocate()
        message = nil
    }

    /// Gives the calling thread an alternate signal stack unless it has one: cheap after the first
    /// call on a thread (a thread-specific read), so every job of a check calls it.
    @inline(__always)
    static func armCurrentThread() {
        guard pthread_getspecific(stackKey) == nil else { return }
        armNewThread()
    }

    private static func armNewThread() {
        var current = stack_t()
        sigaltstack(nil, &current)
        guard current.ss_flags & Int32(SS_DISABLE) != 0 else {
            pthread_setspecific(stackKey, UnsafeRawPointer(bitPattern: alreadyArmed))
            return
        }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: alternateStackSize, alignment: 16)
        var stack = stack_t()
        stack.ss_sp = memory
        stack.ss_size = alternateStackSize
        stack.ss_flags = 0
        guard sigaltstack(&stack, nil) == 0 else {
            memory.deallocate()
            pthread_setspecific(stackKey, UnsafeRawPointer(bitPattern: alreadyArmed))
            return
        }
        pthread_setspecific(stackKey, memory)
    }
}

extension CrashReporter {
    /// The signals a trap raises: a failed cast or precondition, a force-unwrapped `nil`
    /// (SIGILL on x86-64, SIGTRAP on arm64), the runtime's fatal errors (SIGABRT), an integer
    /// division by zero (SIGFPE). Not SIGSEGV and SIGBUS, which belong to the resource checks
    /// (`install`): one may run on another thread meanwhile, and each restores what it replaced.
    static let trapSignals = [SIGABRT, SIGILL, SIGTRAP, SIGFPE]
    /// One step guarded by `namingTraps` at a time in the process: the handler and its message
    /// are process-wide.
    static let trapSerial = NSLock()

    // nonisolated(unsafe): written only by `namingTraps` while it holds `trapSerial`, before it
    // installs the handler and after it restores the previous actions; the handler only reads
    // them in between. The buffer of previous actions is made once and never freed.
    nonisolated(unsafe) static var trapMessage: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) static var trapMessageLength = 0
    nonisolated(unsafe) static var trapCheckingThread: pthread_t?
    nonisolated(unsafe) static let trapPrevious = UnsafeMutablePointer<sigaction>.allocate(capacity: trapSignals.count)

    /// Runs `body` so that a trap in it, on the calling thread or a backend's, first writes
    /// `text` (`<backend>: C5.1 broken: the process crashed in the rule check ...`) and the thread
    /// to standard error; then the signal goes on to the action there was before (the Swift
    /// runtime's backtrace, a debugger's), and the process dies of it as it would have: a crash
    /// stays a crash, with a line naming the rule and the check. A rule check that hands a
    /// backend input it may cast to its own class (ForeignInputs) wraps each step in it.
    static func namingTraps<T>(message text: String, _ body: () throws -> T) rethrows -> T {
        trapSerial.lock()
        defer { trapSerial.unlock() }
        let (buffer, length) = CrashReporterText.cString(text)
        trapMessage = buffer
        trapMessageLength = length
        trapCheckingThread = pthread_self()
        CrashReporterText.prepare()
        var action = signalAction(trapHandler)
        for (index, signal) in trapSignals.enumerated() {
            sigaction(signal, &action, trapPrevious + index)
        }
        defer {
            for (index, signal) in trapSignals.enumerated() {
                sigaction(signal, trapPrevious + index, nil)
            }
            trapCheckingThread = nil
            trapMessage = nil
            buffer.deallocate()
        }
        return try body()
    }
}

/// The fixed parts of the handler's line, made before any handler may run (a handler may not
/// allocate).
private enum CrashReporterText {
    /// Makes every text now: a handler must find them made (a lazy static's first use allocates).
    static func prepare() { _ = (ownThread, ruleCheckThread, otherThread, otherThreadEnd, threadName) }

    // nonisolated(unsafe): each is written once, when first read (in `prepare`, before the handler
    // is installed), and only read after; the buffers are never freed.
    nonisolated(unsafe) static let ownThread = cString(" (on the check's own 512 KiB thread)\n")
    nonisolated(unsafe) static let ruleCheckThread = cString(" (on the check's own thread)\n")
    nonisolated(unsafe) static let otherThread = cString(" (on a thread the check did not create, the backend's own: \"")
    nonisolated(unsafe) static let otherThreadEnd = cString("\")\n")
    nonisolated(unsafe) static let threadName = cString("/proc/thread-self/comm")

    /// `text` as a C string in a buffer of its own, never freed by this function, and its
    /// length without the terminator.
    static func cString(_ text: String) -> (pointer: UnsafeMutablePointer<CChar>, length: Int) {
        let bytes = Array(text.utf8CString)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        buffer.initialize(from: bytes, count: bytes.count)
        return (buffer, bytes.count - 1)
    }
}

/// An action that runs `handler` with `flags`, blocking no other signal meanwhile.
private func signalAction(_ handler: @convention(c) (Int32) -> Void, flags: Int32 = 0) -> sigaction {
    var action = sigaction()
    #if canImport(Glibc)
    action.__sigaction_handler.sa_handler = handler
    #else
    action.__sigaction_u.__sa_handler = handler
    #endif
    action.sa_flags = flags
    sigemptyset(&action.sa_mask)
    return action
}

/// The thread-specific key's destructor, on the exiting thread: its alternate stack, if the
/// harness gave it one, is switched off and freed.
#if canImport(Glibc)
private func releaseAlternateStack(_ value: UnsafeMutableRawPointer?) {
    guard let value, Int(bitPattern: value) != CrashReporter.alreadyArmed else { return }
    releaseStack(value)
}
#else
private func releaseAlternateStack(_ value: UnsafeMutableRawPointer) {
    guard Int(bitPattern: value) != CrashReporter.alreadyArmed else { return }
    releaseStack(value)
}
#endif

private func releaseStack(_ memory: UnsafeMutableRawPointer) {
    var current = stack_t()
    sigaltstack(nil, &current)
    if current.ss_sp == memory {
        var disable = stack_t()
        disable.ss_flags = Int32(SS_DISABLE)
        sigaltstack(&disable, nil)
    }
    memory.deallocate()
}

/// Async-signal-safe: only `write`, `open`, `read`, `close` and `_exit`, on texts made before.
/// Runs on the overflowing thread's alternate stack; a thread that has none (the check never ran
/// a job there) cannot run it, and the process dies of the signal: a crash either way, never a
/// pass.
private func overflowHandler(_ signal: Int32) {
    if let message = CrashReporter.message {
        _ = write(2, message, CrashReporter.messageLength)
    }
    writeThreadNote(checkingThread: CrashReporter.checkingThread, ownThread: CrashReporterText.ownThread)
    _exit(Conformance.resourceCheckCrashStatus)
}

/// Writes which thread the signal came on, the check's own or another (named from
/// /proc/thread-self/comm), and a newline. Async-signal-safe, as the handlers that call it.
private func writeThreadNote(
    checkingThread: pthread_t?, ownThread: (pointer: UnsafeMutablePointer<CChar>, length: Int)
) {
    if let checking = checkingThread, pthread_equal(checking, pthread_self()) != 0 {
        _ = write(2, ownThread.pointer, ownThread.length)
    } else {
        _ = write(2, CrashReporterText.otherThread.pointer, CrashReporterText.otherThread.length)
        let file = open(CrashReporterText.threadName.pointer, O_RDONLY)
        if file >= 0 {
            var name: (UInt64, UInt64) = (0, 0)
            let count = withUnsafeMutableBytes(of: &name) { read(file, $0.baseAddress, 15) }
            close(file)
            if count > 0 {
                // The name ends with a newline; leave it out.
                withUnsafeBytes(of: &name) { bytes in
                    let length = bytes[count - 1] == 10 ? count - 1 : count
                    _ = write(2, bytes.baseAddress, length)
                }
            }
        }
        _ = write(2, CrashReporterText.otherThreadEnd.pointer, CrashReporterText.otherThreadEnd.length)
    }
}

/// `namingTraps`' handler. Async-signal-safe: `write`, `open`, `read`, `close`, `sigaction` and
/// `raise`, on texts made before. It restores the signal's previous action and raises the signal
/// again, which stays pending while the handler runs and is delivered to that action once it
/// returns (a trap's instruction, run again, raises it anew).
private func trapHandler(_ signal: Int32) {
    if let message = CrashReporter.trapMessage {
        _ = write(2, message, CrashReporter.trapMessageLength)
    }
    writeThreadNote(checkingThread: CrashReporter.trapCheckingThread, ownThread: CrashReporterText.ruleCheckThread)
    for index in CrashReporter.trapSignals.indices where CrashReporter.trapSignals[index] == signal {
        sigaction(signal, CrashReporter.trapPrevious + index, nil)
    }
    raise(signal)
}
