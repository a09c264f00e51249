import Dispatch

extension ProgramOperation {
    /// `await t<task>.value` in a new Swift task, which the driver cancels once it has started (C4.7).
    public struct AwaitThenCancel: TasklessOperation, FormattedOperation {
        public var task = 0

        static let format: StepFormat<Self> = "await t\(\.task).value, then cancelled"

        static func weight(in program: ProgramBuilder) -> Int { program.liveTasks.isEmpty || !program.usesOutsideWork ? 0 : 1 }

        static func generate(into program: inout ProgramBuilder) {
            program.add(.awaitThenCancel(task: program.rng.pick(program.liveTasks) ?? 0))
        }

        var uses: [Use] { [.task(task)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task)) }

        var neverWaits: Bool { false }
        var outsideWork: OutsideWork { .awaits(task: task, cancelled: true) }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.value] }
        var awaitCancels: Bool { true }

        func perform(in execution: ProgramExecution, step: Int) {
            guard let slot = execution.slots.task(task) else { return }
            let (log, t) = (execution.log, task)
            log.awaitStarted(cancelled: true)
            let started = DispatchSemaphore(value: 0)
            let swiftTask = Task.detached(executorPreference: AwaitExecutor.shared) {
                started.signal()
                let result: Result<Outcome, any Error>
                do { result = .success(try await slot.value()) } catch { result = .failure(error) }
                log.append(.awaited(step: step, task: t, result: Outcome(awaiting: result)))
                log.awaitFinished(cancelled: true)
            }
            // Bounded: the Swift task may not get a thread soon on a loaded pool; cancelled either way.
            _ = started.wait(timeout: (Uptime.now + .milliseconds(100)).dispatchTime)
            swiftTask.cancel()
            log.append(.swiftCancelled(step: step))
        }
    }

    public static func awaitThenCancel(task: Int) -> Self { .awaitThenCancel(AwaitThenCancel(task: task)) }
}
