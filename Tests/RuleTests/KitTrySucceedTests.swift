import TaskAPI
import Testing

@testable import BackendKit

/// `trySucceed(_:)` is a requirement of `CompletionSource` with a default, and the kit's sources
/// and tasks implement it by storing the value directly. The rule suite reaches `KitSource`'s
/// implementation (every source a kit backend hands out is one), but a `KitTask` used as a
/// source, as a kit backend's writer may (it conforms to `CompletionSource`), is reached by no
/// rule check: these name C1.2 for both, and for the `Void` form, which calls the requirement.
@Suite("C1.2 trySucceed on the kit's sources and tasks: the first setter wins, and says so")
struct KitTrySucceedTests {
    @Test("C1.2 KitTask.trySucceed: true once, then false, and the first value kept", arguments: Backends.all)
    func kitTaskFirstWins(_ c: BackendCase) throws {
        let owner = try #require(c.backend as? any KitBackend, "\(c.backend.name) is not a kit backend")
        let source = KitSource<String>(owner: owner)
        defer { withExtendedLifetime(source) {} }  // a dropped pending source fails its task (C8.3)
        let task: KitTask<String> = source.base
        #expect(task.trySucceed("first"), "the first setter of a pending task wins")
        #expect(!task.trySucceed("second"), "a setter on a completed task loses")
        let asSource: any CompletionSource<String> = task
        #expect(!asSource.trySucceed("third"), "a setter through `any CompletionSource` on a completed task loses")
        #expect(try task.get() == "first", "the winner's value is the outcome")
    }

    @Test("C1.2 trySucceed through `any CompletionSource`, Void form too: true once, then false", arguments: Backends.all)
    func sourceFirstWins(_ c: BackendCase) throws {
        let values = c.backend.makeSource(of: Int.self)
        #expect(values.trySucceed(1), "the first setter of a pending source wins")
        #expect(!values.trySucceed(2), "a setter on a completed source loses")
        #expect(try values.task.get() == 1, "the winner's value is the outcome")
        let signal = c.backend.makeSource(of: Void.self)
        #expect(signal.trySucceed(), "the first trySucceed() of a pending source wins")
        #expect(!signal.trySucceed(), "a trySucceed() on a completed source loses")
        #expect(signal.task.status == .completed, "trySucceed() completes the task")
        let owner = try #require(c.backend as? any KitBackend, "\(c.backend.name) is not a kit backend")
        let kitSource = KitSource<Void>(owner: owner)
        defer { withExtendedLifetime(kitSource) {} }  // a dropped pending source fails its task (C8.3)
        let task: KitTask<Void> = kitSource.base
        #expect(task.trySucceed(), "the first trySucceed() of a pending kit task wins")
        #expect(!task.trySucceed(), "a trySucceed() on a completed kit task loses")
    }
}
