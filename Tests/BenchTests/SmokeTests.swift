import Testing
@testable import bench

@Test func sizeLabels() {
    #expect(sizeLabel(1_000_000) == "1M")
}
