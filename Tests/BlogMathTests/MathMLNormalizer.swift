import Foundation

/// Reads MathML (blog's or KaTeX's) and writes it in a canonical form, so two renderings that
/// differ only in ways a browser does not show compare equal. The rules, in order:
/// 1. Entities are decoded (`&#x27;` and `'` are one character); attributes are sorted by name.
/// 2. Attributes that only tune spacing or stretching are dropped: `stretchy`, `fence`,
///    `separator`, `lspace`, `rspace`, `minsize`, `maxsize`, `rowspacing`, `columnspacing`,
///    `class`, `xmlns`.
/// 3. KaTeX wraps some constructs in a bare token element for its spacing classes
///    (`<mo><mover>…</mover></mo>`, `<mi><munder>…</munder></mi>`): a token element that holds
///    elements is replaced by what it holds.
/// 4. KaTeX's equation-number glue cells (`<mtd class="mtr-glue">`, `class="mml-eqn-num"`) are dropped.
/// 5. Redundant `mrow`s go: an `mrow` inside an element that takes any number of children
///    (`math`, `mrow`, `msqrt`, `mstyle`, `mtd`, `mpadded`, `mphantom`, `menclose`) is spliced in,
///    and an argument of a fixed-arity element (`mfrac`, `msub`, ...) that is an `mrow` of one
///    child is that child.
/// 6. A styled letter (`<mi mathvariant="double-struck">R</mi>`) is written as the styled
///    character (`<mi>ℝ</mi>`), which is what `mathvariant` means and what MathML Core draws;
///    the table comes from the Unicode character names, not from blog's code.
/// 7. The `<annotation>` is compared as text, so the TeX must be kept exactly.
final class XNode {
    var name: String
    var attrs: [(String, String)]
    var children: [XNode] = []
    var text: String?

    init(_ name: String, _ attrs: [(String, String)] = []) {
        self.name = name
        self.attrs = attrs
    }

    var isText: Bool { name == "#text" }
}

enum MathMLNormalizer {
    static let droppedAttributes: Set<String> = ["stretchy", "fence", "separator", "lspace", "rspace", "minsize", "maxsize",
                                                 "rowspacing", "columnspacing", "class", "xmlns"]
    static let rowLike: Set<String> = ["math", "mrow", "msqrt", "mstyle", "mtd", "mpadded", "mphantom", "menclose", "merror"]
    static let tokens: Set<String> = ["mi", "mn", "mo", "mtext", "ms"]

    /// The canonical text of a `<math>` element, or nil when it is not well formed.
    static func canonical(_ xml: String) -> String? {
        guard let root = parse(xml) else { return nil }
        var out = ""
        for node in normalize(root) { write(node, into: &out) }
        return out
    }

    // MARK: reading

    static func parse(_ xml: String) -> XNode? {
        let s = Array(xml.unicodeScalars)
        var i = 0
        let top = XNode("#root")
        var stack = [top]
        while i < s.count {
            if s[i] == "<" {
                var j = i + 1
                let closing = j < s.count && s[j] == "/"
                if closing { j += 1 }
                var name = ""
                while j < s.count, s[j] != " ", s[j] != ">", s[j] != "/" { name.unicodeScalars.append(s[j]); j += 1 }
                var attrs: [(String, String)] = []
                while j < s.count, s[j] != ">", s[j] != "/" {
                    while j < s.count, s[j] == " " { j += 1 }
                    var key = ""
                    while j < s.count, s[j] != "=", s[j] != " ", s[j] != ">", s[j] != "/" { key.unicodeScalars.append(s[j]); j += 1 }
                    while j < s.count, s[j] == " " { j += 1 }
                    guard j < s.count, s[j] == "=" else { continue }
                    j += 1
                    while j < s.count, s[j] == " " { j += 1 }
                    guard j < s.count, s[j] == "\"" else { return nil }
                    j += 1
                    var value = ""
                    while j < s.count, s[j] != "\"" { value.unicodeScalars.append(s[j]); j += 1 }
                    j += 1
                    attrs.append((key, decode(value)))
                }
                let selfClosing = j < s.count && s[j] == "/"
                while j < s.count, s[j] != ">" { j += 1 }
                i = j + 1
                if closing {
                    guard stack.count > 1, stack.last!.name == name else { return nil }
                    stack.removeLast()
                } else {
                    let node = XNode(name, attrs)
                    stack.last!.children.append(node)
                    if !selfClosing { stack.append(node) }
                }
            } else {
                var text = ""
                while i < s.count, s[i] != "<" { text.unicodeScalars.append(s[i]); i += 1 }
                let node = XNode("#text")
                node.text = decode(text)
                stack.last!.children.append(node)
            }
        }
        guard stack.count == 1, top.children.count == 1 else { return nil }
        return top.children[0]
    }

    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                if entity.hasPrefix("#x"), let v = UInt32(entity.dropFirst(2), radix: 16), let u = Unicode.Scalar(v) {
                    out.unicodeScalars.append(u)
                } else if entity.hasPrefix("#"), let v = UInt32(entity.dropFirst()), let u = Unicode.Scalar(v) {
                    out.unicodeScalars.append(u)
                } else {
                    out += "&" + entity + ";"
                }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    // MARK: normalising

    static func normalize(_ node: XNode) -> [XNode] {
        if node.isText { return [node] }
        if node.name == "mtd", let cls = node.attrs.first(where: { $0.0 == "class" })?.1,
           cls == "mtr-glue" || cls == "mml-eqn-num" { return [] }
        if tokens.contains(node.name), node.children.contains(where: { !$0.isText }) {
            return node.children.flatMap(normalize)
        }
        var attrs = node.attrs
        if node.name == "mi" || node.name == "mn", let i = attrs.firstIndex(where: { $0.0 == "mathvariant" }),
           let text = node.children.first?.text, node.children.count == 1, let styled = styledText(text, attrs[i].1) {
            node.children[0].text = styled
            attrs.remove(at: i)
        }
        let out = XNode(node.name, attrs.filter { !droppedAttributes.contains($0.0) }.sorted { $0.0 < $1.0 })
        if node.name == "semantics" {
            let presentation = node.children.filter { $0.name != "annotation" }.flatMap(normalize)
            out.children = [argument(presentation)] + node.children.filter { $0.name == "annotation" }
            return [out]
        }
        if rowLike.contains(node.name) || tokens.contains(node.name) || node.name == "annotation" {
            out.children = node.children.flatMap(normalize)
            if node.name == "mrow" { return out.children }
            return [out]
        }
        if node.name == "mtable" || node.name == "mtr" {
            out.children = node.children.flatMap(normalize)
            return [out]
        }
        out.children = node.children.map { argument(normalize($0)) }
        return [out]
    }

    /// Styled letters by style and plain character, read from the names of Unicode's mathematical
    /// alphanumerics ("MATHEMATICAL DOUBLE-STRUCK CAPITAL R") and of the older letterlike symbols
    /// ("DOUBLE-STRUCK CAPITAL R").
    static let styled: [String: [String: Character]] = {
        var plain: [String: Character] = [:]
        for v in UInt32(0x30)...0x7A { if let u = Unicode.Scalar(v), let n = u.properties.name { plain[n] = Character(u) } }
        for v in UInt32(0x391)...0x3C9 { if let u = Unicode.Scalar(v), let n = u.properties.name { plain[n.replacingOccurrences(of: "GREEK ", with: "").replacingOccurrences(of: "LETTER ", with: "")] = Character(u) } }
        let styles = ["BOLD ITALIC": "bold-italic", "BOLD SCRIPT": "bold-script", "BOLD": "bold", "ITALIC": "italic", "SCRIPT": "script",
                      "FRAKTUR": "fraktur", "BLACK-LETTER": "fraktur", "DOUBLE-STRUCK": "double-struck", "SANS-SERIF": "sans-serif",
                      "MONOSPACE": "monospace"]
        var table: [String: [String: Character]] = [:]
        for v in Array(UInt32(0x1D400)...0x1D7FF) + Array(UInt32(0x2100)...0x214F) {
            guard let u = Unicode.Scalar(v), var name = u.properties.name else { continue }
            if name.hasPrefix("MATHEMATICAL ") { name.removeFirst("MATHEMATICAL ".count) }
            if name == "PLANCK CONSTANT" { table["italic", default: [:]]["h"] = Character(u); continue }
            guard let style = styles.keys.sorted(by: { $0.count > $1.count }).first(where: { name.hasPrefix($0 + " ") }) else { continue }
            var rest = String(name.dropFirst(style.count + 1))
            if rest.hasPrefix("SMALL ") && rest.count == "SMALL A".count { rest = "LATIN SMALL LETTER " + rest.dropFirst(6) }
            else if rest.hasPrefix("CAPITAL ") && rest.count == "CAPITAL A".count { rest = "LATIN CAPITAL LETTER " + rest.dropFirst(8) }
            guard let c = plain[rest] else { continue }
            table[styles[style]!, default: [:]][String(c)] = Character(u)
        }
        return table
    }()

    static func styledText(_ text: String, _ variant: String) -> String? {
        guard let letters = styled[variant] else { return nil }
        var out = ""
        for c in text {
            guard let s = letters[String(c)] else { return nil }
            out.append(s)
        }
        return out
    }

    private static func argument(_ nodes: [XNode]) -> XNode {
        if nodes.count == 1 { return nodes[0] }
        let row = XNode("mrow")
        row.children = nodes
        return row
    }

    static func write(_ node: XNode, into out: inout String) {
        if node.isText { out += node.text!; return }
        out += "<" + node.name
        for (k, v) in node.attrs { out += " \(k)=\"\(v)\"" }
        out += ">"
        for child in node.children { write(child, into: &out) }
        out += "</" + node.name + ">"
    }
}
