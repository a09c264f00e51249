import BackendKit
import TaskAPI

extension Mailbox {
    /// `true` while the calling thread drains this mailbox: inside a job of this serial executor,
    /// or of an actor whose executor it is (C9.7).
    var isCurrent: Bool { ThreadRuntime.current.isolation === self }
}
