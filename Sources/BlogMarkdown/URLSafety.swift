/// Whether a URL written in HTML could run script when followed, judged on what the browser sees:
/// the attribute value after the HTML tokenizer decodes character references (with or without
/// `;`, leading zeros, hex or decimal, named), then as the URL parser reads it (ASCII whitespace
/// and C0 controls at the ends dropped, tabs and line breaks dropped everywhere), then its scheme.
public enum URLSafety {
    /// What the URL is for: `data:` raster images are allowed only as an image's source.
    public enum Use: Sendable {
        case link
        case image
    }

    /// The value of an attribute as written in HTML (between the quotes) → the scalars the browser
    /// stores. Named references are decoded when they stand for ASCII characters (the only ones
    /// that can spell a scheme or vanish in the URL parser); any other `&` is kept as a literal `&`.
    public static func decodeAttributeValue<C: Collection<UInt8>>(_ raw: C) -> [Unicode.Scalar] {
        // the tokenizer reads a NUL in an attribute value as U+FFFD
        let text = String(decoding: Array(raw), as: UTF8.self).unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            guard text[i] == "&", let (decoded, length) = reference(in: text, at: i) else {
                out.append(text[i])
                i += 1
                continue
            }
            out.append(contentsOf: decoded)
            i += length
        }
        return out
    }

    /// The URL as the URL parser reads it: C0 controls and spaces at both ends removed, then every
    /// tab, line feed and carriage return removed.
    public static func parserView(_ url: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var start = 0, end = url.count
        while start < end && url[start].value <= 0x20 { start += 1 }
        while end > start && url[end - 1].value <= 0x20 { end -= 1 }
        return url[start..<end].filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
    }

    /// The lower-cased scheme of a URL in parser view, or nil when it has none (a relative URL):
    /// an ASCII letter, then letters, digits, `+`, `-`, `.`, up to the first `:`.
    public static func scheme(of url: [Unicode.Scalar]) -> String? {
        guard let first = url.first, first.isASCII, isLetter(UInt8(first.value)) else { return nil }
        var scheme = ""
        for scalar in url {
            if scalar == ":" { return scheme }
            guard scalar.isASCII else { return nil }
            let b = UInt8(scalar.value)
            guard isLetter(b) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E else { return nil }
            scheme.unicodeScalars.append(Unicode.Scalar(isUpper(b) ? b + 0x20 : b))
        }
        return nil
    }

    /// True when following the URL (already decoded, e.g. a Markdown link's destination) could run
    /// script: `javascript:`, `vbscript:`, `livescript:`, and `data:` unless a raster image used as one.
    public static func runsScript(_ url: [Unicode.Scalar], use: Use) -> Bool {
        let view = parserView(url)
        switch scheme(of: view) {
        case "javascript", "vbscript", "livescript": return true
        case "data": return !(use == .image && isRasterImageData(view))
        default: return false
        }
    }

    /// The UTF-8 form for URLs held as bytes (cmark's link destinations).
    public static func runsScript<C: Collection<UInt8>>(utf8 url: C, use: Use) -> Bool {
        runsScript(Array(String(decoding: Array(url), as: UTF8.self).unicodeScalars), use: use)
    }

    /// For the sanitizer's allowlist: the URL of a raw-HTML attribute value (as written) ready to
    /// be written back between double quotes, or nil when it is not allowed. Allowed: relative
    /// URLs, `http:`, `https:`, `mailto:`, and `data:` raster images for `.image`. What is written
    /// is the decoded, parser-view URL with `&`, `"`, `<`, `>` and controls as references, so the
    /// browser reads exactly the URL that was checked.
    public static func allowedAttributeURL<C: Collection<UInt8>>(_ raw: C, use: Use) -> [UInt8]? {
        let view = parserView(decodeAttributeValue(raw))
        switch scheme(of: view) {
        case nil, "http", "https", "mailto": break
        case "data": guard use == .image && isRasterImageData(view) else { return nil }
        default: return nil
        }
        return attributeText(view)
    }

    /// `scalars` as the text of a double-quoted attribute value that decodes back to them.
    public static func attributeText(_ scalars: [Unicode.Scalar]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(scalars.count)
        for scalar in scalars {
            switch scalar.value {
            case 0x26: out.append(contentsOf: Array("&amp;".utf8))
            case 0x22: out.append(contentsOf: Array("&quot;".utf8))
            case 0x3C: out.append(contentsOf: Array("&lt;".utf8))
            case 0x3E: out.append(contentsOf: Array("&gt;".utf8))
            case 0x00: out.append(contentsOf: Array("&#xFFFD;".utf8))
            // C0 and DEL as numeric references (they decode to themselves); C1 stays raw UTF-8,
            // since a numeric reference to 0x80–0x9F decodes to a windows-1252 character instead
            case 0x01..<0x20, 0x7F: out.append(contentsOf: Array("&#x\(String(scalar.value, radix: 16, uppercase: true));".utf8))
            default: out.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
        }
        return out
    }

    // MARK: - character references (the HTML tokenizer's rules for attribute values)

    /// The reference starting at `text[start]` (`&`): what it decodes to and how many scalars it
    /// spans, or nil when the `&` stays a literal.
    static func reference(in text: [Unicode.Scalar], at start: Int) -> ([Unicode.Scalar], Int)? {
        var i = start + 1
        guard i < text.count else { return nil }
        if text[i] == "#" {
            i += 1
            var hex = false
            if i < text.count && (text[i] == "x" || text[i] == "X") { hex = true; i += 1 }
            var value: UInt32 = 0
            var digits = 0
            while i < text.count, let d = digit(text[i], hex: hex) {
                value = value > 0x10FFFF ? value : value &* (hex ? 16 : 10) &+ d // stays above once too large
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil } // `&#` / `&#x` without digits stay as written
            if i < text.count && text[i] == ";" { i += 1 }
            return ([numericScalar(value)], i - start)
        }
        // Named: the longest name in the table that the text starts with.
        var best: (name: NamedReference, length: Int)?
        for entry in namedReferences {
            let name = entry.name
            guard start + 1 + name.count <= text.count else { continue }
            var matches = true
            for (k, c) in name.enumerated() where text[start + 1 + k] != c { matches = false; break }
            if matches && name.count > (best?.length ?? 0) { best = (entry, name.count) }
        }
        guard let (entry, length) = best else { return nil }
        if entry.name.last != ";" {
            // in an attribute, a reference without `;` followed by `=` or a letter or digit stays literal
            let next = start + 1 + length
            if next < text.count, text[next] == "=" || (text[next].isASCII && isAlphanumeric(UInt8(text[next].value))) {
                return nil
            }
        }
        return (entry.value, 1 + length)
    }

    /// The tokenizer's numeric reference fix-ups: zero, beyond Unicode and surrogates become
    /// U+FFFD; 0x80–0x9F are read as windows-1252 where that has a character.
    static func numericScalar(_ value: UInt32) -> Unicode.Scalar {
        if value == 0 || value > 0x10FFFF || (0xD800...0xDFFF).contains(value) { return "\u{FFFD}" }
        if (0x80...0x9F).contains(value), let mapped = windows1252[value] { return Unicode.Scalar(mapped)! }
        return Unicode.Scalar(value)!
    }

    static let windows1252: [UInt32: UInt32] = [
        0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
        0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152, 0x8E: 0x017D, 0x91: 0x2018,
        0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC,
        0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A, 0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
    ]

    struct NamedReference {
        let name: [Unicode.Scalar]
        let value: [Unicode.Scalar]
    }

    /// Every HTML named reference whose characters include ASCII (the legacy ones without `;` too);
    /// the others decode to non-ASCII characters, which can neither spell a scheme nor be dropped
    /// by the URL parser.
    static let namedReferences: [NamedReference] = [
        ("AMP", "&"), ("AMP;", "&"), ("DiacriticalGrave;", "`"), ("GT", ">"), ("GT;", ">"), ("Hat;", "^"),
        ("LT", "<"), ("LT;", "<"), ("NewLine;", "\n"), ("QUOT", "\""), ("QUOT;", "\""), ("Tab;", "\t"),
        ("UnderBar;", "_"), ("VerticalLine;", "|"), ("amp", "&"), ("amp;", "&"), ("apos;", "'"), ("ast;", "*"),
        ("bne;", "=\u{20E5}"), ("bsol;", "\\"), ("colon;", ":"), ("comma;", ","), ("commat;", "@"),
        ("dollar;", "$"), ("equals;", "="), ("excl;", "!"), ("fjlig;", "fj"), ("grave;", "`"), ("gt", ">"),
        ("gt;", ">"), ("lbrace;", "{"), ("lbrack;", "["), ("lcub;", "{"), ("lowbar;", "_"), ("lpar;", "("),
        ("lsqb;", "["), ("lt", "<"), ("lt;", "<"), ("midast;", "*"), ("num;", "#"), ("nvgt;", ">\u{20D2}"),
        ("nvlt;", "<\u{20D2}"), ("percnt;", "%"), ("period;", "."), ("plus;", "+"), ("quest;", "?"),
        ("quot", "\""), ("quot;", "\""), ("rbrace;", "}"), ("rbrack;", "]"), ("rcub;", "}"), ("rpar;", ")"),
        ("rsqb;", "]"), ("semi;", ";"), ("sol;", "/"), ("verbar;", "|"), ("vert;", "|"),
    ].map { NamedReference(name: Array($0.0.unicodeScalars), value: Array($0.1.unicodeScalars)) }

    // MARK: - small helpers

    static func isRasterImageData(_ view: [Unicode.Scalar]) -> Bool {
        // `data:` then the media type up to `;` or `,`
        var type = ""
        for scalar in view.dropFirst(5) {
            if scalar == ";" || scalar == "," { break }
            let lower = scalar.isASCII && isUpper(UInt8(scalar.value)) ? Unicode.Scalar(scalar.value + 0x20)! : scalar
            type.unicodeScalars.append(lower)
            if type.count > 16 { return false }
        }
        return ["image/png", "image/gif", "image/jpeg", "image/webp"].contains(type)
    }

    private static func digit(_ scalar: Unicode.Scalar, hex: Bool) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30
        case 0x41...0x46 where hex: return scalar.value - 0x37
        case 0x61...0x66 where hex: return scalar.value - 0x57
        default: return nil
        }
    }

    @inline(__always) private static func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
    @inline(__always) private static func isLetter(_ b: UInt8) -> Bool { isUpper(b) || (b >= 0x61 && b <= 0x7A) }
    @inline(__always) private static func isAlphanumeric(_ b: UInt8) -> Bool { isLetter(b) || (b >= 0x30 && b <= 0x39) }
}
