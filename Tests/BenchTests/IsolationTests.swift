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
