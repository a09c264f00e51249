import Foundation

/// Turns a hang into a finding that names what is stuck: the drivers' current steps and the
/// tasks the model expected to complete that never did.
struct Watchdog {
    /// How long one phase of one program may take before it counts as a hang.
    let limit: Duration

    var deadline: Date {
        let (seconds, attoseconds) = limit.components
        return Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// A finding for a hang in `phase`: `stuckSteps` are the steps drivers are blocked in.
    static func hang(
        phase: String, program: Program, stuckSteps: [Int], pendingTasks: [Int], completed: [Bool], limit: Duration
    ) -> Finding {
        var rule = Rule.c2_1
        var lines: [String] = []
        for step in stuckSteps {
            let operation = program.steps[step].operation
            lines.append("driver d\(program.steps[step].driver) stuck in step \(step): \(operation)")
            if case .wait(let t) = operation, t < completed.count, completed[t] { rule = .c6_3 }
        }
        if !pendingTasks.isEmpty {
            lines.append("pending tasks: " + pendingTasks.prefix(20).map { "t\($0)" }.joined(separator: ", ")
                         + (pendingTasks.count > 20 ? ", ..." : ""))
        }
        return Finding(
            rule, "watchdog: \(phase) did not finish within \(limit)",
            expected: "every task completes and every waiter wakes",
            observed: lines.joined(separator: "; ")
        )
    }
}
