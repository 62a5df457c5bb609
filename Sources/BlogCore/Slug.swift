import Foundation

public enum Slug {
    /// A URL path segment derived from free text: NFKC, lowercased, letters and digits of every
    /// script kept (Japanese stays Japanese), everything else folded to single `-`.
    /// Stable: depends on the text only.
    public static func make(_ text: String) -> String {
        let normalized = text.precomposedStringWithCompatibilityMapping.lowercased()
        var result = ""
        var pendingDash = false
        for scalar in normalized.unicodeScalars {
            let keep = scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || scalar == "_" || scalar == "+" || (scalar.value >= 0x3040 && scalar.value <= 0x30FF && scalar.value != 0x30FB)
            if keep {
                if pendingDash && !result.isEmpty { result.append("-") }
                pendingDash = false
                result.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
        }
        return result
    }

    /// The slug of a post without `slug:` in its front matter, from its title: `make(title)`, at
    /// most 80 characters, no trailing `-`. Empty when the title has no letters or digits.
    public static func forTitle(_ title: String) -> String {
        var slug = make(title)
        if slug.count > 80 { slug = String(slug.prefix(80)) }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug
    }

    /// The slug of a post with neither `slug:` nor `id:`: its title's, else its file name's, else a
    /// hash of the title. The loader and the importer's collision check both use it.
    public static func derived(title: String, fileName: String) -> String {
        var slug = forTitle(title)
        if slug.isEmpty {
            // The file name without its extension (a leading dot starts no extension).
            let dot = fileName.lastIndex(of: ".").flatMap { $0 == fileName.startIndex ? nil : $0 }
            slug = make(dot.map { String(fileName[..<$0]) } ?? fileName)
        }
        return slug.isEmpty ? "post-\(String(fnv1a64(title.utf8), radix: 16))" : slug
    }

    /// Percent-encodes a path for use in an `href` (everything but unreserved ASCII and `/`).
    public static func percentEncodePath(_ path: String) -> String {
        @inline(__always) func isSafe(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                return true
            default:
                return false
            }
        }
        // Most paths are all safe: checked on the bytes against a bit table (bit b of the pair:
        // byte b, 0x00–0x3F and 0x40–0x7F, is safe; `allSatisfy` on the UTF-8 view is far dearer).
        var copy = path
        let allSafe = copy.withUTF8 { bytes -> Bool in
            let low: UInt64 = 0x03FF_E000_0000_0000, high: UInt64 = 0x47FF_FFFE_87FF_FFFE
            for byte in bytes {
                guard byte < 0x80, ((byte < 0x40 ? low : high) &>> UInt64(byte & 0x3F)) & 1 != 0 else { return false }
            }
            return true
        }
        if allSafe { return path }
        var result: [UInt8] = []
        result.reserveCapacity(path.utf8.count * 3)
        let hex: StaticString = "0123456789ABCDEF"
        for byte in path.utf8 {
            if isSafe(byte) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "%"))
                result.append(hex.utf8Start[Int(byte >> 4)])
                result.append(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}

/// Escapes text for HTML element content and attribute values (`&`, `<`, `>`, `"`, `'`).
public func escapeHTML(_ text: String) -> String {
    var needs = false
    for byte in text.utf8 where byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27 {
        needs = true
        break
    }
    if !needs { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&#39;"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}
