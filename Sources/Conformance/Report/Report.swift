import TaskAPI

/// Where a check was called from, so a failure points at the caller's line.
public struct CallSite: Sendable, Hashable {
    public let fileID: String
    public let filePath: String
    public let line: Int
    public let column: Int

    public init(fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }
}

/// One failing program: the rule, the seed, the program, expected versus observed, and the line
/// that replays it.
public struct ConformanceFailure: Sendable, CustomStringConvertible {
    public let backend: String
    public let rule: Rule
    public let seed: UInt64
    public let message: String
    public let expected: String
    public let observed: String
    /// The program as generated (its `description`: one step a line).
    public let program: Program
    /// A shell line that runs exactly this program again.
    public internal(set) var replay: String
    public let callSite: CallSite
    /// The run's event log, one event a line (`#seq driver thread event`).
    public let events: String
    /// Whether `description` includes `events` (`CONFORMANCE_EVENTS=1`).
    public let showsEvents: Bool
    /// The mode that found it: `stress` or `controlled-<strategy>`.
    public let mode: ScheduleMode
    /// Controlled mode: what came from outside the harness, so that the schedule may not replay.
    public let notReproducible: [String]
    /// The shrunk program that still breaks `rule` (nil: not shrunk): a value to run again
    /// (`Conformance.runProgram(_:program:mode:)`), to edit, or to print.
    public let shrunkProgram: Program?
    /// The mode the shrunk program fails in (PCT's depth may be lower).
    public let shrunkMode: ScheduleMode?
    /// What the shrunk program broke (its task and step numbers are the shrunk program's).
    public let shrunkFinding: Finding?
    /// Candidate programs the shrinker ran, and how long it took.
    public let shrinkRuns: Int
    public let shrinkDuration: Duration
    /// The shell line that runs exactly the shrunk program again (in `shrunkMode`, with its
    /// schedule seed): the program is written to a file the line names
    /// (`CONFORMANCE_PROGRAM_FILE`); nil when not shrunk.
    public internal(set) var shrunkReplay: String?
    /// The program's other findings of `rule` (its first is this failure's message): a program
    /// that broke one rule at several places is reported once, with them.
    public internal(set) var moreFindings: [Finding] = []
    /// A hang's further findings, ranked after the likely culprit whose rule is `rule`
    /// (`Finding.alsoFound`): the other rules the hang diagnosis found broken, each with its
    /// message. `observed` tells them too (after `also:`); empty when the failure is not a hang.
    public internal(set) var alsoFound: [Finding] = []
    /// `rule`, then the rules of `alsoFound`, each once: every rule this failure reports broken.
    public var rules: [Rule] { Finding.rules(rule, then: alsoFound) }
    /// Where shrinking was when its time budget ran out (nil: it finished, no smaller candidate
    /// still failed; or it did not shrink).
    public internal(set) var shrinkStoppedAt: String?

    /// Steps of the program as generated.
    public var originalSize: Int { program.steps.count }
    /// Steps of the shrunk program.
    public var shrunkSize: Int? { shrunkProgram?.steps.count }

    public var description: String {
        var text = """
            [\(backend)] \(rule) broken: \(message)
              expected: \(expected)
              observed: \(observed)
              found by: \(mode) mode\(notReproducible.isEmpty ? "" : " (not reproducible: \(notReproducible.joined(separator: "; ")))")
              seed: \(seed)
              replay: \(replay)
            """
        if !moreFindings.isEmpty {
            text +=
                "\n  \(rule) broken \(moreFindings.count + 1) times in this program (reported once); the others:"
                + moreFindings.map { "\n    \($0.message) (expected: \($0.expected); observed: \($0.observed))" }.joined()
        }
        if let shrunkProgram, let shrunkSize {
            text +=
                "\nshrunk counterexample: \(shrunkSize) steps (from \(originalSize)), \(shrunkMode ?? mode) mode, "
                + "\(shrinkRuns) candidate runs in \(shrinkDuration)"
                + (shrinkStoppedAt.map {
                    ", stopped by its time budget while \($0) (CONFORMANCE_SHRINK: a longer budget may shrink it further)"
                }
                    ?? ", no smaller candidate fails")
            if let shrunkReplay { text += "\n  replay: \(shrunkReplay)" }
            if let shrunkFinding {
                text += "\n  \(shrunkFinding.message)\n    expected: \(shrunkFinding.expected)\n    observed: \(shrunkFinding.observed)"
            }
            text += "\n\(shrunkProgram)"
            if showsEvents { text += "\noriginal program:\n\(program)" }
        } else {
            text += "\n\(program)"
        }
        return text + (showsEvents ? "\nevents:\n" + events : "")
    }
}

/// What a run found, per backend.
public struct ConformanceReport: Sendable, CustomStringConvertible {
    public let backend: String
    public let baseSeed: UInt64
    public let programsRun: Int
    public let stepsRun: Int
    public let duration: Duration
    /// How many programs tested each rule.
    public let rulesExercised: [Rule: Int]
    public let failures: [ConformanceFailure]
    /// Failures of rules listed in `ConformanceConfiguration.knownIssues` (at most one per rule).
    public let knownIssues: [ConformanceFailure]
    /// Set when the run stopped early: a hang left threads blocked inside the backend.
    public let abandoned: Bool
    /// How many of `programsRun` ran in controlled mode.
    public let controlledPrograms: Int
    /// Whether those ran on the seated engine (the backend is instrumented: every synchronization a
    /// schedule point) rather than on interposed executors (jobs handed over whole).
    public internal(set) var seated = false
    /// Exhaustive mode (`ScheduleStrategy.exhaustive(preemptions:)`): the programs' explorations,
    /// summed: how many schedules ran, how many programs were explored completely, why the
    /// others stopped. Nil in the other modes.
    public internal(set) var exploration: ExplorationTally?
    /// Controlled runs that saw work from outside the harness (a backend's thread, a timer), or
    /// were released to go on natively (a hand-off that did not arrive in time, a seat blocked
    /// outside ScheduleKit's primitives: `blockedOutsidePrimitives`; a seated phase at its cap:
    /// `cappedSeatedPhases`): not failures, but their schedules may not replay.
    public let notReproducible: [String]
    /// Seated runs (an instrumented backend) whose seat holding the baton reached no schedule
    /// point for a while: blocked outside ScheduleKit's primitives, on a lock, a semaphore or a
    /// wait of the backend's own, which a seat the harness had paused may have held. The harness
    /// cannot control that part of the backend, so it released those runs to go on natively and
    /// checked them all the same: not failures (a run that stayed hung natively is one), but
    /// their schedules do not replay, and they are also in `notReproducible`. Each names the
    /// seed, the mode, the seat and its last schedule point. Make that synchronization a
    /// ScheduleKit primitive to have it controlled (docs/WRITING_A_BACKEND.md, section 7a).
    public internal(set) var blockedOutsidePrimitives: [String] = []
    /// Seated runs (an instrumented backend) a seated phase of which reached its cap, the hang
    /// limit times `ConformanceConfiguration.livelockFactor`, without becoming quiescent: the
    /// backend kept scheduling work that schedules more (jobs that submit jobs, a timer that
    /// re-arms itself), or threads outside the run kept making progress, and the seats never ran out of work.
    /// The harness released those runs to go on natively and checked them all the same: not
    /// failures (a run that then livelocks natively is one), but their schedules do not replay,
    /// they are also in `notReproducible`, and each cost the cap. Each names the seed, the mode,
    /// the phase and the cap.
    public internal(set) var cappedSeatedPhases: [String] = []
    /// The shard this run covered (`CONFORMANCE_SHARD`).
    public internal(set) var shard: Shard?
    /// Errors that are not a rule broken but stop the check from meaning anything: a
    /// `CONFORMANCE_*` variable that does not parse, a replay that ran no program. Adapters must
    /// record them as failures.
    public internal(set) var errors: [String] = []
    /// Set when this check ran nothing because a replay names another backend (not a failure).
    public internal(set) var skippedForReplay: String?
    /// How many checks of each rule ran, over every program.
    public internal(set) var checksRun: [Rule: Int] = [:]
    /// The entry points of TaskAPI the programs called, and the checks that judged them.
    public internal(set) var entryPoints = EntryPointCoverage()
    /// The rule suite's results, when the check ran it (`Conformance.checkAll`).
    public internal(set) var ruleSuite: RuleSuiteReport?
    /// Programs that broke a rule an earlier failing program had already broken (and which was
    /// reported with it), by rule: how often it came back, not reported again.
    public internal(set) var repeatedFailures: [Rule: Int] = [:]
    /// Why the programs stopped before their count (the time budget, the time limit, the
    /// failure limit), or nil.
    public internal(set) var stoppedBy: String?
    /// A replay of a program whose schedule does not replay exactly (stress): how many runs it
    /// took to fail, or that it did not (`ConformanceConfiguration.replayAttempts`).
    public internal(set) var replayNote: String?
    /// A replay (`CONFORMANCE_REPLAY`, `CONFORMANCE_PROGRAM_FILE`): whether a run broke a rule
    /// the replayed failure broke (`ConformanceConfiguration.replayExpectedRules`); nil when not
    /// a replay. A replay that did not reproduce still passes (the bug may be fixed), and says so.
    public internal(set) var replayReproduced: Bool?
    /// Mixed mode on a backend controlled mode cannot reach (its controlled programs saw work from
    /// its own threads): from which program on the programs meant for controlled mode ran in
    /// stress mode, and why; nil when the budget was spent as the mode says.
    public internal(set) var budgetNote: String?
    /// The contract version the backend declares it targets (`TaskBackend.targetContractVersion`);
    /// nil: not declared.
    public internal(set) var targetContractVersion: ContractVersion?

    /// The failing rules, of the programs and of the rule suite, that came or were revised in a
    /// later contract version than the backend targets (when it declares none, than 1.0), in the
    /// contract's order: what upgrading TaskAPI asks of the backend (docs/WRITING_A_BACKEND.md, "Upgrading
    /// to a newer contract"), rather than bugs in what it was written for.
    public var rulesNewerThanTarget: [Rule] {
        let target = targetContractVersion ?? .v1_0
        let suite = ruleSuite?.failures.map(\.rule) ?? []
        return Set(failures.map(\.rule) + suite).filter { $0.lastChangedIn > target }.sorted()
    }

    /// The report's line on `rulesNewerThanTarget`, or nil when there are none.
    var contractVersionLine: String? {
        let newer = rulesNewerThanTarget
        guard !newer.isEmpty else { return nil }
        let target = targetContractVersion ?? .v1_0
        let rules = newer.map { rule in
            rule.introducedIn > target ? "\(rule) (\(rule.introducedIn))" : "\(rule) (revised in \(rule.lastChangedIn))"
        }.joined(separator: ", ")
        let targetText =
            targetContractVersion.map { "this backend targets contract \($0)" }
            ?? "this backend declares no contract version (TaskBackend.targetContractVersion)"
        return "  contract: \(targetText), the contract is \(ContractVersion.current); failing rules that came or changed later: \(rules). "
            + "They are what the upgrade asks of the backend: see docs/WRITING_A_BACKEND.md, \"Upgrading to a newer contract\" "
            + "(fix each, or list it in ConformanceConfiguration.knownIssues while you do, then raise targetContractVersion)"
    }

    /// The rules broken by the reported failing programs, in the contract's order.
    public var brokenRules: [Rule] { Set(failures.map(\.rule)).sorted() }

    /// How many programs were reported failing (a program may break several rules).
    public var failingPrograms: Int { Set(failures.map(\.seed)).count }

    /// Every rule of the contract with the programs that exercised it and the checks that ran,
    /// as a Markdown table (docs/CONFORMANCE.md).
    public var coverageTable: String {
        (["| rule | programs | checks |", "| --- | --- | --- |"]
            + Rule.allCases.map { rule in
                let programs = rulesExercised[rule].map(String.init) ?? "not exercised"
                return "| \(rule) | \(programs) | \(checksRun[rule] ?? 0) |"
            }).joined(separator: "\n")
    }

    /// Every entry point of TaskAPI's contract types (`EntryPoint`) with the programs that called
    /// it and the checks that judged it, as a Markdown table (docs/CONFORMANCE.md); one that no
    /// program can call, or no rule can judge, says why.
    public var entryPointTable: String { entryPoints.table }

    public var passed: Bool { failures.isEmpty && errors.isEmpty && ruleSuite?.passed != false }

    public var description: String {
        if let skippedForReplay {
            return "conformance [\(backend)] skipped: this run replays backend \(skippedForReplay) (CONFORMANCE_REPLAY)"
        }
        if !errors.isEmpty, programsRun == 0 {
            return (["conformance [\(backend)] did not run:"] + errors.map { "  error: \($0)" }).joined(separator: "\n")
        }
        let rules = rulesExercised.keys.sorted().map { "\($0)×\(rulesExercised[$0] ?? 0)/\(checksRun[$0] ?? 0)" }.joined(separator: " ")
        let unexercised = Rule.allCases.filter { rulesExercised[$0] == nil }.map(\.rawValue).joined(separator: " ")
        var lines = [
            "conformance [\(backend)] base seed \(baseSeed)\(shard.map { ", shard \($0)" } ?? ""): \(programsRun) programs, \(stepsRun) steps in \(duration), "
                + "(\(controlledPrograms) controlled\(seated ? " on seats" : ""), \(programsRun - controlledPrograms) stress), "
                + (passed
                    ? (replayReproduced == false ? "passed, but not reproducible (the replay did not break its rule)" : "passed")
                    : failures.isEmpty
                        ? "errors"
                        : "\(brokenRules.count) rules broken in \(failingPrograms) failing programs "
                            + "(\(brokenRules.map(\.rawValue).joined(separator: " ")))")
                + (abandoned ? " (abandoned after a hang)" : stoppedBy.map { " (stopped at \($0))" } ?? ""),
            "  rules exercised (programs/checks): \(rules)",
            "  not exercised by generated programs: \(unexercised.isEmpty ? "none" : unexercised)",
            "  " + entryPoints.summary
        ]
        if let exploration {
            lines.append("  exhaustive schedules (at most \(exploration.preemptions) preemptions): \(exploration.summary)")
        }
        if !notReproducible.isEmpty {
            lines.append(
                "  not reproducible (work the harness did not control): \(notReproducible.count) of \(controlledPrograms) controlled programs"
                    + ((notReproducible.count - blockedOutsidePrimitives.count - cappedSeatedPhases.count) * 2 > controlledPrograms
                        ? " (the backend runs work on threads of its own, such as an event loop or a private queue, which controlled "
                            + "mode cannot schedule: their failures replay by running again, up to CONFORMANCE_REPLAY_ATTEMPTS times; "
                            + "work run through the executors the harness passes replays exactly)" : "")
                    + ", e.g. \(notReproducible[0])")
        }
        if !blockedOutsidePrimitives.isEmpty {
            lines.append(
                "  blocked outside ScheduleKit's primitives: \(blockedOutsidePrimitives.count) of \(controlledPrograms) controlled "
                    + "programs had a seat that reached no schedule point (a lock, semaphore or wait the harness cannot see): "
                    + "the harness cannot control that part of the backend, so those runs went on natively, not reproducible; "
                    + "make that synchronization a ScheduleKit primitive (docs/WRITING_A_BACKEND.md, 7a), e.g. "
                    + blockedOutsidePrimitives[0])
        }
        if !cappedSeatedPhases.isEmpty {
            lines.append(
                "  seated phases capped: \(cappedSeatedPhases.count) of \(controlledPrograms) controlled programs had a seated phase "
                    + "that never became quiescent (work that keeps scheduling more work, a timer that re-arms itself) until its cap "
                    + "(the hang limit times the livelock factor): those runs went on natively, not reproducible, each after the cap, e.g. "
                    + cappedSeatedPhases[0])
        }
        if let contractVersionLine { lines.append(contractVersionLine) }
        if let budgetNote { lines.append("  budget: \(budgetNote)") }
        if let replayNote { lines.append("  replay: \(replayNote)") }
        if !repeatedFailures.isEmpty {
            lines.append(
                "  broken again by later programs (not reported again): "
                    + repeatedFailures.keys.sorted().map { "\($0)×\(repeatedFailures[$0] ?? 0)" }.joined(separator: " "))
        }
        lines += errors.map { "  error: \($0)" }
        lines += knownIssues.map { "  known issue: \($0.rule) (seed \($0.seed)): \($0.message)" }
        lines += failures.map(\.description)
        if let ruleSuite { lines.append(ruleSuite.description) }
        return lines.joined(separator: "\n")
    }
}

/// The entry points of TaskAPI's contract types the programs of a check called (`EntryPoint`),
/// how many programs called each, and how many checks judged a step that called it.
public struct EntryPointCoverage: Sendable {
    /// Programs that called each entry point.
    public internal(set) var programs: [EntryPoint: Int] = [:]
    /// Checks that judged a step calling each entry point.
    public internal(set) var checks: [EntryPoint: Int] = [:]

    public init() {}

    mutating func add(_ result: ProgramResult) {
        for entryPoint in result.entryPoints { programs[entryPoint, default: 0] += 1 }
        checks.merge(result.entryPointChecks, uniquingKeysWith: +)
    }

    /// The entry points no program called, and those called but judged by no check (without a
    /// reason to be).
    public var uncalled: [EntryPoint] { EntryPoint.allCases.filter { programs[$0] == nil } }
    public var unjudged: [EntryPoint] {
        EntryPoint.allCases.filter { programs[$0] != nil && checks[$0] == nil && $0.judgedByNoRule == nil }
    }

    /// One line for the report: how many entry points were called, and which were not.
    public var summary: String {
        let called = EntryPoint.allCases.count - uncalled.count
        func list(_ entryPoints: [EntryPoint]) -> String {
            entryPoints.count > 8
                ? "\(entryPoints.count) (entryPointTable lists them)" : entryPoints.map(\.rawValue).joined(separator: ", ")
        }
        let missing = uncalled.filter { $0.notGenerated == nil }
        return "entry points called: \(called) of \(EntryPoint.allCases.count)"
            + (missing.isEmpty ? "" : "; not called: " + list(missing))
            + (unjudged.isEmpty ? "" : "; judged by no check: " + list(unjudged))
    }

    /// Every entry point with its programs and checks, as a Markdown table.
    public var table: String {
        (["| entry point | programs | checks |", "| --- | --- | --- |"]
            + EntryPoint.allCases.map { entryPoint in
                let called =
                    programs[entryPoint].map(String.init)
                    ?? entryPoint.notGenerated.map { "none: \($0)" } ?? "not called in this run"
                // An identity is called with the steps checks judge, but no check judges its answer.
                let judged =
                    entryPoint.judgedByNoRule.map { "none: \($0)" }
                    ?? checks[entryPoint].map(String.init) ?? (called.hasPrefix("none") ? "-" : "0")
                return "| `\(entryPoint.rawValue)` | \(called) | \(judged) |"
            }).joined(separator: "\n")
    }
}
