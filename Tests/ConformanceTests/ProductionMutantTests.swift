#if PlantedBugs
@_spi(Testing) import BackendActors
@_spi(Testing) import BackendGCD
import BackendKit
import BackendThreads
import Conformance
import Foundation
import ScheduleKit
import TaskAPI
import Testing

/// Bugs planted in the package's own production code (each module's `PlantedBug` enum, compiled
/// only under the package trait `PlantedBugs`, planted in the one backend a test makes): races inside executors, pools and waiters, which
/// only the seated engine sees (every synchronization a schedule point, blocking included). Each
/// must be killed from a seed in controlled mode with the default budget, under one of its rules,
/// and its replay line (seed and mode, on a new backend) must reproduce it exactly: the same
/// finding and the same event log, twice.
@Suite(.serialized)
struct ProductionMutantTests {
    /// Each mutant: the rules it breaks (any one must be among the rules a failing program was
    /// reported breaking, as `MutantTests` counts a kill: `MutantKill`), and the backend it is
    /// planted in, configured so that the race does not depend on the machine (how many
    /// processors, hence drainers or workers, it has): one drainer, one worker, so that one thread
    /// in the window is every thread (with two, a push must land while both are in theirs, a
    /// schedule in several hundred programs). Adding one: a case of its module's `PlantedBug`
    /// enum, its branch in the production code (under `#if PlantedBugs`), and a row here.
    static let productionMutants: [PlantedBugID: (rules: Set<Rule>, backend: @Sendable () -> any TaskBackend)] = [
        // A waiter that checks and sleeps in two critical sections sleeps for good when the
        // completion lands between them: the stuck report names it (C6.3); a timed one sleeps to
        // its deadline, returning late on the run's clock (C6.2).
        PlantedBugID(KitPlantedBug.waiterChecksThenSleeps): ([.c6_1, .c6_3, .c6_2], { ThreadsBackend() }),
        // A lost job: its task never completes although everything it depends on did (C2.1), or,
        // when its task completed otherwise (a token cancelled it), the job's closure and the
        // captures it holds are never released (C8.1, C8.2).
        PlantedBugID(GCDPlantedBug.drainerEndsInTwoSections): ([.c2_1, .c7_3, .c8_1, .c8_2], { GCDBackend(drainers: 1) }),
        // One worker: a push between its empty look at the queue and its parking is lost (C2.1),
        // or kept unrun (C8.1, C8.2), as above.
        PlantedBugID(KitPlantedBug.poolParksWithoutRecheck): ([.c2_1, .c7_3, .c8_1, .c8_2], { Self.singleWorkerPool() }),
        // A timed wait that sleeps through its wake-up returns the outcome at its deadline: on the
        // run's clock, later than the completion (C6.2). Any pool: the race is the waiter's.
        PlantedBugID(KitPlantedBug.waiterSleepsToDeadline): ([.c6_2], { Self.singleWorkerPool() }),
        // One worker, parked: the push wakes it before its job is queued, it parks again, and the
        // job is lost (C2.1) or kept unrun (C8.1, C8.2).
        PlantedBugID(KitPlantedBug.poolSignalsBeforePush): ([.c2_1, .c7_3, .c8_1, .c8_2], { Self.singleWorkerPool() }),
        // Two workers, so that the second drain has a thread to run beside the first: two jobs of
        // one serial executor at once (C7.2), or the later one first (C2.4), as for the mailbox.
        PlantedBugID(ThreadsPlantedBug.serialEndsBeforeLastJob): ([.c7_2, .c2_4], { Self.pool(workers: 2) }),
        // A message pushed between the drain's empty look and its plain store is dropped: its job
        // never runs (C2.1) or its closure is kept (C8.1, C8.2). One worker, as for the pool.
        PlantedBugID(ActorsPlantedBug.mailboxGivesUpBlindly): ([.c2_1, .c7_3, .c8_1, .c8_2], { ActorsBackend(workers: 1) }),
        // Two workers, so that the second drain runs beside the first (C7.2), or, started while
        // the first one's thread is between giving up and running its message, before it: a
        // continuation on the mailbox runs before one registered earlier (C2.4).
        PlantedBugID(ActorsPlantedBug.mailboxGivesUpBeforeLastMessage): ([.c7_2, .c2_4], { ActorsBackend(workers: 2) }),
        // A handler dropped by a cancellation between the check and the store never runs (C4.2).
        // When it is a linked source's handler, that source is never cancelled: its token reads
        // false after a cancel() of its lineage returned (C4.1), a checkpoint on it does not throw
        // (C4.4), a body under it starts (C4.3); a prepared task whose token's handler is lost is
        // never cancelled before start, and stays pending for good (C2.1).
        PlantedBugID(TaskAPIPlantedBug.registerChecksCancelApart): ([.c4_2, .c4_1, .c4_4, .c4_3, .c2_1], { Self.singleWorkerPool() }),
        // A handler run by the cancellation and again by register (C4.2: exactly once).
        PlantedBugID(TaskAPIPlantedBug.registerRunsHandlerAgain): ([.c4_2], { Self.singleWorkerPool() }),
        // A second cancel() returns while the first one's handlers still run (C4.1).
        PlantedBugID(TaskAPIPlantedBug.secondCancelSkipsWait): ([.c4_1], { Self.singleWorkerPool() }),
        // Two racing starts both return true (C9.3).
        PlantedBugID(TaskAPIPlantedBug.preparedStartChecksApart): ([.c9_3], { Self.singleWorkerPool() }),
        // The source's first inline whenComplete runs after a later continuation (C2.4).
        PlantedBugID(KitPlantedBug.inlineBodyHandedLast): ([.c2_4], { Self.singleWorkerPool() }),
        // Inline work registered while inline work runs runs before it ends (C2.7).
        PlantedBugID(KitPlantedBug.inPlaceInsideInlineWork): ([.c2_7], { Self.singleWorkerPool() }),
        // A continuation registered from inside a continuation runs before one registered
        // earlier on the same task (C2.4); when it is inline work registered inside inline work,
        // it runs before that work ends instead of queued behind it (C2.7).
        PlantedBugID(KitPlantedBug.nestedRegistrationOvertakes): ([.c2_4, .c2_7], { Self.singleWorkerPool() })
    ]

    /// A threads backend whose pool has one worker.
    static func singleWorkerPool() -> any TaskBackend { pool(workers: 1) }

    /// A threads backend whose pool has `workers` workers.
    static func pool(workers: Int) -> any TaskBackend {
        do {
            return try ThreadsBackend(workers: workers)
        } catch {
            preconditionFailure("ThreadsBackend(workers: \(workers)) is a valid configuration: \(error)")
        }
    }

    /// Every planted bug of every module.
    static let allPlanted: [PlantedBugID] =
        TaskAPIPlantedBug.allCases.map(PlantedBugID.init) + KitPlantedBug.allCases.map(PlantedBugID.init)
        + GCDPlantedBug.allCases.map(PlantedBugID.init) + ThreadsPlantedBug.allCases.map(PlantedBugID.init)
        + ActorsPlantedBug.allCases.map(PlantedBugID.init)

    @Test(arguments: allPlanted)
    func controlledModeKillsAndReplays(mutant: PlantedBugID) async throws {
        let planted = try #require(Self.productionMutants[mutant], "\(mutant) has no row in productionMutants")
        // PRODUCTION_MUTANTS=a,b runs only those (for measuring or debugging a few).
        if let only = ProcessInfo.processInfo.environment["PRODUCTION_MUTANTS"],
            !only.split(separator: ",").contains(Substring(mutant.name))
        {
            return
        }
        let make: @Sendable () -> any TaskBackend = { PlantedBugSwitch.planting(mutant) { planted.backend() } }
        var configuration = MutantTests.configuration(atLeastTheDefaultBudget: true)
        configuration.mode = .controlled(.randomWalk)
        // Shrinking is not what is tested here (a kill, its rule and its exact replay are): 2 s of
        // it instead of MutantTests' 5 keep 15 cases within about a minute.
        configuration.shrinkTimeBudget = .seconds(2)
        let report = await Conformance.check(makeBackend: make, configuration: configuration)
        if report.skippedForReplay != nil { return }
        #expect(report.description.contains("controlled on seats"), "\(report.description.prefix(400))")
        // Killed as MutantTests counts it: a rule of the row among every rule the failing program
        // was reported breaking (`MutantKill`); a first rule the row does not list is a known issue.
        let kill = try #require(
            MutantKill(report, expected: planted.rules),
            "\(mutant): found \(report.failures.map(\.rules)) in \(report.programsRun) programs (base seed \(report.baseSeed))\n\(report.description)"
        )
        kill.recordDrift(of: mutant.name, expected: planted.rules)
        let failure = kill.failure
        #expect(failure.mode.isControlled)
        #expect(failure.notReproducible.isEmpty, "\(failure.notReproducible)")
        // A stuck run's report names every seat and what it is blocked on (a lost job found as a
        // leak is not a stuck run: the phase ended, the job's closure outlived it; nor is a wrong
        // order or count, found at quiescence).
        if failure.message.hasPrefix("controlled run stuck") {
            #expect(failure.observed.contains("seats: "), "\(failure.observed)")
        }
        // The replay line's program, twice, each on a new backend with the mutant planted.
        await ExactReplay.expect(failure, on: make)
        let seconds = Double(report.duration.components.seconds) + Double(report.duration.components.attoseconds) / 1e18
        print(
            "production mutant \(mutant): killed in controlled mode, \(kill.rules) in \(report.programsRun) programs, "
                + String(format: "%.1f", seconds) + " s, replayed exactly (\(failure.mode), seed \(failure.seed))"
                + (failure.shrunkSize.map { ", shrunk to \($0) steps" } ?? ""))
    }
}
#else
import Testing

/// The planted bugs are compiled only under the package trait `PlantedBugs`: without it there is
/// nothing to plant, and this suite says so instead of passing silently.
@Suite struct ProductionMutantTests {
    @Test(.disabled("the planted bugs are compiled only under the package trait PlantedBugs: run `swift test --traits PlantedBugs`"))
    func controlledModeKillsAndReplays() {}
}
#endif
