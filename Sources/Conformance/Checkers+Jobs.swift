extension Checkers {
    /// A job handed to an executor runs exactly once (C7.3): `submit` steps' jobs log each run.
    /// A job run twice shows as soon as both runs are logged; a dropped one shows through its
    /// task's source (C8.3, `checkOutcomes`), since a bare job holds no task.
    mutating func checkJobsRunOnce() {
        for (index, step) in program.steps.enumerated() {
            guard case .submit(let executor) = step.operation else { continue }
            exercised.insert(.c7_3)
            let runs = observations.jobRuns[index, default: 0]
            if runs > 1 {
                findings.append(Finding(.c7_3, "the job submitted at step \(index) to \(executor) ran \(runs) times",
                                        expected: "exactly once", observed: "\(runs) runs"))
            }
        }
    }
}
