/// TeX's math styles, which decide where limits go and when a fraction needs an `mstyle`.
enum Style: Int {
    case display, text, script, scriptScript
    var script: Style { self == .display || self == .text ? .script : .scriptScript }
    var fraction: Style { Style(rawValue: min(rawValue + 1, 3))! }
}

/// Where a list of atoms ends.
struct Stop: OptionSet {
    let rawValue: Int
    static let end = Stop(rawValue: 1)
    static let close = Stop(rawValue: 2)
    static let cell = Stop(rawValue: 4)
    static let right = Stop(rawValue: 8)
}

/// A recursive-descent reader of TeX math that writes MathML nodes as it goes. Commands with
/// arguments are in `Commands.swift`, environments in `Environments.swift`.
final class Parser {
    var tokens: [Token]
    var pos = 0
    var depth = 0
    var style: Style
    /// The `mathvariant` of letters and digits (`\mathbf` ...); "italic" is the default for letters.
    var font: String?
    var macros: [String: (params: Int, body: [Token])] = [:]
    var expansions = 0
    var tag: MNode?

    init(tokens: [Token], display: Bool) {
        self.tokens = tokens
        self.style = display ? .display : .text
    }

    func parseFormula() throws -> MNode {
        let nodes = try parseList(.end)
        return MNode.row(nodes)
    }

    // MARK: tokens

    /// The next token, with user macros expanded in place.
    func peek() throws -> Token? {
        while pos < tokens.count, case .command(let name) = tokens[pos], let macro = macros[name] {
            expansions += 1
            guard expansions <= 1000 else { throw MathError.invalid("macro expansion too deep") }
            let start = pos
            pos += 1
            var args: [[Token]] = []
            for _ in 0..<macro.params { args.append(try rawArgument()) }
            var body: [Token] = []
            for t in macro.body {
                if case .param(let n) = t {
                    guard n >= 1, n <= args.count else { throw MathError.invalid("macro parameter #\(n) out of range") }
                    body += args[n - 1]
                } else {
                    body.append(t)
                }
            }
            tokens.replaceSubrange(start..<pos, with: body)
            pos = start
            guard tokens.count <= MathRenderer.maxTokens else { throw MathError.invalid("formula too long") }
        }
        return pos < tokens.count ? tokens[pos] : nil
    }

    func next() throws -> Token? {
        let t = try peek()
        if t != nil { pos += 1 }
        return t
    }

    func skipSpaces() {
        while pos < tokens.count, tokens[pos] == .space { pos += 1 }
    }

    /// One argument as tokens: a balanced group without its braces, or one token.
    func rawArgument() throws -> [Token] {
        skipSpaces()
        guard pos < tokens.count else { throw MathError.invalid("missing argument") }
        let t = tokens[pos]
        pos += 1
        guard t == .open else {
            if t == .close { throw MathError.invalid("unbalanced braces") }
            return [t]
        }
        var level = 1
        let start = pos
        while pos < tokens.count {
            if tokens[pos] == .open { level += 1 }
            if tokens[pos] == .close {
                level -= 1
                if level == 0 { pos += 1; return Array(tokens[start..<(pos - 1)]) }
            }
            pos += 1
        }
        throw MathError.invalid("unbalanced braces")
    }

    /// An argument's text (environment names, colours, sizes): characters only.
    func textArgument() throws -> String {
        var s = ""
        for t in try rawArgument() {
            switch t {
            case .char(let c): s.unicodeScalars.append(c)
            case .space: s += " "
            default: throw MathError.invalid("unexpected token in an argument")
            }
        }
        return s.trimmingSpaces
    }

    /// An optional `[…]` argument's tokens.
    func optionalArgument() throws -> [Token]? {
        skipSpaces()
        guard pos < tokens.count, tokens[pos] == .char("[") else { return nil }
        pos += 1
        let start = pos
        var level = 0
        while pos < tokens.count {
            switch tokens[pos] {
            case .open: level += 1
            case .close: level -= 1
            case .char("]") where level == 0:
                pos += 1
                return Array(tokens[start..<(pos - 1)])
            default: break
            }
            pos += 1
        }
        throw MathError.invalid("unclosed [")
    }

    // MARK: lists and atoms

    func enter() throws {
        depth += 1
        if depth > MathRenderer.maxDepth { throw MathError.invalid("formula nested too deeply") }
    }

    /// Atoms up to the stop (which is not consumed); infix `\over` and style switches take the rest.
    func parseList(_ stop: Stop) throws -> [MNode] {
        try enter()
        defer { depth -= 1 }
        var nodes: [MNode] = []
        loop: while true {
            skipSpaces()
            guard let t = try peek() else {
                if stop.contains(.end) { break }
                throw MathError.invalid(stop.contains(.right) ? "\\left without \\right" : "unbalanced braces")
            }
            switch t {
            case .close:
                if stop.contains(.close) { break loop }
                throw MathError.invalid("unbalanced braces")
            case .align:
                if stop.contains(.cell) { break loop }
                throw MathError.invalid("& outside an environment")
            case .command("\\"), .command("cr"), .command("newline"):
                if stop.contains(.cell) { break loop }
                pos += 1
                _ = try optionalArgument()
                nodes.append(MNode("mspace", [("linebreak", "newline")]))
            case .command("end"):
                if stop.contains(.cell) { break loop }
                throw MathError.invalid("\\end without \\begin")
            case .command("right"), .command("middle"):
                if stop.contains(.right) { break loop }
                throw MathError.invalid("\\right without \\left")
            case .command(let name) where Parser.infixFractions.contains(name):
                pos += 1
                let numerator = MNode.row(finish(nodes))
                let denominator = MNode.row(try parseList(stop))
                return [infixFraction(name, numerator, denominator)]
            case .command(let name) where Parser.styleSwitches[name] != nil:
                pos += 1
                let (newStyle, attrs) = Parser.styleSwitches[name]!
                let saved = style
                style = newStyle
                defer { style = saved }
                let rest = try parseList(stop)
                nodes.append(MNode("mstyle", attrs, children: rest))
                break loop
            case .command("color"):
                pos += 1
                let color = try colorArgument()
                let rest = try parseList(stop)
                nodes.append(MNode("mstyle", [("mathcolor", color)], children: rest))
                break loop
            case .command(let name) where Parser.fontSwitches[name] != nil:
                pos += 1
                let saved = font
                font = Parser.fontSwitches[name]!
                defer { font = saved }
                nodes += try parseList(stop)
                break loop
            default:
                nodes += try parseAtom()
            }
        }
        return finish(nodes)
    }

    static let styleSwitches: [String: (Style, [(String, String)])] = [
        "displaystyle": (.display, [("scriptlevel", "0"), ("displaystyle", "true")]),
        "textstyle": (.text, [("scriptlevel", "0"), ("displaystyle", "false")]),
        "scriptstyle": (.script, [("scriptlevel", "1"), ("displaystyle", "false")]),
        "scriptscriptstyle": (.scriptScript, [("scriptlevel", "2"), ("displaystyle", "false")]),
    ]

    static let infixFractions: Set<String> = ["over", "choose", "atop", "brace", "brack"]

    static let fontSwitches: [String: String] = ["bf": "bold", "rm": "normal", "it": "italic", "sf": "sans-serif", "tt": "monospace", "cal": "script"]

    private func infixFraction(_ name: String, _ num: MNode, _ den: MNode) -> MNode {
        switch name {
        case "over": return MNode("mfrac", children: [num, den])
        case "atop": return MNode("mfrac", [("linethickness", "0px")], children: [num, den])
        default:
            let (l, r) = name == "choose" ? ("(", ")") : name == "brace" ? ("{", "}") : ("[", "]")
            return MNode("mrow", children: [MNode(token: "mo", l, [("fence", "true")]),
                                            MNode("mfrac", [("linethickness", "0px")], children: [num, den]),
                                            MNode(token: "mo", r, [("fence", "true")])])
        }
    }

    /// Joins what TeX writes as one run: digits (with a decimal point) into one `mn`, `\text` pieces into one `mtext`.
    func finish(_ nodes: [MNode]) -> [MNode] {
        var out: [MNode] = []
        out.reserveCapacity(nodes.count)
        for node in nodes {
            if let last = out.last, let lastText = last.text, let text = node.text, last.attrs.elementsEqual(node.attrs, by: ==) {
                if last.tag == "mn" && (node.tag == "mn" || (node.tag == "mi" && text == ".")) {
                    last.text = lastText + text
                    continue
                }
                if last.tag == "mtext" && node.tag == "mtext" && last.joinsText && node.joinsText {
                    last.text = lastText + text
                    continue
                }
            }
            if node.tag == "mi", node.text == ".", let last = out.last, last.tag == "mn", last.attrs.isEmpty, node.attrs.elementsEqual([("mathvariant", "normal")], by: ==) {
                last.text! += "."
                continue
            }
            out.append(node)
        }
        return out
    }

    /// A base with its subscripts, superscripts and primes.
    func parseAtom() throws -> [MNode] {
        var base = try parseBase()
        skipSpaces()
        if case .command(let name) = try peek(), name == "limits" || name == "nolimits" {
            pos += 1
            if let op = base.last { op.limits = name == "limits" ? .always : .never }
            if base.count > 1 { let row = MNode.row(base); row.limits = base.last!.limits; base = [row] }
        }
        var sub: MNode?
        var sup: [MNode]?
        while true {
            skipSpaces()
            guard let t = try peek() else { break }
            if t == .sup {
                pos += 1
                guard sup == nil || sup!.allSatisfy({ $0.text == "′" }) else { throw MathError.invalid("double superscript") }
                sup = (sup ?? []) + [try scriptArgument()]
            } else if t == .sub {
                pos += 1
                guard sub == nil else { throw MathError.invalid("double subscript") }
                sub = try scriptArgument()
            } else if t == .char("'") {
                guard sup == nil else { throw MathError.invalid("double superscript") }
                var primes: [MNode] = []
                while (try peek()) == .char("'") {
                    pos += 1
                    primes.append(MNode(token: "mo", "′", [("mathvariant", "normal")]))
                }
                sup = primes
            } else {
                break
            }
        }
        guard sub != nil || sup != nil else { return base }
        let baseNode = base.isEmpty ? MNode("mrow") : base.count == 1 ? base[0] : {
            let row = MNode("mrow", children: base)
            row.limits = base.first!.limits
            return row
        }()
        let supNode = sup.map { MNode.row($0) }
        let under = baseNode.limits == .always || (baseNode.limits == .displayOnly && style == .display)
        switch (sub, supNode) {
        case let (b?, p?): return [MNode(under ? "munderover" : "msubsup", children: [baseNode, b, p])]
        case let (b?, nil): return [MNode(under ? "munder" : "msub", children: [baseNode, b])]
        case let (nil, p?): return [MNode(under ? "mover" : "msup", children: [baseNode, p])]
        default: return base
        }
    }

    /// The argument of `^` or `_`, in the smaller style.
    func scriptArgument() throws -> MNode {
        let saved = style
        style = style.script
        defer { style = saved }
        skipSpaces()
        let nodes = try parseBase()
        return nodes.isEmpty ? MNode("mrow") : MNode.row(nodes)
    }

    /// A group's content as one node, in the given style.
    func groupArgument(style newStyle: Style? = nil) throws -> MNode {
        let saved = style
        if let newStyle { style = newStyle }
        defer { style = saved }
        skipSpaces()
        guard let t = try peek() else { throw MathError.invalid("missing argument") }
        if t == .open {
            pos += 1
            let nodes = try parseList(.close)
            pos += 1
            return nodes.isEmpty ? MNode("mrow") : MNode.row(nodes)
        }
        let nodes = try parseBase()
        return MNode.row(nodes)
    }

    /// One base: a group, a character or a command (with its arguments).
    func parseBase() throws -> [MNode] {
        skipSpaces()
        guard let t = try next() else { throw MathError.invalid("missing argument") }
        switch t {
        case .open:
            let nodes = try parseList(.close)
            pos += 1
            return [nodes.isEmpty ? MNode("mrow") : MNode.row(nodes)]
        case .char(let c):
            return [character(c)]
        case .command(let name):
            try enter()
            defer { depth -= 1 }
            return try command(name)
        case .sup, .sub:
            pos -= 1
            return []
        case .close:
            throw MathError.invalid("unbalanced braces")
        case .align:
            throw MathError.invalid("& outside an environment")
        case .param:
            throw MathError.invalid("macro parameter outside a definition")
        case .space:
            return try parseBase()
        }
    }

    // MARK: characters

    func character(_ c: Unicode.Scalar) -> MNode {
        switch c {
        case "a"..."z", "A"..."Z":
            return letter(String(c))
        case "0"..."9":
            if let font, font != "italic", font != "normal" { return MNode(token: "mn", String(c), [("mathvariant", font)]) }
            return MNode(token: "mn", String(c))
        case "+", "=", "<", ">", ":":
            return MNode(token: "mo", String(c))
        case "-": return MNode(token: "mo", "−")
        case "*": return MNode(token: "mo", "∗")
        case "(", ")", "[", "]", "!", "?":
            return MNode(token: "mo", String(c), [("stretchy", "false")])
        case ",", ";":
            return MNode(token: "mo", String(c), [("separator", "true")])
        case "|": return MNode(token: "mi", "∣", [("mathvariant", "normal")])
        case "~": return MNode(token: "mtext", "\u{A0}")
        case "'": return MNode(token: "mo", "′", [("mathvariant", "normal")])
        default:
            if c.value < 0x80 { return MNode(token: "mi", String(c), [("mathvariant", "normal")]) }
            if (0x2190...0x22FF).contains(c.value) { return MNode(token: "mo", String(c)) }
            if (0x0391...0x03C9).contains(c.value) { return letter(String(c)) }
            let text = MNode(token: "mtext", String(c))
            text.joinsText = true
            return text
        }
    }

    /// A letter in the current font.
    func letter(_ s: String) -> MNode {
        guard let font, font != "italic" else { return MNode(token: "mi", s) }
        return MNode(token: "mi", s, [("mathvariant", font)])
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
