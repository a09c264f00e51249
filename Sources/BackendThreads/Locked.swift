#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value under a pthread mutex, in a single allocation: the value is the header of a
/// `ManagedBuffer` and the mutex its one tail element, so the mutex has a stable address without
/// a second allocation. Copies of a `Locked` share the same value and mutex.
///
/// Used instead of `Synchronization.Mutex` because the thread sanitizer sees pthread mutexes
/// (it intercepts them) but not `Mutex`, whose lock on Linux lives in an uninstrumented library:
/// with `Mutex`, every access to the protected value is reported as a race.
struct Locked<State>: @unchecked Sendable {
    // @unchecked Sendable: the value is only touched inside `withLock`, which holds the mutex;
    // the mutex is initialised in `init` and destroyed when the buffer is freed, once.
    private let buffer: Storage

    init(_ initial: State) {
        buffer = Storage.make(initial)
    }

    /// Runs `body` with exclusive access to the value. `body` must not take this lock again.
    @inline(__always)
    func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try buffer.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    private final class Storage: ManagedBuffer<State, pthread_mutex_t> {
        static func make(_ initial: State) -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in initial }
            // `create` called on a subclass allocates an instance of that subclass, so this
            // downcast always holds (the pattern ManagedBuffer's documentation describes).
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            return storage
        }

        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }
}
