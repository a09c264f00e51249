import Foundation

/// How late a timed operation may fire, or a cancelled await return, before the timing checks
/// call it a bug (C4.6, C4.7, C5.4, C6.2, C6.4), when the configuration does not say
/// (`ConformanceConfiguration.timingSlack`, `CONFORMANCE_TIMING_SLACK`). Generous: the machine
/// may be loaded.
public enum TimingSlack {
    /// 2 s, or 10 s under the thread sanitizer, which slows every thread hand-off several times over.
    public static let standard: Duration = underThreadSanitizer ? .seconds(10) : .seconds(2)

    /// Whether the process runs under the thread sanitizer (its runtime is linked in).
    public static let underThreadSanitizer: Bool = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
}
