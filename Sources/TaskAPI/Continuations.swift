/// Registered continuations in registration order. The first is stored inline, so a task with a
/// single continuation (the common case) needs no array.
public struct Continuations<Element>: Sequence {
    @usableFromInline var first: Element?
    @usableFromInline var rest: [Element]

    @inlinable
    public init() {
        first = nil
        rest = []
    }

    @inlinable
    public var count: Int { first == nil ? 0 : 1 + rest.count }

    @inlinable
    public var isEmpty: Bool { first == nil }

    /// Removes the first element and returns it, moved out rather than copied; `nil` if there is
    /// none. The elements after it stay in `tail`: this is for handing over a batch in order, one
    /// element at a time, without a retain of each.
    @inlinable
    public mutating func takeFirst() -> Element? {
        var taken: Element? = nil
        swap(&taken, &first)
        return taken
    }

    /// The elements after the first, in order.
    @inlinable
    public var tail: [Element] { rest }

    @inlinable
    public mutating func append(_ element: Element) {
        if first == nil {
            first = element
        } else {
            rest.append(element)
        }
    }

    /// Removes and returns the first element that `matches`, keeping the others in order.
    @inlinable
    public mutating func remove(where matches: (Element) -> Bool) -> Element? {
        guard let head = first else { return nil }
        if matches(head) {
            first = rest.isEmpty ? nil : rest.removeFirst()
            return head
        }
        guard let index = rest.firstIndex(where: matches) else { return nil }
        return rest.remove(at: index)
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline var first: Element?
        @usableFromInline var rest: IndexingIterator<[Element]>

        @inlinable
        init(_ continuations: Continuations) {
            first = continuations.first
            rest = continuations.rest.makeIterator()
        }

        @inlinable
        public mutating func next() -> Element? {
            if let element = first {
                first = nil
                return element
            }
            return rest.next()
        }
    }

    @inlinable
    public func makeIterator() -> Iterator { Iterator(self) }
}

extension Continuations: Sendable where Element: Sendable {}
extension Continuations.Iterator: Sendable where Element: Sendable {}
