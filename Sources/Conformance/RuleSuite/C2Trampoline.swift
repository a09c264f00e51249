import Foundation
import TaskAPI

extension RuleSuite {
    /// C2.7's decision, wide: inline work started inside inline work is queued behind it and run
    /// by the outer loop. From inside one inline continuation, 100 sources are completed, each with
    /// an inline continuation that completes one more, 4 deep, so that 100 hand-offs wait behind
    /// the work at once and each queues the next while they drain: a backend's per-thread queue of
    /// inline work grows, wraps, moves its live part to the front and shrinks back. Twice, on one
    /// thread, so that the second round starts from the queue the first left.
    enum C2Trampoline {
        static let width = 100
        static let depth = 4
        static let rounds = 2

        static func wideInlineWork(_ c: RuleContext) throws {
            let backend = c.backend
            for round in 0..<rounds {
                let root = backend.makeSource(of: Void.self)
                let outerReturned = Counter()
                let early = Counter()
                let ran = Recorder<Int>()
                root.task.whenComplete(on: backend.inlineExecutor) { _ in
                    for index in 0..<width {
                        completeChain(backend, index: index, level: 0, outerReturned: outerReturned, early: early, ran: ran)
                    }
                    outerReturned.increment()
                }
                root.trySucceed(())
                let seen = ran.all
                let call =
                    "root.whenComplete(on: inline) { \(width) sources succeed }, each source's whenComplete(on: inline) completes "
                    + "the next of \(depth) levels; root.trySucceed(()) (round \(round + 1) of \(rounds) on one thread)"
                c.expectEqual(
                    seen.count, width * depth, "every inline continuation ran before the outermost completing call returned",
                    call: call)
                c.expectEqual(Set(seen).count, seen.count, "each inline continuation ran once", call: call)
                c.expectEqual(early.count, 0, "inline work started inside inline work runs after it, not in place", call: call)
            }
        }

        /// Completes a source whose inline continuation records `level` of chain `index` and
        /// completes the chain's next level, up to `depth`.
        private static func completeChain(
            _ backend: any TaskBackend, index: Int, level: Int, outerReturned: Counter, early: Counter, ran: Recorder<Int>
        ) {
            let source = backend.makeSource(of: Int.self)
            source.task.whenComplete(on: backend.inlineExecutor) { _ in
                if outerReturned.count == 0 { early.increment() }
                ran.append(level * width + index)
                if level + 1 < depth {
                    completeChain(backend, index: index, level: level + 1, outerReturned: outerReturned, early: early, ran: ran)
                }
            }
            source.trySucceed(index)
        }
    }
}
