import Foundation
import TaskAPI

/// One of `count` disjoint parts of the seed space (`CONFORMANCE_SHARD=k/n`): shard `k` runs the
/// programs with indices `(k-1)·programs ..< k·programs` from the common base seed, so n machines
/// with the same `CONFORMANCE_SEED` never run a program twice.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based, at most `count`.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// `k/n`, as in `CONFORMANCE_SHARD=2/7`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The program indices this shard runs when each shard runs `programs`.
    public func indices(programs: Int) -> Range<Int> {
        (index - 1) * programs..<index * programs
    }
}

extension ConformanceConfiguration {
    /// The `swift test --filter` argument selecting exactly one test: `module.Suite/test()` with
    /// every regular-expression character escaped (Swift Testing matches the filter as a regular
    /// expression against that name; XCTest against `module.Class/testMethod`).
    ///
    /// Swift Testing: `testFilter(module: id.moduleName, path: id.nameComponents)` with
    /// `id = Test.current!.id`. XCTest: `testFilter(module: <module>, path: [<Class>, <method>])`.
    public static func testFilter(module: String, path: [String]) -> String {
        let name = ([module].filter { !$0.isEmpty } + [path.joined(separator: "/")]).joined(separator: ".")
        return NSRegularExpression.escapedPattern(for: name)
    }
}
