import ScheduleKit
import TaskAPI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starting detached POSIX threads: how the kit's `ThreadPool`, and the threads backend's timer
/// thread, get a thread. Started from a seat of a controlled run, the thread is a seat of that
/// run for its whole life (a `.now` hand-off: `SchedulePoint.fork` here, `adopt` on the thread).
public enum NativeThread {
    /// Stack size of every thread started here (workers and timers).
    public static let stackSize = 8 << 20

    /// Starts a detached thread named `name` (at most 15 bytes shown) running `body`.
    /// Returns `false` if the system refused to create one; `body` is then released unrun.
    public static func spawn(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let ticket = SchedulePoint.fork(.now, label: "a thread started by NativeThread.spawn")
        let start = Unmanaged.passRetained(ThreadStart(name: name, ticket: ticket, body: body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, stackSize)
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let result = pthread_create(
            &thread, &attributes,
            { argument in
                guard let argument else { return nil }
                // Balances the `passRetained` above: the new thread owns the start record.
                let start = Unmanaged<ThreadStart>.fromOpaque(argument).takeRetainedValue()
                start.run()
                return nil
            }, start.toOpaque())
        if result != 0 {
            start.release()
            return false
        }
        return true
    }

    /// The number of processors online, at least 1.
    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

/// What a new thread runs: boxed so one pointer can cross `pthread_create`.
private final class ThreadStart {
    let name: String
    let ticket: (any ScheduleTicket)?
    let body: @Sendable () -> Void

    init(name: String, ticket: (any ScheduleTicket)?, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.ticket = ticket
        self.body = body
    }

    func run() {
        #if canImport(Darwin)
        pthread_setname_np(name)
        #elseif canImport(Glibc)
        Self.nameCurrentThread(name)
        #endif
        SchedulePoint.adopt(ticket, body)
    }

    #if canImport(Glibc)
    /// Glibc's module does not export `pthread_setname_np` (declared only under `_GNU_SOURCE`),
    /// and a new thread otherwise keeps its creator's name (a pool worker started from a Dispatch
    /// thread shows as Dispatch's in gdb and top): the kernel's own file for it instead, which
    /// takes the first 15 bytes. A failure leaves the inherited name, nothing else.
    private static func nameCurrentThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
    #endif
}
