import TaskAPI

extension RuleSuite {
    /// C7.2's "one job at a time" for serial executors, by jobs that hold on long enough for an
    /// executor running two at once to show it (`ExclusionProbe`).
    enum C7SerialExclusion {
        /// Rounds per way of queuing the second job, and how long the first waits for it: a
        /// correct serial executor costs rounds × hold per way (0.4 s in all).
        static let rounds = 10
        static let hold = Duration.milliseconds(20)

        static func oneJobAtATime(_ c: RuleContext) throws {
            let serial = c.backend.makeSerialExecutor(label: "c7.2-one-at-a-time")
            for handOff in [false, true] {
                let probe = ExclusionProbe.run(rounds: rounds, hold: hold, handOff: handOff) { serial.execute($0) }
                probe.judge(
                    c, call: ExclusionProbe.call("serial", hold: hold, handOff: handOff, rounds: rounds),
                    executor: "a serial executor")
            }
        }
    }
}
