import Synchronization
import TaskAPI

extension ProgramOperation {
    /// `t<task> = retry(attempts: n, on: executor, token: k<token>, while: attempt < w) { ... }`:
    /// each attempt throws `E` while it is one of the first `failures`, then does `body`; the body
    /// takes the token or (`noToken`) none, and returns a value, or (`taskForm`: `retryTask`) a
    /// task (`completed` with the attempt's outcome, or, `attemptTasks`, a new task run on the
    /// default executor that makes the attempt). The result is the first success or the last
    /// attempt's outcome, with at most `attempts` attempts, one after the other (C9.4). With
    /// `cancelsOnRetry` the retry gets a cancellation source of its own (linked to its token), which
    /// its `while` cancels the first time it answers "retry": the backoff wait (or, with no backoff,
    /// the next attempt) then sees it cancelled, and the retry completes cancelled, no attempt more.
    public struct Retry: TaskOperation {
        public var task: Int
        public var attempts: Int
        /// Attempts that fail before `body` is done.
        public var failures: Int
        public var body: BodyAction
        public var executor: ExecutorRef
        public var token: Int?
        /// `while`: retry only after attempts numbered below this (nil: always).
        public var whileBelow: Int?
        /// `Backoff.fixed` of this many microseconds (a timer: programs with outside work only);
        /// nil: `.none`.
        public var backoffMicroseconds: Int?
        /// With a backoff: `Backoff.exponential` from `backoffMicroseconds`, its multiplier in
        /// tenths (15: ×1.5); nil: fixed (issue 28: the backoff's parameter space in programs).
        public var backoffGrowth: Int?
        /// `retryTask`: the body returns a task (the unwrapping form) instead of a value.
        public var taskForm: Bool
        /// The body takes no token.
        public var noToken: Bool
        /// `retryTask`'s attempts return new tasks run on the default executor, pending when returned.
        public var attemptTasks: Bool
        /// The retry's own token is cancelled the first time `while` answers "retry".
        public var cancelsOnRetry: Bool

        public init(
            task: Int, attempts: Int, failures: Int, body: BodyAction, executor: ExecutorRef, token: Int?,
            whileBelow: Int? = nil, backoffMicroseconds: Int? = nil, backoffGrowth: Int? = nil, taskForm: Bool = false,
            noToken: Bool = false, attemptTasks: Bool = false, cancelsOnRetry: Bool = false
        ) {
            self.task = task
            self.attempts = attempts
            self.failures = failures
            self.body = body
            self.executor = executor
            self.token = token
            self.whileBelow = whileBelow
            self.backoffMicroseconds = backoffMicroseconds
            self.backoffGrowth = backoffMicroseconds == nil ? nil : backoffGrowth
            self.taskForm = taskForm
            self.noToken = noToken
            self.attemptTasks = taskForm && attemptTasks
            self.cancelsOnRetry = cancelsOnRetry
        }

        public var description: String {
            var arguments = ["attempts: \(attempts)"]
            if let backoffMicroseconds, let backoffGrowth {
                arguments.append("backoff: .exponential(\(backoffMicroseconds)us, ×\(backoffGrowth / 10).\(backoffGrowth % 10))")
            } else if let backoffMicroseconds {
                arguments.append("backoff: .fixed(\(backoffMicroseconds)us)")
            }
            arguments.append("on: .some(\(executor))" + tokenArgument(token))
            if let whileBelow { arguments.append("while: attempt < \(whileBelow)") }
            if cancelsOnRetry { arguments.append("own token cancelled on retry") }
            return "t\(task) = \(taskForm ? "retryTask" : "retry")(\(arguments.joined(separator: ", "))) "
                + "{ \(noToken ? "() in " : "")fails \(failures)×, then \(body.rawValue)\(attemptTasks ? ", each a new task" : "") }"
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = retry") else { return nil }
                let taskForm = s.take("Task")
                guard s.take("(attempts: "), let attempts = s.number() else { return nil }
                var backoff: Int?
                var growth: Int?
                if s.take(", backoff: .fixed(") {
                    guard let us = s.microseconds(), s.take(")") else { return nil }
                    backoff = us
                } else if s.take(", backoff: .exponential(") {
                    guard let us = s.microseconds(), s.take(", ×"), let whole = s.number(), s.take("."), let tenth = s.number(),
                        (0...9).contains(tenth), s.take(")")
                    else { return nil }
                    backoff = us
                    growth = whole * 10 + tenth
                }
                guard s.take(", on: .some("), let executor = s.executor(), s.take(")") else { return nil }
                let token = s.tokenArgument()
                var whileBelow: Int?
                if s.take(", while: attempt < ") {
                    guard let below = s.number() else { return nil }
                    whileBelow = below
                }
                let cancelsOnRetry = s.take(", own token cancelled on retry")
                guard s.take(") { ") else { return nil }
                let noToken = s.take("() in ")
                guard s.take("fails "), let failures = s.number(), s.take("×, then "), let body = s.oneOf(BodyAction.self) else {
                    return nil
                }
                let attemptTasks = s.take(", each a new task")
                guard s.take(" }") else { return nil }
                let retry = Self(
                    task: task, attempts: attempts, failures: failures, body: body, executor: executor, token: token,
                    whileBelow: whileBelow, backoffMicroseconds: backoff, backoffGrowth: growth, taskForm: taskForm, noToken: noToken,
                    attemptTasks: attemptTasks, cancelsOnRetry: cancelsOnRetry)
                return retry.attemptTasks == attemptTasks ? retry : nil
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 2 }

        /// The multipliers (in tenths) an exponential backoff draws: none, a fraction, the usual
        /// doubling, and more; an off-by-one in the growth shows from the second retry.
        public static let growths = [10, 15, 20, 30]

        static func generate(into program: inout ProgramBuilder) {
            let (task, attempts, failures) = (program.nextTask, program.rng.int(in: 0...3), program.rng.int(in: 0...3))
            let (body, executor, token) = (program.body(), program.executor(), program.token())
            let whileBelow = program.rng.chance(25) ? program.rng.int(in: 1...3) : nil
            let backoff = program.usesOutsideWork && program.rng.chance(30) ? program.rng.int(in: 0...500) : nil
            let growth = backoff != nil && program.rng.chance(50) ? program.rng.pick(growths) : nil
            let retry = Retry(
                task: task, attempts: attempts, failures: failures, body: body, executor: executor, token: token, whileBelow: whileBelow,
                backoffMicroseconds: backoff, backoffGrowth: growth, taskForm: program.rng.chance(50), noToken: program.rng.chance(30),
                attemptTasks: program.rng.chance(50), cancelsOnRetry: program.rng.chance(20))
            program.addTask(.retry(retry), sources: [], held: false)
        }

        /// The backoff the retry is made with.
        var backoff: Backoff {
            guard let backoffMicroseconds else { return .none }
            guard let backoffGrowth else { return .fixed(.microseconds(backoffMicroseconds)) }
            return .exponential(initial: .microseconds(backoffMicroseconds), multiplier: Double(backoffGrowth) / 10)
        }

        var uses: [Use] { token.map { [.token($0)] } ?? [] }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(
                task: ids.task(task), attempts: attempts, failures: failures, body: body, executor: executor, token: token.map(ids.token),
                whileBelow: whileBelow, backoffMicroseconds: backoffMicroseconds, backoffGrowth: backoffGrowth, taskForm: taskForm,
                noToken: noToken, attemptTasks: attemptTasks, cancelsOnRetry: cancelsOnRetry)
        }

        var neverWaits: Bool { true }
        var outsideWork: OutsideWork {
            guard backoffMicroseconds != nil else { return .none }
            // Every wait, one per attempt at most (a fixed backoff: `attempts` times its delay).
            return .completes(task: task, within: (1...max(1, attempts)).reduce(.zero) { $0 + backoff.delay(beforeRetry: $1) })
        }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let call: EntryPoint = taskForm ? (noToken ? .retryTaskNoToken : .retryTask) : (noToken ? .retryNoToken : .retry)
            let attempt: [EntryPoint] = !taskForm ? [] : attemptTasks ? [.run, .defaultExecutor] : [.completed]
            let own: [EntryPoint] =
                cancelsOnRetry ? [token == nil ? .makeCancellationSource : .makeCancellationSourceLinked, .token, .cancel] : []
            return [call] + attempt + own + executor.entryPoints + tokenEntryPoints(token) + (body == .checkpoint ? [.tokenCheckpoint] : [])
        }
        /// A retry whose first attempt fails (one of `failures`, or a body that throws `E`) and whose
        /// `while` lets a second one come waits for its backoff's timer before it; not with
        /// `cancelsOnRetry`, whose own token, cancelled by then, completes it without the timer.
        /// (A body that throws only from the start, `failures` 0, was left out: a hang of such a
        /// retry under a timer that never fired was told as a task never completed, C2.1.)
        var awaitedTimer: AwaitedTimer? {
            let firstFails = failures > 0 || body == .throwsError
            guard let backoffMicroseconds, firstFails, attempts > 1, (whileBelow ?? .max) > 1, !cancelsOnRetry else { return nil }
            return AwaitedTimer(task: task, microseconds: backoffMicroseconds, token: token)
        }

        /// Each attempt logs its start and end; it throws `E` while it is one of the first
        /// `failures`, then does `body` (`checkpoint()` on the token the attempt gets).
        func perform(in execution: ProgramExecution, step: Int) {
            let attempt = Self.attempt(task: task, failures: failures, body: body, step: step, in: execution)
            let backend = execution.backend
            let backoff = self.backoff
            let on: (any AsyncTaskExecutor)? = execution.executors[executor]
            let below = whileBelow ?? Int.max
            let programToken = execution.token(token)
            // Its own source, which `while` cancels the first time it answers "retry".
            let own =
                cancelsOnRetry
                ? (token == nil ? backend.makeCancellationSource() : backend.makeCancellationSource(linkedTo: [programToken])) : nil
            let captured = own?.token ?? programToken
            let shouldRetry: @Sendable (Int, any Error) -> Bool = { n, _ in
                guard n < below else { return false }
                own?.cancel()
                return true
            }
            let attemptTask = Self.attemptTask(attempt, runs: attemptTasks, in: execution)
            let made: any AsyncTask<Int>
            // A body that takes no token checks the one it captured.
            switch (taskForm, noToken) {
            case (true, false):
                made = backend.retryTask(attempts: attempts, backoff: backoff, on: on, token: captured, while: shouldRetry) {
                    (token: CancellationToken) -> any AsyncTask<Int> in attemptTask(token)
                }
            case (true, true):
                made = backend.retryTask(attempts: attempts, backoff: backoff, on: on, token: captured, while: shouldRetry) {
                    () -> any AsyncTask<Int> in attemptTask(captured)
                }
            case (false, false):
                made = backend.retry(attempts: attempts, backoff: backoff, on: on, token: captured, while: shouldRetry) {
                    (token: CancellationToken) throws -> Int in try attempt(token)
                }
            case (false, true):
                made = backend.retry(attempts: attempts, backoff: backoff, on: on, token: captured, while: shouldRetry) {
                    () throws -> Int in try attempt(captured)
                }
            }
            execution.register(task, .int(made))
        }

        /// The body of each attempt of the retry making task `t` at `step`: it logs its start and
        /// end, throws `E` while it is one of the first `failures`, then does `body`.
        static func attempt(
            task t: Int, failures: Int, body action: BodyAction, step: Int, in execution: ProgramExecution
        )
            -> @Sendable (CancellationToken) throws -> Int
        {
            let (log, payloads) = (execution.log, execution.payloads)
            let value = ProgramValues.value(step: step)
            let counter = Atomic(0)
            let probe = execution.makeProbe("retried body of t\(t)")
            return { token in
                withExtendedLifetime(probe) {}
                let number = counter.add(1, ordering: .relaxed).newValue
                log.append(.retryAttempt(task: t, attempt: number, end: false))
                defer { log.append(.retryAttempt(task: t, attempt: number, end: true)) }
                if number <= failures { throw ProgramError(value) }
                switch action {
                case .returns: break
                case .throwsError: throw ProgramError(value)
                case .throwsCancellation: throw CancellationError()
                case .checkpoint: try token.checkpoint()
                }
                // What a consumer of the value checks it sees (C2.2).
                payloads.write(step)
                return value
            }
        }

        /// A `retryTask` attempt's task: completed with the attempt's outcome, or (`runs`) a new
        /// task run on the default executor that makes the attempt.
        static func attemptTask(
            _ attempt: @escaping @Sendable (CancellationToken) throws -> Int, runs: Bool, in execution: ProgramExecution
        )
            -> @Sendable (CancellationToken) -> any AsyncTask<Int>
        {
            let (backend, defaultExecutor) = (execution.backend, execution.executors.defaultExecutor)
            return { token in
                runs
                    ? backend.run(on: defaultExecutor, token: .none) { _ in try attempt(token) }
                    : backend.completed(Completion { try attempt(token) })
            }
        }

        var dependence: Dependence { .nothing }
        var madeFromSource: Bool { false }
        var pendingRule: Rule { .c9_4 }

        /// The attempts, played in order: the first success, else the last attempt's outcome, or
        /// cancelled once its own token was (C9.4); with a token that may be cancelled, also cancelled.
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            // With no token a checkpoint never throws; with one, cancelled is allowed anyway.
            let outcome = plan(step: step).outcome
            switch model.oracle.tokenState(token) {
            case .never: return .outcomes([outcome], .c9_4)
            case .definite, .maybe: return .outcomes(unique([outcome, .cancelled]), .c9_4)
            }
        }

        /// The attempts a retry whose program token is not cancelled makes, and its outcome: the
        /// first `while` answering "retry" cancels its own token (`cancelsOnRetry`), and then it is
        /// cancelled, no attempt more.
        func plan(step: Int) -> (attempts: Int, outcome: Outcome) {
            let value = ProgramValues.value(step: step)
            let limit = max(1, attempts)
            var number = 1
            while true {
                let outcome: Outcome
                if number <= failures {
                    outcome = .failure(.program(value))
                } else {
                    switch body {
                    case .returns, .checkpoint: outcome = .success(value)
                    case .throwsError: outcome = .failure(.program(value))
                    case .throwsCancellation: outcome = .cancelled
                    }
                }
                guard case .failure = outcome, number < limit, number < (whileBelow ?? Int.max) else { return (number, outcome) }
                if cancelsOnRetry { return (number, .cancelled) }
                number += 1
            }
        }
    }
}

extension ProgramOperation {
    /// The retry this step makes: its own, or its factory's (modelled as the backend's).
    var retry: Retry? {
        if case .retry(let retry) = self { return retry }
        if case .factory(let call) = self { return call.equivalent as? Retry }
        return nil
    }
}
