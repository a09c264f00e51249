// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "TaskContract",
    // Synchronization's `Mutex` and `Atomic`, `TaskExecutor` and task executor preferences need
    // these releases; Linux needs Swift 6.2 or later (see README "Installation").
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "TaskAPI", targets: ["TaskAPI"]),
        .library(name: "ScheduleKit", targets: ["ScheduleKit"]),
        .library(name: "BackendKit", targets: ["BackendKit"]),
        .library(name: "BackendGCD", targets: ["BackendGCD"]),
        .library(name: "BackendThreads", targets: ["BackendThreads"]),
        .library(name: "BackendActors", targets: ["BackendActors"]),
        .library(name: "Conformance", targets: ["Conformance"]),
        .executable(name: "bench", targets: ["bench"])
    ],
    // Bugs planted in the production code, for the conformance tests to prove that the harness
    // finds them (ProductionMutantTests): `swift test --traits PlantedBugs`. No default trait, so
    // a package that depends on this one never compiles them.
    traits: [
        .trait(
            name: "PlantedBugs",
            description: "Compiles the bugs planted in the production code for ProductionMutantTests (never for a dependent)"
        )
    ],
    targets: [
        // The synchronization primitives a checker can schedule (locks, conditions, atomics, the
        // clock, schedule points): below the contract, named by no contract type.
        .target(name: "ScheduleKit"),
        // The contract; its default implementations lock with ScheduleKit's primitives.
        .target(name: "TaskAPI", dependencies: ["ScheduleKit"]),
        .target(name: "BackendKit", dependencies: ["TaskAPI", "ScheduleKit"]),
        .target(name: "BackendGCD", dependencies: ["TaskAPI", "ScheduleKit", "BackendKit"]),
        .target(name: "BackendThreads", dependencies: ["TaskAPI", "ScheduleKit", "BackendKit"]),
        .target(name: "BackendActors", dependencies: ["TaskAPI", "ScheduleKit", "BackendKit"]),
        .target(name: "Conformance", dependencies: ["TaskAPI", "ScheduleKit"]),
        .executableTarget(
            name: "bench",
            dependencies: ["TaskAPI", "BackendGCD", "BackendThreads", "BackendActors"]
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "TaskAPI", "ScheduleKit", "BackendKit", "Conformance", "BackendGCD", "BackendThreads", "BackendActors",
                // Built for the main-executor checks' test, which runs it as a child process.
                "main-executor-check"
            ]
        ),
        .executableTarget(
            name: "main-executor-example",
            dependencies: ["TaskAPI", "BackendGCD", "BackendThreads", "BackendActors"],
            path: "Examples/MainExecutor"
        ),
        // How a backend author checks a main executor: the main-executor checks run from an
        // executable's top-level code, on the process's main thread (C9.8).
        .executableTarget(
            name: "main-executor-check",
            dependencies: ["TaskAPI", "Conformance", "BackendGCD", "BackendThreads", "BackendActors"],
            path: "Examples/MainExecutorCheck"
        ),
        .testTarget(name: "BenchTests", dependencies: ["bench"]),
        // The plug-in proof: a backend of its own, seeing the package as a user's would.
        .testTarget(name: "PluginTests", dependencies: ["TaskAPI", "ScheduleKit", "Conformance"]),
        .testTarget(
            name: "RuleTests",
            dependencies: [
                "TaskAPI", "ScheduleKit", "BackendKit", "BackendGCD", "BackendThreads", "BackendActors", "Conformance",
                // Built for C9.8's test, which runs it as a child process.
                "main-executor-example"
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
