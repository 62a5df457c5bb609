import Foundation

extension Post {
    /// The text of a body's paragraphs (`<p>` elements) in order, without markup, until `limit`
    /// characters are gathered: a summary then holds no heading, table, code or footnote text run
    /// together. Only the start of the HTML is read.
    public static func paragraphText(_ html: String, limit: Int) -> String {
        var html = html
        return html.withUTF8 { bytes -> String in
            guard let base = bytes.baseAddress else { return "" }
            let n = bytes.count
            var out: [UInt8] = []
            out.reserveCapacity(min(n, 4 * limit + 16))
            var scalars = 0
            var i = 0
            func starts(_ text: StaticString, at position: Int) -> Bool {
                let count = text.utf8CodeUnitCount
                guard position + count <= n else { return false }
                return memcmp(base + position, text.utf8Start, count) == 0
            }
            while i < n && scalars <= limit {
                guard let found = memchr(base + i, Int32(UInt8(ascii: "<")), n - i) else { break }
                i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                // Footnotes come last, in a section of their own.
                if starts("<section class=\"footnotes", at: i) { break }
                guard starts("<p>", at: i) || starts("<p ", at: i) else { i += 1; continue }
                while i < n && base[i] != UInt8(ascii: ">") { i += 1 }
                i += 1
                if !out.isEmpty { out.append(0x20) }
                // The paragraph's text: tags dropped, the renderer's entities undone.
                var depth = 0
                while i < n {
                    let byte = base[i]
                    if byte == UInt8(ascii: "<") {
                        if starts("</p>", at: i) && depth == 0 { i += 4; break }
                        if starts("<p", at: i) { depth += 1 } else if starts("</p>", at: i) { depth -= 1 }
                        if starts("<br", at: i) { out.append(0x20) }
                        // A footnote's number is not text of the paragraph.
                        if starts("<sup id=\"fnref-", at: i) {
                            while i < n && !starts("</sup>", at: i) { i += 1 }
                            continue
                        }
                        while i < n && base[i] != UInt8(ascii: ">") { i += 1 }
                        i += 1
                        continue
                    }
                    if byte == UInt8(ascii: "&") {
                        if starts("&amp;", at: i) { out.append(UInt8(ascii: "&")); i += 5; scalars += 1; continue }
                        if starts("&lt;", at: i) { out.append(UInt8(ascii: "<")); i += 4; scalars += 1; continue }
                        if starts("&gt;", at: i) { out.append(UInt8(ascii: ">")); i += 4; scalars += 1; continue }
                        if starts("&quot;", at: i) { out.append(UInt8(ascii: "\"")); i += 6; scalars += 1; continue }
                        if starts("&#39;", at: i) { out.append(UInt8(ascii: "'")); i += 5; scalars += 1; continue }
                    }
                    out.append(byte)
                    if byte & 0xC0 != 0x80 { scalars += 1 }
                    i += 1
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
