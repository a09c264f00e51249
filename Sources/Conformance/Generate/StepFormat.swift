/// An operation's text, stated once: literal pieces and the payload's fields in order, written as
/// a string literal over key paths (`"t\(\.task) = t\(\.antecedent).timeout(after: \(\.microseconds)us)"`).
/// Printing writes each piece; reading walks the same pieces with a `TextScanner`, each field
/// read into a blank payload, so that what a step prints is what it reads, by construction.
struct StepFormat<Op>: ExpressibleByStringInterpolation, Sendable {
    /// One piece of the text: how it prints from a payload, and how it reads into one (false:
    /// the text does not go on so).
    struct Piece: Sendable {
        let print: @Sendable (Op) -> String
        let read: @Sendable (inout TextScanner, inout Op) -> Bool
    }

    /// One sequence of pieces, or one of two formats chosen by a flag.
    private indirect enum Form: Sendable {
        case pieces([Piece])
        case either(WritableKeyPath<Op, Bool> & Sendable, set: StepFormat, unset: StepFormat)
    }

    private let form: Form

    init(stringLiteral literal: String) {
        form = .pieces([Self.literal(literal)])
    }

    init(stringInterpolation: Interpolation) {
        form = .pieces(stringInterpolation.pieces)
    }

    /// `set`'s text when the payload's `flag` is set, `unset`'s when not; a text reads by `set`
    /// with the flag set, else by `unset` with it clear.
    init(_ flag: WritableKeyPath<Op, Bool> & Sendable, _ set: StepFormat, else unset: StepFormat) {
        form = .either(flag, set: set, unset: unset)
    }

    /// The payload's text.
    func text(of payload: Op) -> String {
        switch form {
        case .pieces(let pieces): return pieces.map { $0.print(payload) }.joined()
        case .either(let flag, let set, let unset): return payload[keyPath: flag] ? set.text(of: payload) : unset.text(of: payload)
        }
    }

    /// The payload the whole of `text` reads as, from `blank` with each field read (nil: the text
    /// is not this format's).
    func read(_ text: Substring, into blank: Op) -> Op? {
        switch form {
        case .pieces(let pieces):
            return TextScanner.scanned(text) { scanner in
                var payload = blank
                for piece in pieces where !piece.read(&scanner, &payload) { return nil }
                return payload
            }
        case .either(let flag, let set, let unset):
            var flagged = blank
            flagged[keyPath: flag] = true
            var cleared = blank
            cleared[keyPath: flag] = false
            return set.read(text, into: flagged) ?? unset.read(text, into: cleared)
        }
    }

    fileprivate static func literal(_ literal: String) -> Piece {
        Piece(print: { _ in literal }, read: { scanner, _ in scanner.take(literal) })
    }

    /// A field read by `read` and printed by `print`, stored at `field`.
    fileprivate static func field<Value>(
        _ field: WritableKeyPath<Op, Value> & Sendable, print: @escaping @Sendable (Value) -> String,
        read: @escaping @Sendable (inout TextScanner) -> Value?
    ) -> Piece {
        Piece(
            print: { print($0[keyPath: field]) },
            read: { scanner, payload in
                guard let value = read(&scanner) else { return false }
                payload[keyPath: field] = value
                return true
            })
    }

    /// The pieces of a format literal, each interpolation a field of the payload.
    struct Interpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(2 * interpolationCount + 1)
        }

        mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(StepFormat.literal(literal)) }
        }

        /// `\(\.task)`: a decimal number (an id is its prefix as a literal, then the number: `t\(\.task)`).
        mutating func appendInterpolation(_ number: WritableKeyPath<Op, Int> & Sendable) {
            pieces.append(StepFormat.field(number, print: { "\($0)" }, read: { $0.number() }))
        }

        /// `\(\.executor)`: `default`, `inline`, `serial<n>`, `counting<n>`.
        mutating func appendInterpolation(_ executor: WritableKeyPath<Op, ExecutorRef> & Sendable) {
            pieces.append(StepFormat.field(executor, print: { "\($0)" }, read: { $0.executor() }))
        }

        /// `\(\.body)`, `\(\.pair)`: a case by its raw value (the longest, when one starts another).
        mutating func appendInterpolation<Case: RawRepresentable & CaseIterable & Sendable>(_ choice: WritableKeyPath<Op, Case> & Sendable)
        where Case.RawValue == String {
            pieces.append(StepFormat.field(choice, print: { $0.rawValue }, read: { $0.oneOf(Case.self) }))
        }

        /// `\(\.afterMicroseconds, prefix: "after: ", suffix: "us")`: for a number, the number
        /// between `prefix` and `suffix`; for none, nothing.
        mutating func appendInterpolation(_ number: WritableKeyPath<Op, Int?> & Sendable, prefix: String, suffix: String) {
            pieces.append(
                StepFormat.field(
                    number, print: { $0.map { "\(prefix)\($0)\(suffix)" } ?? "" },
                    read: { scanner in
                        guard scanner.take(prefix) else { return .some(nil) }
                        guard let value = scanner.number(), scanner.take(suffix) else { return nil }
                        return value
                    }))
        }

        /// `\(\.failing, prefix: " failing ")`: for a list of numbers, `prefix` and the list as
        /// Swift prints it (`[1, 4]`); for an empty one, nothing.
        mutating func appendInterpolation(_ list: WritableKeyPath<Op, [Int]> & Sendable, prefix: String) {
            pieces.append(
                StepFormat.field(
                    list, print: { $0.isEmpty ? "" : "\(prefix)\($0)" },
                    read: { scanner in scanner.take(prefix) ? scanner.list() : [] }))
        }

        /// `\(\.linkedTo, prefix: "linkedTo: ", id: "k")`: for a list of ids, `prefix` and the ids
        /// (`linkedTo: k0, k2`); for an empty one, nothing.
        mutating func appendInterpolation(_ ids: WritableKeyPath<Op, [Int]> & Sendable, prefix: String, id: String) {
            pieces.append(
                StepFormat.field(
                    ids, print: { $0.isEmpty ? "" : prefix + $0.map { "\(id)\($0)" }.joined(separator: ", ") },
                    read: { scanner in
                        guard scanner.take(prefix) else { return [] }
                        var values: [Int] = []
                        repeat {
                            guard let value = scanner.id(id) else { return nil }
                            values.append(value)
                        } while scanner.take(", ")
                        return values
                    }))
        }

        /// `\(token: \.token)`: `, token: k<n>` for a token, nothing for none (`tokenArgument`).
        mutating func appendInterpolation(token: WritableKeyPath<Op, Int?> & Sendable) {
            appendInterpolation(token, prefix: ", token: k", suffix: "")
        }

        /// `\(\.cancelled, " (cancelled)")`: `text` when the flag is set, nothing when not.
        mutating func appendInterpolation(_ flag: WritableKeyPath<Op, Bool> & Sendable, _ text: String) {
            pieces.append(StepFormat.field(flag, print: { $0 ? text : "" }, read: { .some($0.take(text)) }))
        }
    }
}

/// An operation whose text is one `StepFormat`: it prints by it, and reads back by it from a
/// payload of its fields' default values (`init()`).
protocol FormattedOperation: OperationPayload {
    static var format: StepFormat<Self> { get }
    init()
}

extension FormattedOperation {
    public var description: String {
        Self.format.text(of: self)
    }

    static func parse(_ text: Substring) -> Self? {
        format.read(text, into: Self())
    }
}
