import TaskAPI

extension RuleSuite {
    /// C8.3 where a source's last reference goes inside inline work: from inside an inline
    /// continuation, pending sources whose only reference is held by an inline job queued behind
    /// that work (C2.7) on a completed task: a job that releases it as it runs, a job whose
    /// closure only captures it (released once the job ran, C8.1), and a continuation whose
    /// token is cancelled, whose body never runs (released with it). However the reference
    /// goes, nobody can complete the task any more: it fails with `TaskError.abandoned`, and the
    /// inline continuation registered on it runs once and sees that.
    enum C8AbandonedInsideInlineWork {
        /// Sources per way the reference goes.
        static let perWay = 10

        /// How the last reference to a source goes.
        enum Way: Int, CaseIterable, CustomStringConvertible {
            case releasedByTheJob, capturedByTheJob, capturedByACancelledContinuation

            var description: String {
                switch self {
                case .releasedByTheJob: "released by the inline job queued behind the work, as it runs"
                case .capturedByTheJob: "captured by that job's closure, which is freed once the job ran"
                case .capturedByACancelledContinuation: "captured by an inline continuation whose token is cancelled (its body never runs)"
                }
            }
        }

        static func sourceDroppedBehindInlineWork(_ c: RuleContext) throws {
            let backend = c.backend
            let inline = backend.inlineExecutor
            let cancelled = backend.makeCancellationSource()
            cancelled.cancel()
            let outer = backend.makeSource(of: Void.self)
            let made = Recorder<(way: Way, task: any AsyncTask<Int>)>()
            let seen = Recorder<String>()
            let built = backend.makeSource(of: Void.self)
            outer.task.whenComplete(on: inline) { _ in
                defer { built.trySucceed(()) }
                for way in Way.allCases {
                    for index in 0..<perWay {
                        let holder = SourceHolder(backend.makeSource(of: Int.self))
                        made.append((way, holder.task))
                        holder.task.whenComplete(on: inline) { outcome in seen.append("\(outcome)") }
                        let completed = backend.succeeded(index)
                        switch way {
                        case .releasedByTheJob:
                            completed.whenComplete(on: inline) { _ in holder.release() }
                        case .capturedByTheJob:
                            let source = holder.take()
                            completed.whenComplete(on: inline) { _ in _ = source }
                        case .capturedByACancelledContinuation:
                            let source = holder.take()
                            _ = completed.continueWith(on: inline, token: cancelled.token) { _ in _ = source }
                        }
                    }
                }
            }
            outer.trySucceed(())
            let total = Way.allCases.count * perWay
            let call =
                "in outer.whenComplete(on: inline): \(total) pending sources, each one's only reference held by an inline job on a "
                + "completed task (queued behind the work), \(perWay) each way; outer.trySucceed(())"
            // A backend delivering on a thread of its own (an event loop) runs the work there, later.
            _ = try c.requireOutcome(built.task, "the inline continuation that makes the sources runs", call: call)
            let tasks = made.all
            _ = eventually { tasks.allSatisfy { $0.task.isCompleted } }
            for way in Way.allCases {
                let mine = tasks.filter { $0.way == way }
                let wrong = mine.filter { !isAbandoned($0.task.completion) }
                c.expect(
                    wrong.isEmpty, "a source whose last reference went inside inline work fails its task with TaskError.abandoned",
                    call: call + " (the reference \(way))", expected: "failure(TaskError.abandoned) for each of \(mine.count)",
                    observed: "\(wrong.count) of \(mine.count) not: first \(RuleContext.describe(wrong.first?.task.completion))")
            }
            // Each continuation of a task that completed runs; waiting for the others' would only
            // wait out the bound again.
            let completed = tasks.filter { $0.task.isCompleted }.count
            _ = eventually { seen.all.count >= completed }
            let outcomes = seen.all
            c.expect(
                outcomes.count == total && outcomes.allSatisfy { $0.contains("abandoned") },
                "each abandoned task's inline continuation runs once and sees TaskError.abandoned", call: call,
                expected: "\(total) runs, each seeing abandoned",
                observed: "\(outcomes.count) runs\(outcomes.first { !$0.contains("abandoned") }.map { ", one seeing \($0)" } ?? "")")
        }

        private static func isAbandoned(_ outcome: Completion<Int>?) -> Bool {
            guard case .failure(let error)? = outcome, let error = error as? TaskError else { return false }
            return error == .abandoned
        }
    }

    /// A source held until `release()` or `take()`: the task stays, the holder lets the source go.
    final class SourceHolder: Sendable {
        private let source: PlainLocked<(any CompletionSource<Int>)?>
        let task: any AsyncTask<Int>

        init(_ source: any CompletionSource<Int>) {
            task = source.task
            self.source = PlainLocked(source)
        }

        /// Drops the holder's reference.
        func release() { source.withLock { $0 = nil } }

        /// Hands the reference over: the holder keeps none.
        func take() -> (any CompletionSource<Int>)? {
            source.withLock { source in
                defer { source = nil }
                return source
            }
        }
    }
}
