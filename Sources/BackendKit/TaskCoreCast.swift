import Synchronization

/// A task seen as `any AsyncTask<T>`, tested for a kit task (`TaskCore`, the base of every
/// `KitTask`): the kit's `whenAll` joins a kit task's core directly.
///
/// The class of the last object found to be a `TaskCore`, as its metadata's address (0 before
/// the first), is kept: an input of that class, the common case (a fan-out joins tasks of one
/// class), is recognized by one comparison instead of the runtime's walk up the class chain
/// (`swift_dynamicCastClass`, 26 instructions per input for a `RunTask`, callgrind), as
/// `HandOff.isQueueExecutor` recognizes a queue executor. Relaxed: any value read is the class of
/// some `TaskCore`, and a class's metadata lives as long as the process, so a stale one only
/// sends the test down the walk.
enum TaskCoreCast {
    private static let lastCoreClass = Atomic<UInt>(0)

    /// `object` as a `TaskCore` if it is one, else `nil`. No retain: the caller keeps `object`
    /// alive for as long as it uses the answer (a reference returned owned was retained and
    /// released around each use, callgrind, fan-out).
    @inline(__always)
    static func core(of object: Unmanaged<AnyObject>) -> Unmanaged<TaskCore>? {
        object._withUnsafeGuaranteedRef { object in
            let type = UInt(bitPattern: ObjectIdentifier(Swift.type(of: object)))
            if type == lastCoreClass.load(ordering: .relaxed) {
                assert(object is TaskCore, "kit whenAll: \(Swift.type(of: object)) taken for a kit task")
                return Unmanaged.passUnretained(unsafeDowncast(object, to: TaskCore.self))
            }
            guard let core = object as? TaskCore else { return nil }
            lastCoreClass.store(type, ordering: .relaxed)
            return Unmanaged.passUnretained(core)
        }
    }
}
