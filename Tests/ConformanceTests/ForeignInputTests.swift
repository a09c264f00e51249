import TaskAPI
import Testing

/// A combinator takes `[any AsyncTask<T>]`, so its inputs may be tasks of another backend: one
/// without BackendKit (the reference backend) or another kit backend. The kit joins a kit task's
/// core directly and any other task through `whenComplete`; these tests hold each backend's
/// combinators to C5.1-C5.3 and C2.6 with foreign inputs, alternating the inputs' classes so that
/// the kit's test for its own tasks (the last class seen) meets a foreign class right after one
/// of its own. The rule suite checks the same of any backend (contract 1.4, `ForeignInputs`),
/// with a task class of Conformance's own; these give the kit the real tasks of other backends.
@Suite struct ForeignInputTests {
    struct Boom: Error {}

    /// The foreign backends a kit backend's combinators are given tasks of.
    static func foreign(besides name: String) -> [any TaskBackend] {
        [ReferenceBackend()] + PackageBackends.names.filter { $0 != name }.map(PackageBackends.make)
    }

    @Test(
        "C5.1 whenAll given tasks of another backend: values in input order, a foreign failure or cancellation at once",
        arguments: PackageBackends.names)
    func whenAllTakesForeignTasks(name: String) {
        let ours = PackageBackends.make(name)
        for other in Self.foreign(besides: name) {
            let late = other.makeSource(of: Int.self)
            let all = ours.whenAll([other.run { _ in 1 }, ours.run { _ in 2 }, late.task, other.completed(.success(4))])
            late.trySucceed(3)
            #expect(all.wait(timeout: .seconds(10))?.value == [1, 2, 3, 4], "\(name) given \(other.name)'s tasks")

            let failing = other.makeSource(of: Int.self)
            let held = ours.makeSource(of: Int.self)
            let failed = ours.whenAll([held.task, failing.task])
            failing.tryFail(Boom())
            #expect(failed.wait(timeout: .seconds(10))?.error is Boom, "\(name) given \(other.name)'s failure")

            let cancelling = other.makeSource(of: Int.self)
            let cancelled = ours.whenAll([cancelling.task, held.task])
            cancelling.tryCancel()
            #expect(cancelled.wait(timeout: .seconds(10))?.isCancelled == true, "\(name) given \(other.name)'s cancellation")
            held.trySucceed(0)
        }
    }

    @Test("C5.1 whenAll alternating its own and foreign tasks, 200 joins of 8", arguments: PackageBackends.names)
    func whenAllAlternatesClasses(name: String) {
        let ours = PackageBackends.make(name)
        for other in Self.foreign(besides: name) {
            for round in 0..<200 {
                let inputs: [any AsyncTask<Int>] = (0..<8).map { i in
                    (i + round).isMultiple(of: 2) ? ours.run { _ in i } : other.run { _ in i }
                }
                let values = ours.whenAll(inputs).wait(timeout: .seconds(10))?.value
                #expect(values == Array(0..<8), "\(name) given \(other.name)'s tasks, round \(round)")
                if values != Array(0..<8) { return }
            }
        }
    }

    @Test("C5.2, C5.3, C2.6: whenAllSettled, race, any and flatMap given tasks of another backend", arguments: PackageBackends.names)
    func otherCombinatorsTakeForeignTasks(name: String) {
        let ours = PackageBackends.make(name)
        for other in Self.foreign(besides: name) {
            let settled = ours.whenAllSettled([other.completed(.failure(Boom())), ours.run { _ in 2 }])
                .wait(timeout: .seconds(10))?.value
            #expect(
                settled?.count == 2 && settled?[0].error is Boom && settled?[1].value == 2,
                "\(name) given \(other.name)'s tasks: whenAllSettled")

            let held = ours.makeSource(of: Int.self)
            let raced = ours.race([other.run { _ in 7 }, held.task])
            #expect(raced.wait(timeout: .seconds(10))?.value == 7, "\(name) given \(other.name)'s tasks: race")
            held.trySucceed(0)

            let first = ours.any([ours.completed(.failure(Boom())), other.run { _ in 8 }])
            #expect(first.wait(timeout: .seconds(10))?.value == 8, "\(name) given \(other.name)'s tasks: any")

            let flat = ours.run { _ in 20 }.flatMap { x in other.run { _ in x + 1 } }
            #expect(flat.wait(timeout: .seconds(10))?.value == 21, "\(name) given \(other.name)'s task: flatMap")
        }
    }
}
