/// Heading ids the way Qiita (and GitHub) make them: lowercase, letters / marks / numbers of any
/// script kept (so Japanese stays), `-` and `_` kept, each space becomes `-`, everything else dropped.
public enum HeadingID {
    public static func make(_ text: String) -> String {
        var bytes = Array(text.utf8)
        if let id = bytes.withUnsafeBufferPointer({ makeBytes($0) }) { return String(decoding: id, as: UTF8.self) }
        bytes.removeAll()
        return makeGeneral(text)
    }

    /// The id as UTF-8 bytes, or nil when the text has a scalar that lowercasing changes outside
    /// ASCII (then `make` goes through `String.lowercased()`). Same result as `makeGeneral` otherwise.
    static func makeBytes(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        let n = text.count
        while i < n {
            let b = text[i]
            if b < 0x80 {
                switch b {
                case 0x20, 0x09, 0x0A: out.append(UInt8(ascii: "-"))
                case UInt8(ascii: "-"), UInt8(ascii: "_"): out.append(b)
                default: if b.isASCIIAlnum { out.append(b.lowerASCII) }
                }
                i += 1
                continue
            }
            // decode one scalar (the text is valid UTF-8: it comes from a Swift String or cmark)
            let len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            guard i + len <= n else { return nil }
            var v = UInt32(b) & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07)
            for k in 1..<len { v = (v << 6) | (UInt32(text[i + k]) & 0x3F) }
            // Hiragana, Katakana (without the middle dot U+30FB) and CJK ideographs: letters that
            // lowercasing leaves alone, so kept without looking up Unicode properties.
            if isKanaOrKanji(v) {
                // These are all 3-byte scalars: the run of them that starts here is copied in one
                // go (byte appends were most of a Japanese heading's cost).
                var j = i + 3
                while j + 3 <= n && text[j] & 0xF0 == 0xE0 {
                    let w = (UInt32(text[j]) & 0x0F) << 12 | (UInt32(text[j + 1]) & 0x3F) << 6 | (UInt32(text[j + 2]) & 0x3F)
                    guard isKanaOrKanji(w) else { break }
                    j += 3
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[i..<j]))
                i = j
                continue
            }
            guard let scalar = Unicode.Scalar(v) else { return nil }
            if scalar.properties.changesWhenLowercased { return nil }
            if keeps(scalar) { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[i..<(i + len)])) }
            i += len
        }
        return out
    }

    /// Hiragana, Katakana (without the middle dot U+30FB) and CJK ideographs.
    @inline(__always) static func isKanaOrKanji(_ v: UInt32) -> Bool {
        (v >= 0x3041 && v <= 0x3096) || (v >= 0x30A1 && v <= 0x30FA) || v == 0x30FC || (v >= 0x4E00 && v <= 0x9FFF)
    }

    @inline(__always) static func keeps(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark,
             .decimalNumber, .letterNumber, .otherNumber, .connectorPunctuation:
            return true
        default:
            return false
        }
    }

    static func makeGeneral(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.lowercased().unicodeScalars {
            switch scalar {
            case " ", "\t", "\n": out.append("-")
            case "-", "_": out.append(scalar)
            default: if keeps(scalar) { out.append(scalar) }
            }
        }
        return String(out)
    }
}
