internal import ScheduleKit

/// The source `makeCancellationSource(linkedTo:)` returns: a backend's own source, plus its
/// registrations on the parents' tokens (C4.6), which it keeps until it is freed.
///
/// Keeping them is what makes C4.1 hold across links. A parent's `cancel()` reaches this source
/// only through its registration, whose handler calls `cancel()` here; when this source is
/// already being cancelled on another thread, that call waits until the other call's handlers
/// ran, as every second `cancel()` does, so the parent's `cancel()` returns only once this
/// source's handlers (its own linked sources' among them) ran. A registration disposed as soon
/// as this source's cancellation began (what the default did before) left the parent's
/// `cancel()` nothing to wait on: it returned while this source's handlers still ran (issue 28).
///
/// Freed, it disposes them: a parent that lives on keeps neither this source nor a handler for
/// it (C8.2). A cancelled source kept alive keeps one small handler per parent, which does
/// nothing but return once run.
final class LinkedCancellationSource: CancellationSource {
    private let base: any CancellationSource
    /// The registrations on the parents' tokens, disposed when this source is freed.
    private let links = Locked<[any Disposable]>([])

    private init(base: any CancellationSource) {
        self.base = base
    }

    /// `base`, cancelled as soon as any of `tokens` is. Tokens that can never be cancelled
    /// (`.none`) need no link: with no other, `base` is returned as it is.
    static func linking(_ base: any CancellationSource, to tokens: [CancellationToken]) -> any CancellationSource {
        let parents = tokens.filter(\.canBeCancelled)
        guard !parents.isEmpty else { return base }
        let source = LinkedCancellationSource(base: base)
        for parent in parents {
            // Weak: a parent must not keep its linked sources alive (C8.2). A parent already
            // cancelled runs the handler inside `register`, which cancels `source` at once.
            let registration = parent.register { [weak source] in source?.cancel() }
            source.links.withLock { $0.append(registration) }
        }
        return source
    }

    deinit {
        for registration in links.withLock({ $0 }) { registration.dispose() }
    }

    var isCancellationRequested: Bool { base.isCancellationRequested }

    func cancel() { base.cancel() }

    func cancel(after delay: Duration) { base.cancel(after: delay) }

    func register(_ handler: @escaping @Sendable () -> Void) -> any Disposable { base.register(handler) }
}
