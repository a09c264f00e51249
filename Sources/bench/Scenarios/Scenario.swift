import TaskAPI

/// What a scenario gets to run with.
struct ScenarioContext: Sendable {
    let backends: [any TaskBackend]
    let plan: Plan
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
