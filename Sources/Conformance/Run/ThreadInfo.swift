import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small per-thread facts the checkers need: a stable thread number, the driver a thread is,
/// and the counting executor whose job it runs. Stored as integers in pthread keys, so no
/// memory is managed: the "pointers" are never dereferenced.
enum ThreadInfo {
    private static let threadKey = makeKey()
    private static let driverKey = makeKey()
    private static let countingKey = makeKey()
    private static let controlKey = makeKey()
    private static let nextThread = Atomic(1)

    /// A number unique to the calling thread, assigned on first use.
    static var number: Int {
        let current = get(threadKey)
        if current != 0 { return current }
        let number = nextThread.add(1, ordering: .relaxed).oldValue
        set(threadKey, number)
        return number
    }

    /// 1 + the driver index on a driver thread, 0 elsewhere.
    static var driverMarker: Int {
        get { get(driverKey) }
        set { set(driverKey, newValue) }
    }

    /// 1 + the counting executor's id while one of its jobs runs, 0 elsewhere.
    static var countingMarker: Int {
        get { get(countingKey) }
        set { set(countingKey, newValue) }
    }

    /// Whether the calling thread acts for a controlled run's schedule: the controlled thread
    /// itself, or a backend's thread while it runs a job the controlled loop handed over
    /// (`Interposition.swift`). What a thread not under control logs or hands over is work from
    /// outside the schedule (a timer, a Swift task), which makes the run not reproducible.
    static var underControl: Bool {
        get { get(controlKey) != 0 }
        set { set(controlKey, newValue ? 1 : 0) }
    }

    private static func makeKey() -> pthread_key_t {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }

    private static func get(_ key: pthread_key_t) -> Int {
        guard let pointer = pthread_getspecific(key) else { return 0 }
        return Int(bitPattern: pointer)
    }

    private static func set(_ key: pthread_key_t, _ value: Int) {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: value))
    }
}
