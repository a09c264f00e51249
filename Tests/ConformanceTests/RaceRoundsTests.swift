import Conformance
import Foundation
import Testing

/// Race rounds (`ProgramOperation.RaceRounds`): two calls started at once, many times, in stress
/// programs. Each pair is shown to catch the race it is for, planted in the reference backend with
/// no schedule point and nothing widening its window (the kind of bug issue 22's held-out mutants
/// had: a lost wake-up in `wait(timeout:)`, a handler run twice when `register` races `cancel`, a
/// start won twice, a serial executor letting one job in 50 run beside the others), and to find
/// nothing on the correct backend.
struct RaceRoundsTests {
    /// One program of one `raceRounds` step on `backend`, in stress mode: the rules it broke.
    static func rules(_ pair: ProgramOperation.RaceRounds.Pair, rounds: Int, on backend: ReferenceBackend) async -> [Rule] {
        let program = Program(
            seed: 1, drivers: 1, serialExecutors: 0, countingExecutors: 0,
            steps: [Step(driver: 0, operation: .raceRounds(pair, rounds: rounds), pause: .none)])
        return await Conformance.runProgram(backend, program: program, mode: .stress).findings.map(\.rule)
    }

    /// The correct backend passes 200 rounds of every pair.
    @Test(arguments: ProgramOperation.RaceRounds.Pair.allCases)
    func theCorrectBackendPasses(_ pair: ProgramOperation.RaceRounds.Pair) async {
        let rules = await Self.rules(pair, rounds: 200, on: ReferenceBackend())
        #expect(rules.isEmpty, "\(pair): \(rules)")
    }

    /// Each planted race is found under its rule, within 20 programs of 200 rounds (a race's
    /// window is hit in a fraction of rounds; a program that misses it finds nothing, and the next
    /// one tries again).
    @Test(arguments: [
        (ProgramOperation.RaceRounds.Pair.waitTimeoutComplete, Mutation.lostWakeupInTimedWait, Rule.c6_2),
        (.waitComplete, .lostWakeupInWait, .c6_1),
        (.registerCancel, .handlerRunTwiceOnRace, .c4_2),
        (.sourceStartStart, .tryStartChecksThenStarts, .c1_5),
        (.serialJobs, .serialOneInFiftyParallel, .c7_2)
    ])
    func aPlantedRaceIsFound(_ pair: ProgramOperation.RaceRounds.Pair, _ mutation: Mutation, _ rule: Rule) async {
        var programs = 0
        var found: [Rule] = []
        while programs < 20, found.isEmpty {
            programs += 1
            found = await Self.rules(pair, rounds: 200, on: ReferenceBackend(mutation))
        }
        #expect(found.contains(rule), "\(mutation) with \(pair): found \(found) in \(programs) programs")
        print(
            "race rounds \(pair.rawValue): \(mutation) found (\(found.map(\.rawValue).joined(separator: " "))) in \(programs) of 20 programs of 200 rounds"
        )
    }
}
