import TaskAPI

extension ProgramOperation {
    /// `t<task> = makeSource(of: Int.self)` (or `makeSource()` with the type inferred, or
    /// `makeTask { source in }`): a new completion source, of `Int`, or of `Void` (`void`). A held
    /// source is completed by the harness only after every driver finished, with `held`'s outcome.
    public struct MakeSource: TaskOperation {
        /// Which entry point makes the source.
        public enum Form: String, Sendable, Hashable {
            /// `makeSource(of:)`: in debug builds the overload recording where the source was made (C8.3).
            case ofType
            /// The `makeSource(of:)` requirement itself (a function reference): it records no origin.
            case requirement
            /// `makeSource()`, its type taken from the context.
            case inferred
            /// `makeTask { source in }`: the source is handed to a closure, which keeps it.
            case makeTask
        }

        public var task: Int
        public var held: SetterOutcome?
        public var form: Form
        /// A source of `Void` (its setters' `trySucceed()` and `succeed()`), logged as `success(0)`.
        public var void: Bool

        public init(task: Int, held: SetterOutcome?, form: Form = .ofType, void: Bool = false) {
            self.task = task
            self.held = held
            self.form = form
            self.void = void
        }

        public var description: String {
            let type = void ? "Void" : "Int"
            let call: String
            switch form {
            case .ofType: call = "makeSource(of: \(type).self)"
            case .requirement: call = "(makeSource(of:))(\(type).self)"
            case .inferred: call = "makeSource() as \(type)"
            case .makeTask: call = "makeTask { source of \(type) }"
            }
            return "t\(task) = \(call)" + (held.map { " held(\($0.rawValue))" } ?? "")
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = ") else { return nil }
                let forms: [(Form, String, String)] = [
                    (.ofType, "makeSource(of: ", ".self)"), (.requirement, "(makeSource(of:))(", ".self)"),
                    (.inferred, "makeSource() as ", ""), (.makeTask, "makeTask { source of ", " }")
                ]
                guard let (form, _, close) = forms.first(where: { s.take($0.1) }) else { return nil }
                let void = s.take("Void")
                guard void || s.take("Int"), s.take(close) else { return nil }
                var held: SetterOutcome?
                if s.take(" held(") {
                    guard let outcome = s.oneOf(SetterOutcome.self), s.take(")") else { return nil }
                    held = outcome
                }
                return Self(task: task, held: held, form: form, void: void)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 14 }

        static func generate(into program: inout ProgramBuilder) {
            let held: SetterOutcome? = program.rng.chance(15) ? program.setterOutcome() : nil
            let task = program.nextTask
            let form = [Form.ofType, .requirement, .inferred, .makeTask][program.rng.weighted([50, 10, 20, 20])]
            let void = program.rng.chance(12)
            program.addTask(
                .makeSource(MakeSource(task: task, held: held, form: form, void: void)), sources: [task], held: held != nil,
                intValued: !void)
            if void { program.voidSources.insert(task) }
            if held == nil { program.openSources.append(task) }
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), held: held, form: form, void: void) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            switch form {
            case .ofType: return [.makeSourceOfType, .sourceTask]
            case .requirement: return [.makeSourceOf, .sourceTask]
            case .inferred: return [.makeSourceInferred, .sourceTask]
            case .makeTask: return [.makeTask]
            }
        }
        var heldSource: HeldSource? { held.map { HeldSource(task: task, outcome: $0) } }
        /// Held with `.success` when no setter of `set` is left for it.
        func holdingSource(unlessSetIn set: Set<Int>) -> ProgramOperation? {
            guard held == nil, !set.contains(task) else { return nil }
            var copy = self
            copy.held = .success
            return .makeSource(copy)
        }

        /// For a source that records its origin (`SourceOriginRecording`), logs where it must say it
        /// was made if released pending: this call's file and line in debug builds, none for the
        /// requirement and in release builds (C8.3).
        func perform(in execution: ProgramExecution, step: Int) {
            let backend = execution.backend
            let (slot, source, origin): (TaskSlot, SourceSlot, SourceOrigin?)
            if void {
                let made = Self.make(form, backend: backend, of: Void.self)
                (slot, source, origin) = (.void(made.task), .void(made.source), made.origin)
            } else {
                let made = Self.make(form, backend: backend, of: Int.self)
                (slot, source, origin) = (.int(made.task), .int(made.source), made.origin)
            }
            if source.object is any SourceOriginRecording {
                execution.log.append(.sourceOrigin(task: task, expected: origin?.description))
            }
            execution.register(task, slot, source: source)
        }

        /// A source and its task, made the way `form` says, and the origin it records in debug
        /// builds: the file and line of the call, on the line of the call (C8.3).
        private static func make<T: Sendable>(
            _ form: Form, backend: any TaskBackend, of type: T.Type
        )
            -> (task: any AsyncTask<T>, source: any CompletionSource<T>, origin: SourceOrigin?)
        {
            switch form {
            case .ofType:
                #if DEBUG
                let (source, origin) = (backend.makeSource(of: T.self), SourceOrigin(fileID: #fileID, line: #line))
                return (source.task, source, origin)
                #else
                let source = backend.makeSource(of: T.self)
                return (source.task, source, nil)
                #endif
            case .requirement:
                let requirement: (T.Type) -> any CompletionSource<T> = backend.makeSource(of:)
                let source = requirement(T.self)
                return (source.task, source, nil)
            case .inferred:
                let (source, origin): (any CompletionSource<T>, SourceOrigin) = (
                    backend.makeSource(), SourceOrigin(fileID: #fileID, line: #line)
                )
                return (source.task, source, recordedInThisBuild(origin))
            case .makeTask:
                let kept = PlainLocked<(any CompletionSource<T>)?>(nil)
                let (task, origin): (any AsyncTask<T>, SourceOrigin) = (
                    backend.makeTask { source in kept.withLock { $0 = source } }, SourceOrigin(fileID: #fileID, line: #line)
                )
                // TaskAPI's `makeTask` (no backend replaces it) hands the source over at once, on this thread.
                guard let source = kept.withLock({ $0 }) else {
                    preconditionFailure("makeTask returned without handing its closure the source")
                }
                return (task, source, recordedInThisBuild(origin))
            }
        }

        /// `origin` in a debug build; a release build records none (C8.3).
        private static func recordedInThisBuild(_ origin: SourceOrigin) -> SourceOrigin? {
            #if DEBUG
            return origin
            #else
            return nil
            #endif
        }

        var dependence: Dependence { .source(held: held != nil) }
        var madeFromSource: Bool { true }
        var pendingRule: Rule { .c2_2 }

        /// The winning setter's outcome (any racing one's if none is seen winning); a held
        /// source's, after the drivers; `abandoned` for a source released pending (C8.3).
        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            if model.oracle.releasedSources.contains(task) { return model.oracle.releasedSource(task) }
            if let held {
                if model.world == .phaseOne { return .pending }
                return .outcomes([Oracle.outcome(held, value: ProgramValues.heldValue(step: step), void: void)], .c1_1)
            }
            let setters = model.oracle.observations.setters[task] ?? []
            let winners = setters.filter(\.won)
            let chosen = winners.isEmpty ? setters : winners
            let allowed = chosen.compactMap { model.oracle.setterOutcome(step: $0.step) }
            return allowed.isEmpty ? .unknown : .outcomes(unique(allowed), .c1_2)
        }
    }

    /// `t<task> = makeSource(of: Int.self)`, held with `held`'s outcome or not.
    public static func makeSource(task: Int, held: SetterOutcome?) -> Self { .makeSource(MakeSource(task: task, held: held)) }
}
