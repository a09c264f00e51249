import TaskAPI

extension RuleSuite.C2Continuations {
    /// C2.7 in breadth: inside inline work, 100 sources completed, each with an inline
    /// continuation that completes one more, and so on 4 deep, so that 100 hand-offs wait behind
    /// the work at once and each queues the next while they drain (a backend's per-thread queue
    /// of inline work grows, wraps, moves its live part to the front and shrinks back); twice, on
    /// one thread. Each continuation runs once, none inside the work that queued it.
    static func inlineBursts(_ c: RuleContext) throws {
        let backend = c.backend
        let width = 100
        let depth = 4
        for round in 0..<2 {
            let ran = RuleSuite.Recorder<Int>()
            let insideWork = RuleSuite.Counter()
            let root = backend.makeSource(of: Int.self)
            root.task.whenComplete(on: backend.inlineExecutor) { _ in
                for index in 0..<width { queueChain(backend, index: index, step: 0, depth: depth, width: width, ran: ran) }
                insideWork.increment()
                if !ran.all.isEmpty { insideWork.increment() }
            }
            root.trySucceed(round)
            let call =
                "inside an inline continuation, \(width) sources completed, each with an inline continuation completing one more, "
                + "\(depth) deep (round \(round + 1) of 2 on one thread)"
            c.expectEqual(insideWork.count, 1, "no continuation runs inside the inline work that completed its source", call: call)
            c.expect(
                eventually { ran.all.count >= depth * width }, "every continuation runs", call: call,
                expected: "\(depth * width) runs", observed: "\(ran.all.count) runs")
            let runs = ran.all
            c.expectEqual(Set(runs).count, runs.count, "no continuation runs twice", call: call + " (distinct runs)")
        }
    }

    /// Completes a source whose inline continuation records `step` of chain `index` and queues
    /// the chain's next step, up to `depth`.
    private static func queueChain(
        _ backend: any TaskBackend, index: Int, step: Int, depth: Int, width: Int, ran: RuleSuite.Recorder<Int>
    ) {
        let source = backend.makeSource(of: Int.self)
        source.task.whenComplete(on: backend.inlineExecutor) { _ in
            ran.append(step * width + index)
            if step + 1 < depth { queueChain(backend, index: index, step: step + 1, depth: depth, width: width, ran: ran) }
        }
        source.trySucceed(index)
    }
}
