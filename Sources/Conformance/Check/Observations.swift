/// The event log of one run, indexed for the oracle and the checkers.
struct Observations {
    struct Setter {
        let step: Int
        let won: Bool
        let threw: ErrorValue?
        let seq: UInt64
    }

    struct Body {
        let start: Event
        let input: Outcome?
        let counting: Int
        let payloadOK: Bool?
        /// What it read first: its task's status, its executor's `isCurrent`.
        let inside: BodyReads
        var end: UInt64?
    }

    var stepStart: [Int: Event] = [:]
    var stepEnd: [Int: UInt64] = [:]
    var setters: [Int: [Setter]] = [:]
    var bodies: [Int: [Body]] = [:]
    var innerBodies: [Int: [Body]] = [:]
    /// Each task's checkpoints: when the read began (`checkpointBegan`: the result's own seq for
    /// one logged without it, which the harness never does), when its result was logged, and
    /// whether it threw (C4.4).
    var checkpoints: [Int: [(began: UInt64, seq: UInt64, threw: Bool)]] = [:]
    var completions: [Int: [(seq: UInt64, outcome: Outcome, uptime: UInt64)]] = [:]
    var waits: [(step: Int, task: Int, result: Outcome?, seq: UInt64)] = []
    var awaits: [(step: Int, task: Int, result: Outcome)] = []
    var trouble: [(task: Int, detail: String)] = []
    var statuses: [(step: Int, task: Int, status: String)] = []
    /// How often each `submit` step's job ran.
    var jobRuns: [Int: Int] = [:]
    /// Each prepared task's starts, in the order they returned.
    var starts: [Int: [(step: Int, ok: Bool)]] = [:]
    /// Hosted steps' calls: when they started and ended.
    var hostStart: [Int: UInt64] = [:]
    var hostEnd: [Int: UInt64] = [:]
    /// The thread each host ran on (`ThreadInfo.number`).
    var hostThread: [Int: Int] = [:]
    struct Inspection {
        let step: Int
        let task: Int
        let status: String
        let completion: Outcome?
        let isCompleted: Bool
        let backend: String
        let mainIsCurrent: Bool
    }
    var inspections: [Inspection] = []
    var preparedInspections: [(step: Int, task: Int, isStarted: Bool, tokenCancelled: Bool)] = []
    var tokenInspections: [(step: Int, token: Int, sourceRequested: Bool, tokenRequested: Bool, canBeCancelled: Bool, noneIsInert: Bool)] =
        []
    /// `tryStart()` calls on sources, by task.
    var sourceStarts: [Int: [(step: Int, ok: Bool, seq: UInt64)]] = [:]
    var retryAttempts: [Int: [(attempt: Int, end: Bool, seq: UInt64)]] = [:]
    var factories: [(step: Int, backendOK: Bool, executorOK: Bool, tokenOK: Bool)] = []
    /// Each burst's jobs, in the order they ran.
    var burstRuns: [Int: [(index: Int, seq: UInt64)]] = [:]
    /// Joins to work groups, with the `pendingCount` read after each, by step (C9.11).
    var groupJoins: [Int: (group: Int, task: Int, pending: Int)] = [:]
    /// The origin each recording source must name if abandoned, and the one it named (C8.3).
    var sourceOrigins: [Int: String?] = [:]
    var abandonedOrigins: [Int: String?] = [:]
    /// Group waits, with what they returned, by step (C9.11).
    var groupWaits: [Int: (group: Int, idle: Bool, seq: UInt64)] = [:]
    /// When each user handler `h<n>` ran, by handler (C4.2; for C4.3, a handler of a token
    /// that ran shows its cancellation requested).
    var handlerRuns: [Int: [UInt64]] = [:]

    init(_ events: [Event]) {
        // Checkpoints begun and not returned yet, by task and thread (one thread reads one
        // checkpoint at a time, and logs its result next).
        var checkpointsBegun: [Int: [Int: UInt64]] = [:]
        for event in events {
            switch event.kind {
            case .stepStart(let step): stepStart[step] = event
            case .stepEnd(let step): stepEnd[step] = event.seq
            case .setter(let step, let source, let won, let threw):
                setters[source, default: []].append(Setter(step: step, won: won, threw: threw, seq: event.seq))
            case .bodyStart(let task, let inner, let input, let counting, let payloadOK, let inside):
                let body = Body(start: event, input: input, counting: counting, payloadOK: payloadOK, inside: inside)
                if inner { innerBodies[task, default: []].append(body) } else { bodies[task, default: []].append(body) }
            case .bodyEnd(let task, let inner):
                if inner {
                    if let i = innerBodies[task]?.firstIndex(where: { $0.end == nil }) { innerBodies[task]?[i].end = event.seq }
                } else if let i = bodies[task]?.firstIndex(where: { $0.end == nil }) {
                    bodies[task]?[i].end = event.seq
                }
            case .checkpointBegan(let task): checkpointsBegun[task, default: [:]][event.thread] = event.seq
            case .checkpoint(let task, let threw):
                let began = checkpointsBegun[task]?.removeValue(forKey: event.thread) ?? event.seq
                checkpoints[task, default: []].append((began, event.seq, threw))
            case .completed(let task, let outcome): completions[task, default: []].append((event.seq, outcome, event.uptime))
            case .waited(let step, let task, let result): waits.append((step, task, result, event.seq))
            case .awaited(let step, let task, let result): awaits.append((step, task, result))
            case .setterTrouble(let task, let detail): trouble.append((task, detail))
            case .status(let step, let task, let status): statuses.append((step, task, status))
            case .jobRan(let step): jobRuns[step, default: 0] += 1
            case .started(let step, let task, let ok): starts[task, default: []].append((step, ok))
            case .hostStart(let step):
                hostStart[step] = event.seq
                hostThread[step] = event.thread
            case .hostEnd(let step): hostEnd[step] = event.seq
            case .inspected(let step, let task, let status, let completion, let isCompleted, let backend, let mainIsCurrent):
                inspections.append(
                    Inspection(
                        step: step, task: task, status: status, completion: completion, isCompleted: isCompleted,
                        backend: backend, mainIsCurrent: mainIsCurrent))
            case .preparedInspected(let step, let task, let isStarted, let tokenCancelled, _):
                preparedInspections.append((step, task, isStarted, tokenCancelled))
            case .tokenInspected(let step, let token, let source, let tokenRequested, let canBeCancelled, let noneIsInert):
                tokenInspections.append((step, token, source, tokenRequested, canBeCancelled, noneIsInert))
            case .sourceStarted(let step, let task, let ok): sourceStarts[task, default: []].append((step, ok, event.seq))
            case .retryAttempt(let task, let attempt, let end): retryAttempts[task, default: []].append((attempt, end, event.seq))
            case .factoryMade(let step, let backendOK, let executorOK, let tokenOK):
                factories.append((step, backendOK, executorOK, tokenOK))
            case .burstJobRan(let step, let index): burstRuns[step, default: []].append((index, event.seq))
            case .sourceOrigin(let task, let expected): sourceOrigins[task] = .some(expected)
            case .abandonedOrigin(let task, let origin): abandonedOrigins[task] = .some(origin)
            case .groupJoined(let step, let group, let task, let pending): groupJoins[step] = (group, task, pending)
            case .groupWaited(let step, let group, let idle): groupWaits[step] = (group, idle, event.seq)
            case .handlerRan(let handler): handlerRuns[handler, default: []].append(event.seq)
            case .timerFired, .pinnedUnavailable, .swiftCancelled, .longChainRan, .nestedWaitReturned, .probedCombined,
                .probedRetained,
                .asyncLoopRan, .waitReturnedEarly, .raceRoundsRan, .serialHandOffReturned:
                break
            }
        }
    }

    /// When the call of step `step` was made: its host's run if `hosted` (nil if the host did
    /// not run), else the step itself.
    func callSpan(_ step: Int, hosted: Bool) -> (start: UInt64, end: UInt64)? {
        if hosted {
            guard let start = hostStart[step], let end = hostEnd[step] else { return nil }
            return (start, end)
        }
        guard let start = stepStart[step]?.seq, let end = stepEnd[step] else { return nil }
        return (start, end)
    }

    /// The observed outcome of `task` (the first its observer saw).
    func outcome(_ task: Int) -> Outcome? { completions[task]?.first?.outcome }

    /// The latest moment `task` can have completed: when its observer ran.
    func completedBy(_ task: Int) -> UInt64? { completions[task]?.first?.seq }
}
