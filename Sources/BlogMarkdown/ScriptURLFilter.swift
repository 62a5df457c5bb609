/// Raw HTML under `markdown.unsafe: true`: passed as written ("trust my HTML"), except attributes
/// whose URL would run script when followed (`URLSafety.runsScript`): `href`, `src`, `action`,
/// `formaction`, `xlink:href`, `srcset`, SVG animation values, a refresh `<meta>`'s URL, … in any
/// tag and namespace. Such an attribute is cut out; everything else stays byte for byte.
///
/// It reads the HTML as a browser's tokenizer does (comments, `<script>`/`<style>`-like text,
/// CDATA in SVG and MathML), carrying that state from one raw-HTML node of a document to the next,
/// since the browser reads them as one stream.
struct ScriptURLFilter {
    private enum Namespace { case html, foreign }
    /// Open `<svg>`/`<math>` elements and the HTML integration points inside them.
    private var frames: [(namespace: Namespace, name: [UInt8])] = []
    /// The element whose text we are in (`script`, `style`, `textarea`, …), across nodes.
    private var rawTextElement: [UInt8]?
    /// After `<plaintext>` everything is text.
    private var plaintext = false
    /// False for the second look at an element's text as markup.
    private var readsRawText = true

    private var inForeign: Bool { frames.last?.namespace == .foreign }

    /// The node's HTML with script URLs removed, or nil when nothing changed.
    mutating func filter(_ h: [UInt8]) -> [UInt8]? {
        var cuts: [Range<Int>] = []
        scan(h, from: 0, cuts: &cuts)
        guard !cuts.isEmpty else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(h.count)
        cuts.sort { $0.lowerBound < $1.lowerBound }
        var cutIndex = 0
        var i = 0
        while i < h.count {
            while cutIndex < cuts.count && cuts[cutIndex].upperBound <= i { cutIndex += 1 }
            if cutIndex < cuts.count && cuts[cutIndex].contains(i) { i = cuts[cutIndex].upperBound; continue }
            out.append(h[i])
            i += 1
        }
        return out
    }

    private mutating func scan(_ h: [UInt8], from start: Int, cuts: inout [Range<Int>]) {
        let n = h.count
        var i = start
        if plaintext { return }
        if let element = rawTextElement {
            let end = rawTextEnd(h, from: i, element: element)
            // what the browser reads as text may be markup to a reader that disagrees: checked too
            collect(h, in: i..<(end ?? n), cuts: &cuts)
            guard let end else { return }
            rawTextElement = nil
            i = end
        }
        while i < n {
            guard let lt = h[i...].firstIndex(of: UInt8(ascii: "<")) else { return }
            i = lt
            guard i + 1 < n else { return }
            let next = h[i + 1]
            if next == UInt8(ascii: "!") {
                i = declarationEnd(h, i)
            } else if next == UInt8(ascii: "?") {
                i = after(h, UInt8(ascii: ">"), from: i)
            } else if next == UInt8(ascii: "/") {
                if i + 2 < n, isLetter(h[i + 2]) {
                    let tag = Tag.parse(h, at: i)
                    guard tag.complete else { return }
                    closeElement(tag.name)
                    i = tag.end
                } else if i + 2 < n, h[i + 2] == UInt8(ascii: ">") {
                    i += 3
                } else {
                    i = after(h, UInt8(ascii: ">"), from: i)
                }
            } else if isLetter(next) {
                let tag = Tag.parse(h, at: i)
                for attribute in tag.attributes where ScriptURLFilter.runsScript(attribute, in: tag.name, h) {
                    cuts.append(attribute.range)
                }
                // a tag the node leaves open runs on into blog's own HTML, which starts with `<`: a
                // value cut short there cannot grow a scheme, so checking what is here suffices
                guard tag.complete else { return }
                i = tag.end
                openElement(tag.name, selfClosing: tag.selfClosing)
                if let element = rawTextElement {
                    let end = rawTextEnd(h, from: i, element: element)
                    collect(h, in: i..<(end ?? n), cuts: &cuts)
                    guard let end else { return }
                    rawTextElement = nil
                    i = end
                }
                if plaintext { return }
            } else {
                i += 1
            }
        }
    }

    /// Cuts for the script URLs in `range` read as plain markup (no text elements, so no recursion).
    private func collect(_ h: [UInt8], in range: Range<Int>, cuts: inout [Range<Int>]) {
        var inner = ScriptURLFilter()
        inner.readsRawText = false
        var local: [Range<Int>] = []
        inner.scan(Array(h[range]), from: 0, cuts: &local)
        cuts += local.map { ($0.lowerBound + range.lowerBound)..<($0.upperBound + range.lowerBound) }
    }

    // MARK: elements and namespaces

    private static let rawText: Set<[UInt8]> = Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed",
                                                    "noframes", "noscript"].map { Array($0.utf8) })
    /// Start tags that end SVG or MathML content (the parser's "breakout" list).
    private static let breakout: Set<[UInt8]> = Set([
        "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed", "h1", "h2",
        "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr", "ol", "p", "pre",
        "ruby", "s", "small", "span", "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var",
    ].map { Array($0.utf8) })

    /// Tracks SVG and MathML (every element inside them, since their end tags close by name) and
    /// the HTML elements whose content is text.
    private mutating func openElement(_ name: [UInt8], selfClosing: Bool) {
        let svg = Array("svg".utf8), math = Array("math".utf8)
        if inForeign {
            if ScriptURLFilter.breakout.contains(name) {
                while let last = frames.last, last.namespace == .foreign { frames.removeLast() }
            } else {
                guard !selfClosing else { return }
                let root = frames.last(where: { $0.namespace == .foreign && ($0.name == svg || $0.name == math) })?.name
                let points = root == svg ? ["foreignobject", "desc", "title"] : ["mi", "mo", "mn", "ms", "mtext"]
                frames.append((points.contains { Array($0.utf8) == name } ? .html : .foreign, name))
                return
            }
        }
        if name == svg || name == math {
            if !selfClosing { frames.append((.foreign, name)) }
            return
        }
        guard readsRawText else { return }
        if name == Array("plaintext".utf8) { plaintext = true; return }
        if ScriptURLFilter.rawText.contains(name) { rawTextElement = name }
    }

    private mutating func closeElement(_ name: [UInt8]) {
        guard let index = frames.lastIndex(where: { $0.name == name }) else { return }
        frames.removeSubrange(index...)
    }

    /// Where the text of `element` ends (the index of its `</element`), or nil if not in `h`.
    private func rawTextEnd(_ h: [UInt8], from start: Int, element: [UInt8]) -> Int? {
        let isScript = element == Array("script".utf8)
        // script text may hide `</script>` inside `<!-- <script> … -->` (escaped, double escaped)
        var escaped = false, doubleEscaped = false
        var i = start
        while i < h.count {
            if isScript && has(h, at: i, "<!--") && !escaped { escaped = true; i += 4; continue }
            if isScript && escaped && has(h, at: i, "-->") { escaped = false; doubleEscaped = false; i += 3; continue }
            if isScript && escaped && !doubleEscaped && closesName(h, at: i, "<script") { doubleEscaped = true; i += 7; continue }
            if h[i] == UInt8(ascii: "<") && i + 1 < h.count && h[i + 1] == UInt8(ascii: "/")
                && closesName(h, at: i + 2, String(decoding: element, as: UTF8.self)) {
                if doubleEscaped { doubleEscaped = false; i += 2; continue }
                return i
            }
            i += 1
        }
        return nil
    }

    /// `h` at `i` spells `name` (ASCII case-insensitive) followed by whitespace, `/` or `>`.
    private func closesName(_ h: [UInt8], at i: Int, _ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard i + bytes.count < h.count else { return false }
        for (k, b) in bytes.enumerated() where lower(h[i + k]) != b { return false }
        let next = h[i + bytes.count]
        return isSpace(next) || next == UInt8(ascii: "/") || next == UInt8(ascii: ">")
    }

    // MARK: comments and declarations

    /// The end of `<!…` at `i`: a comment (`-->`, `--!>`, or the abrupt `<!-->`, `<!--->`), CDATA in
    /// SVG or MathML (`]]>`), else a bogus comment up to `>`.
    private func declarationEnd(_ h: [UInt8], _ i: Int) -> Int {
        if has(h, at: i, "<!--") {
            let body = i + 4
            if has(h, at: body, ">") { return body + 1 }
            if has(h, at: body, "->") { return body + 2 }
            var j = body
            while j < h.count {
                if has(h, at: j, "-->") { return j + 3 }
                if has(h, at: j, "--!>") { return j + 4 }
                j += 1
            }
            return h.count
        }
        if inForeign && has(h, at: i, "<![CDATA[") {
            var j = i + 9
            while j < h.count { if has(h, at: j, "]]>") { return j + 3 }; j += 1 }
            return h.count
        }
        return after(h, UInt8(ascii: ">"), from: i)
    }

    private func after(_ h: [UInt8], _ byte: UInt8, from i: Int) -> Int {
        (h[i...].firstIndex(of: byte)).map { $0 + 1 } ?? h.count
    }

    private func has(_ h: [UInt8], at i: Int, _ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard i + n <= h.count else { return false }
        let p = text.utf8Start
        for k in 0..<n where h[i + k] != p[k] { return false }
        return true
    }

    // MARK: attributes

    /// Attributes that hold one URL (the part after a namespace prefix such as `xlink:`).
    private static let urlAttributes: Set<[UInt8]> = Set([
        "href", "src", "action", "formaction", "poster", "background", "data", "codebase", "cite", "longdesc",
        "lowsrc", "dynsrc", "manifest", "icon", "usemap", "classid", "profile", "code", "archive",
    ].map { Array($0.utf8) })
    /// Attributes that hold several: image candidates, pings, SVG animation values.
    private static let listAttributes: Set<[UInt8]> = Set(["srcset", "imagesrcset", "ping", "to", "from", "by", "values"]
        .map { Array($0.utf8) })
    private static let imageTags: Set<[UInt8]> = Set(["img", "source", "input", "image", "feimage"].map { Array($0.utf8) })

    private static func runsScript(_ attribute: Tag.Attribute, in tag: [UInt8], _ h: [UInt8]) -> Bool {
        var name = attribute.name
        if let colon = name.lastIndex(of: UInt8(ascii: ":")) { name = Array(name[(colon + 1)...]) }
        guard let valueRange = attribute.value else { return false }
        let value = URLSafety.decodeAttributeValue(h[valueRange])
        let isImageSource = name == Array("src".utf8) || name == Array("srcset".utf8)
        let use: URLSafety.Use = imageTags.contains(tag) && isImageSource ? .image : .link
        if urlAttributes.contains(name) { return URLSafety.runsScript(value, use: use) }
        if listAttributes.contains(name) {
            // split on the lists' separators; each part's first word is its URL
            let parts = value.split(whereSeparator: { $0 == "," || $0 == ";" })
            return parts.contains { part in
                let words = part.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\u{C}" || $0 == "\r" })
                return URLSafety.runsScript(Array(part), use: use) || words.contains { URLSafety.runsScript(Array($0), use: use) }
            }
        }
        if name == Array("content".utf8) && tag == Array("meta".utf8) {
            return refreshURL(value).map { URLSafety.runsScript($0, use: .link) } ?? false
        }
        return false
    }

    /// The URL of a refresh value (`5; url='…'`), as the browser's refresh parser finds it.
    private static func refreshURL(_ value: [Unicode.Scalar]) -> [Unicode.Scalar]? {
        var rest = value[...].drop { $0.value <= 0x20 || ("0"..."9").contains($0) || $0 == "." }
        rest = rest.drop { $0.value <= 0x20 || $0 == ";" || $0 == "," }
        guard !rest.isEmpty else { return nil }
        let lowered = String(String.UnicodeScalarView(rest.prefix(3))).lowercased()
        if lowered == "url" {
            let afterURL = rest.dropFirst(3).drop { $0.value <= 0x20 }
            if afterURL.first == "=" { rest = afterURL.dropFirst().drop { $0.value <= 0x20 } }
        }
        if let quote = rest.first, quote == "'" || quote == "\"" {
            rest = rest.dropFirst()
            if let end = rest.firstIndex(of: quote) { rest = rest[..<end] }
        }
        return Array(rest)
    }

    fileprivate static func lowerByte(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b + 0x20 : b }
    private func lower(_ b: UInt8) -> UInt8 { ScriptURLFilter.lowerByte(b) }
    private func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    fileprivate static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0C || b == 0x0D }
    private func isSpace(_ b: UInt8) -> Bool { ScriptURLFilter.isSpace(b) }
}

/// One start or end tag read by the HTML tokenizer's rules (attribute names end at whitespace,
/// `/`, `>` or `=`; values quoted or not).
private struct Tag {
    struct Attribute {
        var name: [UInt8]
        /// The whole attribute, name to value, as cut out.
        var range: Range<Int>
        /// The value as written (between quotes when quoted).
        var value: Range<Int>?
    }

    var name: [UInt8]
    var attributes: [Attribute]
    var selfClosing: Bool
    /// Just after the tag's `>` (the text's end when it ends inside the tag).
    var end: Int
    /// False when the text ends inside the tag: `attributes` then holds what is there, the last
    /// value cut short.
    var complete = true

    /// The tag whose `<` is at `start`.
    static func parse(_ h: [UInt8], at start: Int) -> Tag {
        let n = h.count
        var i = start + 1
        if h[i] == UInt8(ascii: "/") { i += 1 }
        var name: [UInt8] = []
        while i < n, !ScriptURLFilter.isSpace(h[i]), h[i] != UInt8(ascii: "/"), h[i] != UInt8(ascii: ">") {
            name.append(ScriptURLFilter.lowerByte(h[i]))
            i += 1
        }
        var attributes: [Attribute] = []
        var selfClosing = false
        func partial() -> Tag { Tag(name: name, attributes: attributes, selfClosing: false, end: n, complete: false) }
        while true {
            while i < n, ScriptURLFilter.isSpace(h[i]) || h[i] == UInt8(ascii: "/") {
                selfClosing = h[i] == UInt8(ascii: "/")
                i += 1
            }
            guard i < n else { return partial() }
            if h[i] == UInt8(ascii: ">") { return Tag(name: name, attributes: attributes, selfClosing: selfClosing, end: i + 1) }
            selfClosing = false
            let nameStart = i
            var attributeName: [UInt8] = [ScriptURLFilter.lowerByte(h[i])] // a leading `=` belongs to the name
            i += 1
            while i < n, !ScriptURLFilter.isSpace(h[i]), h[i] != UInt8(ascii: "/"), h[i] != UInt8(ascii: ">"),
                  h[i] != UInt8(ascii: "=") {
                attributeName.append(ScriptURLFilter.lowerByte(h[i]))
                i += 1
            }
            var j = i
            while j < n, ScriptURLFilter.isSpace(h[j]) { j += 1 }
            guard j < n else {
                attributes.append(Attribute(name: attributeName, range: nameStart..<n, value: nil))
                return partial()
            }
            guard h[j] == UInt8(ascii: "=") else {
                attributes.append(Attribute(name: attributeName, range: nameStart..<i, value: nil))
                continue
            }
            j += 1
            while j < n, ScriptURLFilter.isSpace(h[j]) { j += 1 }
            guard j < n else {
                attributes.append(Attribute(name: attributeName, range: nameStart..<n, value: n..<n))
                return partial()
            }
            if h[j] == UInt8(ascii: "\"") || h[j] == UInt8(ascii: "'") {
                let quote = h[j]
                guard let close = h[(j + 1)...].firstIndex(of: quote) else {
                    attributes.append(Attribute(name: attributeName, range: nameStart..<n, value: (j + 1)..<n))
                    return partial()
                }
                attributes.append(Attribute(name: attributeName, range: nameStart..<(close + 1), value: (j + 1)..<close))
                i = close + 1
            } else if h[j] == UInt8(ascii: ">") {
                attributes.append(Attribute(name: attributeName, range: nameStart..<j, value: j..<j))
                i = j
            } else {
                var k = j
                while k < n, !ScriptURLFilter.isSpace(h[k]), h[k] != UInt8(ascii: ">") { k += 1 }
                guard k < n else {
                    attributes.append(Attribute(name: attributeName, range: nameStart..<n, value: j..<n))
                    return partial()
                }
                attributes.append(Attribute(name: attributeName, range: nameStart..<k, value: j..<k))
                i = k
            }
        }
    }
}
