import TaskAPI

extension ProgramOperation {
    /// `t<group> = WorkGroup().idle()`: a new `WorkGroup` (C9.11), named by its first `idle()`
    /// task, which succeeds at once: no task is joined yet.
    public struct MakeGroup: TaskOperation, FormattedOperation {
        public var task = 0

        public init(task: Int) { self.task = task }
        /// A blank payload, which `format` reads a text into.
        init() {}

        static let format: StepFormat<Self> = "t\(\.task) = WorkGroup().idle()"

        static func weight(in program: ProgramBuilder) -> Int { program.groups.count < 2 ? 2 : 0 }

        static func generate(into program: inout ProgramBuilder) {
            program.groups.append(program.nextTask)
            program.addTask(.makeGroup(MakeGroup(task: program.nextTask)), sources: [], held: false, intValued: false)
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task)) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.groupInit, .groupIdle] }

        func perform(in execution: ProgramExecution, step: Int) {
            let group = WorkGroup(backend: execution.backend)
            execution.slots.putGroup(task, group)
            execution.register(task, .void(group.idle()))
        }

        var dependence: Dependence { .nothing }
        var madeFromSource: Bool { true }
        var pendingRule: Rule { .c9_11 }

        /// An empty group is idle at once (C9.11).
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation { .outcomes([.success(0)], .c9_11) }
    }

    /// `group(t<group>).join(t<task>)`: counts the task in until it completes, whatever its outcome,
    /// then reads `pendingCount` (C9.11).
    public struct JoinGroup: TasklessOperation, FormattedOperation {
        public var group = 0
        public var task = 0

        public init(group: Int, task: Int) {
            self.group = group
            self.task = task
        }

        /// A blank payload, which `format` reads a text into.
        init() {}

        static let format: StepFormat<Self> = "group(t\(\.group)).join(t\(\.task))"

        static func weight(in program: ProgramBuilder) -> Int { program.groups.isEmpty ? 0 : 6 }

        /// Any task but a group's `idle()` (joined to its own group, or to a group its own waits for,
        /// it would wait for itself); once a blocking `wait()` was generated on the group, only tasks
        /// that complete without the harness (a `wait()` racing with the join must not wait on a held
        /// source).
        static func generate(into program: inout ProgramBuilder) {
            guard let group = program.rng.pick(program.groups) else { return }
            let waited = program.waitedGroups[group]
            let candidates = program.liveTasks.filter { task in
                !program.idleTasks.contains(task) && (waited.map { program.completesEarly(task, through: $0) } ?? true)
            }
            guard let task = program.rng.pick(candidates) else { return }
            program.add(.joinGroup(JoinGroup(group: group, task: task)))
        }

        var uses: [Use] { [.task(group), .task(task)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(group: ids.task(group), task: ids.task(task)) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.groupJoin, .groupPendingCount] }
        var joinedGroup: GroupMember? { GroupMember(group: group, task: task) }

        func perform(in execution: ProgramExecution, step: Int) {
            guard execution.slots.task(group) != nil, let workGroup = execution.slots.group(group), let slot = execution.slots.task(task)
            else { return }
            slot.join(workGroup)
            execution.log.append(.groupJoined(step: step, group: group, task: task, pending: workGroup.pendingCount))
        }
    }

    /// `t<task> = group(t<group>).idle()`: a task that succeeds once no joined task is pending,
    /// also waiting for tasks joined while it is (C9.11).
    public struct GroupIdle: TaskOperation, FormattedOperation {
        public var task = 0
        public var group = 0

        public init(task: Int, group: Int) {
            self.task = task
            self.group = group
        }

        /// A blank payload, which `format` reads a text into.
        init() {}

        static let format: StepFormat<Self> = "t\(\.task) = group(t\(\.group)).idle()"

        static func weight(in program: ProgramBuilder) -> Int { program.groups.isEmpty ? 0 : 3 }

        /// Held as far as blocking waits go: a join from another driver may add any task before it.
        static func generate(into program: inout ProgramBuilder) {
            guard let group = program.rng.pick(program.groups) else { return }
            program.idleTasks.insert(program.nextTask)
            program.addTask(.groupIdle(GroupIdle(task: program.nextTask, group: group)), sources: [], held: true, intValued: false)
        }

        var uses: [Use] { [.task(group)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), group: ids.task(group)) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] { [.groupIdle] }
        var idledGroup: GroupMember? { GroupMember(group: group, task: task) }

        func perform(in execution: ProgramExecution, step: Int) {
            guard execution.slots.task(group) != nil, let workGroup = execution.slots.group(group) else { return }
            execution.register(task, .void(workGroup.idle()))
        }

        var dependence: Dependence { .nothing }
        var madeFromSource: Bool { true }
        var pendingRule: Rule { .c9_11 }

        /// Pending in phase one while a task joined before it was asked for is (a join that ended
        /// before its step began); once those completed, unknown while one joined around or after
        /// it is pending (it may have completed before that join, which then counts for the next
        /// one); success once every joined task completed (C9.11).
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            let joins = model.oracle.groupJoins(group: group, around: step)
            let states = joins.before.map { model.input($0) }
            if states.contains(where: { if case .pending = $0 { return true } else { return false } }) { return .pending }
            if model.world == .final { return .outcomes([.success(0)], .c9_11) }
            if states.contains(where: { $0.allowed == nil }) { return .unknown }
            let later = joins.others.map { model.input($0) }
            return later.allSatisfy { $0.allowed != nil } ? .outcomes([.success(0)], .c9_11) : .unknown
        }
    }

    /// `group(t<group>).wait()` or `.wait(timeout:)`: blocks until no joined task is pending (or
    /// the timeout elapsed: `false`) (C9.11). A `wait()` closes the group to tasks a held source
    /// could keep pending.
    public struct WaitGroup: TasklessOperation, FormattedOperation {
        public var group = 0
        public var timeoutMicroseconds: Int?

        public init(group: Int, timeoutMicroseconds: Int?) {
            self.group = group
            self.timeoutMicroseconds = timeoutMicroseconds
        }

        /// A blank payload, which `format` reads a text into.
        init() {}

        static let format: StepFormat<Self> = "group(t\(\.group)).wait(\(\.timeoutMicroseconds, prefix: "timeout: ", suffix: "us"))"

        static func weight(in program: ProgramBuilder) -> Int { program.groups.isEmpty ? 0 : 2 }

        /// A blocking `wait()` only while every task joined so far completes without the harness
        /// through steps before it; later joins then take only such tasks (`JoinGroup`).
        static func generate(into program: inout ProgramBuilder) {
            guard let group = program.rng.pick(program.groups) else { return }
            let joined = program.steps.compactMap { step -> Int? in
                if case .joinGroup(let join) = step.operation, join.group == group { return join.task }
                return nil
            }
            if joined.allSatisfy({ program.completesEarly($0) }), program.rng.chance(50) {
                program.add(.waitGroup(WaitGroup(group: group, timeoutMicroseconds: nil)))
                if program.waitedGroups[group] == nil { program.waitedGroups[group] = program.completedEarlier }
            } else {
                program.add(.waitGroup(WaitGroup(group: group, timeoutMicroseconds: program.rng.int(in: 0...1000))))
            }
        }

        var uses: [Use] { [.task(group)] }
        func renumbered(_ ids: Renumbering) -> Self { Self(group: ids.task(group), timeoutMicroseconds: timeoutMicroseconds) }

        var neverWaits: Bool { false }
        var blocking: Blocking { timeoutMicroseconds == nil ? .untilGroupIdle(group) : .untilTimeout(group) }
        var registersOrCompletes: Bool { false }
        var entryPoints: [EntryPoint] { [timeoutMicroseconds == nil ? .groupWait : .groupWaitTimeout] }

        func perform(in execution: ProgramExecution, step: Int) {
            guard execution.slots.task(group) != nil, let workGroup = execution.slots.group(group) else { return }
            guard let us = timeoutMicroseconds else {
                workGroup.wait()
                execution.log.append(.groupWaited(step: step, group: group, idle: true))
                return
            }
            execution.log.append(.groupWaited(step: step, group: group, idle: workGroup.wait(timeout: .microseconds(us))))
        }
    }
}

extension TaskSlot {
    /// Joins the task to `group` (C9.11).
    func join(_ group: WorkGroup) {
        switch self {
        case .int(let t): group.join(t)
        case .values(let t): group.join(t)
        case .settled(let t): group.join(t)
        case .void(let t): group.join(t)
        }
    }
}

extension Oracle {
    /// The tasks joined to `group`: by joins that ended before step `step` began (`before`: an
    /// `idle()` asked for at `step` must wait for them), and by every other join (`others`: around
    /// or after it, as the run went).
    func groupJoins(group: Int, around step: Int) -> (before: [Int], others: [Int]) {
        let start = observations.stepStart[step]?.seq ?? 0
        var before: [Int] = []
        var others: [Int] = []
        for (index, candidate) in program.steps.enumerated() {
            guard case .joinGroup(let join) = candidate.operation, join.group == group else { continue }
            if let end = observations.stepEnd[index], end < start { before.append(join.task) } else { others.append(join.task) }
        }
        return (before, others)
    }
}
