/// One posting of a shard's posting string, format version 2 (docs/search-index.md, "shards"):
/// `varint(head)`, then what the head's kind asks for, over the posting alphabet.
///
/// head = gap · 8 + kind, gap = document id − previous id − 1:
/// - kind 0…5: the term occurs once, in the body only, at a position ≡ kind (mod 6): nothing follows
///   (most postings: one varint where version 1 wrote a gap, a value and the residues);
/// - kind 6: body only, more than once: `varint(occurrences − 2)`, `digit(residues)`;
/// - kind 7: anything else: `varint(value)`, `digit(residues)`, value as in `AnalyzedDocument`.
enum PostingCode {
    /// Bits of the field mask.
    static let bodyOnly: Int32 = 8

    /// The most characters one posting takes (gap and value below 2^31).
    static let maxLength = 7 + 7 + 1

    /// Writes one posting at `out` and returns the characters written.
    @inline(__always)
    static func write(gap: Int, value: Int32, residues: UInt8, to out: UnsafeMutablePointer<UInt8>,
                      alphabet: UnsafePointer<UInt8>) -> Int {
        let r = Int(residues) & 63
        var n = 0
        @inline(__always) func varint(_ value: Int) {
            var v = value
            while v >= 32 { out[n] = alphabet[32 | (v & 31)]; n &+= 1; v >>= 5 }
            out[n] = alphabet[v]; n &+= 1
        }
        if value == bodyOnly && r != 0 && r & (r &- 1) == 0 {
            varint(gap << 3 | r.trailingZeroBitCount)
        } else if value & 31 == bodyOnly && value >= 32 {
            varint(gap << 3 | 6)
            varint(Int(value >> 5) &- 1)
            out[n] = alphabet[r]; n &+= 1
        } else {
            varint(gap << 3 | 7)
            varint(Int(value))
            out[n] = alphabet[r]; n &+= 1
        }
        return n
    }

    /// The characters `write` takes for this posting.
    @inline(__always)
    static func length(gap: Int, value: Int32, residues: UInt8) -> Int {
        let r = Int(residues) & 63
        if value == bodyOnly && r != 0 && r & (r &- 1) == 0 { return varintLength(gap << 3) }
        if value & 31 == bodyOnly && value >= 32 { return varintLength(gap << 3) + varintLength(Int(value >> 5) - 1) + 1 }
        return varintLength(gap << 3) + varintLength(Int(value)) + 1
    }

    @inline(__always)
    static func varintLength(_ value: Int) -> Int {
        var v = value, n = 1
        while v >= 32 { v >>= 5; n += 1 }
        return n
    }

    /// Reads one posting from `digit(i)` (alphabet values) starting at `i`, advancing `i`.
    @inline(__always)
    static func read(_ i: inout Int, _ digit: (Int) -> Int) -> (gap: Int, value: Int32, residues: UInt8) {
        func varint() -> Int {
            var value = 0, shift = 0
            while true {
                let d = digit(i)
                i += 1
                value |= (d & 31) << shift
                shift += 5
                if d & 32 == 0 { return value }
            }
        }
        let head = varint()
        let kind = head & 7, gap = head >> 3
        switch kind {
        case 0...5:
            return (gap, bodyOnly, UInt8(1 << kind))
        case 6:
            let value = Int32(varint() + 1) << 5 | bodyOnly
            let r = UInt8(digit(i)); i += 1
            return (gap, value, r)
        default:
            let value = Int32(varint())
            let r = UInt8(digit(i)); i += 1
            return (gap, value, r)
        }
    }
}
