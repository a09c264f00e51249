import Foundation

/// How much to run and how. `fromEnvironment()` reads:
///
/// - `CONFORMANCE_SEED`: the base seed (decimal or 0x-hex); program `i` uses seed `base &+ i`.
///   Unset: a random base seed, printed at the start.
/// - `CONFORMANCE_PROGRAMS`: programs per backend (default 1,000).
/// - `CONFORMANCE_TIME_BUDGET`: seconds per backend (default 60); the run stops at whichever
///   limit comes first. Soak runs set both high; shards set disjoint seed ranges.
/// - `CONFORMANCE_MAX_STEPS`: largest program (default 300 steps).
/// - `CONFORMANCE_EVENTS=1`: failures print the run's event log.
/// - `CONFORMANCE_MODE`: `mixed` (default), `stress`, `controlled` (random walk), `pct3`, ...
/// - `CONFORMANCE_SHRINK`: seconds to shrink a failing program (default 10; 0: do not shrink).
/// - `CONFORMANCE_MAX_FAILURES`: failing programs reported, one per rule broken, before the run
///   stops (default 10; 1 stops at the first).
/// - `CONFORMANCE_STACK_LINKS`: links of the resource checks (default 1,000,000; 0 skips them).
/// - `CONFORMANCE_SHARD=k/n`: run shard `k` of `n`, a disjoint part of the seed space of
///   `CONFORMANCE_PROGRAMS` programs (see `Shard`); needs `CONFORMANCE_SEED`, the same on every shard.
/// - `CONFORMANCE_PROGRAM_FILE=<path>`: set by the replay line of a shrunk counterexample: runs
///   the program that file holds (its text form, `Program(parsing:)`) instead of generated ones.
/// - `CONFORMANCE_REPLAY_ATTEMPTS`: how many times a replay runs a program whose schedule does
///   not replay exactly (stress mode, or a controlled run that saw outside work) until it fails
///   (default 10).
/// - `CONFORMANCE_REPLAY=<backend>`: set by replay lines. Runs exactly the program of
///   `CONFORMANCE_SEED` on the backend of that name (other backends' checks are skipped), and
///   fails if it runs none.
/// - `CONFORMANCE_TIMING_SLACK`: seconds a timer may be late (default 2, 10 under the thread
///   sanitizer: `TimingSlack.standard`).
/// - `CONFORMANCE_LIVELOCK_FACTOR`: how many hang limits a phase that keeps making progress may
///   run before it is given up as a livelock, or a seated phase that never becomes quiescent
///   before it goes on natively (default 4: `livelockFactor`).
/// - `CONFORMANCE_RULE_TIME_LIMIT`: seconds one check of the rule suite may run before it is a
///   finding (default 60: `RuleSuite.timeLimit`).
/// - `CONFORMANCE_EXPLORATION_SCHEDULES`: exhaustive mode: schedules one program's exploration
///   may run (default 10,000).
/// - `CONFORMANCE_EXPLORATION_TIME`: exhaustive mode: seconds one program's exploration may take
///   (default 10).
/// - `CONFORMANCE_TIME_LIMIT`: seconds the whole `checkAll` (or `check`) may take: no rule check,
///   resource check, program or shrink starts after it (default: the time budget plus 10 minutes).
///
/// These are the only `CONFORMANCE_*` variables the library reads, and this is the only place
/// it reads them. A value that does not parse is an error in the report (`environmentErrors`),
/// never ignored.
public struct ConformanceConfiguration: Sendable {
    public var baseSeed: UInt64
    public var programs: Int
    /// How long the generated programs may run in all (`CONFORMANCE_TIME_BUDGET`); the next
    /// program starts only within it. The resource checks before them are not counted.
    public var timeBudget: Duration
    public var generator: ProgramGenerator
    /// How long a phase of a run may go without progress (no new event in the run's log, and no
    /// driver thread that used CPU time: a driver working inside a long call is not blocked)
    /// before the watchdog calls it a hang; a phase that keeps making progress without finishing is
    /// given up as a livelock at `livelockFactor` times this in all. In controlled mode too: a
    /// job handed to the backend's executor, a driver's step, a run that went on natively; a
    /// seated run's seat reaching no schedule point is bounded by the timing slack, at most half
    /// of this. 10 s by default; fractions of a second are kept.
    public var hangLimit: Duration
    /// How long freed closures and tasks may take to be released (C8.1, C8.2).
    public var leakLimit: Duration
    /// How many hang limits a phase of a run may take in all while it keeps making progress,
    /// before the watchdog gives it up as a livelock (events forever, never done): 4 by default
    /// (`defaultLivelockFactor`; `CONFORMANCE_LIVELOCK_FACTOR`), 1 at the least: a smaller value
    /// is an error of the report (`settingErrors`), and the check runs nothing (`runProgram`,
    /// which makes no report, counts it as 1). A phase that makes no progress is given up after
    /// one hang limit whatever this is.
    ///
    /// A seated phase of a controlled run (an instrumented backend) that has not become quiescent
    /// after as many hang limits (its seats keep scheduling each other: jobs that submit jobs, a
    /// timer that re-arms itself) goes on natively then, where its phases are watched as a stress
    /// run's (`ConformanceReport.cappedSeatedPhases` counts those programs).
    ///
    /// Raise it for a backend that is slow but correct and whose longest phases (a generated
    /// program's drivers' steps, or its completion after the held sources) may take more than
    /// four hang limits while they keep going: a slow executor (milliseconds a job), a long
    /// soak's largest programs, a crowded machine, the thread sanitizer. It only makes a true
    /// livelock's report later; it never delays the report of a hang.
    public var livelockFactor = ConformanceConfiguration.defaultLivelockFactor
    /// The default `livelockFactor`: a slow but correct phase gets four times what a phase had in
    /// all when the watchdog measured from the phase's start (40 s at the default 10 s hang
    /// limit), while a livelock still ends within a bounded few limits per phase, as a hang ends
    /// within one. A choice, not a measured bound.
    public static let defaultLivelockFactor = 4

    /// The one time limit of a shrink candidate (its `hangLimit`: per phase, and per step of a
    /// controlled run): 1 s, longer than any wait inside a run without work from outside the
    /// harness; for a candidate with timers, Swift tasks or nested waits, longer than the timing
    /// slack the run waits on them; never more than `hangLimit`.
    func candidateLimit(for program: Program) -> Duration {
        let outside = program.steps.contains { $0.operation.makesOutsideWork }
        return min(hangLimit, outside ? max(.seconds(1), timingSlack + .milliseconds(500)) : .seconds(1))
    }
    /// How many failing programs a run reports (and shrinks) before it stops (default 10,
    /// `CONFORMANCE_MAX_FAILURES`). A failure does not stop the run: a program is reported when
    /// it breaks a rule no earlier program broke, so each distinct rule broken gets one failing
    /// program, and one rule that cannot be fixed hides no other; a program that breaks only
    /// rules already reported is counted (`ConformanceReport.repeatedFailures`). 1: stop at the
    /// first failing program.
    public var maxFailingPrograms: Int
    /// The executors programs use; controlled mode interposes on the ones it makes.
    public var executors: any ExecutorProvider
    /// The `swift test --filter` argument of the replay line.
    public var testFilter: String
    /// Rules the backend is known to break, with why: their failures, of generated programs and
    /// of the rule suite alike, go to `ConformanceReport.knownIssues` and
    /// `RuleSuiteReport.knownIssues` (both in `ConformanceReport.knownIssuesToRecord`) and do not
    /// fail the report; every other rule is still checked. A backend catching up on newer rules
    /// lists them here rather than filtering `checkAll`'s `rules:`.
    public var knownIssues: [Rule: String] = [:]
    /// Whether failures print the event log too (`CONFORMANCE_EVENTS=1`).
    public var showsEvents = false
    /// Where progress lines go (the base seed first); `print` by default.
    public var output: @Sendable (String) -> Void
    /// How programs run: controlled schedules, real threads, or both alternately (the default).
    public var mode: ScheduleMode = .mixed
    /// How long to shrink a failing program (zero: not at all).
    public var shrinkTimeBudget: Duration = .seconds(10)
    /// The links of each resource check (`Conformance.checkResources`: C2.7's chains on every
    /// kind of executor and C8.2's dropped chain, on a 512 KiB stack), run in-process once per
    /// `check` before the programs; 0 skips them (then run them in a child process of your own:
    /// docs/WRITING_A_BACKEND.md). `CONFORMANCE_STACK_LINKS` scales it down where each link
    /// costs more (the thread sanitizer).
    public var resourceLinks = ResourceCheck.contractLinks
    /// This run's part of the seed space (`CONFORMANCE_SHARD`); nil: indices `0..<programs`.
    public var shard: Shard?
    /// The backend a replay line names (`CONFORMANCE_REPLAY`): only its check runs, exactly one
    /// program, and running none is an error.
    public var replaying: String?
    /// How many times a replay (`replaying`, `replayProgram`) runs its program, in any mode, until a
    /// run reproduces the failure it replays (breaks one of `replayExpectedRules`): a race may not
    /// come back at the first run, and a controlled schedule that work from the backend's own
    /// threads moved may not replay exactly. The report says how it ended (`replayNote`).
    public var replayAttempts = 10
    /// The rules a replay must break to count as reproducing (`CONFORMANCE_EXPECT=C5.3,C6.2`,
    /// which every replay line sets to what its failure broke): a replay runs its program, up to
    /// `replayAttempts` times, until a run breaks one of them; one that breaks only other rules,
    /// or nothing, says "not reproducible" (`ConformanceReport.replayNote`). Empty: any finding
    /// reproduces.
    public var replayExpectedRules: [Rule] = []
    /// Variables every replay line (and the rerun line) sets first, so that it runs the same test
    /// the same way from any package: what the test itself reads (a plug-in's `PROJECT=nio`).
    /// `fromEnvironment` fills it from `CONFORMANCE_REPLAY_ENV` (names, comma-separated, whose
    /// values it reads from the environment); or set it by hand. The run's own settings that
    /// change what a program is or how it is judged are added by `replayLineEnvironment`.
    public var replayEnvironment: [String: String] = [:]
    /// A program to run instead of generated ones (`CONFORMANCE_PROGRAM_FILE`, which the replay
    /// line of a shrunk counterexample sets): the check runs exactly it, once, in `mode` (as
    /// its program 0: `mixed` is then controlled, random walk), and neither the rule suite nor
    /// the resource checks.
    public var replayProgram: Program?
    /// The file `replayProgram` came from, for the replay line of a failure it shows.
    var programFile: String?
    /// Where a failure's shrunk program is written for its replay line (a directory; nil: the
    /// system's temporary directory).
    public var programDirectory: String?
    /// `CONFORMANCE_*` variables that did not parse or do not fit together: the check reports
    /// them as errors and runs nothing.
    public var environmentErrors: [String] = []
    /// What the check reports as errors, running nothing: `environmentErrors`, and settings made
    /// in code that cannot be used (a `livelockFactor` below 1).
    public var settingErrors: [String] {
        environmentErrors + (livelockFactor >= 1 ? [] : ["livelockFactor = \(livelockFactor) is not a count >= 1"])
    }
    /// How late a timed operation may fire, or a cancelled await return, before the timing
    /// checks report it (`CONFORMANCE_TIMING_SLACK` seconds; default 2 s, 10 s under TSan); also
    /// how long the steps that wait on the backend themselves wait, and how far the rule
    /// suite's contract bounds stretch (`checkAll`).
    public var timingSlack: Duration = TimingSlack.standard
    /// How long one check of the rule suite may run (`CONFORMANCE_RULE_TIME_LIMIT`): one still
    /// running then is a failure of its rule naming the check (its thread is left blocked in the
    /// backend), and the suite goes on.
    public var ruleTimeLimit: Duration = RuleSuite.timeLimit
    /// How long the whole `checkAll` (or `check`) may take (`CONFORMANCE_TIME_LIMIT`): after it,
    /// no rule check, resource check, program or shrink candidate starts; what is under way ends
    /// within its own limit. Rule checks and resource checks left out are errors of the report.
    /// `nil` (the default): `timeBudget` plus `timeLimitBeyondBudget`, 10 minutes.
    public var timeLimit: Duration?
    /// Exhaustive mode (`ScheduleStrategy.exhaustive(preemptions:)`): how many schedules one
    /// program's exploration may run (`CONFORMANCE_EXPLORATION_SCHEDULES`), and how long it may
    /// take (`CONFORMANCE_EXPLORATION_TIME`); an exploration stopped by either says so
    /// (`ExplorationStop`).
    public var explorationScheduleLimit = 10_000
    public var explorationTimeLimit: Duration = .seconds(10)
    /// Exhaustive mode's programs: small enough (a handful of steps, two or three drivers) that
    /// every schedule within the bound can run (`CONFORMANCE_MAX_STEPS` does not apply to them).
    public var explorationGenerator = ProgramGenerator(maxSteps: 5, minDrivers: 2, maxDrivers: 3)
    /// The default `timeLimit` beyond the programs' time budget.
    public static let timeLimitBeyondBudget: Duration = .seconds(600)
    /// The time limit in force: `timeLimit`, or the time budget plus 10 minutes.
    public var effectiveTimeLimit: Duration { timeLimit ?? timeBudget + Self.timeLimitBeyondBudget }
    /// The moment `effectiveTimeLimit` runs out, set when `checkAll` starts (so that `check`,
    /// which it calls, keeps the same one); `check` alone sets its own.
    var deadline: Uptime?
    /// Set by `fromEnvironment` when `CONFORMANCE_REPLAY` is this process's own: a check that
    /// replays it must reach that backend, or the process fails at exit (`ReplayGuard`). A
    /// configuration built by hand (a test of the replay itself) never fails the process.
    var replayComesFromThisProcess = false

    /// What a replay line sets before its own variables: `replayEnvironment`, and the settings of
    /// this run that differ from the defaults and change what a program is or how it is judged
    /// (`CONFORMANCE_MAX_STEPS`, `CONFORMANCE_TIMING_SLACK`, `CONFORMANCE_LIVELOCK_FACTOR`), so
    /// that the line needs nothing else.
    public var replayLineEnvironment: [String: String] {
        var environment = replayEnvironment
        if generator.maxSteps != ProgramGenerator().maxSteps { environment["CONFORMANCE_MAX_STEPS"] = "\(generator.maxSteps)" }
        if timingSlack != TimingSlack.standard {
            environment["CONFORMANCE_TIMING_SLACK"] = "\(timingSlack.seconds)"
        }
        if livelockFactor != Self.defaultLivelockFactor { environment["CONFORMANCE_LIVELOCK_FACTOR"] = "\(livelockFactor)" }
        return environment
    }

    /// The indices of the programs to run: program `i` has seed `baseSeed &+ i`.
    public var programIndices: Range<Int> {
        if replaying != nil || replayProgram != nil { return 0..<min(programs, 1) }
        return shard?.indices(programs: programs) ?? 0..<programs
    }

    public init(
        baseSeed: UInt64? = nil,
        programs: Int = 1_000,
        timeBudget: Duration = .seconds(60),
        generator: ProgramGenerator = ProgramGenerator(),
        hangLimit: Duration = .seconds(10),
        leakLimit: Duration = .seconds(2),
        maxFailingPrograms: Int = 10,
        executors: any ExecutorProvider = BackendExecutorProvider(),
        testFilter: String = "ConformanceTests",
        output: @escaping @Sendable (String) -> Void = { print($0) }
    ) {
        var system = SystemRandomNumberGenerator()
        self.baseSeed = baseSeed ?? system.next()
        self.programs = programs
        self.timeBudget = timeBudget
        self.generator = generator
        self.hangLimit = hangLimit
        self.leakLimit = leakLimit
        self.maxFailingPrograms = maxFailingPrograms
        self.executors = executors
        self.testFilter = testFilter
        self.output = output
    }

    /// The defaults, overridden by the `CONFORMANCE_*` environment variables.
    public static func fromEnvironment(
        testFilter: String = "ConformanceTests", environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ConformanceConfiguration {
        var configuration = ConformanceConfiguration(testFilter: testFilter)
        var errors: [String] = []
        /// The parsed value of `name` if set; an error if set but `parse` rejects it.
        func read<T>(_ name: String, _ expected: String, _ parse: (String) -> T?) -> T? {
            guard let text = environment[name] else { return nil }
            if let value = parse(text) { return value }
            errors.append("\(name)=\(text) is not \(expected)")
            return nil
        }
        /// Sets `field` to the parsed value of `name` if set (`read`).
        func set<T>(_ field: WritableKeyPath<ConformanceConfiguration, T>, _ name: String, _ expected: String, _ parse: (String) -> T?) {
            if let value = read(name, expected, parse) { configuration[keyPath: field] = value }
        }
        let seed = read("CONFORMANCE_SEED", "a seed (decimal or 0x-hex)", parseSeed)
        if let seed { configuration.baseSeed = seed }
        set(\.programs, "CONFORMANCE_PROGRAMS", "a count >= 0") { count($0, zero: true) }
        set(\.timeBudget, "CONFORMANCE_TIME_BUDGET", "seconds > 0") { seconds($0, zero: false) }
        configuration.showsEvents = read("CONFORMANCE_EVENTS", "0 or 1", { ["0": false, "1": true][$0] }) ?? false
        set(\.mode, "CONFORMANCE_MODE", "a mode (mixed, stress, controlled, pct3, ...)", ScheduleMode.init)
        set(\.shrinkTimeBudget, "CONFORMANCE_SHRINK", "seconds >= 0") { seconds($0, zero: true) }
        set(\.timingSlack, "CONFORMANCE_TIMING_SLACK", "seconds > 0") { seconds($0, zero: false) }
        set(\.replayAttempts, "CONFORMANCE_REPLAY_ATTEMPTS", "a count > 0") { count($0, zero: false) }
        set(\.maxFailingPrograms, "CONFORMANCE_MAX_FAILURES", "a count > 0") { count($0, zero: false) }
        set(\.ruleTimeLimit, "CONFORMANCE_RULE_TIME_LIMIT", "seconds > 0") { seconds($0, zero: false) }
        set(\.livelockFactor, "CONFORMANCE_LIVELOCK_FACTOR", "a count > 0") { count($0, zero: false) }
        // An optional field: through `set`, a text that does not parse would set it to nil.
        if let limit = read("CONFORMANCE_TIME_LIMIT", "seconds > 0", { seconds($0, zero: false) }) { configuration.timeLimit = limit }
        set(\.explorationScheduleLimit, "CONFORMANCE_EXPLORATION_SCHEDULES", "a count > 0") { count($0, zero: false) }
        set(\.explorationTimeLimit, "CONFORMANCE_EXPLORATION_TIME", "seconds > 0") { seconds($0, zero: false) }
        set(\.generator.maxSteps, "CONFORMANCE_MAX_STEPS", "a count > 0") { count($0, zero: false) }
        set(\.resourceLinks, "CONFORMANCE_STACK_LINKS", "a count >= 0") { count($0, zero: true) }
        set(\.replayExpectedRules, "CONFORMANCE_EXPECT", "rule ids, comma-separated (C5.3,C6.2)", parseRules)
        if let names = environment["CONFORMANCE_REPLAY_ENV"] {
            for name in names.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                guard let value = environment[name] else {
                    errors.append("CONFORMANCE_REPLAY_ENV names \(name), which is not set: a replay line could not set it")
                    continue
                }
                configuration.replayEnvironment[name] = value
            }
        }
        configuration.shard = read("CONFORMANCE_SHARD", "k/n with 1 <= k <= n", Shard.init)
        configuration.replaying = read("CONFORMANCE_REPLAY", "a backend name", { $0.isEmpty ? nil : $0 })
        configuration.replayComesFromThisProcess =
            configuration.replaying != nil
            && configuration.replaying == ProcessInfo.processInfo.environment["CONFORMANCE_REPLAY"]
        if configuration.shard != nil, seed == nil {
            errors.append(
                "CONFORMANCE_SHARD needs CONFORMANCE_SEED, the same on every shard (e.g. the CI run's number), "
                    + "or the shards would not be disjoint")
        }
        if let path = environment["CONFORMANCE_PROGRAM_FILE"] {
            do {
                configuration.replayProgram = try readProgram(at: path)
                configuration.programFile = path
            } catch {
                errors.append("CONFORMANCE_PROGRAM_FILE=\(path): \(error)")
            }
        }
        if configuration.replaying != nil, seed == nil, configuration.replayProgram == nil, environment["CONFORMANCE_PROGRAM_FILE"] == nil {
            errors.append(
                "CONFORMANCE_REPLAY needs CONFORMANCE_SEED or CONFORMANCE_PROGRAM_FILE: without either the replay would run a random program"
            )
        }
        configuration.environmentErrors = errors
        return configuration
    }

    /// The program a file holds (`CONFORMANCE_PROGRAM_FILE`): its text form, made runnable
    /// (`Conformance.repaired`: a hand edit may leave ids no step makes).
    static func readProgram(at path: String) throws -> Program {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ProgramParseError(line: 0, text: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        return ProgramRepair.repaired(try Program(parsing: text))
    }

    /// The program of `seed` for a run in `mode`: controlled runs generate programs without
    /// timers and Swift tasks, which they could not schedule; exhaustive ones small programs
    /// (`explorationGenerator`).
    public func program(seed: UInt64, mode: ScheduleMode) -> Program {
        var generator = self.generator
        if case .controlled(let strategy) = mode, case .exhaustive = strategy.base { generator = explorationGenerator }
        if mode.isControlled { generator.usesOutsideWork = false }
        return generator.program(seed: seed)
    }

    /// A number of seconds (fractions kept to the nanosecond), positive or, with `zero`, zero;
    /// at most 10^8 seconds (three years); `nil` for anything else.
    static func seconds(_ text: String, zero: Bool) -> Duration? {
        guard let seconds = Double(text), seconds.isFinite, seconds <= 1e8, seconds > 0 || (zero && seconds == 0) else { return nil }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }

    /// A whole number >= 1, or >= 0 with `zero`; nil for anything else.
    static func count(_ text: String, zero: Bool) -> Int? {
        guard let count = Int(text), count > 0 || (zero && count == 0) else { return nil }
        return count
    }

    /// Rule ids, comma-separated (`C5.3,C6.2`); nil if any is not a rule of the contract.
    static func parseRules(_ text: String) -> [Rule]? {
        let rules = text.split(separator: ",").map { Rule(rawValue: $0.trimmingCharacters(in: .whitespaces)) }
        guard !rules.isEmpty, !rules.contains(nil) else { return nil }
        return rules.compactMap { $0 }
    }

    /// A seed in decimal or `0x` hexadecimal.
    public static func parseSeed(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("0x") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }
}
