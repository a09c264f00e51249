import Foundation
import TaskAPI

// Expectations that say, in words, what the rule expects (the message), which call of the
// backend was involved (`call`), and what was expected and observed, so that a failure reads
//
//     [mine] C2.3 broken: the inline executor runs a continuation on a completed task before whenComplete returns
//       call: backend.succeeded(1).whenComplete(on: backend.inlineExecutor) { ... }
//       expected: 1
//       observed: 0
//
// Every check of the suite uses these; the plain `expect(_:_:)` forms remain, deprecated, for
// checks written elsewhere.

extension RuleContext {
    /// Records a failure of the check's rule: `message` says what the rule expects, `call` the
    /// backend call involved, `expected` and `observed` what should have and did happen.
    public func fail(
        _ message: String, call: String, expected: String, observed: String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        record(
            RuleFailure(
                backend: backend.name, rule: check.rule, check: check.name, message: message,
                location: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), callSite: callSite,
                call: call, expected: expected, observed: observed))
    }

    /// Records a failure unless `condition` holds; returns `condition`.
    @discardableResult
    public func expect(
        _ condition: Bool, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        expected: @autoclosure () -> String, observed: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        if !condition {
            fail(
                message(), call: call(), expected: expected(), observed: observed(),
                fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return condition
    }

    /// Records a failure unless `observed == expected`; returns whether they are equal.
    @discardableResult
    public func expectEqual<T: Equatable>(
        _ observed: T, _ expected: T, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        expect(
            observed == expected, message(), call: call(), expected: Self.show(expected), observed: Self.show(observed),
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Stops the check (after recording a failure) unless `condition` holds.
    public func require(
        _ condition: Bool, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        expected: @autoclosure () -> String, observed: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws {
        guard
            expect(
                condition, message(), call: call(), expected: expected(), observed: observed(),
                fileID: fileID, filePath: filePath, line: line, column: column)
        else { throw RequirementFailed() }
    }

    /// Returns `value`; records a failure (observed: nil) and stops the check when it is `nil`.
    public func require<T>(
        _ value: T?, _ message: @autoclosure () -> String, call: @autoclosure () -> String, expected: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws -> T {
        guard let value else {
            fail(
                message(), call: call(), expected: expected(), observed: "nil", fileID: fileID, filePath: filePath, line: line,
                column: column)
            throw RequirementFailed()
        }
        return value
    }

    // MARK: Tasks

    /// Waits for `task` (up to 10 s) and expects `expected`: the same kind, value and error.
    /// Returns the outcome (nil: still pending).
    @discardableResult
    public func expectOutcome<T: Sendable & Equatable>(
        _ task: any AsyncTask<T>, _ expected: Completion<T>, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Completion<T>? {
        let seen = settled(task, call: call(), fileID: fileID, filePath: filePath, line: line, column: column)
        expectSame(
            seen.outcome, expected, ==, message(), call: call(), observed: seen.words,
            fileID: fileID, filePath: filePath, line: line, column: column)
        return seen.outcome
    }

    /// The same for a task without a value: the same kind and error.
    @discardableResult
    public func expectOutcome(
        _ task: any AsyncTask<Void>, _ expected: Completion<Void>, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Completion<Void>? {
        let seen = settled(task, call: call(), fileID: fileID, filePath: filePath, line: line, column: column)
        expectSame(
            seen.outcome, expected, { _, _ in true }, message(), call: call(), observed: seen.words,
            fileID: fileID, filePath: filePath, line: line, column: column)
        return seen.outcome
    }

    /// Expects `outcome` (nil: still pending after 10 s) to be `expected`.
    @discardableResult
    public func expectOutcome<T: Sendable & Equatable>(
        of outcome: Completion<T>?, _ expected: Completion<T>, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        expectSame(
            outcome, expected, ==, message(), call: call(), observed: Self.describe(outcome),
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Expects `completion`, read at once from a task's `completion` (nil: the task was still
    /// pending at that read, not after a wait), to be `expected`.
    @discardableResult
    public func expectCompletedAtOnce<T: Sendable & Equatable>(
        _ completion: Completion<T>?, _ expected: Completion<T>, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        expectSame(
            completion, expected, ==, message(), call: call(),
            observed: completion.map { Self.describe($0) } ?? "still pending when read at once (completion was nil)",
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Waits for `task` (up to 10 s) and expects it to complete, whatever its outcome.
    @discardableResult
    public func expectCompletes<T: Sendable>(
        _ task: any AsyncTask<T>, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Completion<T>? {
        let seen = settled(task, call: call(), fileID: fileID, filePath: filePath, line: line, column: column)
        expect(
            seen.outcome != nil, message(), call: call(), expected: "completed within \(patience)",
            observed: seen.words, fileID: fileID, filePath: filePath, line: line, column: column)
        return seen.outcome
    }

    /// Expects `task` still pending after `duration` (it waits for something not done yet).
    @discardableResult
    public func expectPending<T: Sendable>(
        _ task: any AsyncTask<T>, for duration: Duration = .milliseconds(20), _ message: @autoclosure () -> String,
        call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        let outcome = task.wait(timeout: duration)
        return expect(
            outcome == nil, message(), call: call(), expected: "still pending after \(duration)",
            observed: "completed: \(Self.describe(outcome))", fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Waits for `task` (up to 10 s) and returns its outcome; stops the check when it hangs.
    public func requireOutcome<T: Sendable>(
        _ task: any AsyncTask<T>, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws -> Completion<T> {
        guard let outcome = expectCompletes(task, message(), call: call(), fileID: fileID, filePath: filePath, line: line, column: column)
        else { throw RequirementFailed() }
        return outcome
    }

    /// Waits for `task` (up to 10 s) and returns its value; stops the check unless it succeeded.
    public func requireValue<T: Sendable>(
        _ task: any AsyncTask<T>, _ message: @autoclosure () -> String, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws -> T {
        let seen = settled(task, call: call(), fileID: fileID, filePath: filePath, line: line, column: column)
        guard case .success(let value)? = seen.outcome else {
            fail(
                message(), call: call(), expected: "success", observed: seen.words,
                fileID: fileID, filePath: filePath, line: line, column: column)
            throw RequirementFailed()
        }
        return value
    }

    // MARK: Errors

    /// Expects `body` to throw an error equal to `expected`.
    public func expectThrows<E: Error & Equatable>(
        _ expected: E, _ message: @autoclosure () -> String, call: @autoclosure () -> String, _ body: () throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let thrown = Self.error(of: body)
        expect(
            (thrown as? E) == expected, message(), call: call(), expected: "throws \(Self.show(expected))",
            observed: thrown.map { "throws \(Self.show($0))" } ?? "returned normally",
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Expects `body` to throw an error of type `type`.
    public func expectThrows<E: Error>(
        _ type: E.Type, _ message: @autoclosure () -> String, call: @autoclosure () -> String, _ body: () throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let thrown = Self.error(of: body)
        expect(
            thrown is E, message(), call: call(), expected: "throws a \(type)",
            observed: thrown.map { "throws \(Self.show($0))" } ?? "returned normally",
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Expects `body` to throw an error equal to `expected`, from async code.
    public func expectThrowsAsync<E: Error & Equatable>(
        _ expected: E, _ message: @autoclosure () -> String, call: @autoclosure () -> String, _ body: () async throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async {
        var thrown: (any Error)?
        do { try await body() } catch { thrown = error }
        expect(
            (thrown as? E) == expected, message(), call: call(), expected: "throws \(Self.show(expected))",
            observed: thrown.map { "throws \(Self.show($0))" } ?? "returned normally",
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Expects `body` not to throw.
    public func expectNoThrow(
        _ message: @autoclosure () -> String, call: @autoclosure () -> String, _ body: () throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let thrown = Self.error(of: body)
        expect(
            thrown == nil, message(), call: call(), expected: "returns normally",
            observed: thrown.map { "throws \(Self.show($0))" } ?? "", fileID: fileID, filePath: filePath, line: line, column: column)
    }

    // MARK: Words

    /// A value as a report shows it: optionals unwrapped (`nil`, not `Optional(5)`), outcomes
    /// as `success(5)`, `failure(TestError(code: 1))`, `cancelled`.
    public static func show<T>(_ value: T) -> String {
        if let shown = value as? any ShownInReports { return shown.shownInReports }
        return String(describing: value)
    }

    /// An outcome, or what a wait for it saw: `success(5)`, `cancelled`, or still pending.
    public static func describe<T: Sendable>(_ outcome: Completion<T>?) -> String {
        switch outcome {
        case .none: return "still pending after \(patience)"
        case .success(let value)?: return "success(\(show(value)))"
        case .failure(let error)?: return "failure(\(show(error)))"
        case .cancelled?: return "cancelled"
        }
    }

    /// Waits for `task` up to `patience`: its outcome, and in words what the wait saw (the
    /// outcome; or still pending; or a `wait(timeout:)` that gave up early, C6.2).
    static func settle<T: Sendable>(_ task: any AsyncTask<T>) -> (outcome: Completion<T>?, words: String) {
        let start = Uptime.now
        let outcome = task.wait(timeout: patience)
        let elapsed = Uptime.now - start
        guard outcome == nil, elapsed < patience - .milliseconds(1) else { return (outcome, describe(outcome)) }
        return (
            nil,
            "wait(timeout: \(patience)) returned nil after \(elapsed), the task \(task.status) (C6.2: nil only once the timeout passed)"
        )
    }

    /// Waits for `task` (up to 10 s) and returns its outcome (nil: still pending), judging the
    /// wait itself as `settled` does (C6.2): for a check that reads the outcome its own way.
    func settle<T: Sendable>(
        _ task: any AsyncTask<T>, call: @autoclosure () -> String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Completion<T>? {
        settled(task, call: call(), fileID: fileID, filePath: filePath, line: line, column: column).outcome
    }

    /// `settle`, judging the wait as well (C6.2, whatever rule the check is about): a
    /// `wait(timeout:)` returns a completed task's outcome as the task completes, so one that
    /// returned it only after the timing slack, on a task already completed when it was called,
    /// or only at its deadline, slept through its wake-up (a lost wake-up, which the check's own
    /// expectation, met by the outcome, would let pass).
    func settled<T: Sendable>(
        _ task: any AsyncTask<T>, call: String, fileID: String, filePath: String, line: Int, column: Int
    ) -> (outcome: Completion<T>?, words: String) {
        let completedBefore = task.completion != nil
        let start = Uptime.now
        let seen = Self.settle(task)
        let elapsed = Uptime.now - start
        guard seen.outcome != nil, (completedBefore && elapsed > timingSlack) || elapsed >= patience else { return seen }
        record(
            RuleFailure(
                backend: backend.name, rule: .c6_2, check: check.name,
                message: "wait(timeout: \(patience)) slept through its wake-up: it returned "
                    + (completedBefore ? "an already completed task's outcome" : "the outcome") + " after \(elapsed)"
                    + (elapsed >= patience ? ", at its deadline" : "") + " (seen by the \(check.rule) check, whose own expectation it met)",
                location: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), callSite: callSite,
                call: call + ".wait(timeout: \(patience))",
                expected: completedBefore
                    ? "returns at once (the task was completed when wait(timeout:) was called)" : "returns as the task completes",
                observed: "returned \(seen.words) after \(elapsed)"))
        return seen
    }

    @discardableResult
    private func expectSame<T>(
        _ outcome: Completion<T>?, _ expected: Completion<T>, _ sameValue: (T, T) -> Bool, _ message: String, call: String,
        observed: String, fileID: String, filePath: String, line: Int, column: Int
    ) -> Bool {
        let same: Bool
        switch (outcome, expected) {
        case (.success(let a)?, .success(let b)): same = sameValue(a, b)
        case (.failure(let a)?, .failure(let b)): same = Self.sameError(a, b)
        case (.cancelled?, .cancelled): same = true
        case (nil, _), (.success?, _), (.failure?, _), (.cancelled?, _): same = false
        }
        return expect(
            same, message, call: call, expected: Self.describe(expected), observed: observed,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Errors of one type that are equal: by `==` where the type is `Equatable` (a
    /// `TaskError.abandoned` that names where its source was made equals the bare `.abandoned`),
    /// else by their reflected text.
    static func sameError(_ a: any Error, _ b: any Error) -> Bool {
        guard type(of: a) == type(of: b) else { return false }
        func equal<E: Equatable>(_ x: E) -> Bool? { (b as? E).map { x == $0 } }
        if let a = (a as Any) as? any Equatable, let result = equal(a) { return result }
        return String(reflecting: a) == String(reflecting: b)
    }

    private static func error(of body: () throws -> Void) -> (any Error)? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}

/// Values whose report text is not their `description` (optionals, outcomes, and arrays of
/// either, whose `description` spells each element's type: `[TaskAPI.Completion<Swift.Int>
/// .success(2)]` where a report says `[success(2)]`).
protocol ShownInReports {
    var shownInReports: String { get }
}

extension Optional: ShownInReports {
    var shownInReports: String { map { RuleContext.show($0) } ?? "nil" }
}

extension Completion: ShownInReports {
    var shownInReports: String { RuleContext.describe(self) }
}

extension Array: ShownInReports {
    /// Strings stay quoted, as the array's `description` quotes them.
    var shownInReports: String {
        "[" + map { $0 is String ? String(reflecting: $0) : RuleContext.show($0) }.joined(separator: ", ") + "]"
    }
}
