import Foundation

/// `bench compare OLD.json NEW.json`: what changed between two runs, judged so that a shared,
/// noisy machine does not invent changes.
///
/// - A timed figure is compared as its cost ratio to the baseline measured in the same run, one
///   ratio per repetition (the repetition's figure divided by the baseline's median; the
///   repetitions of backends and baselines alternate in rounds): when the whole machine is
///   slower, backend and baseline slow down together and the ratio holds.
///   It changed if a Mann-Whitney U test (see `MannWhitney`) finds the two runs' ratios differ
///   with two-sided p < `alpha`, and the median ratio moved by at least `minimumEffect`: the
///   test alone would flag a real but negligible shift, the size alone a lucky draw. The same
///   must hold for the figure itself, in the same direction: on a loaded machine a baseline can
///   swing on its own (raw Dispatch's step chain between 140 and 750 ns/link, the closure loop
///   between 9 and 30 ns/link from one run to the next), moving every ratio to it while the
///   backends' own figures stay put; a change of a backend moves both. And the median ratio
///   must move by more than either run's own repetitions spread (`noiseOf`): repetitions taken
///   in one process are not independent of the run; and by more than the spread of the baseline's
///   own repetitions without their extremes, in either run (`innerNoiseOf`): when the raw code
///   swung that much between processes, the machine was in more than one mode.
/// - Exact figures (instruction, allocation and heap-byte counts, stack depths) changed if they
///   differ by more than their stated tolerance (none for a depth); verdicts if the verdict
///   differs.
/// - Baselines are the yardstick, not tested: how much they moved is printed as how much
///   faster or slower the machine was.
struct Comparison {
    static let alpha = 0.05
    static let minimumEffect = 0.10
    /// Repetitions each run needs for a timed figure to be tested: with fewer, even two runs
    /// that do not overlap at all cannot reach p < 0.05.
    static let minimumRepetitions = 4

    struct Change: Equatable {
        var variant: String
        var subject: String
        var better: Bool
        var text: String
    }

    var old: Report
    var new: Report
    var changes: [Change] = []
    var unchanged = 0
    /// Timed figures with too few repetitions (or none recorded) in a run to be tested.
    var untestable: [String] = []
    /// Exact figures a time limit left undecided in either run.
    var undecided: [String] = []
    var baselines = 0
    var unmatched = 0
    /// Figures present in both runs but measured at different sizes.
    var resized = 0
    /// Scaling points (judged with their curves), and curves whose verdict held.
    var scalingPoints = 0
    var scalingCurves = 0
    /// How much costlier the baselines were in the new run: the geometric mean of their cost
    /// changes (new/old times, old/new rates).
    var machineDrift: Double?

    var better: [Change] { changes.filter(\.better) }
    var worse: [Change] { changes.filter { !$0.better } }

    init(old: Report, new: Report) {
        self.old = old
        self.new = new
        let oldByKey = Dictionary(old.results.map { ($0.variant + "|" + $0.subject, $0) }) { first, _ in first }
        var drifts: [Double] = []
        // Where backends carry a verdict, the baseline's raw figure is only context.
        let verdictVariants = Set(new.results.filter { $0.note.flatMap(verdictOf) != nil }.map(\.variant))
        for m in new.results {
            // A scaling point is judged with its curve (below), not on its own.
            if m.workSize != nil {
                scalingPoints += 1
                continue
            }
            guard let o = oldByKey[m.variant + "|" + m.subject], o.unit == m.unit else {
                unmatched += 1
                continue
            }
            if o.caseName != m.caseName { resized += 1 }
            let label = "\(m.variant) \(m.subject)"
            if let verdict = m.note.flatMap(verdictOf), let before = o.note.flatMap(verdictOf) {
                if verdict == before {
                    unchanged += 1
                } else {
                    changes.append(
                        Change(
                            variant: String(m.variant), subject: m.subject,
                            better: verdict == "back at baseline", text: "\(label): \(before) -> \(verdict)"))
                }
            } else if !m.isBackend && verdictVariants.contains(m.variant) {
                baselines += 1
            } else if isExact(m) && isExact(o) {
                compareExactly(o, m, label: label)
            } else if !m.isBackend {
                baselines += 1
                if m.median > 0, o.median > 0, m.median.isFinite, o.median.isFinite {
                    drifts.append(log(m.lowerIsBetter ? m.median / o.median : o.median / m.median))
                }
            } else {
                compareRatios(o, m, label: label)
            }
        }
        if !drifts.isEmpty { machineDrift = exp(drifts.reduce(0, +) / Double(drifts.count)) }
        compareScaling()
    }

    /// The scaling curves by their verdicts: a curve that turned superlinear is worse, one that
    /// turned linear better; its points, 1 to 3 repetitions each, are not tested one by one.
    private mutating func compareScaling() {
        let before = scalingFindings(old.results)
        for finding in scalingFindings(new.results) {
            guard let o = before.first(where: { $0.series == finding.series && $0.subject == finding.subject }) else {
                continue
            }
            guard o.superlinear != finding.superlinear else {
                scalingCurves += 1
                continue
            }
            let verdict = { (f: ScalingFinding) in f.superlinear ? "SUPERLINEAR" : "linear" }
            changes.append(
                Change(
                    variant: finding.series, subject: finding.subject, better: !finding.superlinear,
                    text: "\(finding.series) \(finding.subject): \(verdict(o)) -> \(verdict(finding)) (\(finding.detail))"))
        }
    }

    private mutating func compareExactly(_ o: Figure, _ m: Figure, label: String) {
        let marker = StackScenario.timeoutMarker
        if (o.note ?? "").contains(marker) || (m.note ?? "").contains(marker) {
            undecided.append(label)
            return
        }
        guard o.median.isFinite, m.median.isFinite, o.median >= 0, m.median >= 0 else {
            unmatched += 1
            return
        }
        let tolerance = max(o.tolerance ?? 0, m.tolerance ?? 0)
        if roundedSignificant(o.median) == roundedSignificant(m.median) || abs(m.median - o.median) <= tolerance * o.median {
            unchanged += 1
            return
        }
        let better = m.lowerIsBetter ? m.median < o.median : m.median > o.median
        changes.append(
            Change(
                variant: String(m.variant), subject: m.subject, better: better,
                text: "\(label): \(formatNumber(o.median)) -> \(formatNumber(m.median)) \(m.unit) (exact)"))
    }

    private mutating func compareRatios(_ o: Figure, _ m: Figure, label: String) {
        guard let before = ratioSamples(o, in: old), let after = ratioSamples(m, in: new),
            before.count >= Comparison.minimumRepetitions, after.count >= Comparison.minimumRepetitions
        else {
            untestable.append(label)
            return
        }
        let test = MannWhitney(before, after)
        let from = Spread(before).median
        let to = Spread(after).median
        let effect = to / from
        // The same test on the figures themselves, as costs (times; 1/rate for rates).
        let cost = { (m: Figure) in (m.values ?? []).filter { $0.isFinite && $0 > 0 }.map { m.lowerIsBetter ? $0 : 1 / $0 } }
        let absolute = MannWhitney(cost(o), cost(m))
        let absoluteEffect = Spread(cost(m)).median / Spread(cost(o)).median
        // Both shifts must also exceed the spread seen inside either run (see `noiseOf`), and what
        // the raw baseline itself did between that run's processes (see `innerNoiseOf`): the
        // ratio's, since a baseline in two modes moves its median and every ratio with it; the
        // figure's, since a backend's small move says nothing where its baseline swung more.
        let needed =
            [
                Comparison.minimumEffect, Comparison.noiseOf(before), Comparison.noiseOf(after),
                baselineNoise(o, in: old), baselineNoise(m, in: new)
            ].max() ?? Comparison.minimumEffect
        let absoluteAgrees =
            absolute.p < Comparison.alpha && abs(absoluteEffect - 1) >= needed
            && (effect > 1) == (absoluteEffect > 1)
        guard test.p < Comparison.alpha, abs(effect - 1) >= needed, absoluteAgrees else {
            unchanged += 1
            return
        }
        let better = effect < 1
        let factor = better ? 1 / effect : effect
        var text = "\(label): \(formatNumber(from))x -> \(formatNumber(to))x vs \(m.baseline ?? "?") "
        text += "(\(formatNumber(factor))x \(better ? "better" : "worse"), p = \(formatNumber(test.p))); "
        text += "median \(formatNumber(o.median)) -> \(formatNumber(m.median)) \(m.unit)"
        if o.caseName != m.caseName { text += " [measured at \(o.caseName) and \(m.caseName)]" }
        changes.append(Change(variant: String(m.variant), subject: m.subject, better: better, text: text))
    }

    /// How far one run's repetitions spread, relative to their median: (max - min) / median.
    ///
    /// A timed figure's repetitions are taken in one process within seconds, so they are not
    /// independent of the run: a background job, the state of a thread pool, where the kernel put
    /// the threads, all last longer than a repetition and move every repetition of a run
    /// together. Two back-to-back runs of one binary then differ by about what one run's
    /// repetitions span when such noise hits it (`chain.pending-inline` on actors went 253 ->
    /// 314 ns/link between two quiet runs, the noisier run spanning 261..413), and the rank test
    /// alone, which assumes independent repetitions, calls that a change. So a change must move
    /// the median ratio by more than either run's own spread. A steady figure (the inline
    /// chains span 1-5%) keeps the 10% floor; a figure whose run was disturbed is judged by
    /// what the disturbance did to it.
    static func noiseOf(_ ratios: [Double]) -> Double {
        let spread = Spread(ratios)
        guard spread.median > 0, spread.median.isFinite else { return 0 }
        return (spread.max - spread.min) / spread.median
    }

    /// How far the baseline's repetitions spread without their fastest and slowest, relative to
    /// their median: (second largest - second smallest) / median; 0 with fewer than 4.
    ///
    /// The timed cases take each repetition in a process of its own (see `Isolated`), so
    /// the baseline's repetitions show how many modes the machine was in for that kind of work
    /// during the run: the raw serial Dispatch hop took 2.4, 3.7, 3.8, 24 and 27 us in the
    /// five processes of one run on a loaded machine, while a backend's five processes of the same
    /// rounds all landed in the slow mode and, in the run before, all in the fast one. A backend's
    /// move smaller than its raw baseline's own swing in the same run says nothing. Without the
    /// extremes, one preempted repetition does not count as a mode (a steady baseline, like the
    /// closure loop, keeps a spread of a few percent); two do.
    static func innerNoiseOf(_ values: [Double]) -> Double {
        let sorted = values.filter(\.isFinite).sorted()
        guard sorted.count >= 4 else { return 0 }
        let median = Spread(sorted).median
        guard median > 0 else { return 0 }
        return (sorted[sorted.count - 2] - sorted[1]) / median
    }

    /// `innerNoiseOf` the values of `m`'s baseline in `report`; 0 if there is none.
    func baselineNoise(_ m: Figure, in report: Report) -> Double {
        guard let name = m.baseline,
            let b = report.results.first(where: { $0.variant == m.variant && $0.subject == name })
        else { return 0 }
        return Comparison.innerNoiseOf(b.values ?? [])
    }

    /// One cost ratio per repetition of `m`, to its baseline's median in the same run. The
    /// median, not the baseline's repetition of the same round: a baseline repetition can be a
    /// millisecond, and one preemption makes it several times slower, which a paired ratio would
    /// carry over whole; the rounds (see `RoundRobin`) already keep that median contemporary.
    func ratioSamples(_ m: Figure, in report: Report) -> [Double]? {
        guard let values = m.values, let name = m.baseline,
            let b = report.results.first(where: { $0.variant == m.variant && $0.subject == name }),
            b.median.isFinite, b.median > 0
        else { return nil }
        let ratios = values.filter { $0.isFinite && $0 > 0 }.map { m.lowerIsBetter ? $0 / b.median : b.median / $0 }
        return ratios.isEmpty ? nil : ratios
    }

    /// Counts rather than times: a single measurement, or a figure with a stated tolerance.
    private func isExact(_ m: Figure) -> Bool {
        m.repetitions == 1 || m.tolerance != nil
    }
}

/// "back at baseline" or "NOT back at baseline" from a memory-return note, else `nil`.
func verdictOf(_ note: String) -> String? {
    for verdict in ["NOT back at baseline", "back at baseline"] where note.hasPrefix(verdict) { return verdict }
    return nil
}

extension Comparison {
    /// The comparison as people read it: both runs' machines first, then what changed.
    var text: String {
        var out = "compare: \(old.date) -> \(new.date)\n"
        for (name, report) in [("old", old), ("new", new)] {
            out += "  \(name): \(report.quick ? "--quick" : "default run"), \(formatNumber(report.durationSeconds)) s; "
            out += "\(report.machine.cores) cores, \(report.machine.cpu), \(report.machine.os), \(report.machine.toolchain); "
            out += "load average \(formatNumber(report.machine.loadAverage)) at start"
            out += report.loadAverageEnd.map { ", \(formatNumber($0)) at end" } ?? ""
            out += "\n"
        }
        for (name, report) in [("old", old), ("new", new)] {
            let peak = max(report.machine.loadAverage, report.loadAverageEnd ?? 0)
            if peak > Double(report.machine.cores) {
                out += "warning: the \(name) run's load average (\(formatNumber(peak))) exceeded its "
                out += "\(report.machine.cores) cores: the machine was shared; trust ratios and exact counts, not times\n"
            }
        }
        let differences = machineDifferences
        if !differences.isEmpty {
            out += "note: the runs come from different machines (\(differences.joined(separator: "; "))): "
            out += "ratios and counts compare, absolute times do not\n"
        }
        if old.quick != new.quick { out += "note: one run is --quick and the other is not: sizes differ\n" }
        if resized > 0 { out += "note: \(resized) figures were measured at different sizes in the two runs\n" }
        if let drift = machineDrift {
            out += "baselines (the yardstick, not tested) cost \(formatNumber(drift))x their old figures on the geometric mean\n"
        }
        out += "method: per-repetition cost ratios to the same run's baseline, Mann-Whitney U, two-sided "
        out += "p < \(formatNumber(Comparison.alpha)) and a change of \(Int(Comparison.minimumEffect * 100))% or more, "
        out += "and beyond the spread of either run's repetitions and of its baseline's (without extremes), "
        out += "for the ratio and for the figure itself, in the same direction; "
        out += "exact figures must be equal within their tolerance (instruction counts 0.5% inline, 10% on a "
        out += "thread pool; memory counts 5%)\n"
        out += "better beyond the noise (\(better.count)):\n" + list(better.map(\.text))
        out += "worse beyond the noise (\(worse.count)):\n" + list(worse.map(\.text))
        out += "within the noise: \(unchanged); baselines: \(baselines); only in one report or not comparable: \(unmatched)\n"
        if !untestable.isEmpty {
            out += "not tested (fewer than \(Comparison.minimumRepetitions) repetitions in a run, or none recorded): "
            out += untestable.joined(separator: ", ") + "\n"
        }
        if !undecided.isEmpty { out += "undecided (a time limit cut a run): \(undecided.joined(separator: ", "))\n" }
        if scalingPoints > 0 {
            out += "scaling: \(scalingPoints) points judged by their curves' verdicts (linear or superlinear); "
            out += "\(scalingCurves) curves kept theirs\n"
        }
        return out
    }

    /// What differs between the two machines, e.g. `cores 2 vs 8`.
    var machineDifferences: [String] {
        let a = old.machine
        let b = new.machine
        var out: [String] = []
        if a.cores != b.cores { out.append("cores \(a.cores) vs \(b.cores)") }
        if a.cpu != b.cpu { out.append("cpu \(a.cpu) vs \(b.cpu)") }
        if a.os != b.os { out.append("os \(a.os) vs \(b.os)") }
        if a.toolchain != b.toolchain { out.append("toolchain \(a.toolchain) vs \(b.toolchain)") }
        return out
    }

    private func list(_ lines: [String]) -> String {
        lines.isEmpty ? "  none\n" : lines.map { "  " + $0 + "\n" }.joined()
    }
}

/// Reads a JSON report written by `--format json`.
func loadReport(_ path: String) throws -> Report {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return try JSONDecoder().decode(Report.self, from: data)
}
