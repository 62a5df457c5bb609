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

    /// Serialises the element; text and attribute values are escaped, so no markup can come from TeX.
    func write(into out: inout String) {
        if tag == "mi" || tag == "mn", let text, let variant = attribute("mathvariant"), variant != "normal",
           let styled = MathAlphabets.map(text, variant: variant) {
            // MathML Core ignores other mathvariants: the letters themselves carry the style
            self.text = styled
            attrs.removeAll { $0.0 == "mathvariant" }
        }
        out += "<"
        out += tag
        for (name, value) in attrs {
            out += " "
            out += name
            out += "=\""
            escape(value, into: &out)
            out += "\""
        }
        if let text {
            out += ">"
            escape(text, into: &out)
        } else if children.isEmpty && tag == "mspace" {
            out += "/>"
            return
        } else {
            out += ">"
            for child in children { child.write(into: &out) }
        }
        out += "</"
        out += tag
        out += ">"
    }
}

/// `&`, `<`, `>` and `"` as character references: enough inside text and double-quoted attributes.
func escape(_ text: String, into out: inout String) {
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        default: out.unicodeScalars.append(scalar)
        }
    }
}
