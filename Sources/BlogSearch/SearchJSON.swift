import BlogCore

/// The search index's bytes: its layout (key order, separators, numbers with at most four
/// decimals) is written by hand so that it never depends on a Foundation version; strings are
/// quoted by BlogCore's `JSONWriter`, the one JSON string escaper.
struct IndexJSON {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func raw(_ byte: UInt8) { bytes.append(byte) }

    mutating func int(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A finite number with at most 4 decimals, no exponent.
    mutating func number(_ value: Double) {
        let scaled = (value * 10000).rounded()
        var integer = Int(scaled)
        if integer < 0 { bytes.append(UInt8(ascii: "-")); integer = -integer }
        bytes.append(contentsOf: String(integer / 10000).utf8)
        var fraction = integer % 10000
        if fraction != 0 {
            var digits: [UInt8] = []
            for _ in 0..<4 { digits.append(UInt8(48 + fraction % 10)); fraction /= 10 }
            digits.reverse()
            while digits.last == 48 { digits.removeLast() }
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: digits)
        }
    }

    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { string($0) }
    }

    /// A JSON string of UTF-8 bytes, quoted by BlogCore's writer; `<` is escaped too, so that a
    /// shard inlined in a page or sniffed as HTML never opens a tag.
    mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) {
        BlogCore.JSONWriter.appendQuoted(utf8, escaping: .lessThan, to: &bytes)
    }

    /// A string whose bytes are known to need no escaping (posting alphabet).
    mutating func plainString(_ content: [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: content)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func stringArray(_ items: [String]) {
        raw("[")
        for (i, item) in items.enumerated() {
            if i > 0 { raw(",") }
            string(item)
        }
        raw("]")
    }
}

/// The 64-character alphabet of the posting encoding (all JSON-safe, no escaping needed).
/// A varint uses 5 data bits per character; bit 5 (value 32) means "more characters follow".
enum PostingAlphabet {
    static let characters: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func appendVarint(_ value: Int, to out: inout [UInt8]) {
        var v = value
        while v >= 32 {
            out.append(characters[32 | (v & 31)])
            v >>= 5
        }
        out.append(characters[v])
    }

    /// The value of an alphabet character.
    @inline(__always)
    static func value(_ c: UInt8) -> Int {
        switch c {
        case 65...90: return Int(c) - 65
        case 97...122: return Int(c) - 97 + 26
        case 48...57: return Int(c) - 48 + 52
        case 45: return 62
        default: return 63
        }
    }

    static func appendDigit(_ value: Int, to out: inout [UInt8]) {
        out.append(characters[value & 63])
    }
}
