/// Where a completion source was made: the file and line of the `makeSource` or `makeTask` call.
/// Recorded in debug builds only, and named by `TaskError.abandoned` when that source is released
/// pending (C8.3), as SwiftNIO's leaked-promise report names where the promise was made.
public struct SourceOrigin: Sendable, Equatable, CustomStringConvertible {
    /// The file, as `#fileID` gives it ("Module/File.swift").
    public let fileID: StaticString
    /// The line of the call.
    public let line: UInt

    public init(fileID: StaticString, line: UInt) {
        self.fileID = fileID
        self.line = line
    }

    public static func == (lhs: SourceOrigin, rhs: SourceOrigin) -> Bool {
        lhs.line == rhs.line && lhs.fileID.description == rhs.fileID.description
    }

    public var description: String { "\(fileID):\(line)" }
}

/// A source that can keep its origin (in debug builds): the kit's sources do. A source of a
/// backend whose sources do not conform reports none.
public protocol SourceOriginRecording: AnyObject {
    /// Keeps `origin`, to be named if the source is released pending. Called once, right after
    /// the source is made, before it is shared.
    func recordOrigin(_ origin: SourceOrigin)
}
