/// One MathML element of a converted formula: a token element (`mi`, `mn`, `mo`, `mtext`) holds
/// text, every other element holds children.
final class MNode {
    var tag: String
    var attrs: [(String, String)]
    var children: [MNode]
    var text: String?
    /// How a large operator takes its limits (only set on operators).
    var limits: Limits = .none
    /// A `\text` run that adjacent runs join into one `mtext`.
    var joinsText = false

    enum Limits { case none, displayOnly, always, never }

    init(_ tag: String, _ attrs: [(String, String)] = [], children: [MNode] = []) {
        self.tag = tag
        self.attrs = attrs
        self.children = children
    }

    init(token tag: String, _ text: String, _ attrs: [(String, String)] = []) {
        self.tag = tag
        self.attrs = attrs
        self.children = []
        self.text = text
    }

    /// An `mrow` of the nodes, or the node itself when there is one.
    static func row(_ nodes: [MNode]) -> MNode {
        nodes.count == 1 ? nodes[0] : MNode("mrow", children: nodes)
    }

    func attribute(_ name: String) -> String? { attrs.first { $0.0 == name }?.1 }

    /// Serialises the element as UTF-8; text and attribute values are escaped, so no markup can come from TeX.
    func write(into out: inout [UInt8]) {
        if tag == "mi" || tag == "mn", let text, let variant = attribute("mathvariant"), variant != "normal",
           let styled = MathAlphabets.map(text, variant: variant) {
            // MathML Core ignores other mathvariants: the letters themselves carry the style
            self.text = styled
            attrs.removeAll { $0.0 == "mathvariant" }
        }
        out.append(UInt8(ascii: "<"))
        out.append(contentsOf: tag.utf8)
        for (name, value) in attrs {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: "=\"".utf8)
            escape(value, into: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let text {
            out.append(UInt8(ascii: ">"))
            escape(text, into: &out)
        } else if children.isEmpty && tag == "mspace" {
            out.append(contentsOf: "/>".utf8)
            return
        } else {
            out.append(UInt8(ascii: ">"))
            for child in children { child.write(into: &out) }
        }
        out.append(contentsOf: "</".utf8)
        out.append(contentsOf: tag.utf8)
        out.append(UInt8(ascii: ">"))
    }
}

/// `&`, `<`, `>` and `"` as character references: enough inside text and double-quoted attributes.
func escape(_ text: String, into out: inout [UInt8]) {
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
        case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
        case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
        case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
        default: out.append(byte)
        }
    }
}
