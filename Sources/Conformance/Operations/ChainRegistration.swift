import TaskAPI

/// Registers one `Chain` step's continuation, of its kind and call form, with the harness's logging
/// body. A task form's body returns the task its `InnerTask` says (an existing one, or one it
/// makes), as a `ForeignTask` when the step marks it foreign; a value form keeping a task returns
/// it as its value, and the harness's `map` on the inline executor reads whether the value is that
/// very task (C2.6). On a pinned actor (C9.10) the body is isolated to the program's actor for the
/// serial executor, and enters it.
struct ChainRegistration {
    let chain: ProgramOperation.Chain
    let step: Int
    let execution: ProgramExecution

    func register(on antecedent: any AsyncTask<Int>, inner: (any AsyncTask<Int>)?, token: CancellationToken) -> any AsyncTask<Int> {
        let (execution, t, step, action, ref) = (self.execution, chain.task, self.step, chain.body, chain.executor)
        let probe = execution.makeProbe("continuation of t\(t)")
        @Sendable func body(_ input: Outcome) throws -> Int {
            try execution.body(task: t, step: step, input: input, action: action, token: token, probe: probe, executor: ref)
        }
        let (returned, foreign) = (chain.kind.returned ?? .new, chain.foreignReturned)
        @Sendable func task(_ input: Outcome) throws -> any AsyncTask<Int> {
            _ = try body(input)
            return ForeignTask.handed(execution.innerTask(returned, task: t, step: step, existing: inner), foreign: foreign)
        }
        @Sendable func voidTask(_ input: Outcome) throws -> any AsyncTask<Void> {
            _ = try body(input)
            return ForeignTask.handed(execution.innerVoidTask(returned, task: t, step: step, existing: inner), foreign: foreign)
        }
        @Sendable func failure(_ error: any Error) -> Outcome { .failure(ErrorValue(error)) }
        if chain.kind.kept != nil {
            let kept = ReturnedTask()
            let value = ProgramValues.value(step: step)
            let made = keeping(on: antecedent, token: token) { kept.keep(try task($0)) }
            return made.map(on: execution.executors.inlineExecutor, token: .none) { kept.read($0, value: value) }
        }
        return Forms(chain: chain, step: step, execution: execution, token: token)
            .register(on: antecedent, body: body, task: task, voidTask: voidTask, failure: failure)
    }

    /// A value form given a body returning a task (`continueWith=>`, `map=>`, `then=>`): the task
    /// it makes has that task as its value.
    private func keeping(
        on a: any AsyncTask<Int>, token: CancellationToken, _ task: @escaping @Sendable (Outcome) throws -> any AsyncTask<Int>
    ) -> any AsyncTask<any AsyncTask<Int>> {
        let forms = Forms(chain: chain, step: step, execution: execution, token: token)
        let (executor, optional) = (forms.executor, forms.optional)
        switch chain.kind {
        case .continueWithKeeping:
            return forms.call(
                { a.continueWith(on: executor, token: token) { try task(Outcome($0)) } },
                { a.continueWith(on: optional) { try task(Outcome($0)) } }, { a.continueWith(token: token) { try task(Outcome($0)) } },
                { actor in
                    a.continueWith(on: actor, token: token) { actor, outcome in
                        actor.enter(); return try task(Outcome(outcome))
                    }
                })
        case .thenKeeping:
            return forms.call(
                { a.then(on: executor, token: token) { try task(.success($0)) } }, { a.then(on: optional) { try task(.success($0)) } },
                { a.then(token: token) { try task(.success($0)) } },
                { actor in
                    a.then(on: actor, token: token) { actor, value in
                        actor.enter(); return try task(.success(value))
                    }
                })
        case .mapKeeping:
            return forms.call(
                { a.map(on: executor, token: token) { try task(.success($0)) } }, { a.map(on: optional) { try task(.success($0)) } },
                { a.map(token: token) { try task(.success($0)) } },
                { actor in
                    a.map(on: actor, token: token) { actor, value in
                        actor.enter(); return try task(.success(value))
                    }
                })
        case .continueWith, .continueWithTask, .map, .then, .flatMap, .recover, .recoverTask, .catch, .finally, .finallyTask:
            preconditionFailure("ChainRegistration.keeping: step \(step)'s \(chain.kind) keeps no task (register routes it to Forms)")
        }
    }
}

/// The call forms of one `Chain` step (`CallForm`): its executor, the optional one, its pinned
/// actor (nil: it falls back to the requirement on the executor, logged).
private struct Forms {
    let chain: ProgramOperation.Chain
    let step: Int
    let execution: ProgramExecution
    let token: CancellationToken

    var executor: any AsyncTaskExecutor { execution.executors[chain.executor] }
    var optional: (any AsyncTaskExecutor)? { execution.executors[chain.executor] }

    /// The call of the step's form: `requirement` (`on:token:`), `onExecutor` (`on:` an optional
    /// executor), `withToken` (`token:`, the default executor), `onActor` (`on:` the pinned actor).
    func call<T>(
        _ requirement: () -> any AsyncTask<T>, _ onExecutor: () -> any AsyncTask<T>, _ withToken: () -> any AsyncTask<T>,
        _ onActor: (ProgramActor) -> any AsyncTask<T>
    ) -> any AsyncTask<T> {
        switch chain.form {
        case .requirement: return requirement()
        case .executor: return onExecutor()
        case .token: return withToken()
        case .actor: return execution.pinnedActor(chain.executor, step: step).map(onActor) ?? requirement()
        }
    }

    func register(
        on a: any AsyncTask<Int>, body: @escaping @Sendable (Outcome) throws -> Int,
        task: @escaping @Sendable (Outcome) throws -> any AsyncTask<Int>,
        voidTask: @escaping @Sendable (Outcome) throws -> any AsyncTask<Void>, failure: @escaping @Sendable (any Error) -> Outcome
    ) -> any AsyncTask<Int> {
        let (executor, optional, token) = (self.executor, self.optional, self.token)
        switch chain.kind {
        case .continueWithKeeping, .mapKeeping, .thenKeeping:
            preconditionFailure("Forms.register: step \(step)'s \(chain.kind) keeps its task (register routes it to keeping)")
        case .continueWith:
            return call(
                { a.continueWith(on: executor, token: token) { try body(Outcome($0)) } },
                { a.continueWith(on: optional) { try body(Outcome($0)) } }, { a.continueWith(token: token) { try body(Outcome($0)) } },
                { actor in
                    a.continueWith(on: actor, token: token) { actor, outcome in
                        actor.enter(); return try body(Outcome(outcome))
                    }
                })
        case .continueWithTask:
            return call(
                { a.continueWithTask(on: executor, token: token) { try task(Outcome($0)) } },
                { a.continueWithTask(on: optional) { try task(Outcome($0)) } },
                { a.continueWithTask(token: token) { try task(Outcome($0)) } },
                { actor in
                    a.continueWithTask(on: actor, token: token) { actor, outcome in
                        actor.enter(); return try task(Outcome(outcome))
                    }
                })
        case .map:
            return call(
                { a.map(on: executor, token: token) { try body(.success($0)) } }, { a.map(on: optional) { try body(.success($0)) } },
                { a.map(token: token) { try body(.success($0)) } },
                { actor in
                    a.map(on: actor, token: token) { actor, value in
                        actor.enter(); return try body(.success(value))
                    }
                })
        case .then:
            return call(
                { a.then(on: executor, token: token) { try body(.success($0)) } }, { a.then(on: optional) { try body(.success($0)) } },
                { a.then(token: token) { try body(.success($0)) } },
                { actor in
                    a.then(on: actor, token: token) { actor, value in
                        actor.enter(); return try body(.success(value))
                    }
                })
        case .flatMap:
            return call(
                { a.flatMap(on: executor, token: token) { try task(.success($0)) } },
                { a.flatMap(on: optional) { try task(.success($0)) } },
                { a.flatMap(token: token) { try task(.success($0)) } },
                { actor in
                    a.flatMap(on: actor, token: token) { actor, value in
                        actor.enter(); return try task(.success(value))
                    }
                })
        case .recover, .catch, .recoverTask:
            return recovering(on: a, body: body, task: task, failure: failure)
        case .finally:
            return call(
                { a.finally(on: executor) { _ = try body(Outcome($0)) } }, { a.finally { _ = try body(Outcome($0)) } },
                { a.finally { _ = try body(Outcome($0)) } },
                { actor in
                    a.finally(on: actor) { actor, outcome in
                        actor.enter(); _ = try body(Outcome(outcome))
                    }
                })
        case .finallyTask:
            return call(
                { a.finallyTask(on: executor) { try voidTask(Outcome($0)) } }, { a.finallyTask { try voidTask(Outcome($0)) } },
                { a.finallyTask { try voidTask(Outcome($0)) } },
                { actor in
                    a.finallyTask(on: actor) { actor, outcome in
                        actor.enter(); return try voidTask(Outcome(outcome))
                    }
                })
        }
    }

    /// `recover`, `catch`, `recoverTask`: handlers of a failure.
    private func recovering(
        on a: any AsyncTask<Int>, body: @escaping @Sendable (Outcome) throws -> Int,
        task: @escaping @Sendable (Outcome) throws -> any AsyncTask<Int>,
        failure: @escaping @Sendable (any Error) -> Outcome
    ) -> any AsyncTask<Int> {
        let (executor, optional, token) = (self.executor, self.optional, self.token)
        switch chain.kind {
        case .catch:
            return call(
                { a.catch(on: executor, token: token) { try body(failure($0)) } }, { a.catch(on: optional) { try body(failure($0)) } },
                { a.catch(token: token) { try body(failure($0)) } },
                { actor in
                    a.catch(on: actor, token: token) { actor, error in
                        actor.enter(); return try body(failure(error))
                    }
                })
        case .recoverTask:
            return call(
                { a.recoverTask(on: executor, token: token) { try task(failure($0)) } },
                { a.recoverTask(on: optional) { try task(failure($0)) } }, { a.recoverTask(token: token) { try task(failure($0)) } },
                { actor in
                    a.recoverTask(on: actor, token: token) { actor, error in
                        actor.enter(); return try task(failure(error))
                    }
                })
        case .continueWith, .continueWithTask, .map, .then, .flatMap, .finally, .finallyTask, .continueWithKeeping, .mapKeeping,
            .thenKeeping:
            preconditionFailure("Forms.recovering: step \(step)'s \(chain.kind) handles no failure")
        case .recover:
            return call(
                { a.recover(on: executor, token: token) { try body(failure($0)) } }, { a.recover(on: optional) { try body(failure($0)) } },
                { a.recover(token: token) { try body(failure($0)) } },
                { actor in
                    a.recover(on: actor, token: token) { actor, error in
                        actor.enter(); return try body(failure(error))
                    }
                })
        }
    }
}
