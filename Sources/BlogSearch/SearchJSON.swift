/// A tiny deterministic JSON writer (the index files are written by hand so that key order and
/// number formatting never depend on a Foundation version).
struct JSONWriter {
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
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
            case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
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

    static func appendDigit(_ value: Int, to out: inout [UInt8]) {
        out.append(characters[value & 63])
    }
}

/// FNV-1a, 32 bit: a short, stable content hash for cache busting.
struct FNV1a {
    var hash: UInt32 = 0x811C9DC5
    mutating func add(_ bytes: [UInt8]) {
        var h = hash
        bytes.withUnsafeBufferPointer { buffer in
            guard let p = buffer.baseAddress else { return }
            var i = 0
            let n = buffer.count
            while i < n {
                h = (h ^ UInt32(p[i])) &* 0x01000193
                i += 1
            }
        }
        hash = h
    }
    var hex: String {
        let s = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - s.count) + s
    }
}
