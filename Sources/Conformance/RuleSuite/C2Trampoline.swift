import Foundation
import TaskAPI

extension RuleSuite {
    /// C2.7's decision, wide: inline work started inside inline work is queued behind it and run
    /// by the outer loop. Many completions at once from one inline continuation, each of whose
    /// inline continuations completes one more task, fill a backend's trampoline queue far past a
    /// few entries and keep it busy while it drains (its growth, its compaction, its reset).
    enum C2Trampoline {
        static let checks: [RuleCheck] = [
            RuleCheck(
                .c2_7,
                "inline continuations completed 40 wide and 3 deep inside inline work run after it, each once, before the outer call "
                    + "returns",
                wideInlineWork)
        ]

        static let width = 40
        static let depth = 3

        static func wideInlineWork(_ c: RuleContext) throws {
            let backend = c.backend
            let inline = backend.inlineExecutor
            let root = backend.makeSource(of: Void.self)
            let levels = (0..<depth).map { _ in (0..<width).map { _ in backend.makeSource(of: Int.self) } }
            let outerReturned = Counter()
            let early = Counter()
            let ran = Recorder<Int>()
            for level in 0..<depth {
                for index in 0..<width {
                    levels[level][index].task.whenComplete(on: inline) { _ in
                        if outerReturned.count == 0 { early.increment() }
                        ran.append(level * width + index)
                        if level + 1 < depth { levels[level + 1][index].trySucceed(index) }
                    }
                }
            }
            root.task.whenComplete(on: inline) { _ in
                for source in levels[0] { source.trySucceed(0) }
                outerReturned.increment()
            }
            root.trySucceed(())
            let seen = ran.all
            let call =
                "root.whenComplete(on: inline) { \(width) sources succeed }, each source's whenComplete(on: inline) completes the next "
                + "of \(depth) levels; root.trySucceed(())"
            c.expectEqual(
                seen.count, width * depth, "every inline continuation ran before the outermost completing call returned", call: call)
            c.expectEqual(Set(seen).count, seen.count, "each inline continuation ran once", call: call)
            c.expectEqual(early.count, 0, "inline work started inside inline work runs after it, not in place", call: call)
        }
    }
}
