import Conformance
import ScheduleKit
import TaskAPI
import Testing

/// A printed program reads back (issue 22, point 6): a shrunk program is no seed's, so its replay
/// line runs its text (`CONFORMANCE_PROGRAM_FILE`), which `Program(parsing:)` reads.
///
/// Serialized: the stress replay's programs block bodies of the reference backend on Dispatch's
/// pool, where the shrunk replay's controlled runs hand their default-executor jobs, which then
/// wait past the watchdog (CONFORMANCE.md, Known limits); since issue 29's `mapKeepingType`
/// steps, the program of seed 3 ends with such a job, and ran into it at every run side by side.
@Suite(.serialized) struct ProgramTextTests {
    /// Every generated program, of every kind of operation, reads back as itself.
    @Test("the text form of every generated program reads back as the same program")
    func everyProgramReadsBack() throws {
        var kinds: Set<OperationKind> = []
        for seed in UInt64(0)..<400 {
            for outside in [true, false] {
                var generator = ProgramGenerator()
                generator.usesOutsideWork = outside
                let program = generator.program(seed: seed)
                let read = try Program(parsing: program.description)
                #expect(read == program, "seed \(seed):\n\(program)\nread back as\n\(read)")
                if read != program { return }
                kinds.formUnion(program.steps.map(\.operation.kind))
            }
        }
        #expect(
            kinds == Set(OperationKind.allCases),
            "kinds never generated, so never read back: \(Set(OperationKind.allCases).subtracting(kinds))")
    }

    /// Issue 28, parameter spaces: retries with outside work draw their backoff's kind (fixed or
    /// exponential) and an exponential one's multiplier (×1.0, ×1.5, ×2.0, ×3.0); each reads back.
    @Test("generated retries draw every backoff kind and multiplier, and their text reads back")
    func retryBackoffsCoverTheirRange() throws {
        var growths: Set<Int?> = []
        for seed in UInt64(0)..<1_000 {
            var generator = ProgramGenerator()
            generator.usesOutsideWork = true
            let program = generator.program(seed: seed)
            for step in program.steps {
                guard case .retry(let retry) = step.operation, retry.backoffMicroseconds != nil else { continue }
                growths.insert(retry.backoffGrowth)
            }
            #expect(try Program(parsing: program.description) == program)
        }
        #expect(growths == Set([nil] + ProgramOperation.Retry.growths.map { $0 }), "drawn: \(growths)")
    }

    @Test("text edited by hand reads: blank lines, comments, no step numbers, a stale steps= count")
    func handEditedText() throws {
        let text = """
            # the shrunk counterexample, one step deleted
            program seed=13234815669151533555 drivers=2 serial=1 counting=1 steps=4

               0 d0 t0 = run(on: counting0) { returns }
            d0 t1 = t0.finally(on: serial0) { throwsCancellation }  ~sleep(12us)
               3 d1 t3 = t0.finally(on: serial0) { checkpoint }  ~yield(2)
            """
        let program = try Program(parsing: text)
        #expect(program.seed == 13_234_815_669_151_533_555 && program.drivers == 2 && program.serialExecutors == 1)
        #expect(program.steps.count == 3 && program.steps[1].pause == .sleep(microseconds: 12) && program.steps[2].driver == 1)
        #expect(
            program.steps[1].operation
                == .chain(task: 1, kind: .finally, antecedent: 0, executor: .serial(0), token: nil, body: .throwsCancellation))
    }

    @Test("text that does not read is an error naming the line")
    func badTextIsAnError() {
        let cases: [(String, Int, String)] = [
            ("", 1, "no program"),
            ("prog seed=1", 1, "expected the header"),
            ("program seed=1 drivers=1 serial=0 counting=0 steps=1\n   0 d0 t0 = makeSauce()", 2, "no step of the harness reads so"),
            ("program seed=1 drivers=1 serial=0 counting=0 steps=1\n   0 d0 t0 = makeSource(of: Int.self)  ~nap(3)", 2, "no step"),
            (
                "program seed=1 drivers=1 serial=0 counting=0 steps=1\n   0 d3 t0 = makeSource(of: Int.self)", 1,
                "more drivers than the header's"
            )
        ]
        for (text, line, reason) in cases {
            #expect(throws: ProgramParseError.self, "\(text)") { try Program(parsing: text) }
            do {
                _ = try Program(parsing: text)
            } catch let error as ProgramParseError {
                #expect(error.line == line && error.reason.contains(reason), "\(error)")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }
}

extension ProgramTextTests {
    /// The shrunk counterexample's own replay line: its program written to a file, run again in
    /// the shrunk mode (same schedule seed) through `CONFORMANCE_PROGRAM_FILE`, breaks the same rule.
    @Test("a shrunk program prints its own replay line, which runs exactly it again")
    func aShrunkProgramReplays() async throws {
        var configuration = ConformanceConfiguration(baseSeed: 3, programs: 200, output: { _ in })
        configuration.resourceLinks = 0
        configuration.mode = .controlled(.pct(depth: 3))
        configuration.maxFailingPrograms = 1
        configuration.shrinkTimeBudget = .seconds(3)
        let report = await Conformance.check(makeBackend: { ReferenceBackend(.lifoContinuations) }, configuration: configuration)
        let failure = try #require(report.failures.first { $0.shrunkProgram != nil }, "\(report)")
        let line = try #require(failure.shrunkReplay)
        #expect(failure.description.contains("\n  replay: \(line)"), "the report prints it under the shrunk counterexample")
        let environment = ReplayAndShardTests.environment(of: line)
        #expect(environment["CONFORMANCE_MODE"] == "\(failure.shrunkMode ?? failure.mode)" && environment["CONFORMANCE_SEED"] == nil)
        var replay = ConformanceConfiguration.fromEnvironment(environment: environment)
        #expect(replay.environmentErrors.isEmpty, "\(replay.environmentErrors)")
        #expect(replay.replayProgram == failure.shrunkProgram, "the file holds exactly the shrunk program")
        replay.output = { _ in }
        replay.shrinkTimeBudget = .zero
        let again = await Conformance.check(makeBackend: { ReferenceBackend(.lifoContinuations) }, configuration: replay)
        #expect(again.programsRun == 1 && again.failures.first?.rule == failure.rule, "\(again)")
        #expect(again.failures.first?.program == failure.shrunkProgram && again.failures.first?.mode == failure.shrunkMode)
        #expect(again.failures.first?.replay == line, "a failure of the replayed file replays the same way")

        let bad = ConformanceConfiguration.fromEnvironment(environment: ["CONFORMANCE_PROGRAM_FILE": "/no/such/file"])
        #expect(bad.environmentErrors.contains { $0.hasPrefix("CONFORMANCE_PROGRAM_FILE=/no/such/file") }, "\(bad.environmentErrors)")
    }
}

extension ProgramTextTests {
    /// A replay of a stress failure runs its program again until it fails, up to
    /// `replayAttempts` (a race may not come back at the first run), and says how many it took.
    @Test("a stress replay runs its program until it fails, up to replayAttempts, and says how many runs")
    func aStressReplayRetries() async throws {
        let program = try Program(
            parsing: """
                program seed=1 drivers=1 serial=0 counting=0 steps=3
                   0 d0 t0 = makeSource(of: Int.self)
                   1 d0 t0.tryComplete(.success)
                   2 d0 t0.tryComplete(.failure)
                """)
        let made = Locked(0)
        var configuration = ConformanceConfiguration(output: { _ in })
        configuration.replayProgram = program
        configuration.replaying = "reference"
        configuration.mode = .stress
        configuration.shrinkTimeBudget = .zero
        // The backend breaks C1.2 from its third program run on (the first one made names the check).
        let report = await Conformance.check(
            makeBackend: {
                made.withLock {
                    $0 += 1; return $0
                } >= 4 ? ReferenceBackend(.twoTrySetWinners) : ReferenceBackend()
            }, configuration: configuration)
        #expect(report.programsRun == 1 && report.failures.first?.rule == .c1_2, "\(report)")
        #expect(
            report.replayNote == "reproduced a failure at run 3 of at most 10" && report.replayReproduced == true
                && report.description.contains("  replay: reproduced a failure at run 3"), "\(report)")

        configuration.replayAttempts = 2
        made.withLock { $0 = 0 }
        let short = await Conformance.check(
            makeBackend: {
                made.withLock {
                    $0 += 1; return $0
                } >= 4 ? ReferenceBackend(.twoTrySetWinners) : ReferenceBackend()
            }, configuration: configuration)
        #expect(
            short.passed && short.replayReproduced == false
                && short.replayNote?.hasPrefix("not reproducible: 2 runs found nothing") == true
                && short.description.contains("passed, but not reproducible"), "\(short)")
    }
}
