import Foundation
import TaskAPI

extension ProgramOperation {
    /// `await t<task>.value` in a new Swift task; `cancelled`: that Swift task is cancelled at
    /// once (C4.7, C6.5).
    public struct Await: TasklessOperation, FormattedOperation {
        public var task = 0
        public var cancelled = false

        static let format: StepFormat<Self> = "await t\(\.task).value\(\.cancelled, " (cancelled)")"

        static func weight(in program: ProgramBuilder) -> Int { program.liveTasks.isEmpty || !program.usesOutsideWork ? 0 : 4 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(.await(task: program.rng.pick(program.liveTasks) ?? 0, cancelled: program.rng.chance(30)))
        }

        var uses: [Use] { [.task(task)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), cancelled: cancelled) }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .awaits(task: task, cancelled: cancelled) }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] { [.value] }
        var awaitCancels: Bool { cancelled }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let slot = execution.slots.task(task) else { return }
            let (log, t, cancelled) = (execution.log, task, cancelled)
            log.awaitStarted(cancelled: cancelled)
            let swiftTask = Task.detached(executorPreference: AwaitExecutor.shared) {
                let result: Result<Outcome, any Error>
                do { result = .success(try await slot.value()) } catch { result = .failure(error) }
                log.append(.awaited(step: step, task: t, result: Outcome(awaiting: result)))
                log.awaitFinished(cancelled: cancelled)
            }
            if cancelled {
                swiftTask.cancel()
                log.append(.swiftCancelled(step: step))
            }
        }
    }

    public static func await(task: Int, cancelled: Bool) -> Self { .await(Await(task: task, cancelled: cancelled)) }
}
