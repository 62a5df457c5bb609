// Template text -> tree, in three passes: tokens (honouring set-delimiter tags), standalone
// lines (removed whitespace, indentation), and the tree (sections, parents, blocks).

private let newline: UInt8 = 0x0A
private let carriageReturn: UInt8 = 0x0D
private let space: UInt8 = 0x20
private let tab: UInt8 = 0x09

@inline(__always) private func isBlank(_ b: UInt8) -> Bool { b == space || b == tab }
@inline(__always) private func isWhitespace(_ b: UInt8) -> Bool {
    b == space || b == tab || b == newline || b == carriageReturn || b == 0x0C || b == 0x0B
}

enum TagKind: Equatable {
    case variable, unescaped, section, inverted, close, comment, partial, parent, block, setDelimiters

    var canStandAlone: Bool {
        switch self {
        case .variable, .unescaped: return false
        default: return true
        }
    }

    var opensSection: Bool { self == .section || self == .inverted || self == .parent || self == .block }

    var noun: String {
        switch self {
        case .section, .inverted: return "section"
        case .parent: return "parent"
        case .block: return "block"
        default: return "tag"
        }
    }
}

private struct Token {
    var tag: TagKind?          // nil: text
    var start: Int             // text start, or the opening delimiter
    var end: Int               // exclusive
    var content: String = ""   // tag name / normalised content
    var delimiters: Delimiters = .standard
    // Set by the standalone pass.
    var removed = false
    var startsLine = false
    var lineStartBefore = false
    var standalone = false
    var indent: [UInt8] = []
    var ownsLineStart = false
    var siteIndent: [UInt8] = []
    var lineEnd = 0
    var closes: TagKind?       // for close tags: the kind of tag closed
}

struct Parser {
    let info: SourceInfo
    private let src: [UInt8]
    private var tokens: [Token] = []
    private(set) var references: [(name: String, offset: Int, isParent: Bool)] = []

    init(info: SourceInfo) {
        self.info = info
        self.src = info.bytes
    }

    /// Parses a whole template (or a lambda's result) starting with `delimiters`.
    static func parse(_ info: SourceInfo, delimiters: Delimiters = .standard) throws -> Template {
        var parser = Parser(info: info)
        try parser.tokenize(delimiters)
        parser.markStandaloneLines()
        let nodes = try parser.buildTree()
        return Template(info: info, nodes: nodes, references: parser.references)
    }

    // MARK: Pass 1: tokens

    private func find(_ needle: [UInt8], from: Int) -> Int? {
        let n = src.count, m = needle.count
        guard m > 0, n >= m else { return nil }
        let first = needle[0]
        var i = from
        while i <= n - m {
            if src[i] == first {
                var k = 1
                while k < m && src[i + k] == needle[k] { k += 1 }
                if k == m { return i }
            }
            i += 1
        }
        return nil
    }

    private func trimmed(_ from: Int, _ to: Int) -> String {
        var a = from, b = to
        while a < b && isWhitespace(src[a]) { a += 1 }
        while b > a && isWhitespace(src[b - 1]) { b -= 1 }
        return String(decoding: src[a..<b], as: UTF8.self)
    }

    private mutating func appendText(_ from: Int, _ to: Int) {
        var start = from
        var i = from
        while i < to {
            if src[i] == newline {
                tokens.append(Token(tag: nil, start: start, end: i + 1))
                start = i + 1
            }
            i += 1
        }
        if start < to { tokens.append(Token(tag: nil, start: start, end: to)) }
    }

    private mutating func tokenize(_ initial: Delimiters) throws {
        var delimiters = initial
        var i = 0
        let n = src.count
        while i < n {
            guard let open = find(delimiters.open, from: i) else {
                appendText(i, n)
                break
            }
            appendText(i, open)
            let p = open + delimiters.open.count
            let closeText = "'" + String(decoding: delimiters.close, as: UTF8.self) + "'"
            var token = Token(tag: .variable, start: open, end: open, delimiters: delimiters)
            let sigil: UInt8? = p < n ? src[p] : nil
            switch sigil {
            case UInt8(ascii: "{"):
                guard let k = find([UInt8(ascii: "}")] + delimiters.close, from: p + 1) else {
                    throw info.error(at: open, "unclosed tag (missing '}' + \(closeText))")
                }
                token.tag = .unescaped
                token.content = trimmed(p + 1, k)
                token.end = k + 1 + delimiters.close.count
            case UInt8(ascii: "="):
                guard let k = find([UInt8(ascii: "=")] + delimiters.close, from: p + 1) else {
                    throw info.error(at: open, "unclosed set-delimiters tag (missing '=' + \(closeText))")
                }
                let parts = trimmed(p + 1, k).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
                guard parts.count == 2, !parts[0].contains("="), !parts[1].contains("=") else {
                    throw info.error(at: open, "invalid set-delimiters tag: expected two delimiters separated by whitespace")
                }
                token.tag = .setDelimiters
                token.end = k + 1 + delimiters.close.count
                delimiters = Delimiters(open: Array(parts[0].utf8), close: Array(parts[1].utf8))
            default:
                guard let k = find(delimiters.close, from: p) else {
                    throw info.error(at: open, "unclosed tag (missing \(closeText))")
                }
                var contentStart = p
                switch sigil {
                case UInt8(ascii: "&"): token.tag = .unescaped
                case UInt8(ascii: "#"): token.tag = .section
                case UInt8(ascii: "^"): token.tag = .inverted
                case UInt8(ascii: "/"): token.tag = .close
                case UInt8(ascii: "!"): token.tag = .comment
                case UInt8(ascii: ">"): token.tag = .partial
                case UInt8(ascii: "<"): token.tag = .parent
                case UInt8(ascii: "$"): token.tag = .block
                default: token.tag = .variable
                }
                if token.tag != .variable { contentStart += 1 }
                token.content = token.tag == .comment ? "" : trimmed(contentStart, k)
                token.end = k + delimiters.close.count
            }
            try validate(&token)
            tokens.append(token)
            i = token.end
        }
    }

    private func validate(_ token: inout Token) throws {
        guard let kind = token.tag else { return }
        let content = token.content
        switch kind {
        case .comment, .setDelimiters:
            return
        case .partial, .parent:
            if content.hasPrefix("*") {
                let rest = String(content.dropFirst()).trimmingBlanks()
                guard !rest.isEmpty else { throw info.error(at: token.start, "empty dynamic name in \(kind == .parent ? "parent" : "partial") tag") }
                token.content = "*" + rest
            }
            guard !token.content.isEmpty else {
                throw info.error(at: token.start, "empty \(kind == .parent ? "parent" : "partial") name")
            }
            if token.content.contains(where: { $0.isWhitespace }) {
                throw info.error(at: token.start, "invalid template name '\(token.content)'")
            }
        case .variable, .unescaped, .section, .inverted, .close, .block:
            guard !content.isEmpty else { throw info.error(at: token.start, "empty tag") }
            if content.contains(where: { $0.isWhitespace }) {
                throw info.error(at: token.start, "invalid name '\(content)' (names cannot contain spaces)")
            }
            if kind != .close && kind != .block && content != "." {
                if content.split(separator: ".", omittingEmptySubsequences: false).contains(where: { $0.isEmpty }) {
                    throw info.error(at: token.start, "invalid dotted name '\(content)'")
                }
            }
        }
    }

    // MARK: Pass 2: standalone lines

    private func isBlankText(_ t: Token) -> Bool {
        var end = t.end
        if end > t.start && src[end - 1] == newline {
            end -= 1
            if end > t.start && src[end - 1] == carriageReturn { end -= 1 }
        }
        var i = t.start
        while i < end {
            if !isBlank(src[i]) { return false }
            i += 1
        }
        return true
    }

    private mutating func markStandaloneLines() {
        // Which kind of tag each close tag closes (mismatches are reported by buildTree).
        var open: [(TagKind, String)] = []
        for i in tokens.indices {
            guard let kind = tokens[i].tag else { continue }
            if kind.opensSection {
                open.append((kind, tokens[i].content))
            } else if kind == .close, let last = open.popLast() {
                tokens[i].closes = last.0
            }
        }

        var lineStart = 0
        var i = 0
        while i < tokens.count {
            let endsLine = tokens[i].tag == nil && src[tokens[i].end - 1] == newline
            if endsLine || i == tokens.count - 1 {
                processLine(lineStart...i)
                lineStart = i + 1
            }
            i += 1
        }
    }

    private func lineIsStandalone(_ line: ClosedRange<Int>) -> Bool {
        var tags: [Int] = []
        for i in line {
            if tokens[i].tag == nil {
                if !isBlankText(tokens[i]) { return false }
            } else {
                tags.append(i)
            }
        }
        if tags.isEmpty { return false }
        if tags.count == 1 { return tokens[tags[0]].tag!.canStandAlone }
        // Several tags: only inheritance tags (parents, blocks, their closing tags) and
        // comments, e.g. `{{<parent}}{{$block}}` or `{{/block}}{{/parent}}`. A block opened
        // and closed on one line, `{{$block}}{{/block}}`, is an inline placeholder instead.
        let significant = tags.filter { tokens[$0].tag != .comment }
        if significant.isEmpty { return false }
        for t in significant {
            switch tokens[t].tag! {
            case .parent, .block: continue
            case .close where tokens[t].closes == .parent || tokens[t].closes == .block: continue
            default: return false
            }
        }
        if significant.count == 2, tokens[significant[0]].tag == .block, tokens[significant[1]].tag == .close,
           tokens[significant[1]].closes == .block, tokens[significant[0]].content == tokens[significant[1]].content {
            return false
        }
        return true
    }

    private mutating func processLine(_ line: ClosedRange<Int>) {
        if lineIsStandalone(line) {
            let leading: [UInt8] = tokens[line.lowerBound].tag == nil
                ? Array(src[tokens[line.lowerBound].start..<tokens[line.lowerBound].end]) : []
            let lineEnd = tokens[line.upperBound].end
            for i in line {
                if tokens[i].tag == nil {
                    tokens[i].removed = true
                } else {
                    tokens[i].standalone = true
                    tokens[i].indent = leading
                    tokens[i].lineEnd = lineEnd
                }
            }
            return
        }
        let first = line.lowerBound
        if tokens[first].tag == nil {
            if first < line.upperBound, tokens[first + 1].tag == .block, isBlankText(tokens[first]),
               src[tokens[first].end - 1] != newline {
                tokens[first].removed = true
                tokens[first + 1].ownsLineStart = true
                tokens[first + 1].siteIndent = Array(src[tokens[first].start..<tokens[first].end])
            } else {
                tokens[first].startsLine = true
            }
        } else if tokens[first].tag == .block {
            tokens[first].ownsLineStart = true
        } else {
            tokens[first].lineStartBefore = true
        }
    }

    // MARK: Pass 3: tree

    private struct Frame {
        var token: Token
        var nodes: [Node] = []
        var blocks: [String: Block] = [:]
        var text: [UInt8] = []
        var lineStarts: [Int] = []

        mutating func flushText() {
            if text.isEmpty && lineStarts.isEmpty { return }
            nodes.append(.text(TextNode(bytes: text, lineStarts: lineStarts)))
            text = []
            lineStarts = []
        }

        mutating func append(_ node: Node) {
            flushText()
            nodes.append(node)
        }
    }

    private func ref(_ content: String) -> TemplateRef {
        content.hasPrefix("*") ? .dynamic(Name(String(content.dropFirst()))) : .fixed(content)
    }

    /// Leading blanks of the first line in `from..<to` that has anything else.
    private func firstLineIndent(_ from: Int, _ to: Int) -> [UInt8]? {
        var i = from
        while i < to {
            var j = i
            while j < to && isBlank(src[j]) { j += 1 }
            if j < to && src[j] != newline && src[j] != carriageReturn {
                return Array(src[i..<j])
            }
            while j < to && src[j] != newline { j += 1 }
            i = j + 1
        }
        return nil
    }

    private mutating func buildTree() throws -> [Node] {
        var stack: [Frame] = [Frame(token: Token(tag: nil, start: 0, end: 0))]
        for token in tokens where !token.removed {
            if token.lineStartBefore {
                stack[stack.count - 1].lineStarts.append(stack[stack.count - 1].text.count)
            }
            guard let kind = token.tag else {
                if token.startsLine { stack[stack.count - 1].lineStarts.append(stack[stack.count - 1].text.count) }
                stack[stack.count - 1].text.append(contentsOf: src[token.start..<token.end])
                continue
            }
            switch kind {
            case .comment, .setDelimiters:
                break
            case .variable, .unescaped:
                stack[stack.count - 1].append(.variable(VariableNode(name: Name(token.content), escaped: kind == .variable, offset: token.start)))
            case .partial:
                let r = ref(token.content)
                if case .fixed(let name) = r { references.append((name, token.start, false)) }
                stack[stack.count - 1].append(.partial(PartialNode(ref: r, indent: token.standalone ? token.indent : nil, offset: token.start)))
            case .section, .inverted, .parent, .block:
                stack.append(Frame(token: token))
            case .close:
                guard stack.count > 1 else {
                    throw info.error(at: token.start, "unexpected closing tag '\(token.content)' (no section is open)")
                }
                var frame = stack.removeLast()
                frame.flushText()
                let opener = frame.token
                guard opener.content == token.content else {
                    let (line, column) = info.position(of: opener.start)
                    throw info.error(at: token.start, "closing tag '\(token.content)' does not match open \(opener.tag!.noun) '\(opener.content)' (opened at \(line):\(column))")
                }
                let node = try finish(frame, closedBy: token)
                if case .block(let block) = node, stack[stack.count - 1].token.tag == .parent {
                    if stack[stack.count - 1].blocks[block.name] == nil {
                        stack[stack.count - 1].blocks[block.name] = block
                    }
                } else {
                    stack[stack.count - 1].append(node)
                }
            }
        }
        if stack.count > 1 {
            let opener = stack[stack.count - 1].token
            throw info.error(at: opener.start, "unclosed \(opener.tag!.noun) '\(opener.content)'")
        }
        stack[0].flushText()
        return stack[0].nodes
    }

    private mutating func finish(_ frame: Frame, closedBy close: Token) throws -> Node {
        let opener = frame.token
        switch opener.tag! {
        case .section, .inverted:
            return .section(SectionNode(
                name: Name(opener.content), inverted: opener.tag == .inverted, body: frame.nodes,
                raw: String(decoding: src[opener.end..<close.start], as: UTF8.self),
                delimiters: opener.delimiters, offset: opener.start))
        case .parent:
            let r = ref(opener.content)
            if case .fixed(let name) = r { references.append((name, opener.start, true)) }
            return .parent(ParentNode(ref: r, indent: opener.standalone ? opener.indent : nil,
                                      blocks: frame.blocks, offset: opener.start))
        default:
            let intrinsic: [UInt8]
            let bodyStartsLine: Bool
            if opener.standalone {
                bodyStartsLine = opener.lineEnd <= close.start
                intrinsic = (bodyStartsLine ? firstLineIndent(opener.lineEnd, close.start) : nil) ?? opener.indent
            } else {
                bodyStartsLine = false
                intrinsic = opener.ownsLineStart ? opener.siteIndent : []
            }
            return .block(Block(
                name: opener.content, body: frame.nodes, dedentedBody: dedent(frame.nodes, by: intrinsic),
                intrinsic: intrinsic, standalone: opener.standalone, ownsLineStart: opener.ownsLineStart,
                siteIndent: opener.siteIndent, bodyStartsLine: bodyStartsLine, source: info))
        }
    }
}

extension String {
    func trimmingBlanks() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
