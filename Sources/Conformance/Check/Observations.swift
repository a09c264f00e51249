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
        var end: UInt64?
    }

    var stepStart: [Int: Event] = [:]
    var stepEnd: [Int: UInt64] = [:]
    var setters: [Int: [Setter]] = [:]
    var bodies: [Int: [Body]] = [:]
    var innerBodies: [Int: [Body]] = [:]
    var checkpoints: [Int: [(seq: UInt64, threw: Bool)]] = [:]
    var completions: [Int: [(seq: UInt64, outcome: Outcome, uptime: UInt64)]] = [:]
    var waits: [(step: Int, task: Int, result: Outcome?, seq: UInt64)] = []
    var awaits: [(step: Int, task: Int, result: Outcome)] = []
    var trouble: [(task: Int, detail: String)] = []
    var statuses: [(step: Int, task: Int, status: String)] = []
    /// How often each `submit` step's job ran.
    var jobRuns: [Int: Int] = [:]
    /// Each prepared task's starts, in the order they returned.
    var starts: [Int: [(step: Int, ok: Bool)]] = [:]

    init(_ events: [Event]) {
        for event in events {
            switch event.kind {
            case .stepStart(let step): stepStart[step] = event
            case .stepEnd(let step): stepEnd[step] = event.seq
            case .setter(let step, let source, let won, let threw):
                setters[source, default: []].append(Setter(step: step, won: won, threw: threw, seq: event.seq))
            case .bodyStart(let task, let inner, let input, let counting, let payloadOK):
                let body = Body(start: event, input: input, counting: counting, payloadOK: payloadOK)
                if inner { innerBodies[task, default: []].append(body) } else { bodies[task, default: []].append(body) }
            case .bodyEnd(let task, let inner):
                if inner {
                    if let i = innerBodies[task]?.firstIndex(where: { $0.end == nil }) { innerBodies[task]?[i].end = event.seq }
                } else if let i = bodies[task]?.firstIndex(where: { $0.end == nil }) {
                    bodies[task]?[i].end = event.seq
                }
            case .checkpoint(let task, let threw): checkpoints[task, default: []].append((event.seq, threw))
            case .completed(let task, let outcome): completions[task, default: []].append((event.seq, outcome, event.uptime))
            case .waited(let step, let task, let result): waits.append((step, task, result, event.seq))
            case .awaited(let step, let task, let result): awaits.append((step, task, result))
            case .setterTrouble(let task, let detail): trouble.append((task, detail))
            case .status(let step, let task, let status): statuses.append((step, task, status))
            case .jobRan(let step): jobRuns[step, default: 0] += 1
            case .started(let step, let task, let ok): starts[task, default: []].append((step, ok))
            case .handlerRan, .timerFired, .swiftCancelled, .longChainRan, .nestedWaitReturned, .probedCombined, .probedRetained: break
            }
        }
    }

    /// The observed outcome of `task` (the first its observer saw).
    func outcome(_ task: Int) -> Outcome? { completions[task]?.first?.outcome }

    /// The latest moment `task` can have completed: when its observer ran.
    func completedBy(_ task: Int) -> UInt64? { completions[task]?.first?.seq }
}
