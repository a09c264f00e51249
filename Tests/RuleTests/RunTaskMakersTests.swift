import TaskAPI
import Testing

@testable import BackendKit

/// A kit `run` makes its task through the maker of its value type (`RunTaskMakers`), recorded
/// by the first `run` of that type in a table of `RunTaskMakers.capacity` slots; a type whose
/// slot another type took keeps the runtime's path. Both paths must give each task its own
/// body's value, whatever the type.
@Suite struct RunTaskMakersTests {
    @Test(
        "C3.1 runs of more value types than the makers' table holds each succeed with the body's value",
        arguments: Backends.all)
    func moreTypesThanSlots(_ c: BackendCase) throws {
        // Nested arrays, one type per depth: more types than slots, so some share a slot.
        try Self.check(c.backend, [1], depth: RunTaskMakers.capacity * 2)
    }

    /// Runs `value` twice (the first run of its type records its maker, the second finds it, if
    /// its slot was free), then `[value]`, down to `depth`.
    private static func check<T: Sendable & Equatable>(_ backend: any TaskBackend, _ value: T, depth: Int) throws {
        for round in 0..<2 {
            let got = try backend.run { _ in value }.get()
            #expect(got == value, "\(T.self), run \(round): \(got)")
        }
        if depth > 0 { try check(backend, [value], depth: depth - 1) }
    }
}
