/// Colour swatches after colour values in inline code (`#f00`, `#ff0000`, `rgb(…)`, `rgba(…)`,
/// `hsl(…)`, `hsla(…)`), as Qiita shows them. The value goes into a `style` attribute, so it is
/// checked to hold nothing but the characters of those forms.
enum Swatches {
    /// Whether an inline code span is exactly one colour value.
    static func isColour(_ lit: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = lit.count
        guard n >= 4, n <= 64 else { return false }
        if lit[0] == UInt8(ascii: "#") {
            guard n == 4 || n == 7 else { return false }
            for k in 1..<n where !lit[k].isHexDigit { return false }
            return true
        }
        let open: Int
        if startsCI(lit, "rgba(") || startsCI(lit, "hsla(") { open = 5 }
        else if startsCI(lit, "rgb(") || startsCI(lit, "hsl(") { open = 4 }
        else { return false }
        guard lit[n - 1] == UInt8(ascii: ")"), n - 1 > open else { return false }
        var digits = 0
        for k in open..<(n - 1) {
            let b = lit[k]
            if b.isDigit { digits += 1; continue }
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: "%"), UInt8(ascii: "/"),
                 UInt8(ascii: "-"), UInt8(ascii: "d"), UInt8(ascii: "e"), UInt8(ascii: "g"):
                continue
            default:
                return false
            }
        }
        return digits > 0
    }

    /// The swatch written after the value inside `<code>`.
    static func write(_ lit: UnsafeBufferPointer<UInt8>, into out: inout ByteBuffer) {
        out.append(static: "<span class=\"color-swatch\" style=\"background-color: ")
        out.append(lit) // checked by `isColour`: nothing to escape
        out.append(static: "\"></span>")
    }

    private static func startsCI(_ lit: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let k = prefix.utf8CodeUnitCount
        guard lit.count >= k else { return false }
        for i in 0..<k where lit[i].lowerASCII != prefix.utf8Start[i] { return false }
        return true
    }
}

extension UInt8 {
    @inline(__always) var isHexDigit: Bool {
        isDigit || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }
}
