import Foundation
import Testing

/// The README's installation example works as written (issue #31.2): its code blocks marked
/// `<!-- file: PATH -->` (a `Package.swift` depending on `.package(path: "../TaskContract")` and a
/// `main.swift` importing TaskAPI and BackendGCD) are written into a fresh package next to a
/// folder named `TaskContract` (a link to this repository: the identity SwiftPM gives a path
/// dependency is the path's last component), which is built with no warning and run: it serves
/// the main executor with `runMainLoop(until:)` and prints what its `@MainActor` body shows.
///
/// Builds TaskAPI, BackendKit and BackendGCD again in the package's own `.build`, kept between
/// runs under the temporary directory (a minute or so on a fresh clone). `SKIP_GUIDE_PACKAGE=1`
/// skips it with the guide's package; it is never skipped otherwise.
@Suite struct ReadmePackageTests {
    @Test(
        .enabled(if: ProcessInfo.processInfo.environment["SKIP_GUIDE_PACKAGE"] != "1", "SKIP_GUIDE_PACKAGE=1"),
        .timeLimit(.minutes(10)))
    func theReadmesInstallationExampleBuildsAndRuns() async throws {
        let readme = try String(contentsOf: GuidePackageTests.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let files = GuidePackageTests.files(of: readme)
        #expect(Set(files.map(\.path)) == ["Package.swift", "Sources/MyApp/main.swift"])
        let manifest = try #require(files.first { $0.path == "Package.swift" }?.text)
        #expect(manifest.contains(#".package(path: "../TaskContract")"#))
        #expect(manifest.contains(#".product(name: "TaskAPI", package: "TaskContract")"#))
        let package = try GuidePackageTests.writePackage("MyApp", of: "readme", files: files)
        let environment = ProcessInfo.processInfo.environment
        let (built, buildOutput) = try await GuidePackageTests.swift(
            ["build"], in: package, environment: environment, lowPriority: true)
        try #require(built == 0, "the README's package does not build:\n\(buildOutput.suffix(6000))")
        #expect(!buildOutput.contains("warning:"), "the README's package builds with warnings:\n\(buildOutput.suffix(6000))")
        let (ran, output) = try await GuidePackageTests.swift(["run", "--skip-build", "MyApp"], in: package, environment: environment)
        #expect(ran == 0, "the README's program failed:\n\(output.suffix(3000))")
        #expect(output.hasSuffix("hello, world\n"), "the README's program printed:\n\(output.suffix(3000))")
    }
}
