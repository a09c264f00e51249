import Foundation
import Testing

@testable import bench

/// `--instructions`' plan (issue 30, item 3: instruction counts where a wall-clock figure cannot
/// settle): which figures a run counts, each backend against which baseline, with which child.
@Suite struct CountedCaseTests {
    static let backends = ["gcd", "threads", "actors"]

    @Test("the chains are counted in every run; the fan-out only when the run measures it")
    func fanOutOnlyWithItsScenario() {
        let chains = InstructionCounts.cases(scenarios: ["chain"]).map(\.name)
        #expect(chains == ["chain-completed-inline", "chain-completed-default", "chain-pending-inline"])
        let withFanout = InstructionCounts.cases(scenarios: ["hop", "fanout"]).map(\.name)
        #expect(withFanout == chains + ["fanout-whenAll"])
        let withAwait = InstructionCounts.cases(scenarios: ["fanout", "await"]).map(\.name)
        #expect(withAwait == chains + ["fanout-whenAll", "await-run-value", "await-completed-value"])
    }

    @Test("an await is counted by the timed scenario's child; the pending one against its matching continuation")
    func awaitCases() throws {
        let pending = try #require(CountedCase.awaits.first)
        let completed = try #require(CountedCase.awaits.last)
        #expect(pending.child("gcd", 1_000) == [Isolated.command, AwaitScenario.runValue, "gcd", "1000", "0"])
        #expect(completed.child("actors", 20_000) == [Isolated.command, AwaitScenario.completedValue, "actors", "20000", "0"])
        #expect(pending.jobs(backends: Self.backends).filter { $0.kind == .backend }.map(\.baseline) == ["swift", "pthreads", "swift"])
        #expect(completed.jobs(backends: Self.backends).map(\.subject) == ["swift"] + Self.backends)
        #expect(pending.caseName == "instructions.await-run-value@1k-2k")
        #expect(completed.caseName == "instructions.await-completed-value@20k-40k")
        // The pending round trip leaves out the kit pool's idle worker's wait for its next job.
        #expect(pending.excludedFunctions == ["*ThreadPoolC7nextJob*"])
        #expect(completed.excludedFunctions.isEmpty)
        for counted in CountedCase.awaits {
            #expect(counted.unit == "instr/await" && counted.unit != InstructionGate.unit)
            // A completed task's await counts the same every time: once; a pending round trip
            // moves with callgrind's interleaving of the threads: the median of three.
            let completedOnce = counted.name == completed.name
            #expect(counted.repetitions == (completedOnce ? 1 : InstructionCounts.poolRepetitions))
            // Both children exist: the variant is an isolated case.
            #expect(Isolated.makers[counted.child("gcd", 1)[1]] != nil)
        }
    }

    @Test("a fanned-out task is divided by its backend's own raw baseline, each baseline counted once")
    func fanOutBaselines() {
        let jobs = CountedCase.fanout.jobs(backends: Self.backends)
        #expect(jobs.filter { $0.kind == .baseline }.map(\.subject) == ["dispatch", "pthreads", "swift"])
        let backendJobs = jobs.filter { $0.kind == .backend }
        #expect(backendJobs.map(\.subject) == Self.backends)
        #expect(backendJobs.map(\.baseline) == ["dispatch", "pthreads", "swift"])
        // Only the baselines of the backends measured.
        #expect(CountedCase.fanout.jobs(backends: ["threads"]).map(\.subject) == ["pthreads", "threads"])
    }

    @Test("a fanned-out task's count leaves out the waits (polls, the pool's wait, a mutex's slow paths), no chain's does")
    func fanOutLeavesOutTheWaits() {
        #expect(
            CountedCase.fanout.excludedFunctions == [
                "*QueuePollers*poll*", "*ThreadPoolC7nextJob*", "*_MutexHandle*_lockSlow*", "*_MutexHandle*_unlockSlow*"
            ])
        for counted in InstructionCounts.chainCases { #expect(counted.excludedFunctions.isEmpty) }
        // Each pattern names a function: a kit one by its mangled name, a mutex's by the
        // Synchronization module's (matched with fnmatch, as `bench` matches them against `nm`).
        let symbols = [
            "$s10BackendKit12QueuePollersV4pollSbyF",
            "$s10BackendKit10ThreadPoolC7nextJob33_7A7A2FA83C3B739A8FF88DF951642333LLAA0F4RingV4SlotVSgyF",
            "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF",
            "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"
        ]
        for (pattern, symbol) in zip(CountedCase.fanout.excludedFunctions, symbols) {
            #expect(fnmatch(pattern, symbol, 0) == 0, "\(pattern) does not match \(symbol)")
        }
    }

    @Test("a chain's baseline is the same subject for every backend, and counted even with no backend")
    func chainBaselines() {
        let pending = CountedCase.chain("pending-inline", baseline: "closure")
        #expect(pending.jobs(backends: Self.backends).map(\.subject) == ["closure"] + Self.backends)
        #expect(pending.jobs(backends: Self.backends).compactMap(\.baseline) == ["closure", "closure", "closure"])
        #expect(pending.jobs(backends: []).map(\.subject) == ["closure"])
    }

    @Test("each case's child, unit, sizes and case name; only the chains are gated")
    func childAndFigure() {
        let fanout = CountedCase.fanout
        #expect(fanout.child("gcd", 10_000) == [Isolated.command, "fanout.whenAll", "gcd", "10000", "0"])
        #expect(fanout.unit == "instr/task")
        #expect(fanout.large == 2 * fanout.small)
        #expect(fanout.caseName == "instructions.fanout-whenAll@10k-20k")
        #expect(fanout.chainCase == nil)
        // `bench gate` gates `instr/link` figures whose tolerance is within its limit.
        #expect(fanout.unit != InstructionGate.unit)
        let pending = CountedCase.chain("pending-inline", baseline: "closure")
        #expect(pending.child("gcd", 2_000) == [ChainProbe.command, "pending-inline", "gcd", "2000"])
        #expect(pending.unit == InstructionGate.unit)
        #expect(pending.caseName == "instructions.chain-pending-inline@2k-4k")
        #expect(pending.tolerance * 100 <= 2)
        let onPool = CountedCase.chain("completed-default", baseline: "dispatch")
        #expect(onPool.repetitions == InstructionCounts.poolRepetitions)
        // A pool's chain at sizes where an idle worker's spin moves the figure by little.
        #expect(onPool.caseName == "instructions.chain-completed-default@20k-40k")
        #expect(onPool.tolerance * 100 > 2)
    }
}
