import TaskAPI

/// One `FactoryCall` step's call on its `TaskFactory`, with the harness's logging bodies: the
/// same bodies the backend's own call (`FactoryCall.equivalent`) would get.
struct FactoryVending {
    let call: ProgramOperation.FactoryCall
    let step: Int
    let execution: ProgramExecution
    let factory: TaskFactory

    func vend() {
        let (execution, t, step, action, ref) = (self.execution, call.task, self.step, call.body, call.executor)
        let probe = execution.makeProbe("factory body of t\(t)")
        let captured = factory.token
        @Sendable func body(_ input: Outcome?, _ token: CancellationToken) throws -> Int {
            try execution.body(task: t, step: step, input: input, action: action, token: token, probe: probe, executor: ref)
        }
        switch call.call {
        case .run(let noToken, let returns, let keeps):
            run(noToken: noToken, returned: (returns ?? keeps).map { ($0, returns != nil) }, body: body)
        case .runAsync:
            execution.register(
                t,
                .int(
                    factory.run { () async throws -> Int in
                        try execution.body(task: t, step: step, input: nil, action: action, token: nil, probe: probe)
                    }))
        case .prepare(let noToken, let returns):
            prepare(noToken: noToken, returns: returns, body: body)
        case .retry(let attempts, let failures, let taskForm, let noToken):
            let attempt = ProgramOperation.Retry.attempt(task: t, failures: failures, body: action, step: step, in: execution)
            let attemptTask = ProgramOperation.Retry.attemptTask(attempt, runs: false, in: execution)
            let made: any AsyncTask<Int>
            // A body that takes no token checks the one it captured.
            switch (taskForm, noToken) {
            case (true, false): made = factory.retryTask(attempts: attempts) { (token: CancellationToken) in attemptTask(token) }
            case (true, true): made = factory.retryTask(attempts: attempts) { () -> any AsyncTask<Int> in attemptTask(captured) }
            case (false, false): made = factory.retry(attempts: attempts) { (token: CancellationToken) throws -> Int in try attempt(token) }
            case (false, true): made = factory.retry(attempts: attempts) { () throws -> Int in try attempt(captured) }
            }
            execution.register(t, .int(made))
        case .delay(let microseconds):
            execution.register(t, .void(factory.delay(.microseconds(microseconds))))
        case .continuation(let antecedent, let kind):
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            let inner = kind.returned?.task.flatMap { execution.slots.task($0)?.intTask }
            execution.register(t, .int(continuation(kind, on: antecedentTask, inner: inner, body: body)))
        case .whenComplete(let antecedent):
            guard let antecedentTask = execution.slots.task(antecedent)?.intTask else { return }
            factory.whenComplete(antecedentTask, ProgramOperation.Observe.observer(task: t, executor: ref, step: step, in: execution))
        }
    }

    /// `run` or `runTask`, with a body taking the token or none; `returned`: the task the body
    /// returns, and whether `runTask` unwraps it (else `run` keeps it as its value, C2.6).
    private func run(
        noToken: Bool, returned: (inner: InnerTask, unwraps: Bool)?, body: @escaping @Sendable (Outcome?, CancellationToken) throws -> Int
    ) {
        let (execution, t, step, captured) = (self.execution, call.task, self.step, factory.token)
        guard let (returnedTask, unwraps) = returned else {
            // A body that takes no token checks the one it captured.
            let made =
                noToken
                ? factory.run { () throws -> Int in try body(nil, captured) }
                : factory.run { (token: CancellationToken) throws -> Int in try body(nil, token) }
            execution.register(t, .int(made))
            return
        }
        let existing = returnedTask.task.flatMap { execution.slots.task($0)?.intTask }
        @Sendable func inner(_ token: CancellationToken) throws -> any AsyncTask<Int> {
            _ = try body(nil, token)
            return execution.innerTask(returnedTask, task: t, step: step, existing: existing)
        }
        if unwraps {
            let made =
                noToken
                ? factory.runTask { () -> any AsyncTask<Int> in try inner(captured) }
                : factory.runTask { (token: CancellationToken) -> any AsyncTask<Int> in try inner(token) }
            execution.register(t, .int(made))
            return
        }
        let kept = ReturnedTask()
        let value = ProgramValues.value(step: step)
        let made: any AsyncTask<any AsyncTask<Int>> =
            noToken
            ? factory.run { () throws -> any AsyncTask<Int> in kept.keep(try inner(captured)) }
            : factory.run { (token: CancellationToken) throws -> any AsyncTask<Int> in kept.keep(try inner(token)) }
        execution.register(t, .int(made.map(on: execution.executors.inlineExecutor, token: .none) { kept.read($0, value: value) }))
    }

    /// `prepare` or `prepareTask` (`returns`), with a body taking the token or none.
    private func prepare(noToken: Bool, returns: InnerTask?, body: @escaping @Sendable (Outcome?, CancellationToken) throws -> Int) {
        let (execution, t, step, captured) = (self.execution, call.task, self.step, factory.token)
        let prepared: PreparedTask<Int>
        if let returns {
            let existing = returns.task.flatMap { execution.slots.task($0)?.intTask }
            @Sendable func inner(_ token: CancellationToken) throws -> any AsyncTask<Int> {
                _ = try body(nil, token)
                return execution.innerTask(returns, task: t, step: step, existing: existing)
            }
            prepared =
                noToken
                ? factory.prepareTask { () -> any AsyncTask<Int> in try inner(captured) }
                : factory.prepareTask { (token: CancellationToken) -> any AsyncTask<Int> in try inner(token) }
        } else {
            prepared =
                noToken
                ? factory.prepare { () throws -> Int in try body(nil, captured) }
                : factory.prepare { (token: CancellationToken) throws -> Int in try body(nil, token) }
        }
        execution.slots.putPrepared(t, prepared)
        execution.watchFreed("t\(t)'s prepared task", prepared)
        execution.register(t, .int(prepared.task))
    }

    /// The factory's continuation of `kind` on `a`; a task form's body returns `inner` (an
    /// existing task) or one it makes.
    private func continuation(
        _ kind: ContinuationKind, on a: any AsyncTask<Int>, inner: (any AsyncTask<Int>)?,
        body: @escaping @Sendable (Outcome?, CancellationToken) throws -> Int
    ) -> any AsyncTask<Int> {
        // `finally` and `finallyTask` take no token: their bodies see none, as the backend's own (C3.3).
        let (execution, t, step, factory) = (self.execution, call.task, self.step, self.factory)
        let token = kind.takesToken ? factory.token : .none
        let returned = kind.returned ?? .new
        @Sendable func task(_ input: Outcome) throws -> any AsyncTask<Int> {
            _ = try body(input, token)
            return execution.innerTask(returned, task: t, step: step, existing: inner)
        }
        @Sendable func failure(_ error: any Error) -> Outcome { .failure(ErrorValue(error)) }
        switch kind {
        case .continueWithKeeping, .mapKeeping, .thenKeeping:
            preconditionFailure("FactoryVending: step \(step)'s \(kind): FactoryCall keeps no task as a value")
        case .continueWith: return factory.continueWith(a) { try body(Outcome($0), token) }
        case .continueWithTask: return factory.continueWithTask(a) { try task(Outcome($0)) }
        case .map: return factory.map(a) { try body(.success($0), token) }
        case .then: return factory.then(a) { try body(.success($0), token) }
        case .flatMap: return factory.flatMap(a) { try task(.success($0)) }
        case .recover: return factory.recover(a) { try body(failure($0), token) }
        case .recoverTask: return factory.recoverTask(a) { try task(failure($0)) }
        case .catch: return factory.catch(a) { try body(failure($0), token) }
        case .finally: return factory.finally(a) { _ = try body(Outcome($0), token) }
        case .finallyTask:
            return factory.finallyTask(a) { outcome in
                _ = try body(Outcome(outcome), token)
                return execution.innerVoidTask(returned, task: t, step: step, existing: inner)
            }
        }
    }
}
