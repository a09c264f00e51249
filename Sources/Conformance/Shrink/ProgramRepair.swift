/// Edits that keep a program runnable, for the shrinker: after steps are removed, steps whose
/// ids no longer exist go too (transitively), a source left without a setter becomes held (the
/// harness completes it), a blocking `wait()` that could now block forever becomes
/// `wait(timeout: 1000us)` (the generator's deadlock-freedom rule, re-checked), and tasks,
/// tokens and drivers are renumbered densely.
enum ProgramRepair {
    static func repaired(_ program: Program) -> Program {
        var steps = removingDangling(program.steps)
        steps = holdingUnsetSources(steps)
        steps = relaxingWaits(steps)
        return renumbered(Program(seed: program.seed, drivers: program.drivers, serialExecutors: program.serialExecutors,
                                  countingExecutors: program.countingExecutors, steps: steps))
    }

    /// Drops every step that uses a task, source or token no earlier kept step made (or that a
    /// kept step dropped).
    private static func removingDangling(_ steps: [Step]) -> [Step] {
        var tasks: Set<Int> = []
        var sources: Set<Int> = []
        var tokens: Set<Int> = []
        var kept: [Step] = []
        for step in steps {
            let operation = step.operation
            guard operation.usedTasks.allSatisfy(tasks.contains), operation.usedTokens.allSatisfy(tokens.contains) else { continue }
            if case .complete(let s, _, _) = operation, !sources.contains(s) { continue }
            if case .drop(let t) = operation, !tasks.contains(t) { continue }
            if case .releaseSource(let s) = operation, !sources.contains(s) { continue }
            if case .start(let t, _) = operation, !tasks.contains(t) { continue }
            switch operation {
            case .makeSource(let t, _): sources.insert(t)
            case .makeToken(let k, _): tokens.insert(k)
            case .drop(let t): tasks.remove(t); sources.remove(t)
            case .releaseSource(let s): sources.remove(s)
            default: break
            }
            if let t = operation.createdTask { tasks.insert(t) }
            kept.append(step)
        }
        return kept
    }

    private static func holdingUnsetSources(_ steps: [Step]) -> [Step] {
        var set: Set<Int> = []
        for step in steps {
            if case .complete(let s, _, _) = step.operation { set.insert(s) }
            // A released source completes (abandoned) at its release (C8.3).
            if case .releaseSource(let s) = step.operation { set.insert(s) }
        }
        return steps.map { step in
            guard case .makeSource(let t, nil) = step.operation, !set.contains(t) else { return step }
            var changed = step
            changed.operation = .makeSource(task: t, held: .success)
            return changed
        }
    }

    /// A `wait()` stays only on a task none of whose sources is held and all of whose sources
    /// have a setter earlier in the program.
    private static func relaxingWaits(_ steps: [Step]) -> [Step] {
        var sourcesOf: [Int: Set<Int>] = [:]
        var held: [Int: Bool] = [:]
        var setEarlier: Set<Int> = []
        var result: [Step] = []
        for step in steps {
            var step = step
            switch step.operation {
            case .makeSource(let t, let h): sourcesOf[t] = [t]; held[t] = h != nil
            case .chain(let t, let kind, let antecedent, _, _, _):
                var sources = sourcesOf[antecedent] ?? []
                var isHeld = held[antecedent] ?? false
                if case .flatMapExisting(let inner) = kind {
                    sources.formUnion(sourcesOf[inner] ?? [])
                    isHeld = isHeld || (held[inner] ?? false)
                }
                sourcesOf[t] = sources
                held[t] = isHeld
            case .combine(let t, _, let inputs):
                sourcesOf[t] = inputs.reduce(into: Set<Int>()) { $0.formUnion(sourcesOf[$1] ?? []) }
                held[t] = inputs.contains { held[$0] ?? false }
            case .complete(let s, _, _), .releaseSource(let s): setEarlier.insert(s)
            // Unstarted, a prepared task waits for the harness like a held source (C9.3).
            case .prepare(let t, _, _): sourcesOf[t] = []; held[t] = true
            case .start(let t, _): held[t] = false
            case .wait(let t):
                if held[t] ?? false || !(sourcesOf[t] ?? []).isSubset(of: setEarlier) {
                    step.operation = .waitTimeout(task: t, microseconds: 1000)
                }
            default:
                if let t = step.operation.createdTask { sourcesOf[t] = []; held[t] = false }
            }
            result.append(step)
        }
        return result
    }

    private static func renumbered(_ program: Program) -> Program {
        var taskMap: [Int: Int] = [:]
        var tokenMap: [Int: Int] = [:]
        var driverMap: [Int: Int] = [:]
        for step in program.steps {
            if let t = step.operation.createdTask, taskMap[t] == nil { taskMap[t] = taskMap.count }
            if case .makeToken(let k, _) = step.operation, tokenMap[k] == nil { tokenMap[k] = tokenMap.count }
            if driverMap[step.driver] == nil { driverMap[step.driver] = driverMap.count }
        }
        var copy = program
        copy.steps = program.steps.map { step in
            Step(driver: driverMap[step.driver] ?? 0,
                 operation: step.operation.renumbered(tasks: { taskMap[$0] ?? $0 }, tokens: { tokenMap[$0] ?? $0 }),
                 pause: step.pause)
        }
        copy.drivers = max(1, driverMap.count)
        return copy
    }
}

extension Operation {
    /// The cancellation sources this operation takes.
    var usedTokens: [Int] {
        switch self {
        case .run(_, _, let k?, _), .chain(_, _, _, _, let k?, _), .delay(_, _, let k?): return [k]
        case .prepare(_, let k?, _), .runAsync(_, let k?, _): return [k]
        case .makeToken(_, let parent?): return [parent]
        case .cancel(let k), .cancelAfter(let k, _): return [k]
        case .registerHandler(_, let k): return [k]
        default: return []
        }
    }

    /// The same operation with task and token ids mapped.
    func renumbered(tasks t: (Int) -> Int, tokens k: (Int) -> Int) -> Operation {
        switch self {
        case .makeSource(let task, let held): return .makeSource(task: t(task), held: held)
        case .complete(let s, let outcome, let throwing): return .complete(source: t(s), outcome: outcome, throwing: throwing)
        case .makeCompleted(let task, let outcome): return .makeCompleted(task: t(task), outcome: outcome)
        case .run(let task, let executor, let token, let body):
            return .run(task: t(task), executor: executor, token: token.map(k), body: body)
        case .chain(let task, let kind, let antecedent, let executor, let token, let body):
            var newKind = kind
            if case .flatMapExisting(let inner) = kind { newKind = .flatMapExisting(t(inner)) }
            return .chain(task: t(task), kind: newKind, antecedent: t(antecedent), executor: executor, token: token.map(k), body: body)
        case .combine(let task, let kind, let inputs): return .combine(task: t(task), kind: kind, inputs: inputs.map(t))
        case .delay(let task, let us, let token): return .delay(task: t(task), microseconds: us, token: token.map(k))
        case .timeout(let task, let antecedent, let us): return .timeout(task: t(task), antecedent: t(antecedent), microseconds: us)
        case .makeToken(let token, let parent): return .makeToken(token: k(token), linkedTo: parent.map(k))
        case .cancel(let token): return .cancel(token: k(token))
        case .cancelAfter(let token, let us): return .cancelAfter(token: k(token), microseconds: us)
        case .wait(let task): return .wait(task: t(task))
        case .waitTimeout(let task, let us): return .waitTimeout(task: t(task), microseconds: us)
        case .await(let task, let cancelled): return .await(task: t(task), cancelled: cancelled)
        case .drop(let task): return .drop(task: t(task))
        case .releaseSource(let s): return .releaseSource(source: t(s))
        case .submit: return self
        case .prepare(let task, let token, let body): return .prepare(task: t(task), token: token.map(k), body: body)
        case .start(let task, let executor): return .start(task: t(task), executor: executor)
        case .runAsync(let task, let token, let body): return .runAsync(task: t(task), token: token.map(k), body: body)
        case .registerHandler(let h, let token): return .registerHandler(handler: h, token: k(token))
        case .awaitThenCancel(let task): return .awaitThenCancel(task: t(task))
        case .disposeHandler, .schedule, .nestedWait, .combineProbed, .longChain: return self
        }
    }
}
