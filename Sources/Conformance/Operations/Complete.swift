import TaskAPI

extension ProgramOperation {
    /// A setter on `source`'s task: `tryComplete` with a completion, or (`named`) `trySucceed`,
    /// `tryFail`, `tryCancel`; `throwing`: `complete`, or `succeed`, `fail`, `cancel`, which
    /// throw when they lose (C1.2, C1.3). A `Void` source's success is `trySucceed()` or
    /// `succeed()`. Called by the driver or from inside a `host` (a continuation or a job).
    public struct Complete: TasklessOperation {
        public var source: Int
        public var outcome: SetterOutcome
        public var throwing: Bool
        /// The named setters instead of `tryComplete`/`complete`.
        public var named: Bool
        /// The source is a `Void` one (`MakeSource.void`).
        public var void: Bool
        /// Where the setter is called from (nil: the driver).
        public var host: CallHost?

        public init(source: Int, outcome: SetterOutcome, throwing: Bool, named: Bool = false, void: Bool = false, host: CallHost? = nil) {
            self.source = source
            self.outcome = outcome
            self.throwing = throwing
            self.named = named
            self.void = void
            self.host = host
        }

        public var description: String {
            hostPrefix(host) + "t\(source).\(call)" + (void ? " of Void" : "")
        }

        /// The setter's call as the step prints it: `tryComplete(.success)`, `trySucceed(v)`, `fail(e)`...
        var call: String {
            guard named else { return "\(throwing ? "complete" : "tryComplete")(.\(outcome.rawValue))" }
            let (name, argument): (String, String)
            switch outcome {
            case .success: (name, argument) = ("succeed", void ? "" : "v")
            case .failure: (name, argument) = ("fail", "e")
            case .cancel: (name, argument) = ("cancel", "")
            }
            return throwing ? "\(name)(\(argument))" : "try\(name.prefix(1).uppercased())\(name.dropFirst())(\(argument))"
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                let host = s.hostPrefix()
                guard let source = s.id("t"), s.take(".") else { return nil }
                var text = s.rest
                let void = text.hasSuffix(" of Void")
                if void { text = text.dropLast(" of Void".count) }
                for outcome in SetterOutcome.allCases {
                    for throwing in [false, true] {
                        for named in [false, true] {
                            let setter = Self(source: source, outcome: outcome, throwing: throwing, named: named, void: void, host: host)
                            if setter.call == text, s.take(String(s.rest)) { return setter }
                        }
                    }
                }
                return nil
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { program.hasSources ? 18 : 0 }

        /// One setter, or a burst of up to three from different drivers racing on one source
        /// (C1.2); now and then one from inside a host, which leaves its source open (a later
        /// driver's setter may still complete it, so a blocking wait never waits on the host).
        static func generate(into program: inout ProgramBuilder) {
            let preferOpen = !program.openSources.isEmpty && (program.completedSources.isEmpty || program.rng.chance(75))
            guard let source = program.rng.pick(preferOpen ? program.openSources : program.completedSources) else { return }
            let void = program.voidSources.contains(source)
            if program.rng.chance(12) {
                let host = program.host()
                program.add(
                    .complete(
                        Complete(
                            source: source, outcome: program.setterOutcome(), throwing: program.rng.chance(30),
                            named: program.rng.chance(50), void: void, host: host)))
                program.hostedSetters.insert(source)
                return
            }
            let count = program.rng.chance(30) ? program.rng.int(in: 2...3) : 1
            for _ in 0..<count {
                program.add(
                    .complete(
                        Complete(
                            source: source, outcome: program.setterOutcome(), throwing: program.rng.chance(30),
                            named: program.rng.chance(50), void: void)))
            }
            if let index = program.openSources.firstIndex(of: source) {
                program.openSources.remove(at: index)
                program.completedSources.append(source)
            }
        }

        var uses: [Use] { [.source(source)] + (host?.antecedent.map { [.task($0)] } ?? []) }
        func renumbered(_ ids: Renumbering) -> Self {
            Self(source: ids.task(source), outcome: outcome, throwing: throwing, named: named, void: void, host: host?.renumbered(ids))
        }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            let call: EntryPoint
            switch (named, throwing, outcome) {
            case (false, false, _): call = .tryComplete
            case (false, true, _): call = .complete
            case (true, false, .success): call = void ? .trySucceedVoid : .trySucceed
            case (true, false, .failure): call = .tryFail
            case (true, false, .cancel): call = .tryCancel
            case (true, true, .success): call = void ? .succeedVoid : .succeed
            case (true, true, .failure): call = .fail
            case (true, true, .cancel): call = .cancelSource
            }
            return [call] + (host?.entryPoints ?? [])
        }
        var setter: SourceSetter? { SourceSetter(source: source, throwing: throwing, outcome: outcome, void: void) }

        /// The source is taken by the driver (a release waits for it), the setter called where
        /// the host says.
        func perform(in execution: ProgramExecution, step: Int) {
            guard let completionSource = execution.slots.source(source) else { return }
            let (log, payloads, setter, t) = (execution.log, execution.payloads, self, source)
            execution.hosted(host, step: step) {
                payloads.write(step)
                let value = ProgramValues.value(step: step)
                if setter.throwing {
                    do {
                        if setter.named {
                            try completionSource.named(setter.outcome, value: value)
                        } else {
                            try completionSource.complete(setter.outcome, value: value)
                        }
                        log.append(.setter(step: step, source: t, won: true, threw: nil))
                    } catch {
                        log.append(.setter(step: step, source: t, won: false, threw: ErrorValue(error)))
                    }
                } else {
                    let won =
                        setter.named
                        ? completionSource.tryNamed(setter.outcome, value: value)
                        : completionSource.tryComplete(setter.outcome, value: value)
                    log.append(.setter(step: step, source: t, won: won, threw: nil))
                }
            }
        }
    }

    /// A setter on `source`'s task (`throwing`: `complete`, else `tryComplete`).
    public static func complete(source: Int, outcome: SetterOutcome, throwing: Bool) -> Self {
        .complete(Complete(source: source, outcome: outcome, throwing: throwing))
    }
}
