/// Filters raw HTML (cmark's HTML block and inline HTML nodes) against a small allowlist.
///
/// Allowed tags keep only their allowed attributes; URL attributes keep only `http:`, `https:`,
/// `mailto:` and relative URLs (plus `data:image/...` for `img src`), as `URLSafety` reads them.
/// Every other tag is escaped so it shows as text. Comments are dropped. Text between tags passes
/// (with `<`/`>` escaped).
enum HTMLSanitizer {
    static let allowed: [String: Set<String>] = [
        "details": ["open"], "summary": [], "br": [], "kbd": [], "sup": [], "sub": [],
        "ruby": [], "rt": [], "rp": [], "rb": [],
        "img": ["src", "alt", "title", "width", "height"], "a": ["href", "title", "name"],
        "div": ["class"], "span": ["class"], "p": [],
        "b": [], "i": [], "strong": [], "em": [], "s": [], "del": [], "ins": [], "u": [], "small": [], "mark": [],
        "code": [], "pre": [], "hr": [], "blockquote": [], "q": [], "abbr": ["title"],
        "dl": [], "dt": [], "dd": [], "ul": [], "ol": ["start"], "li": [],
        "table": [], "thead": [], "tbody": [], "tr": [],
        "th": ["align", "colspan", "rowspan"], "td": ["align", "colspan", "rowspan"],
        "h1": [], "h2": [], "h3": [], "h4": [], "h5": [], "h6": [],
    ]
    static let urlAttributes: Set<String> = ["href", "src"]

    static func sanitize(_ html: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var embeds = EmbedContext(scripts: false)
        return sanitize(html, embeds: &embeds)
    }

    /// `sanitize` letting the allowlisted embeds through (Embeds.swift).
    static func sanitize(_ html: UnsafeBufferPointer<UInt8>, embeds: inout EmbedContext) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(html.count + 16)
        let n = html.count
        var i = 0
        while i < n {
            let b = html[i]
            if b == UInt8(ascii: ">") { out.append(contentsOf: Array("&gt;".utf8)); i += 1; continue }
            if b != UInt8(ascii: "<") { out.append(b); i += 1; continue }
            // comment: dropped
            if i + 3 < n && html[i + 1] == UInt8(ascii: "!") && html[i + 2] == UInt8(ascii: "-") && html[i + 3] == UInt8(ascii: "-") {
                var j = i + 4
                var closed = false
                while j + 2 < n {
                    if html[j] == UInt8(ascii: "-") && html[j + 1] == UInt8(ascii: "-") && html[j + 2] == UInt8(ascii: ">") { closed = true; break }
                    j += 1
                }
                if closed { i = j + 3; continue }
                appendEscaped(&out, html[i..<n])
                return out
            }
            if let (tagEnd, rendered) = parseTag(html, i, &embeds) {
                out.append(contentsOf: rendered)
                i = tagEnd
                continue
            }
            out.append(contentsOf: Array("&lt;".utf8))
            i += 1
        }
        return out
    }

    /// Parses a tag starting at `start` (`<`). Returns the end index and its sanitized (or escaped) form.
    static func parseTag(_ h: UnsafeBufferPointer<UInt8>, _ start: Int, _ embeds: inout EmbedContext) -> (Int, [UInt8])? {
        let n = h.count
        var i = start + 1
        var closing = false
        if i < n && h[i] == UInt8(ascii: "/") { closing = true; i += 1 }
        let nameStart = i
        while i < n && (h[i].isASCIIAlnum || h[i] == UInt8(ascii: "-")) { i += 1 }
        guard i > nameStart, h[nameStart].isASCIILetter else { return nil }
        let name = String(decoding: h[nameStart..<i].map { $0.lowerASCII }, as: UTF8.self)
        var attributes: [(String, [UInt8])] = []
        var selfClosing = false
        while true {
            while i < n && h[i].isWhitespace { i += 1 }
            guard i < n else { return nil }
            if h[i] == UInt8(ascii: ">") { i += 1; break }
            if h[i] == UInt8(ascii: "/") && i + 1 < n && h[i + 1] == UInt8(ascii: ">") { selfClosing = true; i += 2; break }
            if closing { return nil }
            let attrStart = i
            while i < n && !h[i].isWhitespace && h[i] != UInt8(ascii: "=") && h[i] != UInt8(ascii: ">")
                && h[i] != UInt8(ascii: "/") && h[i] != UInt8(ascii: "\"") && h[i] != UInt8(ascii: "'") { i += 1 }
            guard i > attrStart else { return nil }
            let attrName = String(decoding: h[attrStart..<i].map { $0.lowerASCII }, as: UTF8.self)
            var j = i
            while j < n && h[j].isWhitespace { j += 1 }
            var value: [UInt8] = []
            if j < n && h[j] == UInt8(ascii: "=") {
                j += 1
                while j < n && h[j].isWhitespace { j += 1 }
                guard j < n else { return nil }
                if h[j] == UInt8(ascii: "\"") || h[j] == UInt8(ascii: "'") {
                    let q = h[j]
                    var k = j + 1
                    while k < n && h[k] != q { k += 1 }
                    guard k < n else { return nil }
                    value = Array(h[(j + 1)..<k])
                    i = k + 1
                } else {
                    var k = j
                    while k < n && !h[k].isWhitespace && h[k] != UInt8(ascii: ">") && h[k] != UInt8(ascii: "\"")
                        && h[k] != UInt8(ascii: "'") && h[k] != UInt8(ascii: "=") && h[k] != UInt8(ascii: "<") && h[k] != UInt8(ascii: "`") { k += 1 }
                    guard k > j else { return nil }
                    value = Array(h[j..<k])
                    i = k
                }
            }
            attributes.append((attrName, value))
        }
        if let embed = Embeds.rewrite(name: name, closing: closing, attributes: attributes, context: &embeds) { return (i, embed) }
        guard let allowedAttributes = allowed[name] else {
            var escaped: [UInt8] = []
            appendEscaped(&escaped, h[start..<i])
            return (i, escaped)
        }
        var out: [UInt8] = [UInt8(ascii: "<")]
        if closing { out.append(UInt8(ascii: "/")) }
        out.append(contentsOf: Array(name.utf8))
        if !closing {
            for (attr, value) in attributes where allowedAttributes.contains(attr) {
                if urlAttributes.contains(attr) {
                    // written as decoded and checked, so the browser cannot read another scheme into it
                    guard let url = URLSafety.allowedAttributeURL(value, use: name == "img" ? .image : .link) else { continue }
                    out.append(contentsOf: Array(" \(attr)=\"".utf8))
                    out.append(contentsOf: url)
                    out.append(UInt8(ascii: "\""))
                    continue
                }
                out.append(0x20)
                out.append(contentsOf: Array(attr.utf8))
                out.append(contentsOf: Array("=\"".utf8))
                for b in value {
                    switch b {
                    case UInt8(ascii: "\""): out.append(contentsOf: Array("&quot;".utf8))
                    case UInt8(ascii: "<"): out.append(contentsOf: Array("&lt;".utf8))
                    case UInt8(ascii: ">"): out.append(contentsOf: Array("&gt;".utf8))
                    default: out.append(b)
                    }
                }
                out.append(UInt8(ascii: "\""))
            }
            if selfClosing { out.append(contentsOf: Array(" /".utf8)) }
        }
        out.append(UInt8(ascii: ">"))
        return (i, out)
    }
}
