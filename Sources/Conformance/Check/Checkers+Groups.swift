/// The checks of work groups (C9.11), over what the log says of the joined tasks: the harness's
/// observer of a task, registered when the task was made, logs its completion before the group's
/// own continuation on it (registered at the join, on the inline executor, C2.4) counts it out,
/// so a group that saw a task complete has it logged completed first.
extension Checkers {
    mutating func checkGroups() {
        checkGroupIdles()
        checkGroupJoins()
        checkGroupWaits()
    }

    /// The tasks joined to `group` by joins that returned before event `seq`.
    private func joinedBefore(group: Int, seq: UInt64) -> [Int] {
        observations.groupJoins.compactMap { step, join in
            guard join.group == group, let end = observations.stepEnd[step], end < seq else { return nil }
            return join.task
        }.sorted()
    }

    /// An `idle()` task completes only after every task joined before it was asked for (C9.11).
    private mutating func checkGroupIdles() {
        for (index, step) in program.steps.enumerated() {
            guard let idle = step.operation.payload.idledGroup, let start = observations.stepStart[index]?.seq,
                let done = observations.completedBy(idle.task)
            else { continue }
            exercised.insert(.c9_11)
            judged.judge(index)
            for joined in joinedBefore(group: idle.group, seq: start) where (observations.completedBy(joined) ?? .max) > done {
                fail(
                    .c9_11,
                    "t\(idle.task) = group(t\(idle.group)).idle() completed before t\(joined), joined before it was asked for (\(describe(idle.task)))",
                    expected: "idle once t\(joined) completed",
                    observed: "idle at event #\(done), t\(joined) "
                        + (observations.completedBy(joined).map { "completed at #\($0)" } ?? "never completed"))
            }
        }
    }

    /// `pendingCount` read right after a join counts every task joined so far that is still
    /// pending, exactly where the log says so, and never more than the tasks joined so far
    /// (C9.11).
    ///
    /// Exact from below (issue 28): a join that ended before this one began counted its task
    /// in before the read, and a task whose completion the harness logged only after the read
    /// had not been counted out (the harness's observer, registered when the task was made,
    /// logs its completion before the group's continuation counts it out, C2.4). Those tasks,
    /// and this join's own if still pending, are all counted.
    private mutating func checkGroupJoins() {
        for (step, join) in observations.groupJoins.sorted(by: { $0.key < $1.key }) {
            guard let end = observations.stepEnd[step], let start = observations.stepStart[step]?.seq else { continue }
            exercised.insert(.c9_11)
            judged.judge(step)
            let stillPending = (observations.completedBy(join.task) ?? .max) > end
            let startedJoins = observations.groupJoins.filter { other in
                other.value.group == join.group && (observations.stepStart[other.key]?.seq ?? .max) < end
            }.count
            let surelyPending = observations.groupJoins.filter { other in
                guard other.value.group == join.group, (observations.completedBy(other.value.task) ?? .max) > end else { return false }
                return other.key == step || (observations.stepEnd[other.key] ?? .max) < start
            }.count
            if stillPending, join.pending < 1 {
                fail(
                    .c9_11,
                    "group(t\(join.group)).pendingCount read right after joining t\(join.task), still pending, was \(join.pending) (step \(step))",
                    expected: "at least 1: a joined task counts until it completes", observed: "\(join.pending)")
            } else if join.pending < surelyPending {
                fail(
                    .c9_11,
                    "group(t\(join.group)).pendingCount read right after joining t\(join.task) was \(join.pending) (step \(step)), "
                        + "while \(surelyPending) tasks joined before the read were still pending",
                    expected: "at least \(surelyPending): every joined task counts until it completes", observed: "\(join.pending)")
            } else if join.pending > startedJoins || join.pending < 0 {
                fail(
                    .c9_11, "group(t\(join.group)).pendingCount read after a join was \(join.pending) (step \(step))",
                    expected: "between 0 and the \(startedJoins) joins made so far", observed: "\(join.pending)")
            }
        }
    }

    /// A group's `wait()` (or a `wait(timeout:)` returning `true`) returns only after every task
    /// joined before it began completed; a `wait(timeout:)` on a group whose every join (the
    /// program's) returned before it began, their tasks completed, returns `true` (C9.11).
    private mutating func checkGroupWaits() {
        for (step, wait) in observations.groupWaits.sorted(by: { $0.key < $1.key }) {
            guard let start = observations.stepStart[step]?.seq else { continue }
            exercised.insert(.c9_11)
            judged.judge(step)
            let joined = joinedBefore(group: wait.group, seq: start)
            if wait.idle, let pending = joined.first(where: { (observations.completedBy($0) ?? .max) > wait.seq }) {
                fail(
                    .c9_11,
                    "group(t\(wait.group)).wait returned idle while t\(pending), joined before the wait, was pending (step \(step))",
                    expected: "returns once t\(pending) completed", observed: "returned at event #\(wait.seq)")
            }
            let allJoins = program.steps.indices.filter { program.steps[$0].operation.payload.joinedGroup?.group == wait.group }
            let allBefore = allJoins.allSatisfy { (observations.stepEnd[$0] ?? .max) < start }
            if !wait.idle, allBefore, joined.allSatisfy({ (observations.completedBy($0) ?? .max) < start }) {
                fail(
                    .c9_11,
                    "group(t\(wait.group)).wait(timeout:) returned false although every joined task had completed before it (step \(step))",
                    expected: "true: the group was idle", observed: "false")
            }
        }
    }
}
