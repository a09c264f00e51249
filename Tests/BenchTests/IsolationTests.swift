import Testing

@testable import bench

/// The cross-thread cases take each timed repetition in a child process of its own in a default
/// run (docs/BENCHMARKS.md, "Trusting a comparison"); these check the parent's side of that
/// protocol and that every isolated case can be rebuilt by name in a child.
@Suite struct IsolationTests {
    @Test func aDefaultRunIsolatesAndQuickDoesNot() {
        #expect(Plan(quick: false, cores: 2, budget: 1).isolates)
        #expect(!Plan(quick: true, cores: 2, budget: 1).isolates)
    }

    @Test func aChildsOutputIsReadOrRefused() {
        let read = Isolated.parse("ok 0.25 1.5\n", exitStatus: 0)
        #expect(read.ok && read.values == [0.25, 1.5])
        let wrong = Isolated.parse("wrong 3\n", exitStatus: 1)
        #expect(!wrong.ok && wrong.values == [3])
        // A crashed child, garbage, or no figure at all: no values, so the repetition is lost
        // rather than measured as zero.
        for (output, status) in [("ok 1", Int32(134)), ("ok 1 x", 0), ("ok", 0), ("", 0), ("1.0", 0)] {
            let refused = Isolated.parse(output, exitStatus: status)
            #expect(!refused.ok && refused.values.isEmpty, "\(output) / \(status)")
        }
    }

    @Test func everyIsolatedCaseRebuildsItsSubjectsByName() {
        let context = ScenarioContext(backends: Array(backendRegistry.prefix(1)), plan: Plan(quick: true, cores: 2, budget: 1))
        let backend = backendRegistry[0].name
        for (variant, maker) in Isolated.makers {
            switch maker {
            case .rounds(let make):
                let (subjects, stop) = make(context)
                #expect(subjects.contains { $0.name == backend }, "\(variant)")
                #expect(subjects.contains { $0.kind == .baseline }, "\(variant)")
                stop()
            case .samples(let make):
                let (specs, stop) = make(context, 0)
                // The child finds its sampler by variant and subject.
                #expect(specs.contains { $0.caseName.hasPrefix(variant + "@") && $0.subject == backend }, "\(variant)")
                stop()
            }
        }
    }

    @Test func aChildRefusesWhatItCannotMeasure() {
        #expect(Isolated.main([]) == 2)
        #expect(Isolated.main(["no.such-case", "gcd", "10", "1"]) == 2)
        #expect(Isolated.main(["contention.register-race", "no-such-subject", "10", "1"]) == 2)
        #expect(Isolated.main(["contention.register-race", "pthreads", "0", "1"]) == 2)
    }
}

/// How an isolated round groups its subjects into child processes (`RoundRobin.Grouping`).
@Suite struct RoundGroupingTests {
    static func subject(_ name: String, baseline: String? = nil) -> RoundRobin.Subject {
        RoundRobin.Subject(name: name, kind: baseline == nil ? .baseline : .backend, baseline: baseline) { _ in (0, true) }
    }

    static var subjects: [RoundRobin.Subject] {
        [
            subject("swift"), subject("pthreads"), subject("gcd", baseline: "swift"), subject("threads", baseline: "pthreads"),
            subject("actors", baseline: "swift")
        ]
    }

    @Test("alone: a process each; together: one process for all of one size")
    func aloneAndTogether() {
        let all = Array(Self.subjects.indices)
        let sizes = [10, 10, 10, 10, 10]
        #expect(RoundRobin.groups(Self.subjects, all, sizes: sizes, grouping: .alone) == all.map { [$0] })
        #expect(RoundRobin.groups(Self.subjects, all, sizes: sizes, grouping: .together) == [all])
        // A subject the budget cut to another size runs in a process of its own size.
        #expect(RoundRobin.groups(Self.subjects, all, sizes: [10, 5, 10, 10, 5], grouping: .together) == [[0, 2, 3], [1, 4]])
        // Only the subjects still taking rounds.
        #expect(RoundRobin.groups(Self.subjects, [0, 2], sizes: sizes, grouping: .together) == [[0, 2]])
    }

    @Test("pairs: each backend with its baseline; a baseline taken by an earlier backend leaves the next one alone")
    func pairs() {
        let all = Array(Self.subjects.indices)
        let groups = RoundRobin.groups(Self.subjects, all, sizes: [10, 10, 10, 10, 10], grouping: .pairs)
        #expect(groups == [[2, 0], [3, 1], [4]])
        // Different sizes do not pair.
        #expect(RoundRobin.groups(Self.subjects, all, sizes: [10, 10, 5, 10, 10], grouping: .pairs) == [[2], [3, 1], [4, 0]])
    }
}
