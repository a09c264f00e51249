import Testing
import TaskAPI

/// An actor pinned to a "ui" serial executor of any backend (C9.9): its methods run as jobs of
/// that executor, and continuations on that executor may use its state synchronously.
actor Screen {
    let ui: any ActorExecutor
    var title = ""

    init(ui: any ActorExecutor) {
        self.ui = ui
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { ui.asUnownedSerialExecutor() }

    /// Sets the title; `true` if it ran on the ui executor.
    func show(_ text: String) -> Bool {
        title = text
        return ui.isCurrent
    }
}

@Suite("C9.9 Serial executors as actor executors")
struct C9ActorExecutorTests {
    @Test("C9.9 an actor pinned to a serial executor runs on it, and its continuations can assumeIsolated", arguments: Backends.all)
    func pinnedActor(_ c: BackendCase) async throws {
        let backend = c.backend
        let ui = try #require(backend.makeActorExecutor(label: "ui"))
        let screen = Screen(ui: ui)
        #expect(await screen.show("first"))

        let loaded = backend.run { "loaded" }
        let shown = loaded.continueWith(on: ui) { outcome in
            try screen.assumeIsolated { screen in
                screen.title = try outcome.get()
                return screen.title
            }
        }
        #expect(try await shown.value == "loaded")
        #expect(await screen.title == "loaded")
    }
}
