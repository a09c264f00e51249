import Foundation

/// `bench gate BASELINE.json NEW.json [--max-growth PERCENT]`: CI's check that no per-link
/// instruction count of a backend grew by more than `maxGrowth` percent against a baseline
/// report committed in the repository (docs/results/instructions-baseline.json).
///
/// - Gated: every `instr/link` figure of a backend in the baseline whose run-to-run variation
///   (its `tolerance`) is within `maxGrowth`: the inline chains, which count the same to a
///   link in every run. Each must be in the new report, measured (callgrind did not fail), and
///   at most `maxGrowth` percent above its baseline count. A figure missing from the new report fails: a gate that passes because a
///   case was dropped or a backend not run would hide what it guards.
/// - An improvement beyond `maxGrowth` passes, with a reminder to refresh the baseline so the
///   gain is kept.
/// - Printed as context, not gated: the raw baselines' counts (the closure loop, Dispatch),
///   which measure the toolchain, not this package (a toolchain update moves them and the
///   backends together); figures that vary between runs by more than `maxGrowth` (a chain on
///   the default executor counts its pool's idle workers spinning, which depends on how the
///   threads were scheduled: 2,511 to 2,838 instructions per link for one binary); and
///   figures the baseline does not have yet.
///
/// Instruction counts, unlike times, do not move with the machine's load: the inline chains
/// counted within one instruction per link of each other in two runs of one binary at load 14
/// (docs/BENCHMARKS.md, "The instruction gate").
struct InstructionGate {
    static let unit = "instr/link"
    /// The growth CI allows, in percent.
    static let defaultMaxGrowth = 2.0
    /// The command that rewrites the committed baseline (docs/BENCHMARKS.md).
    static let refreshCommand =
        "swift run -c release bench --quick --instructions --scenarios chain --format json "
        + "--output docs/results/instructions-baseline.json"

    /// One gated figure's outcome.
    enum Outcome: Equatable {
        /// Within the allowed growth (an improvement smaller than it included).
        case within
        /// Cheaper by more than the allowed growth: passes; the baseline should be refreshed.
        case improved
        /// Grew by more than the allowed growth: fails.
        case grew
        /// Not in the new report, or not measured there: fails.
        case missing
    }

    struct Line: Equatable {
        var figure: String
        var outcome: Outcome
        var text: String
    }

    let maxGrowth: Double
    private(set) var lines: [Line] = []
    /// The raw baselines' counts and figures the baseline lacks: printed, not gated.
    private(set) var context: [String] = []

    /// The figures that fail the gate.
    var failures: [Line] { lines.filter { $0.outcome == .grew || $0.outcome == .missing } }
    /// Passes when the baseline gates at least one figure and none failed.
    var passed: Bool { !lines.isEmpty && failures.isEmpty }

    init(baseline: Report, new: Report, maxGrowth: Double = InstructionGate.defaultMaxGrowth) {
        self.maxGrowth = maxGrowth
        func key(_ m: Figure) -> String { m.variant + "|" + m.subject }
        let counts = { (report: Report) in report.results.filter { $0.unit == InstructionGate.unit } }
        let newByKey = Dictionary(counts(new).map { (key($0), $0) }) { first, _ in first }
        let oldKeys = Set(counts(baseline).map(key))
        for old in counts(baseline) {
            let name = "\(old.variant) \(old.subject)"
            guard old.isBackend else {
                context.append("\(name): \(change(from: old.median, to: newByKey[key(old)]))")
                continue
            }
            if let noise = old.tolerance, noise * 100 > maxGrowth {
                context.append(
                    "\(name): \(change(from: old.median, to: newByKey[key(old)])); varies by up to "
                        + "\(plainSignificant(noise * 100))% between runs, so not gated at \(plainSignificant(maxGrowth))%")
                continue
            }
            guard old.median.isFinite, old.median > 0 else {
                lines.append(Line(figure: name, outcome: .missing, text: "\(name): not measured in the baseline"))
                continue
            }
            guard let m = newByKey[key(old)], m.median.isFinite, m.median > 0 else {
                lines.append(Line(figure: name, outcome: .missing, text: "\(name): missing from the new report"))
                continue
            }
            // In counts, not ratios: 816 against 800 is 2 % exactly, not 2.0000000000000018 %.
            let allowed = old.median * maxGrowth / 100
            let delta = m.median - old.median
            let outcome: Outcome = delta > allowed ? .grew : (-delta > allowed ? .improved : .within)
            lines.append(Line(figure: name, outcome: outcome, text: "\(name): \(change(from: old.median, to: m))"))
        }
        for m in counts(new) where !oldKeys.contains(key(m)) {
            context.append("\(m.variant) \(m.subject): \(formatNumber(m.median)) \(InstructionGate.unit), not in the baseline")
        }
    }

    /// `1714 -> 1760 instr/link (+2.7%)`, or why there is no new count.
    private func change(from old: Double, to new: Figure?) -> String {
        guard let new, new.median.isFinite, new.median > 0 else { return "\(formatNumber(old)) -> not measured" }
        let growth = (new.median / old - 1) * 100
        return "\(formatNumber(old)) -> \(formatNumber(new.median)) \(InstructionGate.unit) (\(String(format: "%+.1f", growth))%)"
    }

    /// The report: failures first, then every other gated figure, the context, and a verdict.
    var text: String {
        let limit = "+" + plainSignificant(maxGrowth) + "%"
        var out = "bench gate: per-link instruction counts of each backend, at most \(limit) over the baseline\n"
        for (title, outcome) in [
            ("FAIL (grew more than \(limit))", Outcome.grew), ("FAIL (missing)", .missing),
            ("improved (refresh the baseline to keep it)", .improved), ("ok", .within)
        ] {
            let chosen = lines.filter { $0.outcome == outcome }
            guard !chosen.isEmpty else { continue }
            out += "\n\(title) (\(chosen.count)):\n" + chosen.map { "  \($0.text)\n" }.joined()
        }
        if !context.isEmpty {
            out += "\nnot gated (raw baselines, new figures):\n" + context.map { "  \($0)\n" }.joined()
        }
        if lines.isEmpty {
            out += "\nbench gate: FAILED: the baseline holds no backend instruction count to gate\n"
        } else if passed {
            out += "\nbench gate: passed (\(lines.count) figures)\n"
        } else {
            out += "\nbench gate: FAILED: \(failures.count) of \(lines.count) figures\n"
        }
        if lines.contains(where: { $0.outcome == .improved }) || !passed {
            out += "to accept the new counts as the baseline: \(InstructionGate.refreshCommand)\n"
        }
        return out
    }
}

/// `bench gate`: prints the gate's report; exit status 0 passed, 1 failed or a file unreadable.
func runGate(baseline: String, new: String, maxGrowth: Double) -> Int32 {
    guard let before = readReport(baseline), let after = readReport(new) else { return 1 }
    let gate = InstructionGate(baseline: before, new: after, maxGrowth: maxGrowth)
    print(gate.text, terminator: "")
    return gate.passed ? 0 : 1
}
