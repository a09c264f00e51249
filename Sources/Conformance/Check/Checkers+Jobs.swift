extension Checkers {
    /// A job handed to an executor runs exactly once (C7.3): `submit` steps' jobs log each run.
    /// A job run twice shows as soon as both runs are logged; a dropped one shows through its
    /// task's source (C8.3, `checkOutcomes`), since a bare job holds no task.
    mutating func checkJobsRunOnce() {
        for (index, step) in program.steps.enumerated() {
            guard let executor = step.operation.payload.submittedJob else { continue }
            exercised.insert(.c7_3)
            judged.judge(index)
            let runs = observations.jobRuns[index, default: 0]
            if runs > 1 {
                findings.append(
                    Finding(
                        .c7_3, "the job submitted at step \(index) to \(executor) ran \(runs) times",
                        expected: "exactly once", observed: "\(runs) runs"))
            }
        }
    }
}

extension Checkers {
    /// A prepared task starts once: exactly one start returns true, every other returns false and
    /// changes nothing (C9.3); its body runs at most once (checked with every body, C2.1).
    mutating func checkStarts() {
        for (t, starts) in observations.starts.sorted(by: { $0.key < $1.key }) {
            exercised.insert(.c9_3)
            judged.judge(starts.map(\.step))
            let winners = starts.filter(\.ok)
            if winners.count != 1 {
                findings.append(
                    Finding(
                        .c9_3, "prepared task t\(t) was started \(starts.count) times and \(winners.count) starts returned true",
                        expected: "exactly one start returns true",
                        observed: "steps " + starts.map { "\($0.step): \($0.ok)" }.joined(separator: ", ")))
            }
        }
    }
}
