import TaskAPI

/// What a scenario gets to run with.
struct ScenarioContext: Sendable {
    let backends: [any TaskBackend]
    let plan: Plan
}

/// A scenario: a file of `Scenarios/` that measures one thing on every backend and its
/// baselines, and says what it is. Its metatype is `Sendable` (`SendableMetatype`): `entry`
/// hands its `run` to the registry as a `@Sendable` function.
protocol Scenario: SendableMetatype {
    /// Its name for `--scenarios`, and the `scenario` of every figure it makes.
    static var name: String { get }
    /// What it measures, in what unit: its line in `bench --help`.
    static var summary: String { get }
    /// Measures its cases on `context`'s backends.
    static func run(_ context: ScenarioContext) -> [Figure]
}

extension Scenario {
    /// The scenario's line in `scenarioRegistry`.
    static var entry: ScenarioEntry { ScenarioEntry(name: name, summary: summary, run: run) }
}

/// A named scenario, selectable with `--scenarios`.
struct ScenarioEntry: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (ScenarioContext) -> [Figure]
}

/// Every scenario, in the order a run measures them.
let scenarioRegistry: [ScenarioEntry] = [
    HopScenario.entry,
    ChainScenario.entry,
    FanoutScenario.entry,
    ContentionScenario.entry,
    AwaitScenario.entry,
    StackScenario.entry,
    MemoryScenario.entry,
    ScalingScenario.entry
]
