/// The facts a step states about itself, beyond its ids and schedule (`OperationPayload`'s
/// "Facts"): what it does to sources, tokens, handlers, prepared tasks, groups and executors,
/// the timers it sets, the waits it makes, how a probe step's log is judged and how the shrinker
/// makes it smaller. The checks, the hang diagnosis, the run and the shrinker ask these, never
/// the kind: a new kind that sets a timer says so here and gets the timing checks and the hang
/// diagnosis of a timer. Most kinds state none of them, hence the defaults below.
extension OperationPayload {
    var host: CallHost? { nil }
    var setter: SourceSetter? { nil }
    var releasedSource: Int? { nil }
    var heldSource: HeldSource? { nil }
    func holdingSource(unlessSetIn set: Set<Int>) -> ProgramOperation? { nil }
    var tokenParents: [Int] { [] }
    var cancellation: TokenCancel? { nil }
    var registeredHandler: HandlerRegistration? { nil }
    var disposedHandler: Int? { nil }
    var probedTimer: ProbedTimer? { nil }
    var timedCompletion: TimedCompletion? { nil }
    /// A timed completion's timer, by default.
    var awaitedTimer: AwaitedTimer? {
        timedCompletion.map { AwaitedTimer(task: $0.task, microseconds: $0.microseconds, token: $0.token) }
    }
    var waitForm: WaitForm? { nil }
    var awaitCancels: Bool { false }
    var joinedGroup: GroupMember? { nil }
    var idledGroup: GroupMember? { nil }
    var startedPrepared: PreparedStart? { nil }
    var cancelledPrepared: Int? { nil }
    var startedSource: Int? { nil }
    var submittedJob: ExecutorRef? { nil }
    var burstJobs: Int? { nil }
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement? { nil }
    var smallerForms: [ProgramOperation] { [] }
    var inputCount: Int { 0 }
    func markedForeign(_ rng: inout SplitMix64) -> ProgramOperation? { nil }
    var foreignCount: Int { 0 }
}
