import BackendGCD
import Testing

@testable import bench

/// The `BENCH_SLOWDOWN` hook that checks `bench compare` end to end (docs/BENCHMARKS.md) must
/// really add the work it claims; that compare then reports it is `CompareTests`' job.
@Suite struct SlowdownTests {
    /// Deterministic lower bounds only: a chain of `links` slowed links takes at least
    /// `links * extra` nanoseconds more busy work than it did, whatever the machine's load (a
    /// loaded machine can only make it slower). Timing the ratio itself is `bench`'s job.
    @Test func theHookAddsTheWorkItClaims() {
        let backend = GCDBackend()
        let links = 2_000
        let extra: UInt64 = 5_000
        let slowed = ChainScenario.completedChain(backend, backend.inlineExecutor, links, link: ChainScenario.link(extra))
        #expect(slowed.ok)
        #expect(slowed.seconds * 1e9 >= Double(links) * Double(extra), "slowed chain took \(slowed.seconds) s")
        let start = monotonicNanos()
        spin(nanos: 200_000)
        #expect(monotonicNanos() - start >= 200_000)
        #expect(ChainScenario.link(0) == .plain)
        #expect(ChainScenario.link(extra) == .slowed(SlowedLink.Work(spinNanos: extra)))
        #expect(Slowdown.countedLink(iterations: 100) == .slowed(SlowedLink.Work(iterations: 100)))
        SlowedLink.install(Slowdown.countedLink(iterations: 100))
        #expect(SlowedLink.step(41) == 42)
        let counted = ChainScenario.pendingChain(backend, backend.inlineExecutor, links, link: Slowdown.countedLink(iterations: 10))
        #expect(counted.ok, "a chain of counted slowed links gave a wrong value")
    }

    @Test func parses() {
        #expect(Slowdown("gcd:20")?.backend == "gcd")
        #expect(Slowdown("gcd:20")?.fraction == 0.2)
        #expect(Slowdown("gcd") == nil)
        #expect(Slowdown("gcd:-5") == nil)
        #expect(Slowdown(nil) == nil)
    }
}
