/// Control sequences: symbols, functions, fractions, roots, accents, fonts, text, delimiters and the rest.
extension Parser {
    static let functions: Set<String> = ["arcsin", "arccos", "arctan", "arctg", "arcctg", "arg", "ch", "cos", "cosec", "cosh", "cot", "cotg",
                                         "coth", "csc", "ctg", "cth", "deg", "dim", "exp", "hom", "ker", "lg", "ln", "log", "sec", "sh",
                                         "sin", "sinh", "tan", "tanh", "tg", "th"]
    static let limitFunctions: [String: String] = ["det": "det", "gcd": "gcd", "inf": "inf", "lim": "lim", "liminf": "lim\u{2009}inf",
                                                   "limsup": "lim\u{2009}sup", "max": "max", "min": "min", "Pr": "Pr", "sup": "sup"]
    static let fonts: [String: String?] = ["mathbf": "bold", "mathrm": "normal", "mathit": "italic", "mathbb": "double-struck",
                                           "mathcal": "script", "mathscr": "script", "mathfrak": "fraktur", "mathsf": "sans-serif",
                                           "mathtt": "monospace", "boldsymbol": "bold-italic", "bm": "bold-italic", "mathnormal": nil,
                                           "mathbfit": "bold-italic", "Bbb": "double-struck", "bold": "bold"]
    static let textFonts: [String: String?] = ["text": nil, "textrm": nil, "textnormal": nil, "mbox": nil, "textup": nil,
                                               "textbf": "bold", "textit": "italic", "texttt": "monospace", "textsf": "sans-serif",
                                               "emph": "italic"]
    static let accents: [String: (String, Bool)] = [
        "hat": ("^", false), "bar": ("ˉ", false), "vec": ("⃗", false), "dot": ("˙", false), "ddot": ("¨", false),
        "tilde": ("~", false), "check": ("ˇ", false), "breve": ("˘", false), "acute": ("ˊ", false), "grave": ("ˋ", false),
        "mathring": ("˚", false), "widehat": ("^", true), "widetilde": ("~", true), "widecheck": ("ˇ", true), "overline": ("‾", true),
        "overrightarrow": ("→", true), "overleftarrow": ("←", true), "overleftrightarrow": ("↔", true),
    ]
    static let spaces: [String: String] = [",": "\u{2009}", "thinspace": "\u{2009}", ":": "\u{2005}", ">": "\u{2005}", "medspace": "\u{2005}",
                                           ";": "\u{2005}\u{200A}", "thickspace": "\u{2005}\u{200A}", "!": "\u{2009}\u{2063}",
                                           "negthinspace": "\u{2009}\u{2063}", " ": "\u{A0}", "nobreakspace": "\u{A0}", "space": "\u{A0}"]
    static let wideSpaces: [String: String] = ["quad": "1em", "qquad": "2em", "enspace": "0.5em"]
    static let escapes: [String: SymbolKind] = ["{": .fence, "}": .fence, "|": .ord, "#": .ord, "%": .ord, "$": .ord, "_": .ord, "&": .ord]
    static let negations: [String: String] = ["=": "≠", "in": "∉", "subset": "⊄", "supset": "⊅", "subseteq": "⊈", "supseteq": "⊉",
                                              "equiv": "≢", "le": "≰", "leq": "≰", "ge": "≱", "geq": "≱", "<": "≮", ">": "≯",
                                              "sim": "≁", "approx": "≉", "cong": "≇", "ni": "∌", "mid": "∤", "parallel": "∦",
                                              "exists": "∄", "simeq": "≄", "prec": "⊀", "succ": "⊁", "vdash": "⊬", "models": "⊭"]
    static let textEscapes: Set<String> = ["{", "}", "$", "%", "&", "_", "#"]
    static let colonRelations: [String: String] = ["coloneqq": "≔", "eqqcolon": "≕", "Coloneqq": "⩴", "coloneq": "≔", "minuscolon": "∹"]
    static let bigSizes: [String: String] = ["big": "1.2em", "Big": "1.8em", "bigg": "2.4em", "Bigg": "3em"]
    /// Commands that reach outside the formula (links, classes, images): never converted.
    static let refused: Set<String> = ["href", "url", "htmlClass", "htmlId", "htmlStyle", "htmlData", "includegraphics", "html", "input", "include"]

    func symbolNode(_ symbol: Symbol) -> MNode {
        let c = symbol.char
        switch symbol.kind {
        case .ord: return MNode(token: "mi", c, [("mathvariant", font.map { $0 == "italic" ? "normal" : $0 } ?? "normal")])
        case .letter: return letter(c)
        case .op: return MNode(token: "mo", c)
        case .normalOp: return MNode(token: "mo", c, [("mathvariant", "normal")])
        case .fence: return MNode(token: "mo", c, [("stretchy", "false")])
        case .punct: return MNode(token: "mo", c, [("separator", "true")])
        case .bigOp:
            let node = MNode(token: "mo", c)
            node.limits = .displayOnly
            return node
        case .integral:
            let node = MNode(token: "mo", c)
            node.limits = .never
            return node
        case .smallOp: return MNode(token: "mo", c, [("largeop", "false")])
        case .text: return MNode(token: "mtext", c)
        }
    }

    func command(_ name: String) throws -> [MNode] {
        if let symbol = symbolTable[name] { return [symbolNode(symbol)] }
        if let relation = Parser.colonRelations[name] { return [MNode(token: "mo", relation)] }
        if let kind = Parser.escapes[name] {
            return [symbolNode(Symbol(kind, name == "|" ? "∥" : name))]
        }
        if let space = Parser.spaces[name] { return [MNode(token: "mtext", space)] }
        if let width = Parser.wideSpaces[name] { return [MNode("mspace", [("width", width)])] }
        if Parser.functions.contains(name) { return [MNode(token: "mi", name), MNode(token: "mo", "\u{2061}")] }
        if let text = Parser.limitFunctions[name] {
            let mi = text.count > 3 ? MNode(token: "mi", text, [("mathvariant", "normal")]) : MNode(token: "mi", text)
            let row = MNode("mrow", children: [mi, MNode(token: "mo", "\u{2061}")])
            row.limits = .displayOnly
            return [row]
        }
        if let variant = Parser.fonts[name] {
            let saved = font
            font = variant
            defer { font = saved }
            return [try groupArgument()]
        }
        if let variant = Parser.textFonts[name] { return [try text(variant: variant)] }
        if let (char, stretchy) = Parser.accents[name] {
            let base = try groupArgument()
            let mark = stretchy ? MNode(token: "mo", char, [("stretchy", "true")]) : MNode(token: "mo", char)
            return [MNode("mover", [("accent", "true")], children: [base, mark])]
        }
        if let size = Parser.bigSizes[String(name.prefix { $0 != "l" && $0 != "r" && $0 != "m" })], name.count <= 5 {
            let char = try delimiter(middle: false) ?? ""
            return [MNode(token: "mo", char, [("fence", name.count > 4 || name.hasSuffix("l") || name.hasSuffix("r") ? "true" : "false"),
                                               ("stretchy", "true"), ("minsize", size), ("maxsize", size)])]
        }
        if Parser.refused.contains(name) { throw MathError.unsupported(name) }
        switch name {
        case "frac", "dfrac", "tfrac", "cfrac", "binom", "dbinom", "tbinom":
            return [try fraction(name)]
        case "sqrt":
            if let index = try optionalArgument() {
                let saved = tokens
                let savedPos = pos
                tokens = index
                pos = 0
                let indexNodes = try parseList(.end)
                tokens = saved
                pos = savedPos
                let radicand = try groupArgument()
                return [MNode("mroot", children: [radicand, MNode.row(indexNodes)])]
            }
            return [MNode("msqrt", children: [try groupArgument()])]
        case "left":
            return [try leftRight()]
        case "begin":
            return [try environment()]
        case "operatorname", "operatorname*":
            let mi = MNode(token: "mi", try operatorName(), [("mathvariant", "normal")])
            if name.hasSuffix("*") {
                let row = MNode("mrow", children: [mi, MNode(token: "mo", "\u{2061}")])
                row.limits = .displayOnly
                return [row]
            }
            return [mi, MNode(token: "mo", "\u{2061}")]
        case "mathop":
            return [try groupArgument()]
        case "underline":
            return [MNode("munder", [("accentunder", "true")], children: [try groupArgument(), MNode(token: "mo", "‾", [("stretchy", "true")])])]
        case "overbrace", "underbrace":
            let over = name == "overbrace"
            let body = try groupArgument()
            let node = MNode(over ? "mover" : "munder", children: [body, MNode(token: "mo", over ? "⏞" : "⏟", [("stretchy", "true")])])
            node.limits = .always
            return [node]
        case "textcolor":
            let color = try colorArgument()
            return [MNode("mstyle", [("mathcolor", color)], children: [try groupArgument()])]
        case "boxed":
            let body = try groupArgument(style: .display)
            let inner = MNode("mstyle", [("scriptlevel", "0"), ("displaystyle", "true")], children: [body])
            let wrapped = MNode("mstyle", [("scriptlevel", "0"), ("displaystyle", "false")],
                                children: [MNode("mstyle", [("scriptlevel", "0"), ("displaystyle", "false")], children: [inner])])
            return [MNode("menclose", [("notation", "box")], children: [wrapped])]
        case "cancel", "bcancel", "xcancel", "sout":
            let notation = ["cancel": "updiagonalstrike", "bcancel": "downdiagonalstrike",
                            "xcancel": "updiagonalstrike downdiagonalstrike", "sout": "horizontalstrike"][name]!
            return [MNode("menclose", [("notation", notation)], children: [try groupArgument()])]
        case "not":
            return [try negation()]
        case "stackrel", "overset", "underset":
            let script = try groupArgument(style: style.script)
            let base = try groupArgument()
            return [MNode(name == "underset" ? "munder" : "mover", children: [base, script])]
        case "phantom":
            return [MNode("mphantom", children: [try groupArgument()])]
        case "mathstrut":
            return [MNode("mpadded", [("width", "0px")], children: [MNode("mphantom", children: [MNode(token: "mo", "(", [("stretchy", "false")])])])]
        case "hspace", "hspace*", "kern", "mkern", "hskip":
            return [MNode("mspace", [("width", try dimension())])]
        case "bmod":
            return [MNode(token: "mtext", "\u{200A}"), modWord(), MNode(token: "mtext", "\u{200A}")]
        case "pmod":
            let arg = try groupArgument()
            return [MNode("mspace"), MNode("mspace", [("width", "1em")]), MNode(token: "mo", "(", [("stretchy", "false")]), modWord(),
                    MNode("mspace", [("width", "0.3333em")]), arg, MNode(token: "mo", ")", [("stretchy", "false")])]
        case "implies", "impliedby", "iff":
            let arrow = ["implies": "⟹", "impliedby": "⟸", "iff": "⟺"][name]!
            return [MNode(token: "mtext", "\u{2005}\u{200A}"), MNode(token: "mo", arrow), MNode(token: "mtext", "\u{2005}\u{200A}")]
        case "vdots":
            return [MNode(token: "mi", "⋮", [("mathvariant", "normal")]),
                    MNode("mpadded", [("height", "0em"), ("voffset", "0em")],
                          children: [MNode("mspace", [("mathbackground", "black"), ("width", "0em"), ("height", "1.5em")])])]
        case "xrightarrow", "xleftarrow", "xRightarrow", "xLeftarrow", "xleftrightarrow", "xmapsto":
            let arrow = ["xrightarrow": "→", "xleftarrow": "←", "xRightarrow": "⇒", "xLeftarrow": "⇐", "xleftrightarrow": "↔", "xmapsto": "↦"][name]!
            let mo = MNode(token: "mo", arrow, [("stretchy", "true"), ("minsize", "3.0em")])
            let below = try optionalArgument()
            let above = try groupArgument(style: style.script)
            let pad = { (n: MNode) in MNode("mpadded", [("width", "+0.6em"), ("lspace", "0.3em")], children: [n]) }
            if let below {
                let node = try subParse(below)
                return [MNode("munderover", children: [mo, pad(node), pad(above)])]
            }
            return [MNode("mover", children: [mo, pad(above)])]
        case "substack":
            return [try substack()]
        case "tag", "tag*":
            let label = try text(variant: nil)
            if name == "tag" { label.text = "(" + (label.text ?? "") + ")" }
            tag = label
            return []
        case "notag", "nonumber", "limits", "nolimits", "displaylimits", "relax", "strut":
            return []
        case "newcommand", "renewcommand", "providecommand", "def":
            try define(name)
            return []
        case "displaystyle", "textstyle", "scriptstyle", "scriptscriptstyle", "color":
            // a switch needs a group to end in (`{\\color{red} x}`)
            throw MathError.invalid("\\\(name) outside a group")
        default:
            throw MathError.unsupported(name)
        }
    }

    private func modWord() -> MNode {
        MNode("mrow", children: "mod".unicodeScalars.map { MNode(token: "mi", String($0), [("mathvariant", "normal")]) })
    }

    /// Parses tokens apart from the main stream (an optional argument's content).
    func subParse(_ part: [Token]) throws -> MNode {
        let saved = tokens
        let savedPos = pos
        tokens = part
        pos = 0
        defer { tokens = saved; pos = savedPos }
        let saveStyle = style
        style = style.script
        defer { style = saveStyle }
        return MNode.row(try parseList(.end))
    }

    private func fraction(_ name: String) throws -> MNode {
        let wanted: Style? = name.hasPrefix("d") || name == "cfrac" ? .display : name.hasPrefix("t") ? .text : nil
        // the parts keep the fraction's style for where limits go, as KaTeX does: a browser
        // moves limits to the side in a smaller style by itself (`movablelimits`)
        let num = try groupArgument(style: wanted)
        let den = try groupArgument(style: wanted)
        let binomial = name.hasSuffix("binom")
        var node = MNode("mfrac", binomial ? [("linethickness", "0px")] : [], children: [num, den])
        if let wanted, wanted != style, name != "cfrac" {
            node = MNode("mstyle", [("displaystyle", wanted == .display ? "true" : "false"), ("scriptlevel", "0")], children: [node])
        }
        guard binomial else { return node }
        return MNode("mrow", children: [MNode(token: "mo", "(", [("fence", "true")]), node, MNode(token: "mo", ")", [("fence", "true")])])
    }

    /// `\text{…}`: characters as they are, a few escapes, nested groups; no math inside.
    func text(variant: String?) throws -> MNode {
        var s = ""
        for t in try rawArgument() {
            switch t {
            case .char(let c): s.unicodeScalars.append(c)
            case .space: s += "\u{A0}"
            case .open, .close: break
            case .command(let c) where Parser.textEscapes.contains(c): s += c
            case .command(" "), .command("space"): s += "\u{A0}"
            case .command(let c) where Parser.spaces[c] != nil: s += Parser.spaces[c]!
            case .command("textbackslash"): s += "\\"
            case .command(let c): throw MathError.unsupported(c)
            case .sup: s += "^"
            case .sub: s += "_"
            case .align: s += "&"
            case .param: throw MathError.invalid("macro parameter in text")
            }
        }
        let node = MNode(token: "mtext", s, variant.map { [("mathvariant", $0)] } ?? [])
        node.joinsText = true
        return node
    }

    private func operatorName() throws -> String {
        var s = ""
        for t in try rawArgument() {
            switch t {
            case .char(let c): s.unicodeScalars.append(c)
            case .space, .open, .close: break
            case .command(let c) where Parser.spaces[c] != nil: s += Parser.spaces[c]!
            case .command(let c): throw MathError.unsupported(c)
            default: throw MathError.invalid("unexpected token in \\operatorname")
            }
        }
        return s
    }

    func colorArgument() throws -> String {
        let color = try textArgument()
        let ok = !color.isEmpty && color.count <= 32 && color.unicodeScalars.allSatisfy {
            ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "#"
        }
        guard ok else { throw MathError.invalid("colour \(color)") }
        return color
    }

    private func dimension() throws -> String {
        let text = try textArgument().replacingSpaces
        let units = ["em", "ex", "pt", "px", "mu", "cm", "mm", "in", "pc", "bp"]
        guard let unit = units.first(where: { text.hasSuffix($0) }) else { throw MathError.invalid("dimension \(text)") }
        let number = text.dropLast(unit.count)
        guard !number.isEmpty, Double(number) != nil else { throw MathError.invalid("dimension \(text)") }
        return unit == "mu" ? "\(Double(number)! / 18)em" : text
    }

    private func negation() throws -> MNode {
        skipSpaces()
        guard let t = try next() else { throw MathError.invalid("\\not at the end") }
        switch t {
        case .char(let c):
            if let n = Parser.negations[String(c)] { return MNode(token: "mo", n) }
            return MNode(token: "mo", String(c) + "\u{338}")
        case .command(let name):
            if let n = Parser.negations[name] { return MNode(token: "mo", n) }
            guard let symbol = symbolTable[name] else { throw MathError.unsupported(name) }
            return MNode(token: "mo", symbol.char + "\u{338}")
        default:
            throw MathError.invalid("\\not before a group")
        }
    }

    /// A delimiter after `\left`, `\right`, `\middle` or `\big…`; nil for `.`.
    func delimiter(middle: Bool) throws -> String? {
        skipSpaces()
        guard let t = try next() else { throw MathError.invalid("missing delimiter") }
        switch t {
        case .char("."): return nil
        case .char("|"): return middle ? "|" : "∣"
        case .char("/"), .char("("), .char(")"), .char("["), .char("]"), .char("<"), .char(">"): 
            if case .char(let c) = t { return c == "<" ? "⟨" : c == ">" ? "⟩" : String(c) }
            return nil
        case .command("|"): return "∥"
        case .command("{"): return "{"
        case .command("}"): return "}"
        case .command("vert"): return middle ? "|" : "∣"
        case .command("Vert"): return "∥"
        case .command("backslash"): return "\\"
        case .command(let name):
            guard let symbol = symbolTable[name], symbol.kind == .fence || symbol.kind == .op || name.hasSuffix("arrow") else {
                throw MathError.unsupported(name)
            }
            return symbol.char
        default:
            throw MathError.invalid("missing delimiter")
        }
    }

    private func leftRight() throws -> MNode {
        var parts: [MNode] = []
        if let open = try delimiter(middle: false) { parts.append(MNode(token: "mo", open, [("fence", "true")])) }
        parts += try parseList(.right)
        while case .command("middle") = try peek() {
            pos += 1
            if let mid = try delimiter(middle: true) {
                parts.append(MNode(token: "mo", mid, [("fence", "true"), ("lspace", "0.05em"), ("rspace", "0.05em")]))
            }
            parts += try parseList(.right)
        }
        guard case .command("right") = try next() else { throw MathError.invalid("\\left without \\right") }
        if let close = try delimiter(middle: false) { parts.append(MNode(token: "mo", close, [("fence", "true")])) }
        return MNode("mrow", children: parts)
    }

    /// `\newcommand{\name}[n]{body}` and `\def\name#1#2{body}`, for the rest of this formula.
    private func define(_ kind: String) throws {
        skipSpaces()
        var nameTokens: [Token]
        if kind == "def" {
            guard pos < tokens.count else { throw MathError.invalid("\\def without a name") }
            nameTokens = [tokens[pos]]
            pos += 1
        } else {
            nameTokens = try rawArgument()
        }
        guard nameTokens.count == 1, case .command(let name) = nameTokens[0] else { throw MathError.invalid("macro name") }
        var params = 0
        if kind == "def" {
            while pos < tokens.count, case .param = tokens[pos] { params += 1; pos += 1 }
        } else if let count = try optionalArgument() {
            guard count.count == 1, case .char(let c) = count[0], let n = Int(String(c)), (0...9).contains(n) else {
                throw MathError.invalid("macro parameter count")
            }
            params = n
        }
        guard Parser.refused.contains(name) == false else { throw MathError.unsupported(name) }
        let body = try rawArgument()
        macros[name] = (params, body)
    }

    private func substack() throws -> MNode {
        guard case .open = try next() else { throw MathError.invalid("\\substack without a group") }
        let saved = style
        style = style == .display || style == .text ? .script : style
        defer { style = saved }
        var rows: [MNode] = []
        while true {
            let cell = try parseList([.cell, .close])
            rows.append(MNode("mtr", children: [MNode("mtd", children: [
                MNode("mstyle", [("scriptlevel", "1"), ("displaystyle", "false")], children: [MNode.row(cell)])])]))
            guard let t = try next() else { throw MathError.invalid("unbalanced braces") }
            if t == .close { break }
            if t == .align { throw MathError.invalid("& in \\substack") }
        }
        return MNode("mstyle", [("scriptlevel", "1")], children: [
            MNode("mtable", [("rowspacing", "0.1em"), ("columnalign", "center"), ("columnspacing", "1em")], children: rows)])
    }
}

extension String {
    var replacingSpaces: String { String(unicodeScalars.filter { $0 != " " }) }
}
