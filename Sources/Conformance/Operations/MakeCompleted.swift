import TaskAPI

extension ProgramOperation {
    /// `t<task> = backend.completed(_:)`, or a named form: `succeeded(_:)`, `failed(_:)`,
    /// `cancelled()` (the type from the context), `failed(_:as:)`, `cancelled(as:)` (C1.4, C9.1).
    public struct MakeCompleted: TaskOperation {
        /// Which entry point makes the task.
        public enum Form: String, Sendable, Hashable {
            /// `completed(_:)` with a completion.
            case completed
            /// `succeeded(_:)`, `failed(_:)`, `cancelled()`, the type taken from the context.
            case named
            /// `succeeded(_:)`, `failed(_:as:)`, `cancelled(as:)`, the type named.
            case namedAs
        }

        public var task: Int
        public var outcome: SetterOutcome
        public var form: Form

        public init(task: Int, outcome: SetterOutcome, form: Form = .completed) {
            self.task = task
            self.outcome = outcome
            // `succeeded` has one form.
            self.form = outcome == .success && form == .namedAs ? .named : form
        }

        public var description: String {
            switch (form, outcome) {
            case (.completed, _): return "t\(task) = completed(\(outcome.rawValue))"
            case (_, .success): return "t\(task) = succeeded(v)"
            case (.named, .failure): return "t\(task) = failed(e)"
            case (.named, .cancel): return "t\(task) = cancelled()"
            case (.namedAs, .failure): return "t\(task) = failed(e, as: Int.self)"
            case (.namedAs, .cancel): return "t\(task) = cancelled(as: Int.self)"
            }
        }
        static func parse(_ text: Substring) -> Self? {
            TextScanner.scanned(text) { s in
                guard let task = s.id("t"), s.take(" = ") else { return nil }
                if s.take("completed(") {
                    guard let outcome = s.oneOf(SetterOutcome.self), s.take(")") else { return nil }
                    return Self(task: task, outcome: outcome)
                }
                let forms: [(String, SetterOutcome, Form)] = [
                    ("succeeded(v)", .success, .named), ("failed(e, as: Int.self)", .failure, .namedAs), ("failed(e)", .failure, .named),
                    ("cancelled(as: Int.self)", .cancel, .namedAs), ("cancelled()", .cancel, .named)
                ]
                guard let (_, outcome, form) = forms.first(where: { s.take($0.0) }) else { return nil }
                return Self(task: task, outcome: outcome, form: form)
            }
        }

        static func weight(in program: ProgramBuilder) -> Int { 3 }

        static func generate(into program: inout ProgramBuilder) {
            let form = [Form.completed, .named, .namedAs][program.rng.weighted([40, 30, 30])]
            program.addTask(
                .makeCompleted(MakeCompleted(task: program.nextTask, outcome: program.setterOutcome(), form: form)),
                sources: [], held: false)
        }

        var uses: [Use] { [] }
        func renumbered(_ ids: Renumbering) -> Self { Self(task: ids.task(task), outcome: outcome, form: form) }

        var neverWaits: Bool { true }
        var registersOrCompletes: Bool { true }
        var entryPoints: [EntryPoint] {
            switch (form, outcome) {
            case (.completed, _): return [.completed]
            case (_, .success): return [.succeeded]
            case (.named, .failure): return [.failed]
            case (.named, .cancel): return [.cancelled]
            case (.namedAs, .failure): return [.failedAs]
            case (.namedAs, .cancel): return [.cancelledAs]
            }
        }

        func perform(in execution: ProgramExecution, step: Int) {
            execution.payloads.write(step)
            let value = ProgramValues.value(step: step)
            let backend = execution.backend
            let made: any AsyncTask<Int>
            switch (form, outcome) {
            case (.completed, _): made = backend.completed(ProgramExecution.completion(outcome, value: value))
            case (_, .success): made = backend.succeeded(value)
            case (.named, .failure): made = backend.failed(ProgramError(value))
            case (.named, .cancel): made = backend.cancelled()
            case (.namedAs, .failure): made = backend.failed(ProgramError(value), as: Int.self)
            case (.namedAs, .cancel): made = backend.cancelled(as: Int.self)
            }
            execution.register(task, .int(made))
        }

        var dependence: Dependence { .nothing }
        var madeFromSource: Bool { true }
        var pendingRule: Rule { .c2_2 }

        func expectation(step: Int, in model: Oracle.Evaluation) -> Expectation {
            .outcomes([Oracle.outcome(outcome, value: ProgramValues.value(step: step))], .c1_4)
        }
    }

    public static func makeCompleted(task: Int, outcome: SetterOutcome) -> Self {
        .makeCompleted(MakeCompleted(task: task, outcome: outcome))
    }
}
