import Foundation

/// Shrinks a failing program while the same rule still fails: tries a stress failure under a
/// controlled schedule, drops chunks of steps (halving the chunk size down to single steps),
/// drops combinator inputs, merges drivers, removes pauses, and lowers PCT's depth. Greedy: the first smaller candidate that still fails is
/// kept, and the search restarts from it. Bounded by a time budget.
///
/// A controlled candidate runs once (the same seed and program is the same schedule); a stress
/// candidate up to `stressAttempts` times, since the race may not show every time.
struct Shrinker {
    let pipeline: ProgramPipeline
    let rule: Rule
    let timeBudget: Duration
    /// Each candidate's one time limit (the pipeline's `hangLimit` while it runs).
    let candidateLimit: @Sendable (Program) -> Duration
    var stressAttempts = 3

    struct Result {
        var program: Program
        var mode: ScheduleMode
        /// What the shrunk program's last failing run found (nil: no candidate failed, the
        /// program is the original).
        var finding: Finding?
        /// Candidate programs run.
        var runs: Int
        var duration: Duration
    }

    func shrink(_ program: Program, mode: ScheduleMode) -> Result {
        let start = Uptime.now
        var current = program
        var currentMode = mode
        var runs = 0
        var finding: Finding?
        var improved = true
        search: while improved {
            improved = false
            for (candidate, candidateMode) in candidates(current, mode: currentMode) {
                if Uptime.now - start > timeBudget { break search }
                let repaired = ProgramRepair.repaired(candidate)
                guard candidateMode != currentMode || isSmaller(repaired, than: current) else { continue }
                runs += 1
                if let found = failure(repaired, mode: candidateMode) {
                    finding = found
                    current = repaired
                    currentMode = candidateMode
                    improved = true
                    continue search
                }
            }
        }
        return Result(program: current, mode: currentMode, finding: finding, runs: runs, duration: Uptime.now - start)
    }

    /// The finding of `rule` if `program` still breaks it.
    private func failure(_ program: Program, mode: ScheduleMode) -> Finding? {
        let attempts = mode.isControlled ? 1 : stressAttempts
        var pipeline = self.pipeline
        pipeline.hangLimit = candidateLimit(program)
        for _ in 0..<attempts {
            let result = pipeline.run(program, mode: mode)
            if let finding = result.findings.first(where: { $0.rule == rule }) { return finding }
            if result.abandoned { return nil }
        }
        return nil
    }

    private func isSmaller(_ a: Program, than b: Program) -> Bool {
        (a.steps.count, a.drivers, a.pauseCount, a.inputCount) < (b.steps.count, b.drivers, b.pauseCount, b.inputCount)
    }

    /// Candidates, biggest cuts first; each is repaired before it runs.
    private func candidates(_ program: Program, mode: ScheduleMode) -> [(Program, ScheduleMode)] {
        var result: [(Program, ScheduleMode)] = []
        // A stress failure that a controlled schedule shows too becomes reproducible, and its
        // candidates need one run each.
        if mode == .stress {
            result.append((program, .controlled(.randomWalk)))
            result.append((program, .controlled(.pct(depth: 3))))
        }
        if case .controlled(.pct(let depth)) = mode, depth > 1 {
            result.append((program, .controlled(.pct(depth: depth - 1))))
        }
        let count = program.steps.count
        var chunk = max(1, count / 2)
        while true {
            var start = 0
            while start < count {
                var copy = program
                copy.steps.removeSubrange(start..<min(count, start + chunk))
                result.append((copy, mode))
                start += chunk
            }
            if chunk == 1 { break }
            chunk = max(1, chunk / 2)
        }
        if program.drivers > 1 {
            var single = program
            single.steps = program.steps.map { Step(driver: 0, operation: $0.operation, pause: $0.pause) }
            result.append((single, mode))
            for driver in 1..<program.drivers {
                var merged = program
                merged.steps = program.steps.map { Step(driver: $0.driver == driver ? driver - 1 : $0.driver, operation: $0.operation, pause: $0.pause) }
                result.append((merged, mode))
            }
        }
        for (index, step) in program.steps.enumerated() {
            guard case .combine(let combine) = step.operation, !combine.inputs.isEmpty else { continue }
            for drop in combine.inputs.indices {
                var copy = program
                var fewer = combine
                fewer.inputs.remove(at: drop)
                copy.steps[index].operation = .combine(fewer)
                result.append((copy, mode))
            }
        }
        if program.pauseCount > 0 {
            var calm = program
            calm.steps = program.steps.map { Step(driver: $0.driver, operation: $0.operation, pause: .none) }
            result.append((calm, mode))
        }
        return result
    }
}

extension Program {
    var pauseCount: Int { steps.filter { $0.pause != .none }.count }
    var inputCount: Int {
        steps.reduce(0) { total, step in
            if case .combine(let combine) = step.operation { return total + combine.inputs.count }
            return total
        }
    }
}
