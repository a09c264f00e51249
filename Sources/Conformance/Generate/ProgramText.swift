import Foundation

/// A program's text form read back: `Program(parsing:)` takes what `Program.description` prints
/// (a shrunk counterexample, a program written or edited by hand) and gives the `Program`, so
/// that a program that is no seed's can be run again (`CONFORMANCE_PROGRAM_FILE`). Each kind of
/// operation reads its own line (`OperationPayload.parse`).
public struct ProgramParseError: Error, Sendable, CustomStringConvertible {
    /// The line (1-based) that does not parse, and its text.
    public let line: Int
    public let text: String
    public let reason: String

    public var description: String { "line \(line): \(reason): \(text)" }
}

extension Program {
    /// Reads the text form: a header `program seed=<n> drivers=<n> serial=<n> counting=<n>`
    /// (what follows is not checked: `steps=` may be stale), then one step a line,
    /// `[<number>] d<driver> <operation>[  ~<pause>]`, as `description` prints them. Blank
    /// lines and lines starting with `#` are skipped, leading spaces ignored, step numbers not
    /// checked (delete a step by deleting its line; `Conformance.repaired` then renumbers).
    public init(parsing text: String) throws {
        var header: (seed: UInt64, drivers: Int, serial: Int, counting: Int)?
        var steps: [Step] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = Substring(raw.trimmingCharacters(in: .whitespacesAndNewlines))
            if content.isEmpty || content.hasPrefix("#") { continue }
            func failure(_ reason: String) -> ProgramParseError {
                ProgramParseError(line: index + 1, text: String(content), reason: reason)
            }
            guard header != nil else {
                header = Self.header(content)
                if header == nil { throw failure("expected the header `program seed=<n> drivers=<n> serial=<n> counting=<n>`") }
                continue
            }
            guard let step = Self.step(content) else { throw failure("no step of the harness reads so") }
            steps.append(step)
        }
        guard let header else {
            throw ProgramParseError(line: 1, text: "", reason: "no program: expected the header `program seed=<n> drivers=<n> ...`")
        }
        if let driver = steps.map(\.driver).max(), driver >= header.drivers {
            throw ProgramParseError(
                line: 1, text: "drivers=\(header.drivers)", reason: "a step runs on d\(driver), more drivers than the header's")
        }
        self.init(
            seed: header.seed, drivers: header.drivers, serialExecutors: header.serial, countingExecutors: header.counting, steps: steps)
    }

    private static func header(_ text: Substring) -> (UInt64, Int, Int, Int)? {
        var scanner = TextScanner(text)
        guard scanner.take("program seed="), let seed = scanner.unsigned(), scanner.take(" drivers="), let drivers = scanner.number(),
            drivers > 0, scanner.take(" serial="), let serial = scanner.number(), scanner.take(" counting="),
            let counting = scanner.number()
        else { return nil }
        return (seed, drivers, serial, counting)
    }

    /// `[<number>] d<driver> <operation>[  ~<pause>]`.
    private static func step(_ text: Substring) -> Step? {
        var scanner = TextScanner(text)
        if scanner.number() != nil { _ = scanner.take(" ") }
        scanner.skipSpaces()
        guard scanner.take("d"), let driver = scanner.number(), scanner.take(" ") else { return nil }
        var body = scanner.rest
        var pause = Pause.none
        if let tilde = body.range(of: "  ~", options: .backwards) {
            guard let parsed = TextScanner.scanned(body[tilde.upperBound...], { $0.pause() }) else { return nil }
            pause = parsed
            body = body[..<tilde.lowerBound]
        }
        let operation = OperationKind.allCases.lazy.compactMap { $0.payloadType.parse(body)?.operation }.first
        return operation.map { Step(driver: driver, operation: $0, pause: pause) }
    }
}

/// Reads a line of the text form from the front: each `take` consumes what it reads, or nothing.
struct TextScanner {
    private(set) var rest: Substring

    init(_ text: Substring) { rest = text }

    /// The value `read` gives for the whole of `text` (nil if it fails or leaves text unread).
    static func scanned<T>(_ text: Substring, _ read: (inout TextScanner) -> T?) -> T? {
        var scanner = TextScanner(text)
        guard let value = read(&scanner), scanner.rest.isEmpty else { return nil }
        return value
    }

    /// Consumes `literal` if the text goes on with it.
    mutating func take(_ literal: String) -> Bool {
        guard rest.hasPrefix(literal) else { return false }
        rest = rest.dropFirst(literal.count)
        return true
    }

    mutating func skipSpaces() { rest = rest.drop { $0 == " " } }

    /// A decimal number, maybe negative.
    mutating func number() -> Int? {
        let negative = rest.hasPrefix("-")
        let digits = rest.dropFirst(negative ? 1 : 0).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let value = Int(digits) else { return nil }
        rest = rest.dropFirst(digits.count + (negative ? 1 : 0))
        return negative ? -value : value
    }

    mutating func unsigned() -> UInt64? {
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let value = UInt64(digits) else { return nil }
        rest = rest.dropFirst(digits.count)
        return value
    }

    /// `<prefix><number>`: an id such as `t3` or `k0`.
    mutating func id(_ prefix: String) -> Int? {
        let saved = rest
        guard take(prefix), let value = number() else { rest = saved; return nil }
        return value
    }

    /// The case whose raw value the text goes on with (the longest, when one is a prefix of another).
    mutating func oneOf<E: RawRepresentable & CaseIterable>(_ type: E.Type) -> E? where E.RawValue == String {
        guard let match = E.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count }).first(where: { rest.hasPrefix($0.rawValue) })
        else { return nil }
        rest = rest.dropFirst(match.rawValue.count)
        return match
    }

    /// `default`, `inline`, `serial<n>`, `counting<n>`.
    mutating func executor() -> ExecutorRef? {
        if take("default") { return .default }
        if take("inline") { return .inline }
        if let n = id("serial") { return .serial(n) }
        if let n = id("counting") { return .counting(n) }
        return nil
    }

    /// `{ <action> }`, a body as programs print it.
    mutating func body() -> BodyAction? {
        guard take("{ "), let action = oneOf(BodyAction.self), take(" }") else { return nil }
        return action
    }

    /// `, token: k<n>` if the text goes on with it (`tokenArgument`), else nil and nothing consumed.
    mutating func tokenArgument() -> Int? {
        take(", token: ") ? id("k") : nil
    }

    /// `<n>us`.
    mutating func microseconds() -> Int? {
        guard let value = number(), take("us") else { return nil }
        return value
    }

    /// `[1, 2, 3]`: a Swift array of numbers, or of ids with `prefix` (`[t0, t4]`).
    mutating func list(_ prefix: String = "") -> [Int]? {
        guard take("[") else { return nil }
        var values: [Int] = []
        while !take("]") {
            if !values.isEmpty, !take(", ") { return nil }
            guard let value = prefix.isEmpty ? number() : id(prefix) else { return nil }
            values.append(value)
        }
        return values
    }

    /// `t1, foreign t3<suffix>, ...` up to and including `closing` (after the opening bracket):
    /// the ids, and the positions of those marked foreign (`ForeignStream.mark`).
    mutating func markedInputs(closing: String, suffix: String = "") -> (inputs: [Int], foreign: Set<Int>)? {
        var inputs: [Int] = []
        var foreign: Set<Int> = []
        while !take(closing) {
            if !inputs.isEmpty, !take(", ") { return nil }
            if foreignMark() { foreign.insert(inputs.count) }
            guard let input = id("t"), take(suffix) else { return nil }
            inputs.append(input)
        }
        return (inputs, foreign)
    }

    /// A pause as `Pause.description` prints it.
    mutating func pause() -> Pause? {
        if take("none") { return Pause.none }
        if take("yield("), let n = number(), take(")") { return .yield(n) }
        if take("spin("), let n = number(), take(")") { return .spin(n) }
        if take("sleep("), let us = microseconds(), take(")") { return .sleep(microseconds: us) }
        return nil
    }

    /// A continuation kind as `ContinuationKind.description` prints it.
    mutating func continuationKind() -> ContinuationKind? {
        guard let (kind, foreign) = markedContinuationKind(), !foreign else { return nil }
        return kind
    }

    /// A continuation kind as `ContinuationKind.text(foreignInner:)` prints it: the kind, and
    /// whether the task its body returns, for a form that unwraps it, is marked foreign.
    mutating func markedContinuationKind() -> (kind: ContinuationKind, foreign: Bool)? {
        let forms: [(String, (InnerTask) -> ContinuationKind)] = [
            ("continueWithTask->", { .continueWithTask($0) }), ("flatMap->", { .flatMap($0) }),
            ("recoverTask->", { .recoverTask($0) }), ("finallyTask->", { .finallyTask($0) }),
            ("continueWith=>", { .continueWithKeeping($0) }), ("map=>", { .mapKeeping($0) }), ("then=>", { .thenKeeping($0) })
        ]
        for (prefix, make) in forms where take(prefix) {
            let foreign = prefix.hasSuffix("->") && foreignMark()
            return innerTask().map { (make($0), foreign) }
        }
        let kinds: [ContinuationKind] = [.continueWith, .map, .then, .recover, .catch, .finally]
        guard let kind = kinds.first(where: { rest.hasPrefix("\($0)(") || rest.hasPrefix("\($0) {") }) else { return nil }
        _ = take("\(kind)")
        return (kind, false)
    }

    /// Reads `ForeignStream.mark` if it comes next (a task handed the backend as a
    /// `ForeignTask`): whether it did.
    mutating func foreignMark() -> Bool { take(ForeignStream.mark) }

    /// An inner task as `InnerTask.description` prints it: `t<n>`, `new`, `succeeded`...
    mutating func innerTask() -> InnerTask? {
        for made in [InnerTask.new, .succeeded, .failed, .cancelled] where take(made.description) { return made }
        return id("t").map { .existing($0) }
    }

    /// `in t<n>.whenComplete(on: <executor>): ` or `in <executor>.execute: `, as `hostPrefix` prints
    /// a host; nil, consuming nothing, for a call the driver makes.
    mutating func hostPrefix() -> CallHost? {
        let saved = rest
        if take("in t"), let t = number(), take(".whenComplete(on: "), let executor = executor(), take("): ") {
            return .continuation(of: t, on: executor)
        }
        rest = saved
        if take("in "), let executor = executor(), take(".execute: ") { return .job(on: executor) }
        rest = saved
        return nil
    }

    /// Call arguments as `CallForm.arguments` prints them.
    mutating func callArguments() -> (form: CallForm, executor: ExecutorRef, token: Int?)? {
        if take("(on: .some(") {
            guard let executor = executor(), take("))") else { return nil }
            return (.executor, executor, nil)
        }
        if take("(on: actor(") {
            guard let executor = executor(), take(")") else { return nil }
            let token = tokenArgument()
            return take(")") ? (.actor, executor, token) : nil
        }
        if take("(on: ") {
            guard let executor = executor() else { return nil }
            let token = tokenArgument()
            return take(")") ? (.requirement, executor, token) : nil
        }
        if take("(token: ") {
            guard let token = id("k"), take(")") else { return nil }
            return (.token, .default, token)
        }
        return nil
    }

    /// `{ [() in ]<body> }`, then, for a body returning a task, ` -> <inner>` (`unwraps`: a
    /// `runTask`'s, required) or ` => <inner>` (a `run` keeping it): a run's body as steps print it.
    /// With `markable`, an unwrapped inner task may be marked foreign (` -> foreign t3`).
    mutating func runBody(
        unwraps: Bool, markable: Bool = false
    ) -> (noToken: Bool, body: BodyAction, returns: InnerTask?, keeps: InnerTask?, foreign: Bool)? {
        guard take("{ ") else { return nil }
        let noToken = take("() in ")
        guard let body = oneOf(BodyAction.self), take(" }") else { return nil }
        if unwraps {
            guard take(" -> ") else { return nil }
            let foreign = markable && foreignMark()
            guard let inner = innerTask() else { return nil }
            return (noToken, body, inner, nil, foreign)
        }
        guard take(" => ") else { return (noToken, body, nil, nil, false) }
        guard let kept = innerTask() else { return nil }
        return (noToken, body, nil, kept, false)
    }
}
