import TaskAPI

extension RuleSuite {
    /// Every check, in the contract's order: its rule, what it checks, and the chapter's function
    /// that checks it (the chapters' files hold the bodies).
    public static let checks: [RuleCheck] = [
        // C1Outcome
        RuleCheck(.c1_1, "a task is pending until completed once, and never changes after", C1Outcome.completesExactlyOnce),
        RuleCheck(.c1_2, "of racing try-setters exactly one wins, and its outcome is the task's", C1Outcome.racingSettersHaveOneWinner),
        RuleCheck(.c1_3, "non-try setters on a completed source throw and change nothing", C1Outcome.settersOnCompletedSourceThrow),
        RuleCheck(.c1_4, "already-completed tasks can be made directly", C1Outcome.completedTasksDirectly),
        RuleCheck(.c1_5, "status is pending, running, completed, and only moves forward", C1Outcome.statusMovesForward),
        RuleCheck(.c1_1, "values of every size and alignment keep their value, and go with their task", C1Outcome.valuesOfEverySize),
        // C2Continuations
        RuleCheck(
            .c2_1, "continuations from many threads, before and after completion, each run once", C2Continuations.manyContinuationsRunOnce),
        RuleCheck(.c2_2, "a continuation sees the outcome and every write made before completion", C2Continuations.happensBefore),
        RuleCheck(.c2_3, "neither registering nor completing runs the body in the call, except inline", C2Continuations.notRunInsideCalls),
        RuleCheck(
            .c2_4, "continuations are handed over in registration order; serial runs them in order", C2Continuations.registrationOrder),
        RuleCheck(
            .c2_4, "a continuation registered during the completing hand-over does not overtake it",
            C2Continuations.lateRegistrationKeepsOrder),
        RuleCheck(
            .c2_4, "a hand-off deferred to a trampoline is not overtaken by a later registration", C2Continuations.deferredHandOffKeepsOrder
        ),
        RuleCheck(.c2_5, "a continuation runs on the executor it was registered with", C2Continuations.runsOnItsExecutor),
        RuleCheck(.c2_6, "a continuation returning a task is unwrapped", C2Continuations.unwrapping),
        RuleCheck(
            .c2_6, "a task-returning form takes the outcome of a task of another class its body returns, whenever it comes",
            ForeignInputs.taskReturningForms),
        // C2Trampoline
        RuleCheck(
            .c2_7,
            "inline continuations completed 100 wide and 4 deep inside inline work run after it, each once, before the outer "
                + "call returns",
            C2Trampoline.wideInlineWork),
        // C3Errors
        RuleCheck(.c3_1, "an error thrown by a body fails the task with that error", C3Errors.thrownErrorsFail),
        RuleCheck(.c3_2, "a body throwing CancellationError completes the task as cancelled", C3Errors.cancellationErrorCancels),
        RuleCheck(.c3_3, "map/flatMap pass failure and cancellation through; recover sees failures only", C3Errors.passThrough),
        RuleCheck(.c3_3, "finally runs on every outcome and passes it on unless it throws", C3Errors.finallyPassesOutcome),
        // C4Cancellation
        RuleCheck(.c4_1, "cancel is idempotent, thread-safe, and stays requested", C4Cancellation.cancelIdempotent),
        RuleCheck(
            .c4_1, "a second cancel() returns only after the first one's handlers ran; linked sources are then cancelled",
            C4Cancellation.secondCancelWaitsForHandlers),
        RuleCheck(
            .c4_1, "a parent's cancel() returns only after a linked source's handlers ran, also when another call runs them",
            C4Cancellation.parentCancelWaitsForLinkedCancellation),
        RuleCheck(
            .c4_2, "handlers run once, in order, promptly if late; disposed ones never run and are released", C4Cancellation.handlers),
        RuleCheck(.c4_3, "a body whose token is cancelled before it starts never runs", C4Cancellation.cancelledBeforeStart),
        RuleCheck(
            .c4_3, "a body whose start comes once cancel() began running the token's handlers never runs",
            C4Cancellation.startAfterHandlersBegan),
        RuleCheck(.c4_4, "checkpoint throws CancellationError once requested", C4Cancellation.checkpoint),
        RuleCheck(
            .c4_5, "cancellation racing completion gives one outcome; after completion it changes nothing",
            C4Cancellation.cancelRacingCompletion),
        RuleCheck(.c4_6, "cancel(after:) cancels after the delay; linked sources follow any parent", C4Cancellation.delayedAndLinked),
        RuleCheck(
            .c4_6, "every cancel(after:) deadline stands, over the whole range: a later call never replaces an earlier one",
            C4Cancellation.everyDeadlineStands),
        RuleCheck(
            .c4_7, "a cancelled Swift Task stops awaiting at once and leaves the task alone", async: C4Cancellation.swiftTaskCancellation),
        // C5Combinators
        RuleCheck(.c5_1, "whenAll keeps input order, fails fast, and succeeds at once on []", C5Combinators.whenAll),
        RuleCheck(.c5_2, "whenAllSettled waits for all and returns every outcome in order", C5Combinators.whenAllSettled),
        RuleCheck(.c5_3, "race takes the first outcome; any the first success or every error; empty input fails", C5Combinators.raceAndAny),
        RuleCheck(
            .c5_1, "whenAll given tasks of another class mixed with its own keeps input order and fails fast, whenAll(a, b, ...) too",
            ForeignInputs.whenAll),
        RuleCheck(.c5_2, "whenAllSettled given tasks of another class returns every outcome in input order", ForeignInputs.whenAllSettled),
        RuleCheck(
            .c5_3, "race and any given tasks of another class take their outcomes; any's errors stay in input order",
            ForeignInputs.raceAndAny),
        RuleCheck(
            .c5_4, "delay succeeds no earlier than asked; timeout fails late tasks and leaves them alone", C5Combinators.delayAndTimeout),
        RuleCheck(.c5_5, "a completed combinator keeps no reference to its inputs or their values", C5Combinators.noReferencesKept),
        // C5Timers
        RuleCheck(
            .c5_4,
            "among 96 delays cancelled together, delays made before them and short ones among them keep their deadlines; "
                + "delays past any clock stay pending",
            C5Timers.manyTimers),
        // C6Waiting
        RuleCheck(.c6_1, "wait returns the outcome; get rethrows the failure", C6Waiting.waitAndGet),
        RuleCheck(.c6_2, "wait(timeout:) reports the timeout", C6Waiting.waitTimeout),
        RuleCheck(.c6_3, "every thread waiting on a task wakes", C6Waiting.allWaitersWake),
        RuleCheck(
            .c6_4, "waits nested 16 deep in bodies on the default executor finish within 1 s (5 s under the thread sanitizer)",
            C6Waiting.nestedWaits),
        RuleCheck(.c6_5, "await bridges to Swift concurrency without blocking a thread", async: C6Waiting.awaitDoesNotBlock),
        // C7Executors
        RuleCheck(.c7_1, "every backend accepts a user-written AsyncTaskExecutor", C7Executors.userExecutor),
        RuleCheck(.c7_2, "default is parallel, serial is FIFO one at a time, inline runs before returning", C7Executors.executorKinds),
        RuleCheck(
            .c7_2, "a serial executor starts no job while another runs, though the running one waits for it",
            C7SerialExclusion.oneJobAtATime),
        RuleCheck(.c7_3, "executors run each job exactly once", C7Executors.exactlyOnce),
        // C8Resources
        RuleCheck(.c8_1, "after completion nothing keeps continuation closures or captures alive", C8Resources.closuresReleased),
        RuleCheck(.c8_2, "tasks and sources are freed when unreferenced, pending or completed", C8Resources.noRetainCycles),
        RuleCheck(
            .c8_2, "every other object the contract makes is freed: cancellation sources, registrations, timers, prepared tasks",
            C8Resources.everyObjectFreed),
        RuleCheck(
            .c8_3, "a source released while pending fails its task with TaskError.abandoned", C8Resources.abandonedSourceFailsItsTask),
        RuleCheck(
            .c8_3, "a source whose last reference goes in an inline job queued behind inline work fails its task with abandoned",
            C8AbandonedInsideInlineWork.sourceDroppedBehindInlineWork),
        // C9CallForm
        RuleCheck(
            .c9_1, "run takes a body with no argument; run, continueWith and continueWithTask default the token", C9CallForm.defaultedForms),
        RuleCheck(
            .c9_1, "a defaulted-token form still honours a token cancelled before its body starts", C9CallForm.defaultedFormsHonourToken),
        RuleCheck(.c9_1, "whenAll joins tasks of different types as a tuple, in input order, failing fast", C9CallForm.typedWhenAll),
        RuleCheck(
            .c9_1, "wait and get are statements; failed and cancelled take their type from the context", C9CallForm.statementsAndInference),
        // C9Factory
        RuleCheck(.c9_2, "a factory's executor and token apply to every task and continuation it vends", C9Factory.defaultsApply),
        RuleCheck(.c9_2, "a factory is a value: setting a default changes that factory only", C9Factory.factoryIsAValue),
        // C9PreparedTask
        RuleCheck(.c9_3, "a prepared task is pending until started once, on the executor chosen at start", C9PreparedTask.startsOnce),
        RuleCheck(.c9_3, "racing starts: exactly one wins, the body runs once", C9PreparedTask.racingStarts),
        RuleCheck(.c9_3, "cancelled before start: completes cancelled at once and the body never runs", C9PreparedTask.cancelBeforeStart),
        RuleCheck(.c9_3, "a prepared task dropped before start completes its task cancelled", C9PreparedTask.droppedBeforeStart),
        RuleCheck(.c9_3, "cancelled after start: the body sees it through its token and is not cut short", C9PreparedTask.cancelAfterStart),
        // C9Retry
        RuleCheck(.c9_4, "retry stops at the first success, or after attempts with the last attempt's outcome", C9Retry.attempts),
        RuleCheck(
            .c9_4, "retry waits its backoff between attempts, and a token cancelled meanwhile cancels at once", C9Retry.backoffAndToken),
        RuleCheck(.c9_4, "backoff delays over the whole range of kinds and factors, and retry waits each in full", C9Retry.backoffRange),
        // C9Run
        RuleCheck(.c9_5, "runTask with a body returning a task takes that task's outcome", C9Run.unwrappedRun),
        RuleCheck(.c9_6, "runAsync runs an async body on the backend's default executor", C9Run.runAsyncValue),
        RuleCheck(
            .c9_6, "run picks the async body only for a closure that awaits, in async code too", async: C9Run.runPicksAsyncOnlyWhenAwaiting),
        RuleCheck(.c9_6, "runAsync bridges cancellation both ways", C9Run.runAsyncCancellation),
        // C9Executor
        RuleCheck(.c9_7, "isCurrent is true inside an executor's own jobs and false elsewhere", C9Executor.isCurrent),
        // C9ActorExecutor
        RuleCheck(
            .c9_9, "an actor pinned to a serial executor runs on it, and its continuations can assumeIsolated",
            async: C9ActorExecutor.pinnedActor),
        // C9Isolation
        RuleCheck(
            .c9_10, "every continuation form on a pinned actor runs isolated to it, on its executor, in registration order",
            C9Isolation.pinnedForms),
        RuleCheck(.c9_10, "a form on a pinned actor honours a token cancelled before its body starts", C9Isolation.pinnedToken),
        RuleCheck(
            .c9_10, "off the main thread the main executor is not current, and its forms honour a cancelled token without it",
            C9Isolation.mainExecutorOffMain),
        // C9MainForms
        RuleCheck(
            .c9_10,
            "every form on the main executor: with a cancelled token cancelled at once, without one pending with its antecedent, "
                + "no body run",
            C9MainForms.everyFormOffMain),
        // C9WorkGroup
        RuleCheck(.c9_11, "an empty group is idle at once: idle() succeeds, wait() and wait(timeout:) return", C9WorkGroup.emptyGroup),
        RuleCheck(
            .c9_11, "idle() succeeds when the last joined task completes, whatever its outcome, tasks joined meanwhile included",
            C9WorkGroup.lastJoined),
        RuleCheck(
            .c9_11, "a task joined after idle() succeeded counts for the next idle(); wait(timeout:) says whether the group went idle",
            C9WorkGroup.laterJoins),
        RuleCheck(
            .c9_11, "pendingCount is exact, and idle() has succeeded by the time the last joined task's later continuations run",
            C9WorkGroup.exactCounts)
    ]
}
