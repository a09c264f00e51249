import BackendActors
import BackendGCD
import BackendThreads
import Conformance
import TaskAPI
import Testing

/// The same seed gives the same program, byte for byte, on every machine and toolchain.
struct DeterminismTests {
    /// SplitMix64's reference outputs for seed 1234567 (from the algorithm's published C code).
    @Test func splitMixMatchesReference() {
        var rng = SplitMix64(seed: 1_234_567)
        let outputs = (0..<5).map { _ in rng.next() }
        #expect(
            outputs == [
                6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
                4_593_380_528_125_082_431, 16_408_922_859_458_223_821
            ])
    }

    @Test(arguments: [UInt64(0), 1, 42, 0xDEAD_BEEF, .max])
    func aSeedPrintsTheSameProgramTwice(seed: UInt64) {
        let generator = ProgramGenerator()
        let first = generator.program(seed: seed).description
        let second = generator.program(seed: seed).description
        #expect(Array(first.utf8) == Array(second.utf8))
        #expect(first.hasPrefix("program seed=\(seed) "))
    }

    /// A golden program: if this changes, every printed seed of the past replays another
    /// program. Change it only on purpose, and say so in the changelog.
    @Test func goldenProgram() {
        let program = ProgramGenerator().program(seed: 7).description
        #expect(fnv1a(program) == Self.golden7, "program for seed 7 changed:\n\(program)")
    }

    /// Changed by issue 22's operations (every API entry point, call shapes), then by their merge
    /// with issue 24's API (a3: the call forms `(on:)`, `(token:)`, `runTask`, `recoverTask`,
    /// `retryTask`; setters' and async bodies' text), then by that API's coverage (pinned-actor
    /// forms, value forms keeping a task, tasks made by bodies, every factory form, work groups,
    /// the `makeSource(of:)` requirement), then by race rounds (two calls started at once, in
    /// stress programs): every earlier seed now gives another program.
    static let golden7: UInt64 = 15_322_671_158_833_152_135

    /// Replaying: program `i` of a run with base seed `b` is the single program of a run with
    /// base seed `b &+ i`, which is what the printed replay line runs.
    @Test func replayLineRunsTheSameProgram() {
        let base: UInt64 = 987_654_321
        let generator = ProgramGenerator()
        let fifth = generator.program(seed: base &+ 5)
        var configuration = ConformanceConfiguration.fromEnvironment(environment: [
            "CONFORMANCE_SEED": "\(base &+ 5)", "CONFORMANCE_PROGRAMS": "1"
        ])
        configuration.output = { _ in }
        #expect(configuration.baseSeed == fifth.seed)
        #expect(configuration.programs == 1)
        #expect(configuration.generator.program(seed: configuration.baseSeed) == fifth)
        #expect(Conformance.replayLine(seed: 5, filter: "X/y") == "CONFORMANCE_SEED=5 CONFORMANCE_PROGRAMS=1 swift test --filter X/y")
        #expect(
            Conformance.replayLine(seed: 5, filter: #"M\.S/t\(\)"#, backend: "gcd")
                == #"CONFORMANCE_SEED=5 CONFORMANCE_PROGRAMS=1 CONFORMANCE_REPLAY=gcd swift test --filter 'M\.S/t\(\)'"#)
        #expect(ConformanceConfiguration.parseSeed("0x10") == 16)
    }

    @Test func programsCoverEveryOperationKind() {
        var kinds: Set<String> = []
        for seed in UInt64(0)..<200 {
            for step in ProgramGenerator().program(seed: seed).steps {
                kinds.insert(String(describing: step.operation).replacingOccurrences(of: "[0-9]", with: "", options: .regularExpression))
            }
        }
        for needle in [
            "makeSource(of: Int", "makeSource(of: Void", "makeSource() as", "makeTask {", "held(", ".tryComplete(.success)",
            ".complete(.failure)", ".tryCancel()", ".trySucceed(v)", ".trySucceed()", ".succeed()", ".fail(e)", "completed(",
            "succeeded(v)", "failed(e, as:", "cancelled()", "run(on: inline", "run(on: counting", "run(on: .some(", "{ () in",
            "} -> t", "} -> new", ".continueWith(on: serial", ".continueWithTask->", ".map(", ".then(", ".catch(",
            ".flatMap->t", ".flatMap->new", ".recover(", ".recoverTask->", ".finally(", ".finally {", ".finallyTask->", "on: .some(",
            "(token: k", "runTask(", "retryTask(",
            "whenAll([])", "whenAll(voids:", "whenAll(t", "whenAllSettled([", "race([])", "any([t", "linkedTo:", "k, k",
            ".cancel()", "cancel(after:", "delay(", ".timeout(after:", ".wait()", "try t", "wait(timeout:", "await t",
            "(cancelled)", "drop t", "token: k", ".register { }", ".token.register", ".dispose()", "schedule(after:", "nested",
            "probed sources", "then cancelled", "chain of", "whenComplete(on:", "whenComplete { echo }", "in t", ".execute: ",
            "inspect t", "(prepared)", "inspect k", ".tryStart()", ".tryStart(on:", "try t", ".start(on:", "retry(",
            "race wait() ×", "race wait(timeout:) ×", "race register ×", "race tryStart() ×", "race source tryStart() ×",
            "race serial.execute ×", "TaskFactory(", ".with(executor:", ".with(token:", ".prepare {", "async loop", "on default",
            "execute { job } ×", "runAsync(", "run(token:", "preferring:", "(on: actor(", "whenComplete(on: actor(", "=>",
            "->succeeded", "->failed", "->cancelled", "prepareTask(", "each a new task", "own token cancelled on retry",
            "(makeSource(of:))(", ").map(t", ").recoverTask->", ").retryTask(", ").delay(", ").whenComplete(t", "run { async",
            "WorkGroup().idle()", ".join(t", ").idle()", ").wait()", ").wait(timeout:", ".mapKeepingType(on:",
            "{ its own execute { job }", "([foreign t", "(voids: [foreign t", "whenAll(foreign t", "->foreign new",
            "->foreign t", "->foreign succeeded"
        ] {
            #expect(
                kinds.contains { $0.contains(needle.replacingOccurrences(of: "[0-9]", with: "", options: .regularExpression)) },
                "no \(needle)")
        }
    }
}

/// FNV-1a over UTF-8: a stable hash (Swift's `Hasher` is seeded per process).
func fnv1a(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01B3
    }
    return hash
}

/// Controlled mode: the same seed is the same interleaving and the same event log.
struct ControlledReplayTests {
    /// Each backend a new one per run: the reference backend (not instrumented: interposed
    /// executors) and the package's three (instrumented: the seated engine, every synchronization
    /// a point), the actors backend on a pool of its own (the shared one serves other tests at
    /// the same time, whose releases the run would see). A replay line runs on a new backend too:
    /// a backend shared between runs keeps state (a pool's parked workers) that changes the
    /// schedule the next run can take.
    static let backends: [(name: String, make: @Sendable () -> any TaskBackend)] = [
        ("reference", { ReferenceBackend() }), ("gcd", { GCDBackend() }), ("threads", { ThreadsBackend() }),
        ("actors", { ActorsBackendTesting.ownPool() })
    ]

    /// Controlled runs on every backend replay line by line: on the reference backend's executors
    /// (jobs handed over whole), and on the seats of the package's three.
    @Test(arguments: [
        ScheduleMode.controlled(.randomWalk), .controlled(.pct(depth: 3)),
        .controlled(.schedule(1, of: .randomWalk))
    ])
    func aSeedReplaysToTheSameEventLog(mode: ScheduleMode) async {
        for (name, make) in Self.backends {
            let backend = make()
            for seed in UInt64(1)...12 {
                let first = await Conformance.runProgram(make(), seed: seed, mode: mode)
                let second = await Conformance.runProgram(make(), seed: seed, mode: mode)
                #expect(first.notReproducible.isEmpty, "[\(name)] seed \(seed): \(first.notReproducible)")
                #expect(first.findings.isEmpty, "[\(name)] seed \(seed): \(first.findings)")
                #expect(!first.eventLines.isEmpty)
                #expect(first.eventLines.count == second.eventLines.count, "[\(name)] seed \(seed)")
                for (index, (a, b)) in zip(first.eventLines, second.eventLines).enumerated() where a != b {
                    Issue.record("[\(name)] seed \(seed) \(mode): event \(index) differs:\n  \(a)\n  \(b)")
                    break
                }
                #expect(backend.isScheduleInstrumented == (name != "reference"))
            }
        }
    }

    /// Different seeds give different interleavings of the same kind of program.
    @Test func strategiesVaryTheSchedule() async {
        let program = ProgramGenerator(maxSteps: 40).program(seed: 99)
        var logs: Set<[String]> = []
        for seed in UInt64(0)..<8 {
            var copy = program
            copy.seed = seed
            logs.insert(await Conformance.runProgram(ReferenceBackend(), program: copy, mode: .controlled(.randomWalk)).eventLines)
        }
        #expect(logs.count > 1)
    }

    /// On seats, a driver may park inside a blocking call and block: a `wait()` on a task another
    /// driver completes later (C6.1), a second `cancel()` waiting for the first one's handlers
    /// (C4.1), a `wait(timeout:)` on a task nothing completes, which times out when the run's clock
    /// moves (C6.2). Every such program passes, replays line by line on every instrumented
    /// backend, and some seed has the wait begin before the completion it waits for.
    @Test func blockingStepsParkAndReplayOnSeats() async {
        let steps: [Step] = [
            Step(driver: 0, operation: .makeSource(task: 0, held: nil), pause: .none),
            Step(driver: 0, operation: .makeSource(task: 1, held: .success), pause: .none),
            Step(driver: 0, operation: .makeToken(token: 0, linkedTo: nil), pause: .none),
            Step(driver: 1, operation: .registerHandler(handler: 0, token: 0), pause: .none),
            Step(driver: 2, operation: .waitTimeout(task: 1, microseconds: 500), pause: .none),
            Step(driver: 0, operation: .cancel(token: 0), pause: .none),
            Step(driver: 0, operation: .complete(source: 0, outcome: .success, throwing: false), pause: .none),
            Step(driver: 1, operation: .wait(task: 0), pause: .none),
            Step(driver: 2, operation: .cancel(token: 0), pause: .none)
        ]
        for (name, make) in Self.backends where name != "reference" {
            var blocked = false
            for seed in UInt64(0)..<16 {
                let program = Program(seed: seed, drivers: 3, serialExecutors: 0, countingExecutors: 0, steps: steps)
                let first = await Conformance.runProgram(make(), program: program, mode: .controlled(.randomWalk))
                let second = await Conformance.runProgram(make(), program: program, mode: .controlled(.randomWalk))
                #expect(first.findings.isEmpty, "[\(name)] seed \(seed): \(first.findings)")
                #expect(first.notReproducible.isEmpty, "[\(name)] seed \(seed): \(first.notReproducible)")
                #expect(first.eventLines == second.eventLines, "[\(name)] seed \(seed)")
                #expect(first.eventLines.contains { $0.contains("waited(step: 4, task: 1, result: nil)") }, "[\(name)] seed \(seed)")
                let waitStart = first.eventLines.firstIndex { $0.hasSuffix("stepStart(step: 7)") }
                let completion = first.eventLines.firstIndex { $0.contains("completed(task: 0,") }
                if let waitStart, let completion, waitStart < completion { blocked = true }
            }
            #expect(blocked, "[\(name)] no seed ran the wait before the completion it waits for")
        }
    }

    /// Work from outside the harness (here a timer) makes a controlled run "not reproducible",
    /// not a contract failure.
    @Test func aTimerMakesARunNotReproducible() async {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [
                // Long enough that the timer fires after the harness registered its observer, even on
                // a loaded machine: the completion is then logged on the timer's thread.
                Step(driver: 0, operation: .delay(task: 0, microseconds: 20_000, token: nil), pause: .none)
            ])
        let run = await Conformance.runProgram(ReferenceBackend(), program: program, mode: .controlled(.randomWalk))
        #expect(run.findings.isEmpty)
        #expect(!run.notReproducible.isEmpty)
    }

    /// The replay line a failure prints, read back as the environment it sets, runs the same
    /// controlled schedule: the same event log, line by line.
    @Test func aPrintedReplayLineReplaysTheSameEventLog() async {
        let line = Conformance.replayLine(seed: 4242, filter: "X/y", mode: .controlled(.pct(depth: 3)))
        var environment: [String: String] = [:]
        for word in line.split(separator: " ") where word.contains("=") {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            environment[parts[0]] = parts[1]
        }
        let configuration = ConformanceConfiguration.fromEnvironment(environment: environment)
        #expect(configuration.mode == .controlled(.pct(depth: 3)))
        let first = await Conformance.runProgram(
            ReferenceBackend(), seed: configuration.baseSeed, mode: configuration.mode, configuration: configuration)
        let second = await Conformance.runProgram(
            ReferenceBackend(), seed: configuration.baseSeed, mode: configuration.mode, configuration: configuration)
        #expect(first.program.seed == 4242)
        #expect(first.notReproducible.isEmpty)
        #expect(first.eventLines == second.eventLines)
    }

    @Test func modesParseAndPrint() {
        for mode in [ScheduleMode.stress, .mixed, .controlled(.randomWalk), .controlled(.pct(depth: 5))] {
            #expect(ScheduleMode(mode.description) == mode)
        }
        #expect(ScheduleMode("pct") == .controlled(.pct(depth: 3)))
        #expect(
            Conformance.replayLine(seed: 5, filter: "X/y", mode: .controlled(.pct(depth: 3)))
                == "CONFORMANCE_MODE=controlled-pct3 CONFORMANCE_SEED=5 CONFORMANCE_PROGRAMS=1 swift test --filter X/y")
    }
}

/// The shrinker's repairs keep a program runnable.
struct ShrinkingTests {
    /// A failing program shrinks to a few steps that still break the rule, and the shrunk
    /// program is well-formed: it runs on the correct backend without any finding.
    @Test func aShrunkCounterexampleIsSmallAndWellFormed() async {
        var configuration = ConformanceConfiguration(programs: 200, output: { _ in })
        configuration.mode = .controlled(.randomWalk)
        configuration.resourceLinks = 0
        // Room to finish: this test checks what shrinking reaches, not how fast (under the thread
        // sanitizer every candidate runs about ten times slower than the default budget assumes).
        configuration.shrinkTimeBudget = .seconds(120)
        let report = await Conformance.check(ReferenceBackend(.errorReplaced), configuration: configuration)
        let failure = report.failures.first { $0.shrunkSize != nil }
        // The replaced error reads as C3.1 at the body's own task, or as C9.4 at a retry, whose
        // outcome is its last attempt's (the first failing program decides which).
        #expect(failure.map { [.c3_1, .c9_4].contains($0.rule) } == true, "\(failure?.rule.rawValue ?? "no failure")")
        #expect((failure?.shrunkSize ?? 99) < 10)
        #expect(
            failure?.description.contains("shrunk counterexample: \(failure?.shrunkSize ?? -1) steps (from \(failure?.originalSize ?? -1))")
                == true)
    }

    /// Shrinking every generated program of a few seeds by cutting it in half, a step at a time:
    /// the repaired halves run on the correct backend without findings (no false counterexample).
    @Test func repairedCutsRunCleanly() async {
        for seed in UInt64(0)..<30 {
            var program = ProgramGenerator(maxSteps: 60).program(seed: seed)
            program.steps.removeFirst(program.steps.count / 2)
            let run = await Conformance.runProgram(
                ReferenceBackend(), program: Conformance.repaired(program), mode: .controlled(.randomWalk))
            #expect(run.findings.isEmpty, "seed \(seed): \(run.findings)")
        }
    }
}

/// An actors backend on a pool of its own (the shared pool serves every other test too).
enum ActorsBackendTesting {
    static func ownPool() -> any TaskBackend {
        do {
            return try ActorsBackend(maxBlockedThreads: BlockingThreads.defaultLimit)
        } catch {
            preconditionFailure("ActorsBackend(maxBlockedThreads: defaultLimit) is a valid configuration: \(error)")
        }
    }
}
