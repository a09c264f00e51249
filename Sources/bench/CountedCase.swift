/// One figure that `--instructions` counts for each subject: what the child process runs at a
/// size, the two sizes whose difference is counted, the unit of one item, and the baseline each
/// backend is divided by.
struct CountedCase: Sendable {
    enum Kind: Sendable, Equatable {
        /// A chain of `map` links (`bench __chain-probe CASE SUBJECT N`), whose baseline is the
        /// same subject for every backend: the closure loop inline, raw Dispatch on a pool.
        case chain(case: String, baseline: String)
        /// 'fanout.whenAll': N `run` bodies joined with `whenAll` (`bench __repetition
        /// fanout.whenAll SUBJECT N 0`, the timed scenario's own code), each backend divided by
        /// its matching raw baseline (a Dispatch group, the raw thread pool, a Swift task group).
        case fanout
        /// An `await` of a task's value from a Swift task (`bench __repetition VARIANT SUBJECT N
        /// 0`, the timed scenario's own code): `await.run-value` (a body run on the default
        /// executor, each backend divided by its matching checked-continuation round trip, as
        /// timed) or `await.completed-value` (a completed task, divided by a checked continuation
        /// resumed inside its closure).
        case await(variant: String)
    }

    let kind: Kind

    /// The smaller and the larger size counted: their difference cancels start-up and set-up.
    var small: Int {
        switch kind {
        // On a pool, an idle worker's spin episode (about 160,000 instructions, counted in
        // whichever of the two runs it falls) moves the figure by about 80 per link at 2,000
        // and 4,000 links, by 8 at 20,000 and 40,000. What is left moves with the threads'
        // interleaving (a push that finds the worker parked pays its wake-up): three counts of
        // one binary within 1 % when run one at a time on an idle machine (gcd 1,982-2,000),
        // 5-8 % in a bench run beside other work (gcd 1,849-1,952). A run at 40,000 links takes
        // 1.3 s under callgrind, 0.9 s at 4,000. Inline chains count the same at any size: they
        // keep the sizes their baseline was recorded at.
        case .chain(let chainCase, _): chainCase.hasSuffix("inline") ? 2_000 : 20_000
        // A count at 20,000 bodies takes about 2 s under callgrind. Larger fan-outs count a few
        // hundred more instructions per task (the allocator consolidates more freed chunks at
        // once, the job ring grows further): the figure is per task of a 10,000-20,000 fan-out.
        case .fanout: 10_000
        // A pending round trip costs 5,000-10,000 instructions of its own, and the pools' idle
        // workers' polls between round trips on top; 1,000 and 2,000 take about 1 s under
        // callgrind. A completed task's `await` costs a few hundred: 20,000 and 40,000.
        case .await(let variant): variant == AwaitScenario.completedValue ? 20_000 : 1_000
        }
    }

    var large: Int { 2 * small }

    /// The case's name in its figure's `caseName` and in callgrind's output files.
    var name: String {
        switch kind {
        case .chain(let chainCase, _): "chain-" + chainCase
        case .fanout: "fanout-whenAll"
        case .await(let variant): variant.replacingOccurrences(of: ".", with: "-")
        }
    }

    /// The figure's case name, with both sizes: `instructions.chain-pending-inline@2k-4k`.
    var caseName: String { "\(InstructionCounts.scenario).\(name)@\(sizeLabel(small))-\(sizeLabel(large))" }

    var unit: String {
        switch kind {
        case .chain: "instr/link"
        case .fanout: "instr/task"
        case .await: "instr/await"
        }
    }

    /// The chain's case for `__chain-probe` (`completed-inline`, ...), `nil` for another kind.
    var chainCase: String? {
        switch kind {
        case .chain(let chainCase, _): chainCase
        case .fanout, .await: nil
        }
    }

    /// Counts per figure, whose median is the figure (`InstructionCounts.poolRepetitions`).
    var repetitions: Int {
        switch kind {
        case .chain(let chainCase, _): chainCase.hasSuffix("inline") ? 1 : InstructionCounts.poolRepetitions
        // With the waits left out (`excludedFunctions`), three counts of one binary spread 3-4 %
        // on gcd and threads and 6-10 % on the raw baselines (gcd 2,606-2,693 per task, threads
        // 2,575-2,644, a Dispatch group 2,139-2,329, the raw pool 1,452-1,598); what is left
        // moves with callgrind's interleaving of the threads: how much glibc consolidates, and
        // whether `whenAll` finds an input completed (a report in place) or pending (the join
        // kept). The median of three, as on the pools' chains.
        case .fanout: InstructionCounts.poolRepetitions
        // A pending round trip hands over between threads twice, and how often the idle workers
        // poll in between is callgrind's interleaving's; a completed task's `await` runs on the
        // awaiting task's thread alone, but that Swift task runs on Dispatch's pool, whose idle
        // threads are counted too, and they park rather than poll: it counted the same to the
        // instruction in every count of four runs (1,016 on each backend, 1,431 for the checked
        // continuation, three counts in each; within 2 since the getter was inlined into its
        // witness, 859-861), so one count, as an inline chain's, which also keeps CI's bench
        // step within its time (16 valgrind runs fewer). The median of three for the pending
        // round trip.
        case .await(let variant): variant == AwaitScenario.completedValue ? 1 : InstructionCounts.poolRepetitions
        }
    }

    /// How far two counts of one binary may differ (`Figure.tolerance`): `bench gate` gates
    /// only the figures whose tolerance is within its limit.
    var tolerance: Double {
        switch kind {
        // Inline chains run on one thread and count the same every time, up to the rounding of
        // the difference; on a pool, how long idle workers spin depends on scheduling: one
        // binary counted 2,481 to 2,673 (actors) and 2,511 to 2,838 (threads) per link in two
        // runs at load 14, and 2,557 to 2,661 (gcd) in six runs.
        case .chain(let chainCase, _): chainCase.hasSuffix("inline") ? 0.005 : 0.10
        // Not gated: the baselines' counts still spread up to 10 % (above).
        case .fanout: 0.20
        // Not gated: with the kit pools' waits left out (`excludedFunctions`), a pending round
        // trip still moves by up to 25 % between counts of one binary (swift 4,391-5,286, gcd
        // 5,186-6,442: when Dispatch's workers park and wake depends on callgrind's interleaving
        // of the threads); a completed task's counted 1,016 three times (859-861 since).
        case .await(let variant): variant == AwaitScenario.completedValue ? 0.10 : 0.20
        }
    }

    /// Functions whose instructions the count leaves out (callgrind's `--toggle-collect`, a
    /// pattern on the mangled name; collection stops on entry and resumes on exit, per thread).
    var excludedFunctions: [String] {
        switch kind {
        case .chain: []
        // Waiting, on every subject alike: the kit's idle polls (`QueuePollers.poll`: the gcd
        // drainers' polls for the next job of a stream, the kit pool's idle workers'), the kit
        // pool's wait for its next job once its queue is empty (`ThreadPool.nextJob`: its polls,
        // its park, its take after a wake-up), and a contended mutex's slow paths
        // (`_MutexHandle._lockSlow` spins, then sleeps; `_unlockSlow` wakes the sleeper; in
        // libswiftSynchronization). Callgrind runs one thread at a time, so a thread that
        // polls or spins runs until its time slice ends, where on a machine it stops when the
        // job or the lock shows up: counted, they moved one binary's gcd figure by up to 340
        // per task between counts (`_lockSlow` alone 0 to 332), and the threads figure by up
        // to 1,000 (docs/BENCHMARKS.md, "Fan-out per task (issue 30, seventh session)"). The
        // raw baselines wait in the kernel (Dispatch's workers on a semaphore, the raw pool on
        // a condition variable), where callgrind counts no instructions. What stays counted:
        // every push, every wake-up signal, every take of a queued job outside a wait, the
        // bodies, the tasks and the join.
        case .fanout: Self.waits

        // The kit's pool worker waiting for its next job (`ThreadPool.nextJob`: its poll of the
        // queue, its park, its take of the job under the lock). Callgrind runs one thread at a
        // time, so an idle worker's poll runs its whole busy phase (20,000 polls) before the
        // thread that pushes the next job runs at all, where on a machine it runs beside the
        // push and ends when the job shows up: counted, the polls made the threads backend's
        // round trip 33,000-55,000 and the actors backend's -15,600 to 28,600 (a count at 1,000
        // round trips above the one at 2,000); left out, 7,200-8,200 and 8,200-8,300 in two
        // counts each. Dispatch's workers (the gcd backend, the baselines) do not poll.
        case .await(let variant): variant == AwaitScenario.runValue ? ["*ThreadPoolC7nextJob*"] : []
        }
    }

    /// The fan-out's waits (`excludedFunctions`).
    static let waits = [
        "*QueuePollers*poll*", "*ThreadPoolC7nextJob*", "*_MutexHandle*_lockSlow*", "*_MutexHandle*_unlockSlow*"
    ]

    /// The baseline `backend` is divided by.
    func baseline(for backend: String) -> String {
        switch kind {
        case .chain(_, let baseline): baseline
        case .fanout: backendRegistry.first { $0.name == backend }.map(matchingBaseline) ?? "dispatch"
        case .await(let variant):
            variant == AwaitScenario.completedValue
                ? "swift" : backendRegistry.first { $0.name == backend }.map(AwaitScenario.awaitBaseline) ?? "swift"
        }
    }

    /// The child's command line (after the binary) for `subject` at `items`.
    func child(_ subject: String, _ items: Int) -> [String] {
        switch kind {
        case .chain(let chainCase, _): [ChainProbe.command, chainCase, subject, String(items)]
        case .fanout: [Isolated.command, "fanout.whenAll", subject, String(items), "0"]
        case .await(let variant): [Isolated.command, variant, subject, String(items), "0"]
        }
    }

    /// The figures to count for `backends`: each baseline they need once, then each backend.
    func jobs(backends: [String]) -> [Job] {
        var baselines: [String] = []
        for backend in backends where !baselines.contains(baseline(for: backend)) {
            baselines.append(baseline(for: backend))
        }
        if case .chain(_, let fixed) = kind, baselines.isEmpty { baselines = [fixed] }
        return baselines.map { Job(counted: self, subject: $0, kind: .baseline, baseline: nil) }
            + backends.map { Job(counted: self, subject: $0, kind: .backend, baseline: baseline(for: $0)) }
    }

    /// One figure to count.
    struct Job: Sendable {
        let counted: CountedCase
        let subject: String
        let kind: Figure.Kind
        let baseline: String?
    }

    static func chain(_ chainCase: String, baseline: String) -> CountedCase {
        CountedCase(kind: .chain(case: chainCase, baseline: baseline))
    }

    static let fanout = CountedCase(kind: .fanout)

    /// The `await` figures: the pending round trip, then the completed task.
    static let awaits = [AwaitScenario.runValue, AwaitScenario.completedValue].map { CountedCase(kind: .await(variant: $0)) }
}
