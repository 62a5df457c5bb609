/// A small, deterministic JSON writer (keys in the order given, no whitespace): the package's one
/// JSON writer, so that key order and number formatting never depend on a Foundation version.
public struct JSONWriter {
    /// What is written as `\u00XX` besides quotes, backslashes and control characters.
    public enum Escaping: Sendable {
        /// `<`, `>` and `&`: the text is safe inside HTML (pages, posts.json, serve's events).
        case markup
        /// `<` only: no tag can open where the JSON is inlined or sniffed as HTML (the search index).
        case lessThan
    }

    public private(set) var bytes: [UInt8] = []
    public let escaping: Escaping
    /// Whether a comma goes before the next value, one bit per open array or object (the
    /// lowest bit for the innermost; the top level is bit 0 of a fresh writer). A bit stack in
    /// a word, with `deeper` for levels beyond 63: posts.json writes one writer per post, and
    /// an array of flags would cost an allocation and a uniqueness check per value.
    private var commas: UInt64 = 0
    private var depth = 0
    private var deeper: [Bool] = []

    /// A writer whose buffer holds `capacity` bytes before it grows.
    public init(capacity: Int = 0, escaping: Escaping = .markup) {
        self.escaping = escaping
        if capacity > 0 { bytes.reserveCapacity(capacity) }
    }

    private mutating func separate() {
        if commas & 1 != 0 { bytes.append(UInt8(ascii: ",")) }
        commas |= 1
    }

    private mutating func push() {
        if depth >= 63 { deeper.append(commas >> 63 != 0) }
        commas <<= 1
        depth += 1
    }

    private mutating func pop() {
        depth -= 1
        commas >>= 1
        if depth >= 63, let top = deeper.popLast(), top { commas |= 1 << 63 }
    }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); push() }
    public mutating func endObject() { pop(); bytes.append(UInt8(ascii: "}")) }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); push() }
    public mutating func endArray() { pop(); bytes.append(UInt8(ascii: "]")) }

    /// Writes `"key":`; the next value call writes the value.
    public mutating func key(_ name: String) {
        separate()
        JSONWriter.appendQuoted(name, escaping: escaping, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        commas &= ~1
    }

    public mutating func string(_ value: String) { separate(); JSONWriter.appendQuoted(value, escaping: escaping, to: &bytes) }
    /// A string given as UTF-8 bytes.
    public mutating func string(utf8 value: UnsafeBufferPointer<UInt8>) { separate(); JSONWriter.appendQuoted(value, escaping: escaping, to: &bytes) }
    public mutating func int(_ value: Int) { separate(); bytes.append(contentsOf: String(value).utf8) }
    public mutating func bool(_ value: Bool) { separate(); bytes.append(contentsOf: (value ? "true" : "false").utf8) }
    public mutating func null() { separate(); bytes.append(contentsOf: "null".utf8) }
    /// A value already written as JSON (a number in a format of the caller's), appended as it is.
    public mutating func value(json text: String) { separate(); bytes.append(contentsOf: text.utf8) }

    public mutating func field(_ name: String, _ value: String) { key(name); string(value) }
    public mutating func field(_ name: String, _ value: Int) { key(name); int(value) }
    public mutating func field(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }
    public mutating func field(_ name: String, strings: [String]) {
        key(name)
        beginArray()
        for s in strings { string(s) }
        endArray()
    }

    /// Appends a JSON string literal; `escaping` says which markup characters are escaped too.
    /// Runs of bytes that need no escape are copied whole (posts.json is mostly Japanese text).
    public static func appendQuoted(_ text: String, escaping: Escaping = .markup, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendQuoted($0, escaping: escaping, to: &out) }
    }

    /// `appendQuoted` of UTF-8 bytes.
    public static func appendQuoted(_ bytes: UnsafeBufferPointer<UInt8>, escaping: Escaping = .markup, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let markup = escaping == .markup
        let n = bytes.count
        var runStart = 0
        var i = 0
        let space = SIMD16<UInt8>(repeating: 0x20), quote = SIMD16<UInt8>(repeating: 0x22)
        let backslash = SIMD16<UInt8>(repeating: 0x5C), ampersand = SIMD16<UInt8>(repeating: 0x26)
        let two = SIMD16<UInt8>(repeating: 2), greater = SIMD16<UInt8>(repeating: 0x3E)
        let less = SIMD16<UInt8>(repeating: 0x3C)
        while i < n {
            // Sixteen bytes at a time up to the next byte that needs an escape (vector compares,
            // exact: `(v | 2) == >` is `<` or `>`; the lanes read as two words).
            if let raw = UnsafeRawPointer(bytes.baseAddress) {
                while i &+ 16 <= n {
                    let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                    let always = (v .< space) .| (v .== quote) .| (v .== backslash)
                    let special = markup ? always .| (v .== ampersand) .| ((v | two) .== greater) : always .| (v .== less)
                    let lanes = unsafeBitCast(special, to: (UInt64, UInt64).self)
                    if lanes.0 | lanes.1 != 0 {
                        i &+= lanes.0 != 0 ? lanes.0.trailingZeroBitCount &>> 3 : 8 &+ lanes.1.trailingZeroBitCount &>> 3
                        break
                    }
                    i &+= 16
                }
                if i >= n { break }
            }
            let byte = bytes[i]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0x3C && (!markup || (byte != 0x3E && byte != 0x26)) {
                i += 1
                continue
            }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            switch byte {
            case UInt8(ascii: "\""): out.append(0x5C); out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            default: // other control bytes and the escaped markup characters
                func hex(_ d: UInt8) -> UInt8 { d < 10 ? 0x30 + d : 0x57 + d }
                out.append(0x5C); out.append(UInt8(ascii: "u")); out.append(0x30); out.append(0x30)
                out.append(hex(byte >> 4)); out.append(hex(byte & 0xF))
            }
            i += 1
            runStart = i
        }
        if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
        out.append(UInt8(ascii: "\""))
    }
}
