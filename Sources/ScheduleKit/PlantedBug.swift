#if PlantedBugs
/// A bug planted in this package's production code, for the conformance harness to prove that it
/// finds it (Tests/ConformanceTests/ProductionMutantTests.swift). Compiled only under the package
/// trait `PlantedBugs` (`swift test --traits PlantedBugs`), which is no default trait: a package
/// that depends on this one never compiles a planted bug, nor the switch that reads them.
///
/// Each module declares its own, as an enum of its internals (`KitPlantedBug` in BackendKit,
/// `GCDPlantedBug` in BackendGCD, ...), and an object that can carry one keeps a
/// `PlantedBugSwitch` made when it is: it holds the bug planted around that moment
/// (`PlantedBugSwitch.planting(PlantedBugID(GCDPlantedBug.drainerEndsInTwoSections)) { makeBackend() }`),
/// so a bug lives in one backend's objects and never in the backends other tests use at the same
/// time. A site is the code, with one line handing over to the planted variant, a helper beside
/// it:
///
///     #if PlantedBugs
///     if plantedBugs.isOn(GCDPlantedBug.drainerEndsInTwoSections) { return takeEndingApart() }
///     #endif
public protocol PlantedBug: RawRepresentable<String>, CaseIterable, Hashable, Sendable {}

/// One planted bug of any module: its enum and its case.
public struct PlantedBugID: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let type: ObjectIdentifier
    /// The case's name (`drainerEndsInTwoSections`).
    public let name: String
    /// The enum's name (`GCDPlantedBug`).
    public let module: String

    public init<Bug: PlantedBug>(_ bug: Bug) {
        type = ObjectIdentifier(Bug.self)
        name = bug.rawValue
        module = String(describing: Bug.self)
    }

    public var description: String { "\(module).\(name)" }
}

/// The planted bug an object was made with, if any.
public struct PlantedBugSwitch: Sendable {
    @usableFromInline let planted: PlantedBugID?

    /// The bug planted now (inside `planting(_:_:)`), if any.
    public init() {
        planted = Self.current
    }

    private init(planted: PlantedBugID?) {
        self.planted = planted
    }

    /// No planted bug.
    public static let off = PlantedBugSwitch(planted: nil)

    /// Whether `bug` is planted here: a comparison of the enum's identity and the case's name.
    @inlinable
    public func isOn<Bug: PlantedBug>(_ bug: Bug) -> Bool {
        guard let planted else { return false }
        return planted.type == ObjectIdentifier(Bug.self) && planted.name == bug.rawValue
    }

    /// The bug planted in the objects made inside `planting(_:_:)`.
    @TaskLocal private static var current: PlantedBugID?

    /// Runs `body` (which makes a backend, say) with `bug` planted in the objects it makes.
    public static func planting<R>(_ bug: PlantedBugID, _ body: () throws -> R) rethrows -> R {
        try $current.withValue(bug, operation: body)
    }
}

/// An object that carries a planted bug for the objects it makes later (a backend for the
/// cancellation sources and prepared tasks of its programs).
public protocol PlantedBugCarrier: AnyObject {
    var plantedBugs: PlantedBugSwitch { get }
}

extension PlantedBugSwitch {
    /// The bug `object` carries, if it is a `PlantedBugCarrier`: for an object made outside
    /// `planting(_:_:)` by a backend (a prepared task), once, when it is made.
    public static func carried(by object: Any) -> PlantedBugSwitch {
        (object as? any PlantedBugCarrier)?.plantedBugs ?? .off
    }
}
#endif
