// The package's hashing, beside Swift's `Hasher` (seeded per process, for in-memory tables only):
// - FNV-1a, the one hash of byte strings: asset, tag and image names, imported posts' slugs (32
//   bits), build stamps, ETags, the search index's file versions, template member lookups. Stable
//   across runs and platforms, so it can name files; never for security.
// - `mixBits`, the finalizer that spreads an integer key over a table (the search index's term
//   keys, the highlighter's keyword table), where the key already is the bytes packed.

/// FNV-1a, 64 bits, of bytes.
@inlinable
public func fnv1a64(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash = FNV1a64()
    hash.add(bytes)
    return hash.value
}

/// `fnv1a64` of bytes in memory.
@inlinable
public func fnv1a64(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash = FNV1a64()
    hash.add(bytes)
    return hash.value
}

/// `fnv1a64` of a string's UTF-8 bytes, read in place.
@inlinable
public func fnv1a64(_ text: String) -> UInt64 {
    var hash = FNV1a64()
    hash.add(text)
    return hash.value
}

/// FNV-1a 64 over a stream of bytes: `add` the parts, read `value`.
public struct FNV1a64: Sendable {
    /// The hash of the bytes added so far.
    public var value: UInt64 = 0xcbf2_9ce4_8422_2325

    @inlinable public init() {}

    @inlinable @inline(__always)
    public mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
    }

    @inlinable
    public mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        var value = self.value
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
        self.value = value
    }

    @inlinable
    public mutating func add(_ bytes: some Sequence<UInt8>) {
        // Contiguous storage (arrays, native strings' UTF-8) is read through a pointer, since the
        // generic loop is dear per byte.
        let done: Void? = bytes.withContiguousStorageIfAvailable { add($0) }
        if done == nil { for byte in bytes { add(byte) } }
    }

    @inlinable
    public mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add($0) }
    }

    /// An integer as its eight little-endian bytes.
    @inlinable @inline(__always)
    public mutating func add(raw number: Int64) {
        var n = UInt64(bitPattern: number)
        var value = self.value
        for _ in 0..<8 {
            value = (value ^ (n & 0xFF)) &* 0x100_0000_01b3
            n >>= 8
        }
        self.value = value
    }
}

/// FNV-1a, 32 bits, of a string's UTF-8 bytes (imported posts' slugs, which must not change).
@inlinable
public func fnv1a32(_ text: String) -> UInt32 {
    var hash: UInt32 = 0x811C_9DC5
    for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
    return hash
}

/// A 32-bit hash as 8 lowercase hex digits (for names: assets, slugs, index versions).
public func hex8(_ value: UInt32) -> String {
    let hex = String(value, radix: 16)
    return String(repeating: "0", count: 8 - hex.count) + hex
}

/// Spreads the bits of an integer key over all 64 (a bijection: distinct keys stay distinct).
@inlinable @inline(__always)
public func mixBits(_ x: UInt64) -> UInt64 {
    var h = x &* 0x9E37_79B9_7F4A_7C15
    h ^= h >> 32
    h = h &* 0xD6E8_FEB8_6659_FD93
    h ^= h >> 32
    return h
}
