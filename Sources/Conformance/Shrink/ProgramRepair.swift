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
        return renumbered(
            Program(
                seed: program.seed, drivers: program.drivers, serialExecutors: program.serialExecutors,
                countingExecutors: program.countingExecutors, steps: steps))
    }

    /// Drops every step that takes a task, source or token no earlier kept step made (or that a
    /// kept step dropped or released).
    private static func removingDangling(_ steps: [Step]) -> [Step] {
        var tasks: Set<Int> = []
        var sources: Set<Int> = []
        var tokens: Set<Int> = []
        var kept: [Step] = []
        for step in steps {
            let operation = step.operation
            let present = operation.uses.allSatisfy { use in
                switch use {
                case .task(let t), .prepared(let t), .lastUse(let t): return tasks.contains(t)
                case .source(let s), .lastSetter(let s): return sources.contains(s)
                case .token(let k): return tokens.contains(k)
                }
            }
            guard present else { continue }
            for use in operation.uses {
                if case .lastUse(let t) = use { tasks.remove(t); sources.remove(t) }
                if case .lastSetter(let s) = use { sources.remove(s) }
            }
            if let t = operation.createdTask {
                tasks.insert(t)
                if case .source = (operation.payload as? any TaskOperation)?.dependence { sources.insert(t) }
            }
            if let k = operation.createdToken { tokens.insert(k) }
            kept.append(step)
        }
        return kept
    }

    private static func holdingUnsetSources(_ steps: [Step]) -> [Step] {
        // A released source completes (abandoned) at its release (C8.3), like a set one.
        let set = Set(
            steps.flatMap { step in
                step.operation.uses.compactMap { use -> Int? in
                    switch use {
                    case .source(let s), .lastSetter(let s): return s
                    case .task, .token, .prepared, .lastUse: return nil
                    }
                }
            })
        return steps.map { step in
            guard let held = step.operation.payload.holdingSource(unlessSetIn: set) else { return step }
            var changed = step
            changed.operation = held
            return changed
        }
    }

    /// A `wait()` stays only on a task none of whose sources is held and all of whose sources
    /// have a setter earlier in the program; a group's `wait()` only while every task joined to
    /// it so far is such a task.
    private static func relaxingWaits(_ steps: [Step]) -> [Step] {
        var sourcesOf: [Int: Set<Int>] = [:]
        var held: [Int: Bool] = [:]
        var setEarlier: Set<Int> = []
        // Every task joined to each group, before or after its waits: a join racing with a wait counts.
        var joinedTo: [Int: [Int]] = [:]
        for step in steps {
            if let join = step.operation.payload.joinedGroup { joinedTo[join.group, default: []].append(join.task) }
        }
        var result: [Step] = []
        for step in steps {
            var step = step
            if let made = step.operation.payload as? any TaskOperation {
                let t = made.task
                switch made.dependence {
                case .source(let isHeld): (sourcesOf[t], held[t]) = ([t], isHeld)
                case .tasks(let inputs):
                    sourcesOf[t] = inputs.reduce(into: Set<Int>()) { $0.formUnion(sourcesOf[$1] ?? []) }
                    held[t] = inputs.contains { held[$0] ?? false }
                // Unstarted, a prepared task waits for the harness like a held source (C9.3).
                case .start: (sourcesOf[t], held[t]) = ([], true)
                case .nothing: (sourcesOf[t], held[t]) = ([], false)
                }
            }
            for use in step.operation.uses {
                switch use {
                case .source(let s), .lastSetter(let s): setEarlier.insert(s)
                case .prepared(let t): if step.operation.payload.startedPrepared != nil { held[t] = false }
                case .task, .token, .lastUse: break
                }
            }
            // A task not made yet (joined later) may depend on anything: it blocks.
            func blocks(_ t: Int) -> Bool { held[t] ?? true || !(sourcesOf[t] ?? []).isSubset(of: setEarlier) }
            switch step.operation.payload.blocking {
            case .untilCompleted(let t) where blocks(t):
                step.operation = .waitTimeout(task: t, microseconds: 1000)
            case .untilGroupIdle(let g) where (joinedTo[g] ?? []).contains(where: blocks):
                step.operation = .waitGroup(ProgramOperation.WaitGroup(group: g, timeoutMicroseconds: 1000))
            case .untilCompleted, .untilGroupIdle, .untilTimeout, .untilEarlierUses, .never:
                break
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
            if let k = step.operation.createdToken, tokenMap[k] == nil { tokenMap[k] = tokenMap.count }
            if driverMap[step.driver] == nil { driverMap[step.driver] = driverMap.count }
        }
        let ids = Renumbering(task: { taskMap[$0] ?? $0 }, token: { tokenMap[$0] ?? $0 })
        var copy = program
        copy.steps = program.steps.map { step in
            Step(driver: driverMap[step.driver] ?? 0, operation: step.operation.renumbered(ids), pause: step.pause)
        }
        copy.drivers = max(1, driverMap.count)
        return copy
    }
}
