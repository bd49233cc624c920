/// A small seeded random number generator (SplitMix64), so that runs can be repeated.
///
/// `authmock serve --seed N` feeds nonces, opaques and the nonce-signing key from this generator, which
/// makes every challenge of a run reproducible. It is not cryptographically secure, which is fine for a
/// test server; without a seed the system generator is used.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The random source the server uses: the system generator, or a seeded one for repeatable runs.
public struct RandomSource: RandomNumberGenerator, Sendable {
    private var seeded: SplitMix64?

    /// The system's cryptographically secure generator.
    public static var system: RandomSource { RandomSource(seeded: nil) }

    /// A repeatable generator.
    public static func seeded(_ seed: UInt64) -> RandomSource { RandomSource(seeded: SplitMix64(seed: seed)) }

    public mutating func next() -> UInt64 {
        if seeded != nil { return seeded!.next() }
        var system = SystemRandomNumberGenerator()
        return system.next()
    }
}

extension RandomNumberGenerator {
    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count + 8)
        while out.count < count {
            withUnsafeBytes(of: next().littleEndian) { out.append(contentsOf: $0) }
        }
        return Array(out.prefix(count))
    }
}
