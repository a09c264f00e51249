import TaskAPI

extension RuleSuite.C2Continuations {
    /// C2.7 in breadth: inside inline work, 100 sources completed, each with an inline
    /// continuation that completes one more, so that 100 hand-offs wait behind the work at once
    /// and each queues another while they drain (a backend's per-thread queue of inline work
    /// grows, wraps and shrinks back); twice, on one thread. Each continuation runs once, none
    /// inside the work that queued it.
    static func inlineBursts(_ c: RuleContext) throws {
        let backend = c.backend
        let inline = backend.inlineExecutor
        let width = 100
        for round in 0..<2 {
            let ran = RuleSuite.Recorder<Int>()
            let insideWork = RuleSuite.Counter()
            let root = backend.makeSource(of: Int.self)
            root.task.whenComplete(on: inline) { _ in
                for index in 0..<width {
                    let first = backend.makeSource(of: Int.self)
                    first.task.whenComplete(on: inline) { _ in
                        ran.append(index)
                        let second = backend.makeSource(of: Int.self)
                        second.task.whenComplete(on: inline) { _ in ran.append(width + index) }
                        second.trySucceed(index)
                    }
                    first.trySucceed(index)
                }
                insideWork.increment()
                if !ran.all.isEmpty { insideWork.increment() }
            }
            root.trySucceed(round)
            let call =
                "inside an inline continuation, \(width) sources completed, each with an inline continuation completing one more "
                + "(round \(round + 1) of 2 on one thread)"
            c.expectEqual(insideWork.count, 1, "no continuation runs inside the inline work that completed its source", call: call)
            c.expect(
                eventually { ran.all.count >= 2 * width }, "every continuation runs", call: call,
                expected: "\(2 * width) runs", observed: "\(ran.all.count) runs")
            let runs = ran.all
            c.expectEqual(Set(runs).count, runs.count, "no continuation runs twice", call: call + " (distinct runs)")
        }
    }
}
