import Foundation
import TaskAPI

/// One check of the rule suite: a hand-written test of one rule of docs/CONTRACT.md, written
/// against TaskAPI only, so that it runs against any backend. Failures are values
/// (`RuleFailure`); no test framework is involved.
public struct RuleCheck: Sendable, CustomStringConvertible {
    enum Body: Sendable {
        case sync(@Sendable (RuleContext) throws -> Void)
        case async(@Sendable (RuleContext) async throws -> Void)
    }

    /// The rule it checks (`.c2_4`: "C2.4" in docs/CONTRACT.md).
    public let rule: Rule
    /// What the check shows, in a few words.
    public let name: String
    let body: Body

    /// A check of `rule` whose synchronous `body` may block.
    public init(_ rule: Rule, _ name: String, _ body: @escaping @Sendable (RuleContext) throws -> Void) {
        self.rule = rule
        self.name = name
        self.body = .sync(body)
    }

    /// A check of `rule` whose `body` awaits; it must not block its thread.
    public init(_ rule: Rule, _ name: String, async body: @escaping @Sendable (RuleContext) async throws -> Void) {
        self.rule = rule
        self.name = name
        self.body = .async(body)
    }

    /// Whether the check is `async` (it awaits Swift tasks); the others block the thread that
    /// runs them.
    public var isAsync: Bool {
        if case .async = body { return true }
        return false
    }

    /// The chapter of the rule: 2 for "C2.4".
    public var chapter: Int { Int(rule.rawValue.dropFirst().prefix { $0 != "." }) ?? 0 }

    /// "C2.4 continuations are handed over in registration order; ...": the rule first, so that
    /// a test report names it.
    public var description: String { "\(rule) \(name)" }
}

/// A failed expectation of a rule check: the rule, the check, what the rule expects (`message`),
/// the backend call involved (`call`), what was expected and what was observed, where the
/// failing expectation is in the suite (`location`, in Sources/Conformance/RuleSuite) and who
/// ran the suite (`callSite`, the line of `RuleSuite.run` or `Conformance.checkAll` in the
/// caller's test).
public struct RuleFailure: Sendable, CustomStringConvertible {
    public let backend: String
    public let rule: Rule
    public let check: String
    public let message: String
    public let location: CallSite
    public let callSite: CallSite
    /// The backend call the failure is about, as the check makes it (nil: a failure recorded
    /// by a check written with the plain `expect(_:_:)`).
    public var call: String?
    /// What the rule expects to see, and what the check saw.
    public var expected: String?
    public var observed: String?
    /// How many times the check failed this very way (the same expectation, call, expected and
    /// observed): a check that repeats a round records such a failure once, with its count.
    public internal(set) var occurrences = 1

    public var description: String {
        var lines = ["[\(backend)] \(rule) broken: \(message)"]
        if let call { lines.append("  call: \(call)") }
        if let expected { lines.append("  expected: \(expected)") }
        if let observed { lines.append("  observed: \(observed)") }
        if occurrences > 1 { lines.append("  seen: \(occurrences) times in this check, each the same") }
        lines.append("  check: \(rule) \(check)")
        lines.append("  at: \(location.fileID):\(location.line) (suite run from \(callSite.fileID):\(callSite.line))")
        return lines.joined(separator: "\n")
    }
}

extension RuleFailure {
    /// Whether `other` is this failure again: the same check, expectation (its message and line),
    /// call, expected and observed.
    func isRepeated(by other: RuleFailure) -> Bool {
        rule == other.rule && check == other.check && message == other.message && location == other.location
            && call == other.call && expected == other.expected && observed == other.observed
    }
}

/// What a check body sees: the backend under test, and expectations that record failures
/// instead of stopping (`expect`) or stop the check (`require`, which throws).
public final class RuleContext: Sendable {
    public let backend: any TaskBackend
    let check: RuleCheck
    let callSite: CallSite
    /// The timing slack the contract's time bounds stretch by (`contractBound`).
    let timingSlack: Duration
    private let recorded = PlainLocked<[RuleFailure]>([])

    init(backend: any TaskBackend, check: RuleCheck, callSite: CallSite, timingSlack: Duration) {
        self.backend = backend
        self.check = check
        self.callSite = callSite
        self.timingSlack = timingSlack
    }

    /// The failures recorded so far.
    public var failures: [RuleFailure] { recorded.withLock { $0 } }

    /// Records `failure`, or counts it on the failure it repeats (the same expectation at the
    /// same line, with the same call, expected and observed), so that a check that repeats a
    /// round prints one failure per way it failed, not one per round.
    func record(_ failure: RuleFailure) {
        recorded.withLock { recorded in
            if let index = recorded.firstIndex(where: { $0.isRepeated(by: failure) }) {
                recorded[index].occurrences += 1
            } else {
                recorded.append(failure)
            }
        }
    }

    /// Records a failure of the check's rule at the caller's line, in `message`'s words only
    /// (`fail(_:call:expected:observed:)` says more).
    public func fail(
        _ message: String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        record(
            RuleFailure(
                backend: backend.name, rule: check.rule, check: check.name, message: message,
                location: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), callSite: callSite))
    }

    /// Records a failure unless `condition` holds; returns `condition`.
    @discardableResult
    @available(
        *, deprecated,
        message:
            "say what the rule expects, the call, expected and observed: expect(_:_:call:expected:observed:) and its kin (RuleContext+Expectations.swift)"
    )
    public func expect(
        _ condition: Bool, _ message: @autoclosure () -> String = "",
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        if !condition {
            let text = message()
            fail(text.isEmpty ? "expectation failed" : text, fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return condition
    }

    /// Records "expected `expected`, got `actual`" unless they are equal; returns whether they are.
    @discardableResult
    @available(
        *, deprecated,
        message:
            "say what the rule expects, the call, expected and observed: expect(_:_:call:expected:observed:) and its kin (RuleContext+Expectations.swift)"
    )
    public func expectEqual<T: Equatable>(
        _ actual: T, _ expected: T, _ message: @autoclosure () -> String = "",
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        guard actual != expected else { return true }
        let text = message()
        fail(
            (text.isEmpty ? "" : text + ": ") + "expected \(expected), got \(actual)",
            fileID: fileID, filePath: filePath, line: line, column: column)
        return false
    }

    /// Records a failure and stops the check unless `condition` holds.
    @available(
        *, deprecated,
        message:
            "say what the rule expects, the call, expected and observed: expect(_:_:call:expected:observed:) and its kin (RuleContext+Expectations.swift)"
    )
    public func require(
        _ condition: Bool, _ message: @autoclosure () -> String = "",
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws {
        guard condition else {
            let text = message()
            fail(text.isEmpty ? "expectation failed" : text, fileID: fileID, filePath: filePath, line: line, column: column)
            throw RequirementFailed()
        }
    }

    /// Returns `value`; records a failure and stops the check when it is `nil`.
    @available(
        *, deprecated,
        message:
            "say what the rule expects, the call, expected and observed: expect(_:_:call:expected:observed:) and its kin (RuleContext+Expectations.swift)"
    )
    public func require<T>(
        _ value: T?, _ message: @autoclosure () -> String = "",
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws -> T {
        guard let value else {
            let text = message()
            fail(text.isEmpty ? "required value was nil" : text, fileID: fileID, filePath: filePath, line: line, column: column)
            throw RequirementFailed()
        }
        return value
    }

    /// Expects `body` to throw an error equal to `expected`.
    @available(
        *, deprecated,
        message:
            "say what the rule expects, the call, expected and observed: expect(_:_:call:expected:observed:) and its kin (RuleContext+Expectations.swift)"
    )
    public func expectThrows<E: Error & Equatable>(
        _ expected: E, _ body: () throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let thrown: (any Error)?
        do { try body(); thrown = nil } catch { thrown = error }
        judgeThrown(thrown, expected: "\(expected)", { ($0 as? E) == expected }, fileID, filePath, line, column)
    }

    /// Expects `body` to throw an error of type `type`.
    @available(
        *, deprecated,
        message:
            "say what the rule expects, the call, expected and observed: expect(_:_:call:expected:observed:) and its kin (RuleContext+Expectations.swift)"
    )
    public func expectThrows<E: Error>(
        _ type: E.Type, _ body: () throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let thrown: (any Error)?
        do { try body(); thrown = nil } catch { thrown = error }
        judgeThrown(thrown, expected: "\(type)", { $0 is E }, fileID, filePath, line, column)
    }

    /// Expects `body` to throw an error equal to `expected`, from async code.
    @available(
        *, deprecated,
        message:
            "say what the rule expects, the call, expected and observed: expect(_:_:call:expected:observed:) and its kin (RuleContext+Expectations.swift)"
    )
    public func expectThrowsAsync<E: Error & Equatable>(
        _ expected: E, _ body: () async throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async {
        let thrown: (any Error)?
        do { try await body(); thrown = nil } catch { thrown = error }
        judgeThrown(thrown, expected: "\(expected)", { ($0 as? E) == expected }, fileID, filePath, line, column)
    }

    /// The `expectThrows` forms' one judgement: `thrown` (nil: nothing was) must match `expected`.
    private func judgeThrown(
        _ thrown: (any Error)?, expected: String, _ matches: (any Error) -> Bool,
        _ fileID: String, _ filePath: String, _ line: Int, _ column: Int
    ) {
        guard let thrown else {
            return fail("expected \(expected) to be thrown, nothing was", fileID: fileID, filePath: filePath, line: line, column: column)
        }
        if !matches(thrown) {
            fail("expected \(expected) to be thrown, got \(thrown)", fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }

    /// Expects `body` not to throw.
    @available(
        *, deprecated,
        message:
            "say what the rule expects, the call, expected and observed: expect(_:_:call:expected:observed:) and its kin (RuleContext+Expectations.swift)"
    )
    public func expectNoThrow(
        _ body: () throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        do {
            try body()
        } catch {
            fail("expected no error, got \(error)", fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }
}

/// Thrown by `RuleContext.require` to end a check; the failure is already recorded.
struct RequirementFailed: Error {}
