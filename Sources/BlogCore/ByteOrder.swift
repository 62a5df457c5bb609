/// `String`'s `<` (Unicode canonical order: NFC scalars compared one by one), decided on the
/// UTF-8 bytes wherever that gives the same answer, and by `String` itself elsewhere.
///
/// A build sorts every output path, and `String`'s `<` takes the generic path through
/// `_stringCompareInternal` for each comparison; this is a word-at-a-time scan for the first
/// differing byte.
///
/// Why the bytes are exact where they are used: an ASCII character never composes with the
/// character before it and has combining class 0, so NFC has a boundary before it, and another
/// after it when the next character is ASCII too (or the string ends there). So when both strings
/// first differ at ASCII bytes that are each followed by ASCII or nothing, their NFC forms share
/// the normalised prefix and then differ at those very bytes. When one string is a prefix of the
/// other and the longer goes on with ASCII, the shorter's NFC form is a proper prefix of the
/// longer's. Byte-identical strings are equal. Everything else (a difference at or just before a
/// non-ASCII byte) is left to `String`.
public enum ByteOrder {
    /// Whether `a < b` as `String` orders them.
    @inlinable
    public static func less(_ a: String, _ b: String) -> Bool {
        if let order = decidedByBytes(a, b) { return order < 0 }
        return a < b
    }

    /// -1, 0 or 1 when the UTF-8 bytes decide the order of `a` and `b`; nil when only `String` can.
    @inlinable
    static func decidedByBytes(_ a: String, _ b: String) -> Int8? {
        let decided = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compare(x, y) }
        }
        guard let decided, let inner = decided else { return nil }
        return inner
    }

    /// `strings` in `String`'s order (the same order `sorted()` gives, ties included: the sort
    /// is the standard library's, on an order that agrees with `String`'s on every pair). The
    /// bytes are copied into one buffer first and positions are sorted, so the sort moves
    /// integers instead of retaining and releasing strings.
    public static func sorted<S: Sequence<String>>(_ strings: S) -> [String] {
        let strings = Array(strings)
        var starts: [Int] = []
        starts.reserveCapacity(strings.count + 1)
        var arena: [UInt8] = []
        for string in strings {
            starts.append(arena.count)
            arena.append(contentsOf: string.utf8)
        }
        starts.append(arena.count)
        var order = Array(0..<strings.count)
        arena.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                let base = bytes.baseAddress
                order.sort { i, j in
                    let x = UnsafeBufferPointer(start: base.map { $0 + starts[i] }, count: starts[i + 1] - starts[i])
                    let y = UnsafeBufferPointer(start: base.map { $0 + starts[j] }, count: starts[j + 1] - starts[j])
                    if let order = compare(x, y) { return order < 0 }
                    return strings[i] < strings[j]
                }
            }
        }
        return order.map { strings[$0] }
    }

    /// -1, 0 or 1 when the bytes decide the order of the two strings; nil when only `String` can.
    @usableFromInline
    static func compare(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int8? {
        let n = min(x.count, y.count)
        var i = 0
        if n >= 8, let xs = UnsafeRawPointer(x.baseAddress), let ys = UnsafeRawPointer(y.baseAddress) {
            while i + 8 <= n {
                let difference = xs.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ ys.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if difference != 0 {
                    i += difference.trailingZeroBitCount >> 3 // little-endian: the first differing byte
                    return decide(x, y, at: i)
                }
                i += 8
            }
        }
        while i < n && x[i] == y[i] { i += 1 }
        return decide(x, y, at: i)
    }

    /// The order given by the first differing byte at `i` (or the end of the shorter string), if exact.
    @inline(__always)
    static func decide(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>, at i: Int) -> Int8? {
        if i == x.count || i == y.count {
            if x.count == y.count { return 0 }
            let longer = x.count > y.count ? x : y
            guard longer[i] < 0x80 else { return nil }
            return x.count < y.count ? -1 : 1
        }
        guard x[i] < 0x80, y[i] < 0x80 else { return nil }
        guard i + 1 == x.count || x[i + 1] < 0x80, i + 1 == y.count || y[i + 1] < 0x80 else { return nil }
        return x[i] < y[i] ? -1 : 1
    }
}
