// The parsed template tree. Built once by the parser, never mutated, shared between threads.

/// The delimiters in effect at a point of a template.
struct Delimiters: Sendable, Equatable {
    var open: [UInt8]
    var close: [UInt8]

    static let standard = Delimiters(open: Array("{{".utf8), close: Array("}}".utf8))
}

/// A name as written in a tag: `.` or a dotted path.
enum Name: Sendable {
    case implicit
    case path([String])

    init(_ text: String) {
        if text == "." {
            self = .implicit
        } else {
            self = .path(text.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
        }
    }
}

/// The template a partial or parent tag names: fixed, or looked up in the context (`*name`).
enum TemplateRef: Sendable {
    case fixed(String)
    case dynamic(Name)
}

/// Literal template text. `lineStarts` are the offsets in `bytes` where a line of the template
/// source begins (offset == bytes.count: a line that begins with a tag); indentation of
/// standalone partials is written there.
struct TextNode: Sendable {
    var bytes: [UInt8]
    var lineStarts: [Int]
}

struct SectionNode: Sendable {
    var name: Name
    var inverted: Bool
    var body: [Node]
    /// The unrendered text between the tags, for lambdas.
    var raw: String
    var delimiters: Delimiters
    var offset: Int
}

struct PartialNode: Sendable {
    var ref: TemplateRef
    /// Indentation of a standalone tag; nil for a tag inside a line.
    var indent: [UInt8]?
    var offset: Int
}

struct ParentNode: Sendable {
    var ref: TemplateRef
    var indent: [UInt8]?
    /// The blocks directly inside the parent tag: the arguments.
    var blocks: [String: Block]
    var offset: Int
}

/// A `{{$name}}…{{/name}}` block, both as a parameter (where it appears in a template) and as an
/// argument (inside a parent tag).
struct Block: Sendable {
    var name: String
    var body: [Node]
    /// `body` with `intrinsic` removed from the start of each line: what an argument inserts.
    var dedentedBody: [Node]
    /// The block's own indentation: removed where an argument is defined, added where it is
    /// expanded.
    var intrinsic: [UInt8]
    /// The opening tag stands alone on its line (the line is removed).
    var standalone: Bool
    /// The opening tag begins its line (after `siteIndent`), so the block writes that line's
    /// indentation itself.
    var ownsLineStart: Bool
    /// Whitespace before the opening tag on its line when `ownsLineStart` (kept as output).
    var siteIndent: [UInt8]
    /// The body begins at the start of a line (the opening tag was standalone).
    var bodyStartsLine: Bool
    /// The template the block was written in, for error positions.
    var source: SourceInfo
}

enum Node: Sendable {
    case text(TextNode)
    case variable(Name, escaped: Bool, offset: Int)
    case section(SectionNode)
    case partial(PartialNode)
    case parent(ParentNode)
    case block(Block)
}

/// One parsed template.
final class Template: Sendable {
    let info: SourceInfo
    let nodes: [Node]
    /// Fixed partial and parent names used, with the tag offset, for validation.
    let references: [(name: String, offset: Int, isParent: Bool)]

    init(info: SourceInfo, nodes: [Node], references: [(name: String, offset: Int, isParent: Bool)]) {
        self.info = info
        self.nodes = nodes
        self.references = references
    }
}

// MARK: - Re-indentation of block arguments

/// Removes as much of `prefix` as matches from the start of `bytes`.
func stripPrefix(_ bytes: [UInt8], _ prefix: [UInt8]) -> [UInt8] {
    var n = 0
    while n < bytes.count, n < prefix.count, bytes[n] == prefix[n] { n += 1 }
    return n == 0 ? bytes : Array(bytes[n...])
}

/// The nodes with `prefix` removed from the start of every template line (as far as it matches).
func dedent(_ nodes: [Node], by prefix: [UInt8]) -> [Node] {
    if prefix.isEmpty { return nodes }
    return nodes.map { node in
        switch node {
        case .text(let text):
            if text.lineStarts.isEmpty { return node }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.bytes.count)
            var starts: [Int] = []
            var from = 0
            for start in text.lineStarts {
                bytes.append(contentsOf: text.bytes[from..<start])
                starts.append(bytes.count)
                var i = start
                var k = 0
                while i < text.bytes.count, k < prefix.count, text.bytes[i] == prefix[k] {
                    i += 1
                    k += 1
                }
                from = i
            }
            bytes.append(contentsOf: text.bytes[from...])
            return .text(TextNode(bytes: bytes, lineStarts: starts))
        case .section(var section):
            section.body = dedent(section.body, by: prefix)
            return .section(section)
        case .partial(var partial):
            partial.indent = partial.indent.map { stripPrefix($0, prefix) }
            return .partial(partial)
        case .parent(var parent):
            parent.indent = parent.indent.map { stripPrefix($0, prefix) }
            return .parent(parent)
        case .block(var block):
            block.body = dedent(block.body, by: prefix)
            block.intrinsic = stripPrefix(block.intrinsic, prefix)
            block.siteIndent = stripPrefix(block.siteIndent, prefix)
            return .block(block)
        case .variable:
            return node
        }
    }
}
