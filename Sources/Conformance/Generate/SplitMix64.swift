/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seedable generator whose output depends only on
/// its 64-bit seed, never on the platform or the toolchain. Every random choice of the harness
/// goes through it, through the helpers below rather than the standard library's `random(in:)`,
/// whose algorithm may change between toolchains.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (0 when `bound <= 0`), by multiply-shift: stable everywhere.
    public mutating func below(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        let product = next().multipliedFullWidth(by: UInt64(bound))
        return Int(product.high)
    }

    /// A number in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// `true` with probability `percent`/100.
    public mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    /// A random element, `nil` for an empty array.
    public mutating func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[below(items.count)]
    }

    /// An index drawn by `weights` (all zero: 0).
    public mutating func weighted(_ weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        guard total > 0 else { return 0 }
        var roll = below(total)
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }

    /// Up to `count` distinct elements of `items`, in a random order (possibly none).
    public mutating func subset<T>(of items: [T], count: Int) -> [T] {
        var pool = items
        var result: [T] = []
        while result.count < count, !pool.isEmpty {
            result.append(pool.remove(at: below(pool.count)))
        }
        return result
    }
}
