// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "TaskContract",
    // Synchronization's `Mutex` and `Atomic`, `TaskExecutor` and task executor preferences need
    // these releases; Linux needs Swift 6.2 or later (see README "Installation").
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "TaskAPI", targets: ["TaskAPI"]),
        .library(name: "BackendKit", targets: ["BackendKit"]),
        .library(name: "BackendGCD", targets: ["BackendGCD"]),
        .library(name: "BackendThreads", targets: ["BackendThreads"]),
        .library(name: "BackendActors", targets: ["BackendActors"]),
        .library(name: "Conformance", targets: ["Conformance"]),
        .executable(name: "bench", targets: ["bench"])
    ],
    targets: [
        .target(name: "TaskAPI"),
        .target(name: "BackendKit", dependencies: ["TaskAPI"]),
        .target(name: "BackendGCD", dependencies: ["TaskAPI", "BackendKit"]),
        .target(name: "BackendThreads", dependencies: ["TaskAPI", "BackendKit"]),
        .target(name: "BackendActors", dependencies: ["TaskAPI", "BackendKit"]),
        .target(name: "Conformance", dependencies: ["TaskAPI"]),
        .executableTarget(
            name: "bench",
            dependencies: ["TaskAPI", "BackendGCD", "BackendThreads", "BackendActors"]
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["TaskAPI", "BackendKit", "Conformance", "BackendGCD", "BackendThreads", "BackendActors"]
        ),
        .executableTarget(
            name: "main-executor-example",
            dependencies: ["TaskAPI", "BackendGCD", "BackendThreads", "BackendActors"],
            path: "Examples/MainExecutor"
        ),
        .testTarget(name: "BenchTests", dependencies: ["bench"]),
        // The plug-in proof: a backend of its own, seeing the package as a user's would.
        .testTarget(name: "PluginTests", dependencies: ["TaskAPI", "Conformance"]),
        .testTarget(
            name: "RuleTests",
            dependencies: [
                "TaskAPI", "BackendKit", "BackendGCD", "BackendThreads", "BackendActors", "Conformance",
                // Built for C9.8's test, which runs it as a child process.
                "main-executor-example"
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
