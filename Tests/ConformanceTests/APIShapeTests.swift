import BackendActors
import BackendGCD
import BackendThreads
import Conformance
import TaskAPI
import Testing

/// Issue 24's API (a3) in hand-written programs: the forms named for a task and the tasks their
/// bodies return or make, the value forms keeping a returned task, every form on a pinned actor,
/// work groups, every `TaskFactory` form, an abandoned source's origin. Each program runs on the
/// package's backends without a finding (the model of each form is right), and where a mutant of
/// the reference backend breaks the form, the finding names its rule.
struct APIShapeTests {
    static let backends: [@Sendable () -> any TaskBackend] = [{ GCDBackend() }, { ThreadsBackend() }, { ActorsBackend() }]

    /// `steps` on driver 0, in stress mode (a pinned actor needs the backend's own serial
    /// executors): the findings on each backend of the package.
    static func findings(_ steps: [ProgramOperation], serial: Int = 0) async -> [String: [Finding]] {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: serial, countingExecutors: 0,
            steps: steps.map { Step(driver: 0, operation: $0, pause: .none) })
        var found: [String: [Finding]] = [:]
        for make in backends {
            let backend = make()
            found[backend.name] = await Conformance.runProgram(backend, program: Conformance.repaired(program), mode: .stress).findings
        }
        return found
    }

    static func expectNone(_ found: [String: [Finding]], sourceLocation: SourceLocation = #_sourceLocation) {
        for (backend, findings) in found.sorted(by: { $0.key < $1.key }) {
            #expect(findings.isEmpty, "\(backend): \(findings)", sourceLocation: sourceLocation)
        }
    }

    /// The forms named for a task take the outcome of the task their body returns: one held until
    /// the drivers finished (so they must be pending in phase one), a new one, one succeeded, failed
    /// or cancelled (C2.6, C9.3, C9.4, C9.5); `finallyTask` the original outcome unless it failed.
    @Test func formsNamedForATaskTakeTheReturnedTasksOutcome() async {
        Self.expectNone(
            await Self.findings([
                .makeSource(task: 0, held: .success),
                .run(task: 1, executor: .default, token: nil, body: .returns, form: .executor, returns: .existing(0)),
                .chain(task: 2, kind: .flatMap(.failed), antecedent: 1, executor: .default, token: nil, body: .returns),
                .chain(task: 3, kind: .recoverTask(.cancelled), antecedent: 2, executor: .inline, token: nil, body: .returns),
                .chain(task: 4, kind: .finallyTask(.failed), antecedent: 1, executor: .default, token: nil, body: .returns),
                .chain(task: 5, kind: .continueWithTask(.succeeded), antecedent: 0, executor: .default, token: nil, body: .throwsError),
                .prepare(task: 6, token: nil, body: .returns, returns: .new),
                .start(task: 6, executor: .default),
                .retry(
                    ProgramOperation.Retry(
                        task: 7, attempts: 3, failures: 2, body: .returns, executor: .default, token: nil, taskForm: true,
                        attemptTasks: true)),
                .retry(
                    ProgramOperation.Retry(
                        task: 8, attempts: 3, failures: 1, body: .returns, executor: .default, token: nil, taskForm: true,
                        cancelsOnRetry: true))
            ]))
    }

    /// A value form given a body returning a task keeps that very task as its value, at once,
    /// whatever the task's state (here held until the drivers finished); `then` waits for it:
    /// cancelled as the one already cancelled, failed as the held one once the harness fails it
    /// (C2.6).
    @Test func valueFormsKeepTheReturnedTask() async {
        Self.expectNone(
            await Self.findings([
                .makeSource(task: 0, held: .failure),
                .makeCompleted(ProgramOperation.MakeCompleted(task: 1, outcome: .success)),
                .chain(task: 2, kind: .mapKeeping(.existing(0)), antecedent: 1, executor: .default, token: nil, body: .returns),
                .chain(task: 3, kind: .continueWithKeeping(.new), antecedent: 0, executor: .inline, token: nil, body: .returns),
                .chain(
                    task: 4, kind: .thenKeeping(.cancelled), antecedent: 1, executor: .default, token: nil, body: .returns, form: .executor),
                .run(task: 5, executor: .default, token: nil, body: .returns, keeps: .existing(0)),
                .chain(task: 6, kind: .thenKeeping(.existing(0)), antecedent: 1, executor: .default, token: nil, body: .returns)
            ]))
    }

    /// Every continuation form on the actor pinned to a serial executor made by
    /// `makeActorExecutor(label:)`: each body runs there, isolated, in registration order (C9.10).
    @Test func everyFormOnAPinnedActor() async {
        let kinds: [ContinuationKind] = [
            .continueWith, .continueWithTask(.new), .map, .then, .flatMap(.succeeded), .finally,
            .finallyTask(.succeeded), .mapKeeping(.new)
        ]
        var steps: [ProgramOperation] = [.makeSource(task: 0, held: nil), .makeSource(task: 1, held: nil)]
        for (index, kind) in kinds.enumerated() {
            steps.append(.chain(task: 2 + index, kind: kind, antecedent: 0, executor: .serial(1), token: nil, body: .returns, form: .actor))
        }
        let failing = 2 + kinds.count
        for (index, kind) in [ContinuationKind.recover, .recoverTask(.existing(0)), .catch].enumerated() {
            steps.append(
                .chain(task: failing + index, kind: kind, antecedent: 1, executor: .serial(1), token: nil, body: .returns, form: .actor))
        }
        steps += [
            .observe(task: failing + 3, antecedent: 0, executor: .serial(1), pinned: true),
            .complete(source: 0, outcome: .success, throwing: false),
            .complete(source: 1, outcome: .failure, throwing: false)
        ]
        Self.expectNone(await Self.findings(steps, serial: 2))
    }

    /// Work groups: an `idle()` asked for while a held task is joined is pending until it
    /// completes; tasks joined later, a `wait(timeout:)`, `pendingCount` (C9.11).
    @Test func workGroups() async {
        Self.expectNone(
            await Self.findings([
                .makeGroup(ProgramOperation.MakeGroup(task: 0)),
                .makeSource(task: 1, held: .success),
                .makeCompleted(ProgramOperation.MakeCompleted(task: 2, outcome: .failure)),
                .joinGroup(ProgramOperation.JoinGroup(group: 0, task: 2)),
                .groupIdle(ProgramOperation.GroupIdle(task: 3, group: 0)),
                .waitGroup(ProgramOperation.WaitGroup(group: 0, timeoutMicroseconds: nil)),
                .joinGroup(ProgramOperation.JoinGroup(group: 0, task: 1)),
                .groupIdle(ProgramOperation.GroupIdle(task: 4, group: 0)),
                .waitGroup(ProgramOperation.WaitGroup(group: 0, timeoutMicroseconds: 500))
            ]))
    }

    /// Every form a `TaskFactory` vends, modelled as the backend's own call (C9.2).
    @Test func everyFactoryForm() async {
        typealias Call = ProgramOperation.FactoryCall.Call
        let calls: [Call] = [
            .run(noToken: true, returns: nil, keeps: nil), .run(noToken: false, returns: .existing(0), keeps: nil),
            .run(noToken: false, returns: nil, keeps: .new), .runAsync, .prepare(noToken: true, returns: .succeeded),
            .retry(attempts: 2, failures: 1, taskForm: true, noToken: false), .delay(microseconds: 100),
            .continuation(antecedent: 0, kind: .recoverTask(.new)), .continuation(antecedent: 0, kind: .finallyTask(.failed)),
            .continuation(antecedent: 0, kind: .then), .whenComplete(antecedent: 0)
        ]
        var steps: [ProgramOperation] = [.makeSource(task: 0, held: .failure)]
        for (index, call) in calls.enumerated() {
            steps.append(
                .factory(
                    ProgramOperation.FactoryCall(
                        task: 1 + index, call: call, construction: .initializer, executor: .default,
                        token: nil, body: .returns)))
        }
        Self.expectNone(await Self.findings(steps))
    }

    /// A factory's `flatMap` is the task's: a backend whose `flatMap` does not wait for the task its
    /// body returns breaks C2.6 through the factory too (on the inline executor, so that the body
    /// runs inside the call, before the held task it returns completes).
    @Test func aFactoryFormBreaksTheRuleOfTheCallItMakes() async {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                .makeSource(task: 0, held: .success),
                .makeCompleted(ProgramOperation.MakeCompleted(task: 1, outcome: .success)),
                .factory(
                    ProgramOperation.FactoryCall(
                        task: 2, call: .continuation(antecedent: 1, kind: .flatMap(.existing(0))),
                        construction: .initializer, executor: .inline, token: nil, body: .returns))
            ].map { Step(driver: 0, operation: $0, pause: .none) })
        let correct = await Conformance.runProgram(ReferenceBackend(), program: program, mode: .stress)
        #expect(correct.findings.isEmpty, "\(correct.findings)")
        let mutant = await Conformance.runProgram(ReferenceBackend(.flatMapNotWaiting), program: program, mode: .stress)
        #expect(mutant.findings.contains { $0.rule == .c2_6 }, "\(mutant.findings)")
    }

    /// A source the kit's backends make records where it was made (debug builds): released pending,
    /// its task fails abandoned naming that line; made through the requirement, naming none (C8.3).
    @Test func anAbandonedSourceNamesItsOrigin() async {
        Self.expectNone(
            await Self.findings([
                .makeSource(ProgramOperation.MakeSource(task: 0, held: nil, form: .ofType)),
                .makeSource(ProgramOperation.MakeSource(task: 1, held: nil, form: .makeTask, void: true)),
                .makeSource(ProgramOperation.MakeSource(task: 2, held: nil, form: .requirement)),
                .releaseSource(source: 0), .releaseSource(source: 1), .releaseSource(source: 2)
            ]))
    }
}
