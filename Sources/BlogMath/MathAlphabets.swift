/// MathML Core draws `mathvariant` only as "normal": a styled letter must be its own character,
/// from Unicode's Mathematical Alphanumeric Symbols (`\mathbb{R}` is ℝ, `\mathbf{x}` is 𝐱).
enum MathAlphabets {
    /// First code points of A, a, 0, Α and α in each style (0 where Unicode has no such letters).
    private static let starts: [String: (upper: UInt32, lower: UInt32, digit: UInt32, greekUpper: UInt32, greekLower: UInt32)] = [
        "bold": (0x1D400, 0x1D41A, 0x1D7CE, 0x1D6A8, 0x1D6C2),
        "italic": (0x1D434, 0x1D44E, 0, 0x1D6E2, 0x1D6FC),
        "bold-italic": (0x1D468, 0x1D482, 0, 0x1D71C, 0x1D736),
        "script": (0x1D49C, 0x1D4B6, 0, 0, 0),
        "bold-script": (0x1D4D0, 0x1D4EA, 0, 0, 0),
        "fraktur": (0x1D504, 0x1D51E, 0, 0, 0),
        "double-struck": (0x1D538, 0x1D552, 0x1D7D8, 0, 0),
        "sans-serif": (0x1D5A0, 0x1D5BA, 0x1D7E2, 0, 0),
        "monospace": (0x1D670, 0x1D68A, 0x1D7F6, 0, 0),
    ]
    /// Letters Unicode had encoded before the block, whose places in it are left empty.
    private static let holes: [String: [Unicode.Scalar: Unicode.Scalar]] = [
        "italic": ["h": "\u{210E}"],
        "script": ["B": "\u{212C}", "E": "\u{2130}", "F": "\u{2131}", "H": "\u{210B}", "I": "\u{2110}", "L": "\u{2112}",
                   "M": "\u{2133}", "R": "\u{211B}", "e": "\u{212F}", "g": "\u{210A}", "o": "\u{2134}"],
        "fraktur": ["C": "\u{212D}", "H": "\u{210C}", "I": "\u{2111}", "R": "\u{211C}", "Z": "\u{2128}"],
        "double-struck": ["C": "\u{2102}", "H": "\u{210D}", "N": "\u{2115}", "P": "\u{2119}", "Q": "\u{211A}",
                          "R": "\u{211D}", "Z": "\u{2124}"],
    ]

    /// The text in the style's characters, or nil when a character has none in it.
    static func map(_ text: String, variant: String) -> String? {
        guard let start = starts[variant] else { return nil }
        var out = String.UnicodeScalarView()
        for c in text.unicodeScalars {
            if let hole = holes[variant]?[c] { out.append(hole); continue }
            let v = c.value
            let mapped: UInt32
            switch v {
            case 0x41...0x5A: mapped = start.upper + v - 0x41
            case 0x61...0x7A: mapped = start.lower + v - 0x61
            case 0x30...0x39 where start.digit != 0: mapped = start.digit + v - 0x30
            case 0x391...0x3A9 where start.greekUpper != 0: mapped = start.greekUpper + v - 0x391
            case 0x3B1...0x3C9 where start.greekLower != 0: mapped = start.greekLower + v - 0x3B1
            default: return nil
            }
            guard let scalar = Unicode.Scalar(mapped) else { return nil }
            out.append(scalar)
        }
        return String(out)
    }
}
