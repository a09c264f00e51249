/// The checks of the steps that probe a rule in one go and log what they saw: a long inline
/// chain's stack growth (C2.7), nested waits on the default executor (C6.2 to C6.4), a probed
/// combinator's outcome and what it keeps once complete (C5.1 to C5.3, C5.5), a serial job's
/// hand-off to its own executor (C7.2). Findings come in the order the steps logged them.
struct ProbeChecks {
    let program: Program
    /// The configuration's timing slack: what the steps waited, and what the checks allow.
    let slack: Duration
    var exercised: RuleTally = []
    var judged: EntryPointTally
    var findings: [Finding] = []

    init(program: Program, slack: Duration) {
        self.program = program
        self.slack = slack
        judged = EntryPointTally(program: program)
    }

    /// Each probe event judged by its step (`OperationPayload.judgeProbe`).
    mutating func run(over events: [Event]) {
        for event in events {
            guard let step = event.kind.probeStep,
                let judgement = program.steps[step].operation.payload.judgeProbe(event.kind, step: step, slack: slack)
            else { continue }
            exercised.formUnion(judgement.exercised)
            judged.judge(step)
            findings += judgement.findings
        }
    }
}

extension EventKind {
    /// The step whose probe logged this event, if a probe did.
    var probeStep: Int? {
        switch self {
        case .longChainRan(let step, _, _), .asyncLoopRan(let step, _, _), .nestedWaitReturned(let step, _, _, _, _),
            .probedCombined(let step, _), .probedRetained(let step, _), .raceRoundsRan(let step, _, _),
            .serialHandOffReturned(let step, _, _):
            return step
        default:
            return nil
        }
    }
}
