import BackendGCD
import Testing
@testable import bench

/// The `BENCH_SLOWDOWN` hook that checks `bench compare` end to end (docs/BENCHMARKS.md) must
/// really add the work it claims; that compare then reports it is `CompareTests`' job.
@Suite struct SlowdownTests {
    @Test func theHookAddsTheWorkItClaims() {
        let backend = GCDBackend()
        let links = 5_000
        // The fastest of several runs: what preemption on a shared machine cannot inflate.
        func fastest(_ extra: UInt64) -> Double {
            (0..<7).map { _ in ChainScenario.completedChain(backend, backend.inlineExecutor, links, extraNanos: extra).seconds }
                .min() ?? .nan
        }
        let plain = fastest(0)
        let extra = UInt64(0.2 * plain * 1e9 / Double(links))
        let slowed = fastest(extra)
        #expect(slowed / plain > 1.15, "plain \(plain) s, slowed \(slowed) s")
        #expect(ChainScenario.completedChain(backend, backend.inlineExecutor, 100, extraNanos: extra).ok)
    }

    @Test func parses() {
        #expect(Slowdown("gcd:20")?.backend == "gcd")
        #expect(Slowdown("gcd:20")?.fraction == 0.2)
        #expect(Slowdown("gcd") == nil)
        #expect(Slowdown("gcd:-5") == nil)
        #expect(Slowdown(nil) == nil)
    }
}
