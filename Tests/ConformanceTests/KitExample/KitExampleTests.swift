import Conformance
import Foundation
import TaskAPI
import Testing

/// The BackendKit example of docs/WRITING_A_BACKEND.md (QueueBackend.swift, shown verbatim on the
/// page) keeps the contract: the generated programs pass on it, with a smaller budget than the
/// package's own backends get.
@Suite(.serialized)
struct KitExampleTests {
    @Test func theKitExampleConforms() async {
        var configuration = ConformanceConfiguration.forCurrentTest()
        configuration.programs = min(configuration.programs, 300)
        configuration.resourceLinks = 0
        let report = await Conformance.check(QueueBackend(), configuration: configuration)
        report.recordIssues()
        #expect(report.programsRun > 0 || report.skippedForReplay != nil)
    }

    /// The page shows the file as it is: the block after `<!-- kit-example -->` is this
    /// directory's QueueBackend.swift.
    @Test func thePageShowsTheExampleVerbatim() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let repository = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: repository.appendingPathComponent("docs/WRITING_A_BACKEND.md"), encoding: .utf8)
        let source = try String(contentsOf: here.appendingPathComponent("QueueBackend.swift"), encoding: .utf8)
        let marker = "<!-- kit-example: Tests/ConformanceTests/KitExample/QueueBackend.swift -->\n```swift\n"
        let start = try #require(page.range(of: marker), "the page has no kit example block")
        let end = try #require(page.range(of: "\n```", range: start.upperBound..<page.endIndex))
        #expect(String(page[start.upperBound..<end.lowerBound]) + "\n" == source)
    }
}
