import BackendGCD
import TaskAPI

/// An outside backend for the tests that check one kind of executor: GCD underneath, with the
/// serial executors, the inline executor or the main executor given to it in its place (a bug
/// of an outside backend's, not one planted in the package's code).
struct GCDWrapper: TaskBackend {
    let name: String
    private let base = GCDBackend()
    private let serial: (@Sendable (String) -> any AsyncTaskExecutor)?
    private let inline: (any AsyncTaskExecutor)?
    private let main: MainExecutor?

    init(
        name: String, makeSerialExecutor serial: (@Sendable (String) -> any AsyncTaskExecutor)? = nil,
        inlineExecutor inline: (any AsyncTaskExecutor)? = nil, mainExecutor main: MainExecutor? = nil
    ) {
        self.name = name
        self.serial = serial
        self.inline = inline
        self.main = main
    }

    var defaultExecutor: any AsyncTaskExecutor { base.defaultExecutor }
    var inlineExecutor: any AsyncTaskExecutor { inline ?? base.inlineExecutor }
    var mainExecutor: MainExecutor { main ?? base.mainExecutor }
    func makeSerialExecutor(label: String) -> any AsyncTaskExecutor { serial?(label) ?? base.makeSerialExecutor(label: label) }
    func makeCancellationSource() -> any CancellationSource { base.makeCancellationSource() }
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) -> any Disposable { base.schedule(after: delay, job) }
    func makeSource<T: Sendable>(of type: T.Type) -> any CompletionSource<T> { base.sourceWithoutOrigin(of: type) }
}
