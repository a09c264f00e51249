import Conformance

extension Step {
    /// Driver `driver`'s steps that chain `links` maps, tasks `firstTask`... in order, the first
    /// on `antecedent`, each on the one before, their bodies run on serial executor 0 (a slow
    /// backend's long chain: one job a link).
    static func mapChain(driver: Int, from antecedent: Int, firstTask: Int, links: Int) -> [Step] {
        (firstTask..<firstTask + links).map { t in
            let previous = t == firstTask ? antecedent : t - 1
            return Step(
                driver: driver,
                operation: .chain(task: t, kind: .map, antecedent: previous, executor: .serial(0), token: nil, body: .returns),
                pause: .none)
        }
    }
}
