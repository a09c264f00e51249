import Foundation

/// How much to run and how. `fromEnvironment()` reads:
///
/// - `CONFORMANCE_SEED`: the base seed (decimal or 0x-hex); program `i` uses seed `base &+ i`.
///   Unset: a random base seed, printed at the start.
/// - `CONFORMANCE_PROGRAMS`: programs per backend (default 1,000).
/// - `CONFORMANCE_TIME_BUDGET`: seconds per backend (default 60); the run stops at whichever
///   limit comes first. Soak runs set both high; shards set disjoint seed ranges.
/// - `CONFORMANCE_MAX_STEPS`: largest program (default 300 steps).
/// - `CONFORMANCE_EVENTS=1`: failures print the run's event log.
public struct ConformanceConfiguration: Sendable {
    public var baseSeed: UInt64
    public var programs: Int
    public var timeBudget: Duration
    public var generator: ProgramGenerator
    /// How long one phase of one program may take before the watchdog calls it a hang.
    public var hangLimit: Duration
    /// How long freed closures and tasks may take to be released (C8.1, C8.2).
    public var leakLimit: Duration
    /// Stop after this many failing programs.
    public var maxFailingPrograms: Int
    /// The executors programs use; issue 6's controlled mode substitutes its own.
    public var executors: any ExecutorProvider
    /// The `swift test --filter` argument of the replay line.
    public var testFilter: String
    /// Rules the backend is known to break, with why: their failures go to
    /// `ConformanceReport.knownIssues` and do not stop the run; every other rule is still checked.
    public var knownIssues: [Rule: String] = [:]
    /// Whether failures print the event log too (`CONFORMANCE_EVENTS=1`).
    public var showsEvents = false
    /// Where progress lines go (the base seed first); `print` by default.
    public var output: @Sendable (String) -> Void

    public init(
        baseSeed: UInt64? = nil,
        programs: Int = 1_000,
        timeBudget: Duration = .seconds(60),
        generator: ProgramGenerator = ProgramGenerator(),
        hangLimit: Duration = .seconds(10),
        leakLimit: Duration = .seconds(2),
        maxFailingPrograms: Int = 1,
        executors: any ExecutorProvider = BackendExecutorProvider(),
        testFilter: String = "ConformanceTests",
        output: @escaping @Sendable (String) -> Void = { print($0) }
    ) {
        var system = SystemRandomNumberGenerator()
        self.baseSeed = baseSeed ?? system.next()
        self.programs = programs
        self.timeBudget = timeBudget
        self.generator = generator
        self.hangLimit = hangLimit
        self.leakLimit = leakLimit
        self.maxFailingPrograms = maxFailingPrograms
        self.executors = executors
        self.testFilter = testFilter
        self.output = output
    }

    /// The defaults, overridden by the `CONFORMANCE_*` environment variables.
    public static func fromEnvironment(
        testFilter: String = "ConformanceTests", environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(testFilter: testFilter)
        if let seed = environment["CONFORMANCE_SEED"].flatMap(parseSeed) { configuration.baseSeed = seed }
        if let programs = environment["CONFORMANCE_PROGRAMS"].flatMap({ Int($0) }), programs >= 0 {
            configuration.programs = programs
        }
        if let seconds = environment["CONFORMANCE_TIME_BUDGET"].flatMap({ Double($0) }), seconds > 0 {
            configuration.timeBudget = .milliseconds(Int64(seconds * 1000))
        }
        configuration.showsEvents = environment["CONFORMANCE_EVENTS"] == "1"
        if let steps = environment["CONFORMANCE_MAX_STEPS"].flatMap({ Int($0) }), steps > 0 {
            configuration.generator.maxSteps = steps
        }
        return configuration
    }

    /// A seed in decimal or `0x` hexadecimal.
    public static func parseSeed(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("0x") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }
}
