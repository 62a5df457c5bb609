// The parsed template tree. Built once by the parser, never mutated, shared between threads.

/// The delimiters in effect at a point of a template.
struct Delimiters: Sendable, Equatable {
    var open: [UInt8]
    var close: [UInt8]

    static let standard = Delimiters(open: Array("{{".utf8), close: Array("}}".utf8))
}

/// A name as written in a tag: `.` or a dotted path. A class, so that a tag hands its name to a
/// lookup as one reference (an enum with two array payloads was copied field by field).
/// `@unchecked Sendable`: `hints` is written, but each lane only by the renderer holding it.
final class Name: @unchecked Sendable {
    /// `.`: the top of the context stack.
    let isImplicit: Bool
    /// The parts of a dotted path and their hashes (`MustacheObject.hash`), computed once when the
    /// template is parsed. Empty for `.`.
    let parts: [String]
    let hashes: [UInt64]
    /// `parts[0]` and `hashes[0]` ("" and 0 for `.`), read by every lookup without indexing.
    let first: String
    let firstHash: UInt64
    /// Per render lane (`RenderLane`), per part: the index of the object entry where the part was
    /// last found. Pages of a site are built alike, so the same tag finds its member at the same
    /// index on every page; the hint is checked (hash and key) before the scan of the entries.
    let hints: UnsafeMutablePointer<Int32>

    init(_ text: String) {
        if text == "." {
            isImplicit = true
            parts = []
            hashes = []
        } else {
            isImplicit = false
            parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            hashes = parts.map(MustacheObject.hash)
        }
        first = parts.first ?? ""
        firstHash = hashes.first ?? 0
        let count = RenderLane.count * parts.count
        hints = .allocate(capacity: max(count, 1))
        hints.initialize(repeating: 0, count: max(count, 1))
    }

    deinit { hints.deallocate() }

    /// The hints of `lane` (`parts.count` of them).
    @inline(__always)
    func hints(lane: Int) -> UnsafeMutablePointer<Int32> { hints + lane * parts.count }
}

/// The template a partial or parent tag names: fixed, or looked up in the context (`*name`).
enum TemplateRef: Sendable {
    case fixed(String)
    case dynamic(Name)
}

// Node payloads are immutable final classes: a switch over a node then costs one retain, not
// one per field.

/// Literal template text. `lineStarts` are the offsets in `bytes` where a line of the template
/// source begins (offset == bytes.count: a line that begins with a tag); indentation of
/// standalone partials is written there.
final class TextNode: @unchecked Sendable {
    let bytes: [UInt8]
    let lineStarts: [Int]
    /// Copies of `bytes` and `lineStarts` that the node owns and frees: the renderer appends from
    /// them without retaining an array per text node (immutable, so safe to share).
    let byteBuffer: UnsafeBufferPointer<UInt8>
    let lineStartBuffer: UnsafeBufferPointer<Int>

    init(bytes: [UInt8], lineStarts: [Int]) {
        self.bytes = bytes
        self.lineStarts = lineStarts
        let byteCopy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = byteCopy.initialize(from: bytes)
        byteBuffer = UnsafeBufferPointer(byteCopy)
        let startCopy = UnsafeMutableBufferPointer<Int>.allocate(capacity: lineStarts.count)
        _ = startCopy.initialize(from: lineStarts)
        lineStartBuffer = UnsafeBufferPointer(startCopy)
    }

    deinit {
        byteBuffer.deallocate()
        lineStartBuffer.deallocate()
    }
}

final class VariableNode: @unchecked Sendable {
    let name: Name
    /// `name`, unretained (`name` keeps it alive): handed to a lookup without a retain.
    let nameRef: Unmanaged<Name>
    let escaped: Bool
    let offset: Int

    init(name: Name, escaped: Bool, offset: Int) {
        self.name = name
        self.nameRef = .passUnretained(name)
        self.escaped = escaped
        self.offset = offset
    }
}

final class SectionNode: Sendable {
    let name: Name
    let inverted: Bool
    let body: [Node]
    /// `body` as the renderer walks it (see `Op`).
    let ops: OpList
    /// The unrendered text between the tags, for lambdas.
    let raw: String
    let delimiters: Delimiters
    let offset: Int

    init(name: Name, inverted: Bool, body: [Node], raw: String, delimiters: Delimiters, offset: Int) {
        self.name = name
        self.inverted = inverted
        self.body = body
        self.ops = OpList(body)
        self.raw = raw
        self.delimiters = delimiters
        self.offset = offset
    }

    deinit { ops.free() }

    func with(body: [Node]) -> SectionNode {
        SectionNode(name: name, inverted: inverted, body: body, raw: raw, delimiters: delimiters, offset: offset)
    }
}

/// `@unchecked Sendable`: `target` is set while the library is made, before any render.
final class PartialNode: @unchecked Sendable {
    let ref: TemplateRef
    /// Indentation of a standalone tag; nil for a tag inside a line.
    let indent: [UInt8]?
    let offset: Int
    /// The library's template a fixed name names (see `linkTargets`); nil: look it up.
    /// Unretained: the library holds its templates for as long as their nodes are used.
    var target: Unmanaged<Template>?

    init(ref: TemplateRef, indent: [UInt8]?, offset: Int) {
        self.ref = ref
        self.indent = indent
        self.offset = offset
    }
}

/// `@unchecked Sendable`: `target` is set while the library is made, before any render.
final class ParentNode: @unchecked Sendable {
    let ref: TemplateRef
    let indent: [UInt8]?
    /// The blocks directly inside the parent tag: the arguments.
    let blocks: [String: Block]
    /// `blocks` with each name's hash (`MustacheObject.hash`), unretained (`blocks` holds them),
    /// in memory the node owns: the renderer finds an argument by comparing hashes, without
    /// hashing the name into the dictionary or retaining the result.
    let arguments: UnsafeBufferPointer<(hash: UInt64, block: Unmanaged<Block>)>
    let offset: Int
    /// The library's template a fixed name names (see `linkTargets`); nil: look it up.
    /// Unretained: the library holds its templates for as long as their nodes are used.
    var target: Unmanaged<Template>?

    init(ref: TemplateRef, indent: [UInt8]?, blocks: [String: Block], offset: Int) {
        self.ref = ref
        self.indent = indent
        self.blocks = blocks
        self.offset = offset
        let memory = UnsafeMutableBufferPointer<(hash: UInt64, block: Unmanaged<Block>)>.allocate(capacity: blocks.count)
        _ = memory.initialize(from: blocks.keys.sorted().map { (hash: blocks[$0]!.nameHash, block: .passUnretained(blocks[$0]!)) })
        arguments = UnsafeBufferPointer(memory)
    }

    deinit { arguments.deallocate() }

    /// The argument named `name` (hash `hash`), or nil.
    func argument(named name: String, hash: UInt64) -> Unmanaged<Block>? {
        for entry in arguments where entry.hash == hash {
            if entry.block._withUnsafeGuaranteedRef({ $0.name == name }) { return entry.block }
        }
        return nil
    }
}

/// A `{{$name}}…{{/name}}` block, both as a parameter (where it appears in a template) and as an
/// argument (inside a parent tag).
final class Block: Sendable {
    let name: String
    /// `MustacheObject.hash(name)`, to find the argument for this block (`ParentNode.argument`).
    let nameHash: UInt64
    let body: [Node]
    /// `body` with `intrinsic` removed from the start of each line: what an argument inserts.
    let dedentedBody: [Node]
    /// `body` and `dedentedBody` as the renderer walks them (see `Op`).
    let bodyOps: OpList
    let dedentedOps: OpList
    /// The block's own indentation: removed where an argument is defined, added where it is
    /// expanded.
    let intrinsic: [UInt8]
    /// The opening tag stands alone on its line (the line is removed).
    let standalone: Bool
    /// The opening tag begins its line (after `siteIndent`), so the block writes that line's
    /// indentation itself.
    let ownsLineStart: Bool
    /// Whitespace before the opening tag on its line when `ownsLineStart` (kept as output).
    let siteIndent: [UInt8]
    /// The body begins at the start of a line (the opening tag was standalone).
    let bodyStartsLine: Bool
    /// The template the block was written in, for error positions.
    let source: SourceInfo

    init(name: String, body: [Node], dedentedBody: [Node], intrinsic: [UInt8], standalone: Bool,
         ownsLineStart: Bool, siteIndent: [UInt8], bodyStartsLine: Bool, source: SourceInfo) {
        self.name = name
        self.nameHash = MustacheObject.hash(name)
        self.body = body
        self.dedentedBody = dedentedBody
        self.bodyOps = OpList(body)
        self.dedentedOps = OpList(dedentedBody)
        self.intrinsic = intrinsic
        self.standalone = standalone
        self.ownsLineStart = ownsLineStart
        self.siteIndent = siteIndent
        self.bodyStartsLine = bodyStartsLine
        self.source = source
    }

    deinit {
        bodyOps.free()
        dedentedOps.free()
    }
}

enum Node: Sendable {
    case text(TextNode)
    case variable(VariableNode)
    case section(SectionNode)
    case partial(PartialNode)
    case parent(ParentNode)
    case block(Block)
}

/// A node as the renderer reads it: the same payload, unretained. The `[Node]` it was made from
/// (held next to it by the same template, section or block) keeps the payload alive, so stepping
/// through a body copies plain words instead of retaining and releasing every node of every
/// page.
enum Op: @unchecked Sendable {
    case text(Unmanaged<TextNode>)
    case variable(Unmanaged<VariableNode>)
    case section(Unmanaged<SectionNode>)
    case partial(Unmanaged<PartialNode>)
    case parent(Unmanaged<ParentNode>)
    case block(Unmanaged<Block>)

    static func list(_ nodes: [Node]) -> [Op] {
        nodes.map { node in
            switch node {
            case .text(let x): return .text(.passUnretained(x))
            case .variable(let x): return .variable(.passUnretained(x))
            case .section(let x): return .section(.passUnretained(x))
            case .partial(let x): return .partial(.passUnretained(x))
            case .parent(let x): return .parent(.passUnretained(x))
            case .block(let x): return .block(.passUnretained(x))
            }
        }
    }
}

/// A node's ops in memory of their own, which the node frees when it goes. The renderer reads
/// them without retaining anything: an `[Op]` read from a node (shared by every page, on every
/// core) would be retained and released for every section, template and block rendered, and the
/// cores would take turns at the same reference counts.
struct OpList: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<Op>

    init(_ nodes: [Node]) {
        let ops = Op.list(nodes)
        let memory = UnsafeMutableBufferPointer<Op>.allocate(capacity: ops.count)
        _ = memory.initialize(from: ops)
        buffer = UnsafeBufferPointer(memory)
    }

    /// Ops hold unretained references only, so there is nothing to deinitialize.
    func free() { buffer.deallocate() }
}

/// One parsed template.
final class Template: Sendable {
    let info: SourceInfo
    let nodes: [Node]
    /// `nodes` as the renderer walks them (see `Op`).
    let ops: OpList
    /// Fixed partial and parent names used, with the tag offset, for validation.
    let references: [(name: String, offset: Int, isParent: Bool)]

    init(info: SourceInfo, nodes: [Node], references: [(name: String, offset: Int, isParent: Bool)]) {
        self.info = info
        self.nodes = nodes
        self.ops = OpList(nodes)
        self.references = references
    }

    deinit { ops.free() }
}

/// Points every partial and parent tag with a fixed name in `nodes` (and in the sections,
/// blocks and block arguments inside) at its template in `templates`, so that a render does not
/// hash the name to find it (a `Dictionary` lookup for every partial and parent of every page).
/// Called once, before the library is shared;
/// unowned: the library holds the templates for as long as the nodes are used.
func linkTargets(_ nodes: [Node], _ templates: [String: Template]) {
    for node in nodes {
        switch node {
        case .text, .variable:
            break
        case .section(let section):
            linkTargets(section.body, templates)
        case .partial(let partial):
            if case .fixed(let name) = partial.ref { partial.target = templates[name].map { .passUnretained($0) } }
        case .parent(let parent):
            if case .fixed(let name) = parent.ref { parent.target = templates[name].map { .passUnretained($0) } }
            for block in parent.blocks.values {
                linkTargets(block.body, templates)
                linkTargets(block.dedentedBody, templates)
            }
        case .block(let block):
            linkTargets(block.body, templates)
            linkTargets(block.dedentedBody, templates)
        }
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
        case .section(let section):
            return .section(section.with(body: dedent(section.body, by: prefix)))
        case .partial(let partial):
            return .partial(PartialNode(ref: partial.ref, indent: partial.indent.map { stripPrefix($0, prefix) },
                                        offset: partial.offset))
        case .parent(let parent):
            return .parent(ParentNode(ref: parent.ref, indent: parent.indent.map { stripPrefix($0, prefix) },
                                      blocks: parent.blocks, offset: parent.offset))
        case .block(let block):
            return .block(Block(
                name: block.name, body: dedent(block.body, by: prefix), dedentedBody: block.dedentedBody,
                intrinsic: stripPrefix(block.intrinsic, prefix), standalone: block.standalone,
                ownsLineStart: block.ownsLineStart, siteIndent: stripPrefix(block.siteIndent, prefix),
                bodyStartsLine: block.bodyStartsLine, source: block.source))
        case .variable:
            return node
        }
    }
}
