import Foundation

/// Shrinks a failing program while the same rule still fails, within a time budget:
///
/// 1. the mode: a stress failure tried under a controlled schedule (random walk, then PCT 3),
///    so that every later candidate runs once and the counterexample replays exactly (kept only
///    if that run did replay exactly: no work from the backend's own threads); PCT's depth
///    lowered;
/// 2. chunks of steps removed as delta debugging does: halves first, then, at each chunk size,
///    every chunk in turn, staying at that size after a removal (the rest of the program is
///    tried at the same granularity, not from halves again), then half the size, down to
///    single steps, until no single step can go;
/// 3. the other edits: drivers merged, combinator inputs dropped, foreign tasks made plain
///    (`smallerForms`), pauses removed; after one succeeds, the chunk removal runs again from
///    the size where it last removed something;
/// 4. for a controlled failure, steps 2 and 3 once more with `scheduleAttempts` schedule seeds
///    per candidate, when one seed finds nothing more to remove.
///
/// Every candidate is repaired (`ProgramRepair`) and kept only if smaller. A stress candidate
/// runs up to `stressAttempts` times, since the race may not show every time; a controlled one
/// under up to `scheduleAttempts` schedule seeds, since a smaller program draws another
/// schedule from the same seed (the one that fails is kept: its `seed` says which, and the
/// counterexample still replays exactly).
struct Shrinker {
    let pipeline: ProgramPipeline
    let rule: Rule
    let timeBudget: Duration
    /// Each candidate's one time limit (the pipeline's `hangLimit` while it runs).
    let candidateLimit: @Sendable (Program) -> Duration
    var stressAttempts = 3
    var scheduleAttempts = 3

    struct Shrunk {
        var program: Program
        var mode: ScheduleMode
        /// What the shrunk program's last failing run found (nil: no candidate failed, the
        /// program is the original).
        var finding: Finding?
        /// Candidate programs run.
        var runs: Int
        var duration: Duration
        /// Where the search was when the budget ran out (nil: it finished: no smaller candidate
        /// of those it makes still fails).
        var stoppedAt: String?
    }

    /// The search under way: the current program and mode, what it cost so far.
    private struct Search {
        var current: Program
        var mode: ScheduleMode
        var finding: Finding?
        var runs = 0
        let start = Uptime.now
        var stoppedAt: String?
        /// Schedule seeds tried per controlled candidate.
        var scheduleSeeds = 1
    }

    func shrink(_ program: Program, mode: ScheduleMode) -> Shrunk {
        var search = Search(current: program, mode: mode)
        // The mode first: every later candidate then runs once, and replays exactly.
        for candidateMode in modes(after: mode) where !budgetOver(&search, at: "trying the failure in \(candidateMode) mode") {
            if attempt(search.current, candidateMode, &search, force: true) { break }
        }
        if case .controlled(.pct(var depth)) = search.mode {
            while depth > 1, !budgetOver(&search, at: "lowering PCT's depth") {
                depth -= 1
                guard attempt(search.current, .controlled(.pct(depth: depth)), &search, force: true) else { break }
            }
        }
        // One schedule per controlled candidate first; when that finds nothing more, again with
        // `scheduleAttempts` seeds per candidate (a race whose window a smaller program's
        // schedule misses), from halves.
        for seeds in [1, scheduleAttempts] where search.stoppedAt == nil {
            search.scheduleSeeds = seeds
            var chunk = max(1, search.current.steps.count / 2)
            while search.stoppedAt == nil {
                chunk = removeChunks(from: chunk, &search)
                guard search.stoppedAt == nil, otherEdits(&search) else { break }
            }
            if !search.mode.isControlled { break }
        }
        return Shrunk(
            program: search.current, mode: search.mode, finding: search.finding, runs: search.runs,
            duration: Uptime.now - search.start, stoppedAt: search.stoppedAt)
    }

    /// Removes chunks of `size` steps, then of half that, ... down to single steps; returns the
    /// size at which the last removal happened (where a later pass should start again).
    private func removeChunks(from size: Int, _ search: inout Search) -> Int {
        var chunk = max(1, min(size, search.current.steps.count / 2))
        var lastRemoval = 1
        while true {
            var start = 0
            var removed = false
            while start < search.current.steps.count {
                if budgetOver(&search, at: "removing chunks of \(chunk) steps (\(search.current.steps.count) left)") { return chunk }
                var candidate = search.current
                candidate.steps.removeSubrange(start..<min(candidate.steps.count, start + chunk))
                // Kept: the next chunk now starts where this one did.
                if attempt(candidate, search.mode, &search) {
                    lastRemoval = chunk
                    removed = true
                } else {
                    start += chunk
                }
            }
            // Single steps until a whole pass removes none: no one step can go.
            if chunk == 1, !removed { return lastRemoval }
            chunk = max(1, chunk / 2)
        }
    }

    /// Drivers merged, combinator inputs dropped, pauses removed: the first that still fails
    /// is kept (`true`).
    private func otherEdits(_ search: inout Search) -> Bool {
        for candidate in edits(of: search.current) {
            if budgetOver(&search, at: "merging drivers, dropping inputs and pauses (\(search.current.steps.count) steps left)") {
                return false
            }
            if attempt(candidate, search.mode, &search) { return true }
        }
        return false
    }

    /// Whether the budget is spent; if so, records where the search was.
    private func budgetOver(_ search: inout Search, at stage: String) -> Bool {
        if search.stoppedAt != nil { return true }
        guard Uptime.now - search.start > timeBudget else { return false }
        search.stoppedAt = stage
        return true
    }

    /// Runs `candidate` (repaired) in `mode` if it is smaller (or `force`: the same program in
    /// another mode); keeps it when it still breaks the rule.
    private func attempt(_ candidate: Program, _ mode: ScheduleMode, _ search: inout Search, force: Bool = false) -> Bool {
        let repaired = ProgramRepair.repaired(candidate)
        guard force || isSmaller(repaired, than: search.current) else { return false }
        search.runs += 1
        guard
            let (found, failing) = failure(repaired, mode: mode, scheduleSeeds: search.scheduleSeeds, exactOnly: force && mode.isControlled)
        else { return false }
        search.current = failing
        search.mode = mode
        search.finding = found
        return true
    }

    /// The finding of `rule` if `program` still breaks it, and the program that did: a stress
    /// candidate runs up to `stressAttempts` times; a controlled one under `scheduleSeeds`
    /// schedule seeds (its own, then the next ones): a smaller program draws another schedule
    /// from the same seed, which may miss the window the original hit. With `exactOnly` (a failure
    /// moved to a controlled mode), only a run that replays exactly counts: a backend that runs
    /// work on threads of its own makes controlled runs that do not, whose counterexample would
    /// not reproduce from its replay line, and the search stays in the mode that found it.
    private func failure(_ program: Program, mode: ScheduleMode, scheduleSeeds: Int, exactOnly: Bool = false) -> (Finding, Program)? {
        var pipeline = self.pipeline
        pipeline.hangLimit = candidateLimit(program)
        for attempt in 0..<(mode.isControlled ? scheduleSeeds : stressAttempts) {
            var candidate = program
            if mode.isControlled { candidate.seed = program.seed &+ UInt64(attempt) }
            let result = pipeline.run(candidate, mode: mode)
            if exactOnly, !result.notReproducible.isEmpty { return nil }
            if let finding = result.findings.first(where: { $0.rule == rule }) { return (finding, candidate) }
            if result.abandoned { return nil }
        }
        return nil
    }

    private func isSmaller(_ a: Program, than b: Program) -> Bool {
        (a.steps.count, a.drivers, a.pauseCount, a.inputCount, a.foreignCount)
            < (b.steps.count, b.drivers, b.pauseCount, b.inputCount, b.foreignCount)
    }

    /// A stress failure that a controlled schedule shows too becomes reproducible, and its
    /// candidates need one run each.
    private func modes(after mode: ScheduleMode) -> [ScheduleMode] {
        mode == .stress ? [.controlled(.randomWalk), .controlled(.pct(depth: 3))] : []
    }

    /// The edits other than removing steps: one driver, drivers merged pairwise, each
    /// combinator input dropped and each foreign task made plain (`smallerForms`), every pause
    /// removed.
    private func edits(of program: Program) -> [Program] {
        var result: [Program] = []
        if program.drivers > 1 {
            var single = program
            single.steps = program.steps.map { Step(driver: 0, operation: $0.operation, pause: $0.pause) }
            result.append(single)
            for driver in 1..<program.drivers {
                var merged = program
                merged.steps = program.steps.map {
                    Step(driver: $0.driver == driver ? driver - 1 : $0.driver, operation: $0.operation, pause: $0.pause)
                }
                result.append(merged)
            }
        }
        for (index, step) in program.steps.enumerated() {
            for smaller in step.operation.payload.smallerForms {
                var copy = program
                copy.steps[index].operation = smaller
                result.append(copy)
            }
        }
        if program.pauseCount > 0 {
            var calm = program
            calm.steps = program.steps.map { Step(driver: $0.driver, operation: $0.operation, pause: .none) }
            result.append(calm)
        }
        return result
    }
}

extension Program {
    var pauseCount: Int { steps.filter { $0.pause != .none }.count }
    var inputCount: Int { steps.reduce(0) { $0 + $1.operation.payload.inputCount } }
    /// The tasks handed the backend as `ForeignTask`s: a failure kept with fewer shows the
    /// foreign class is not what it needs.
    var foreignCount: Int { steps.reduce(0) { $0 + $1.operation.payload.foreignCount } }
}
