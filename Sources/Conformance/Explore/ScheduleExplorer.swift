import TaskAPI

/// Explores every schedule of one program with at most `bound` preemptions, depth first
/// (`ScheduleStrategy.exhaustive(preemptions:)`), as CHESS's iterative context bounding and
/// loom's DFS scheduler do: each schedule is one fresh run (a new backend), forced along a path
/// of choices (`SchedulePath`) and taking the default afterwards (the one that just ran, if it
/// may go on; else the first candidate in key order). The run records every decision it made
/// (`ScheduleDecision`); the next path backtracks to the deepest decision with a candidate not
/// tried yet whose cost keeps the schedule within the bound. Stops at the first failing schedule,
/// when no path is left (finished), or at a limit.
///
/// It needs each run to be a function of its choices: a schedule whose decisions up to its last
/// forced one differ from the run it was derived from (or that saw work from outside the run)
/// stops the exploration as not reproducible instead of exploring schedules of something else.
struct ScheduleExplorer {
    let runner: ProgramRunner
    let bound: Int
    let scheduleLimit: Int
    /// When the exploration stops at the latest.
    let deadline: Uptime

    /// Explores `program`'s schedules: the failing schedule's result (its mode names its path),
    /// or the last one's, with `exploration` set.
    func explore(_ program: Program) -> ProgramResult {
        let start = Uptime.now
        var path = SchedulePath.defaults
        var expected: [ScheduleDecision] = []
        var schedules = 0
        while true {
            let record = runner.run(program, mode: .controlled(.path(path, preemptions: bound)))
            schedules += 1
            var result = ProgramChecks.check(record, slack: runner.timingSlack)
            if let divergence = Self.divergence(of: record.decisions, from: expected) {
                result.notReproducible.append(divergence)
            }
            let next = Self.next(after: record.decisions, bound: bound)
            let stop: ExplorationStop?
            if !result.findings.isEmpty {
                stop = .failure
            } else if result.abandoned {
                stop = .hang
            } else if !result.notReproducible.isEmpty {
                stop = .notReproducible
            } else if next == nil {
                stop = nil
            } else if schedules >= scheduleLimit {
                stop = .scheduleLimit
            } else if deadline.hasPassed {
                stop = .timeLimit
            } else {
                (path, expected) = next!
                continue
            }
            result.exploration = ExplorationTally(preemptions: bound, schedules: schedules, stop: stop, duration: Uptime.now - start)
            return result
        }
    }

    /// Why a run's `decisions` do not replay the prefix it was forced along (the same
    /// candidates, default and pick at each), or nil.
    static func divergence(of decisions: [ScheduleDecision], from expected: [ScheduleDecision]) -> String? {
        for (index, want) in expected.enumerated() {
            guard index < decisions.count else {
                return "the schedule diverged from the one it was derived from: it made \(decisions.count) decisions, "
                    + "its path forces \(expected.count)"
            }
            let got = decisions[index]
            if !got.sameChoice(as: want) || got.picked != want.picked {
                return "the schedule diverged from the one it was derived from at decision \(index): "
                    + "\(got.count) candidates (default \(got.defaultCandidate)), expected \(want.count) (default \(want.defaultCandidate))"
            }
        }
        return nil
    }

    /// The next schedule after one that made `decisions`, depth first: its path, and the
    /// decisions it must make up to its last forced one; nil when every schedule within `bound`
    /// preemptions was explored.
    static func next(after decisions: [ScheduleDecision], bound: Int) -> (SchedulePath, [ScheduleDecision])? {
        var spent = decisions.reduce(0) { $0 + $1.cost(of: $1.picked) }
        for index in decisions.indices.reversed() {
            let decision = decisions[index]
            spent -= decision.cost(of: decision.picked)
            let order = decision.order
            guard let position = order.firstIndex(of: decision.picked) else {
                preconditionFailure("decision \(index) picked \(decision.picked) of \(decision.count) candidates")
            }
            for candidate in order[(position + 1)...] where spent + decision.cost(of: candidate) <= bound {
                let prefix =
                    Array(decisions[..<index]) + [
                        ScheduleDecision(
                            count: decision.count, defaultCandidate: decision.defaultCandidate, picked: candidate,
                            preemptive: decision.preemptive)
                    ]
                let choices = prefix.indices.filter { prefix[$0].picked != prefix[$0].defaultCandidate }
                    .map { SchedulePath.Choice(decision: $0, candidate: prefix[$0].picked) }
                guard let path = SchedulePath(choices: choices) else {
                    preconditionFailure("choices in decision order are a path: \(choices)")
                }
                return (path, prefix)
            }
        }
        return nil
    }
}
