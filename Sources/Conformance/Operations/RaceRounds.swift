import Dispatch
import Foundation
import Synchronization
import TaskAPI

extension ProgramOperation {
    /// `race <pair> ×rounds`: `rounds` times, the driver and a partner thread of the step's own
    /// meet at a spin barrier and at once make the two calls of `pair`, on objects made fresh for
    /// the round; after both returned, the round is judged (`RaceRoundsRun`). A race inside the
    /// backend (a check and an act in two critical sections, a flag read before a lock) has a
    /// window of a few hundred nanoseconds; calls that start together land in it far more often
    /// than steps of different drivers do. In stress programs only (the partner is a thread of the
    /// harness's own): a backend that is not schedule-instrumented gets no schedule point inside
    /// a `wait()`, a `cancel()` or a start, so its lost wake-ups and double runs are found here.
    public struct RaceRounds: OutsideWorkProbe, FormattedOperation {
        /// The two calls of a round, the partner's first.
        public enum Pair: String, Sendable, Hashable, CaseIterable {
            /// The partner `wait()`s on a source's task as the driver completes it: the wait
            /// returns the outcome (C6.1).
            case waitComplete = "wait() × trySucceed"
            /// The same with `wait(timeout:)`: not nil, the task completed long before the
            /// deadline (C6.2).
            case waitTimeoutComplete = "wait(timeout:) × trySucceed"
            /// The partner registers a handler on a token as the driver cancels its source: the
            /// handler has run exactly once when both calls returned (C4.2).
            case registerCancel = "register × cancel()"
            /// Both `tryStart()` one prepared task: exactly one wins, and the body runs once (C9.3).
            case startStart = "tryStart() × tryStart()"
            /// Both `tryStart()` one source's task: exactly one wins (C1.5).
            case sourceStartStart = "source tryStart() × tryStart()"
            /// Both hand jobs to one serial executor: no two run at once, each thread's in the
            /// order handed over, each once (C7.2, C7.3).
            case serialJobs = "serial.execute × serial.execute"

            /// The rules a round of this pair checks.
            var rules: [Rule] {
                switch self {
                case .waitComplete: return [.c6_1]
                case .waitTimeoutComplete: return [.c6_2]
                case .registerCancel: return [.c4_2]
                case .startStart: return [.c9_3]
                case .sourceStartStart: return [.c1_5]
                case .serialJobs: return [.c7_2, .c7_3]
                }
            }
        }

        public var pair: Pair = .waitComplete
        public var rounds = 0

        static let format: StepFormat<Self> = "race \(\.pair) ×\(\.rounds)"

        static func generate(into program: inout ProgramBuilder) {
            let pair = Pair.allCases[program.rng.below(Pair.allCases.count)]
            program.add(.raceRounds(RaceRounds(pair: pair, rounds: program.rng.int(in: 20...60))))
        }

        var neverWaits: Bool { false }
        /// The partner is a thread of the harness's own, outside any controlled run.
        var outsideWork: OutsideWork { .duringStep }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            switch pair {
            case .waitComplete: return [.makeSourceOf, .sourceTask, .trySucceed, .wait]
            case .waitTimeoutComplete: return [.makeSourceOf, .sourceTask, .trySucceed, .waitTimeout]
            case .registerCancel: return [.makeCancellationSource, .token, .tokenRegister, .cancel]
            case .startStart: return [.inlineExecutor, .prepare, .preparedTryStart, .preparedTask, .waitTimeout]
            case .sourceStartStart: return [.makeSourceOf, .sourceTask, .tryStart, .trySucceed]
            case .serialJobs: return [.makeSerialExecutor, .execute]
            }
        }

        /// A round that went wrong: the rule, and what was expected and seen.
        public struct Loss: Sendable, Hashable {
            public let round: Int
            public let rule: Rule
            public let what: String
            public let expected: String
            public let observed: String
        }

        /// Runs the rounds until one goes wrong; logs how many ran and the first that went wrong.
        func perform(in execution: ProgramExecution, step: Int) {
            // A call whose counterpart returned microseconds ago returns within far less than 2 s,
            // even under the thread sanitizer; a longer limit would run into the run's hang limit,
            // and the finding would read as a hang (C2.1) instead of the round's rule.
            let run = RaceRoundsRun(pair: pair, backend: execution.backend, limit: min(execution.timingSlack, .seconds(2)))
            var ran = 0
            var loss: Loss?
            while ran < rounds, loss == nil {
                loss = run.round(ran)
                ran += 1
                // A round logs no event: the mark tells the watchdog the step is going on.
                execution.log.markProgress()
            }
            run.finish()
            execution.log.append(.raceRoundsRan(step: step, rounds: ran, loss: loss))
        }
    }

    public static func raceRounds(_ pair: RaceRounds.Pair, rounds: Int) -> Self { .raceRounds(RaceRounds(pair: pair, rounds: rounds)) }
}

extension ProgramOperation.RaceRounds {
    /// Every round of two calls started at once went as the contract says whichever came first
    /// (C6.1, C6.2, C4.2, C9.3, C1.5, C7.2, C7.3: the pair's rule).
    func judgeProbe(_ event: EventKind, step: Int, slack: Duration) -> ProbeJudgement? {
        guard case .raceRoundsRan(_, let rounds, let loss) = event else { return nil }
        guard let loss else { return ProbeJudgement(exercised: pair.rules) }
        return ProbeJudgement(
            exercised: pair.rules,
            findings: [
                Finding(
                    loss.rule, "step \(step) (\(self)), round \(loss.round + 1) of \(rounds): \(loss.what)",
                    expected: loss.expected, observed: loss.observed)
            ])
    }
}
