/// Round-robin repetitions: every subject of a case (its baselines and each backend) runs once to
/// warm up, then the repetitions go in rounds of one run of each subject in turn. A subject's
/// i-th repetition is thus measured at about the same time as its baseline's i-th, so a load
/// change on a shared machine hits the baseline's median as much as the backend's repetitions,
/// and the cost ratios that `bench compare` tests hold where back-to-back blocks would not.
struct RoundRobin {
    /// One subject of a case: `run(n)` times `n` items and says whether the result was right.
    struct Subject {
        let name: String
        let kind: Figure.Kind
        let baseline: String?
        let run: (_ n: Int) -> (seconds: Double, ok: Bool)
    }

    /// What one subject measured: the size it ran at (the budget may cut it), and each timed run.
    struct Outcome {
        let subject: Subject
        let size: Int
        let runs: [(seconds: Double, ok: Bool)]
        var ok: Bool { runs.allSatisfy(\.ok) && warmOK && lostRepetitions == 0 }
        let warmOK: Bool
        /// Isolated repetitions whose child process failed: not in `runs`, and the outcome not ok.
        var lostRepetitions = 0
    }

    let plan: Plan

    /// How an isolated round takes its subjects' repetitions: each in a child process of its own,
    /// each backend with its baseline in one, or all of them in one.
    enum Grouping: Sendable {
        case alone, pairs, together
    }

    /// The subjects of one isolated round (`taking`, indices into `subjects`) by child process:
    /// `.alone` each alone; `.pairs` each backend with its baseline (the first backend that names a
    /// baseline takes it; both at one size, or each alone); `.together` all of one size in one.
    static func groups(_ subjects: [Subject], _ taking: [Int], sizes: [Int], grouping: Grouping) -> [[Int]] {
        switch grouping {
        case .alone: return taking.map { [$0] }
        case .together:
            var bySize: [[Int]] = []
            for index in taking {
                if let at = bySize.firstIndex(where: { sizes[$0[0]] == sizes[index] }) {
                    bySize[at].append(index)
                } else {
                    bySize.append([index])
                }
            }
            return bySize
        case .pairs: break
        }
        var claimed = Set<Int>()
        var groups: [[Int]] = []
        for index in taking where subjects[index].kind == .backend {
            let partner = taking.first {
                subjects[$0].kind == .baseline && subjects[$0].name == subjects[index].baseline && sizes[$0] == sizes[index]
            }
            if let partner, !claimed.contains(partner) {
                claimed.insert(partner)
                groups.append([index, partner])
            } else {
                groups.append([index])
            }
        }
        return groups + taking.filter { subjects[$0].kind == .baseline && !claimed.contains($0) }.map { [$0] }
    }

    /// Warms every subject up at `warmSize`, fits its size (down to `floor`) and repetitions to
    /// the budget, then runs the rounds; a subject that fits fewer repetitions drops out of the
    /// later rounds. With `isolated`, the case's variant, and a plan that isolates, each timed
    /// repetition runs in a child process of its own (see `Isolated`), warmed up there first.
    func measure(
        _ subjects: [Subject], nominal: Int, floor: Int, warmSize: Int, repetitions: Int,
        isolated variant: String? = nil, grouping: Grouping = .alone
    ) -> [Outcome] {
        func fit(_ seconds: Double) -> (size: Int, repetitions: Int) {
            plan.fit(
                nominal: nominal, floor: floor, repetitions: repetitions,
                secondsPerItem: seconds / Double(Swift.max(warmSize, 1)))
        }
        var warm = subjects.map { $0.run(warmSize) }
        // A cut decided from one warm-up can be a cold start's (a pool's first threads, a first
        // use of the backend in this process): before cutting, warm up once more and fit from
        // the faster of the two, so that two runs of one binary keep the same sizes.
        for index in subjects.indices where fit(warm[index].seconds).size != nominal {
            let again = subjects[index].run(warmSize)
            warm[index] = (Swift.min(warm[index].seconds, again.seconds), warm[index].ok && again.ok)
        }
        let fits = warm.map { fit($0.seconds) }
        var runs = [[(seconds: Double, ok: Bool)]](repeating: [], count: subjects.count)
        var lost = [Int](repeating: 0, count: subjects.count)
        for round in 0..<(fits.map(\.repetitions).max() ?? 0) {
            let taking = subjects.indices.filter { fits[$0].repetitions > round }
            guard let variant, plan.isolates else {
                for index in taking { runs[index].append(subjects[index].run(fits[index].size)) }
                continue
            }
            for group in Self.groups(subjects, taking, sizes: fits.map(\.size), grouping: grouping) {
                let names = group.map { subjects[$0].name }.joined(separator: Isolated.pairSeparator)
                let child = Isolated.repetition(variant, subject: names, size: fits[group[0]].size, warm: warmSize)
                guard child.values.count == group.count else {
                    for index in group { lost[index] += 1 }
                    continue
                }
                for (index, seconds) in zip(group, child.values) { runs[index].append((seconds, child.ok)) }
            }
        }
        return subjects.indices.map {
            Outcome(
                subject: subjects[$0], size: fits[$0].size, runs: runs[$0], warmOK: warm[$0].ok,
                lostRepetitions: lost[$0])
        }
    }
}

extension RoundRobin {
    /// One case of a scenario in rounds: notes its subjects and `work` (what a subject's run
    /// does) in the progress, measures them (`measure`, with the repetitions `bench compare`
    /// needs to test a figure; `isolated`, the case's variant), then stops what they started.
    static func measureCase(
        _ scenario: String, _ made: (subjects: [Subject], stop: () -> Void), work: String, _ context: ScenarioContext,
        nominal: Int, floor: Int, warmSize: Int, isolated variant: String, grouping: Grouping = .alone
    ) -> [Outcome] {
        defer { made.stop() }
        Progress.note("\(scenario): \(made.subjects.map(\.name).joined(separator: ", ")), \(work), \(context.plan.isolatedRounds)")
        return RoundRobin(plan: context.plan).measure(
            made.subjects, nominal: nominal, floor: floor, warmSize: warmSize,
            repetitions: context.plan.rounds, isolated: variant, grouping: grouping)
    }
}

extension Figure {
    /// Sets the note from `notes`, led by the budget cut when the case measured `size` items
    /// instead of `nominal` (its name already says `size`; `size` is then also set).
    mutating func annotate(size: Int, nominal: Int, items: String, _ notes: [String?]) {
        var all: [String] = []
        if size != nominal {
            self.size = size
            all.append("cut from \(sizeLabel(nominal)) \(items) to fit the time budget")
        }
        all += notes.compactMap { $0 }
        note = all.isEmpty ? nil : all.joined(separator: "; ")
    }
}
