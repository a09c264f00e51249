/// Round-robin repetitions: every subject of a case (its baselines and each backend) runs once to
/// warm up, then the repetitions go in rounds of one run of each subject in turn. A subject's
/// i-th repetition is thus measured at about the same time as its baseline's i-th, so a load
/// change on a shared machine hits the baseline's median as much as the backend's repetitions,
/// and the cost ratios that `bench compare` tests hold where back-to-back blocks would not.
struct RoundRobin {
    /// One subject of a case: `run(n)` times `n` items and says whether the result was right.
    struct Subject {
        let name: String
        let kind: Measurement.Kind
        let baseline: String?
        let run: (_ n: Int) -> (seconds: Double, ok: Bool)
    }

    /// What one subject measured: the size it ran at (the budget may cut it), and each timed run.
    struct Outcome {
        let subject: Subject
        let size: Int
        let runs: [(seconds: Double, ok: Bool)]
        var ok: Bool { runs.allSatisfy(\.ok) && warmOK }
        let warmOK: Bool
    }

    let plan: Plan

    /// Warms every subject up at `warmSize`, fits its size (down to `floor`) and repetitions to
    /// the budget, then runs the rounds; a subject that fits fewer repetitions drops out of the
    /// later rounds.
    func measure(_ subjects: [Subject], nominal: Int, floor: Int, warmSize: Int, repetitions: Int) -> [Outcome] {
        let warm = subjects.map { $0.run(warmSize) }
        let fits = zip(subjects, warm).map { _, w in
            plan.fit(nominal: nominal, floor: floor, repetitions: repetitions,
                     secondsPerItem: w.seconds / Double(Swift.max(warmSize, 1)))
        }
        var runs = [[(seconds: Double, ok: Bool)]](repeating: [], count: subjects.count)
        for round in 0..<(fits.map(\.repetitions).max() ?? 0) {
            for (index, subject) in subjects.enumerated() where fits[index].repetitions > round {
                runs[index].append(subject.run(fits[index].size))
            }
        }
        return subjects.indices.map {
            Outcome(subject: subjects[$0], size: fits[$0].size, runs: runs[$0], warmOK: warm[$0].ok)
        }
    }
}

extension Measurement {
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
