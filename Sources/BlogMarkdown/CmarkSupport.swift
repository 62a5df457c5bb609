import CCmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Thin helpers over the cmark C tree. Every `Node` lives only inside one `render` call:
// the document is freed before `render` returns, so no pointer escapes.

typealias Node = OpaquePointer

@inline(__always) func kind(_ node: Node) -> cmark_node_type { cmark_node_get_type(node) }

/// The `number`th (1-based) soft or hard line break among the direct children of `parent`.
func lineBreak(_ number: Int, in parent: Node) -> Node? {
    var breaks = 0
    var child = cmark_node_first_child(parent)
    while let c = child {
        let t = kind(c)
        if t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK {
            breaks += 1
            if breaks == number { return c }
        }
        child = cmark_node_next(c)
    }
    return nil
}

/// The literal of a node as a byte view valid until the node is changed or freed.
@inline(__always) func literalBytes(_ node: Node) -> UnsafeBufferPointer<UInt8> {
    guard let p = cmark_node_get_literal(node) else { return UnsafeBufferPointer(start: nil, count: 0) }
    let base = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self)
    if literalLengthField, let length = storedLiteralLength(node, p) {
        return UnsafeBufferPointer(start: base, count: length)
    }
    return UnsafeBufferPointer(start: base, count: strlen(p))
}

/// `literalBytes` of a text, code span, raw HTML or code block (types whose literal
/// `cmark_node_get_literal` returns as `data`, or "" when there is none), read without that call.
@inline(__always) func literalBytes(ofLiteralNode node: Node) -> UnsafeBufferPointer<UInt8> {
    literalBytes(ofLiteralNode: node, direct: literalLengthField)
}

/// `literalBytes(ofLiteralNode:)` with `literalLengthField` (or `directTreeWalk`, which implies it)
/// read once by the caller: the global is a lazy one, a `swift_once` call on every read, and the
/// walks read it for every node.
@inline(__always) func literalBytes(ofLiteralNode node: Node, direct: Bool) -> UnsafeBufferPointer<UInt8> {
    guard direct else { return literalBytes(node) }
    let raw = UnsafeRawPointer(node)
    guard let data = raw.load(fromByteOffset: literalDataOffset, as: UnsafePointer<UInt8>?.self) else {
        return UnsafeBufferPointer(start: nil, count: 0)
    }
    let length = Int(raw.load(fromByteOffset: literalLengthOffset, as: Int32.self))
    return UnsafeBufferPointer(start: data, count: length >= 0 ? length : strlen(UnsafeRawPointer(data).assumingMemoryBound(to: CChar.self)))
}

// cmark 0.30 keeps a literal's length next to its bytes (`unsigned char *data; bufsize_t len;` in
// node.h) but has no accessor for it, so every literal read cost a strlen, three times per text node.
// The length is read from there only when a probe at startup finds that layout (Debian's libcmark
// 0.30.2), and only when the pointer before it is the literal cmark just returned; otherwise strlen.
private let literalDataOffset = 7 * MemoryLayout<UnsafeRawPointer>.stride
private let literalLengthOffset = literalDataOffset + MemoryLayout<UnsafeRawPointer>.stride

@inline(__always) private func storedLiteralLength(_ node: Node, _ literal: UnsafePointer<CChar>) -> Int? {
    let raw = UnsafeRawPointer(node)
    guard raw.load(fromByteOffset: literalDataOffset, as: UnsafeRawPointer?.self) == UnsafeRawPointer(literal) else { return nil }
    let length = Int(raw.load(fromByteOffset: literalLengthOffset, as: Int32.self))
    return length >= 0 ? length : nil
}

/// Whether this libcmark stores literals as `data`, `len` where `storedLiteralLength` reads them.
let literalLengthField: Bool = {
    guard MemoryLayout<Int>.size == 8 else { return false }
    // (not with "": an empty literal has no data, and cmark returns a static "" for it, which
    // failed the probe, so every literal read went through strlen)
    for text in ["a", "hello, world", String(repeating: "長い文字列", count: 40)] {
        guard let node = cmark_node_new(CMARK_NODE_TEXT) else { return false }
        defer { cmark_node_free(node) }
        guard cmark_node_set_literal(node, text) == 1, let p = cmark_node_get_literal(node),
              storedLiteralLength(node, p) == strlen(p), strlen(p) == text.utf8.count else { return false }
    }
    return true
}()

func literalArray(_ node: Node) -> [UInt8] { Array(literalBytes(node)) }

/// Calls `body` with a NUL-terminated copy of `bytes`.
@inline(__always) func withCBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    var copy = bytes
    copy.append(0)
    return copy.withUnsafeBufferPointer { buffer in
        body(UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self))
    }
}

func setLiteral(_ node: Node, _ bytes: [UInt8]) { withCBytes(bytes) { _ = cmark_node_set_literal(node, $0) } }

func makeText(_ bytes: [UInt8]) -> Node {
    let node = newNode(CMARK_NODE_TEXT)
    setLiteral(node, bytes)
    return node
}

func makeText(_ bytes: ArraySlice<UInt8>) -> Node {
    let node = newNode(CMARK_NODE_TEXT)
    var copy = ContiguousArray(bytes)
    copy.append(0)
    copy.withUnsafeBufferPointer { _ = cmark_node_set_literal(node, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
    return node
}

func makeCustom(block: Bool, enter: [UInt8], exit: [UInt8]) -> Node {
    let node = newNode(block ? CMARK_NODE_CUSTOM_BLOCK : CMARK_NODE_CUSTOM_INLINE)
    withCBytes(enter) { _ = cmark_node_set_on_enter(node, $0) }
    withCBytes(exit) { _ = cmark_node_set_on_exit(node, $0) }
    return node
}

/// A custom node from NUL-terminated byte strings (no copy on our side; cmark copies them).
func makeCustom(block: Bool, enterC: [UInt8], exitC: [UInt8]) -> Node {
    let node = newNode(block ? CMARK_NODE_CUSTOM_BLOCK : CMARK_NODE_CUSTOM_INLINE)
    enterC.withUnsafeBufferPointer { _ = cmark_node_set_on_enter(node, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
    exitC.withUnsafeBufferPointer { _ = cmark_node_set_on_exit(node, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
    return node
}

let emptyCString: [UInt8] = [0]
/// `</a>` with its NUL, the exit of every link `collect` writes.
let anchorEndCString: [UInt8] = Array("</a>\0".utf8)

/// `s` as UTF-8 bytes with a terminating NUL, for `makeCustom(block:enterC:exitC:)`.
func cBytes(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }

/// The fixed tags of tables, NUL-terminated.
enum TableTags {
    static let table = cBytes("<table>"), tableEnd = cBytes("</table>")
    static let thead = cBytes("<thead>"), theadEnd = cBytes("</thead>")
    static let tbody = cBytes("<tbody>"), tbodyEnd = cBytes("</tbody>")
    static let tr = cBytes("<tr>"), trEnd = cBytes("</tr>")
    static let styles = ["", " style=\"text-align: left\"", " style=\"text-align: center\"", " style=\"text-align: right\""]
    static let th = styles.map { cBytes("<th\($0)>") }, thEnd = cBytes("</th>\n")
    static let td = styles.map { cBytes("<td\($0)>") }, tdEnd = cBytes("</td>\n")
}

func makeCustom(block: Bool, enter: String, exit: String) -> Node {
    makeCustom(block: block, enter: Array(enter.utf8), exit: Array(exit.utf8))
}

/// Appends `child` to `parent`; a child the parent cannot hold is freed instead (never loops).
@inline(__always) func append(_ parent: Node, _ child: Node) {
    if cmark_node_append_child(parent, child) == 0 {
        cmark_node_free(child)
    }
}

/// Moves every child of `from` to the end of `to`.
func moveChildren(from: Node, to: Node) {
    while let child = cmark_node_first_child(from) {
        append(to, child)
    }
}

/// Moves the siblings strictly between `first` and `last` into `to`.
func moveSiblings(after first: Node, before last: Node, to: Node) {
    while let next = cmark_node_next(first), next != last {
        append(to, next)
    }
}

/// Replaces `old` by `new` in the tree and frees `old` (with whatever children it still has).
func replace(_ old: Node, with new: Node) {
    cmark_node_insert_before(old, new)
    cmark_node_free(old)
}

/// Visits every node (enter and exit events). Collect first, change afterwards.
@inline(__always) func walk(_ root: Node, _ body: (Node, Bool) -> Void) {
    walk(root) { node, entering, _ in body(node, entering) }
}

/// `walk` with each node's type.
@inline(__always) func walk(_ root: Node, _ body: (Node, Bool, cmark_node_type) -> Void) {
    var cursor = TreeCursor(root)
    defer { cursor.close() }
    while let (node, entering, type) = cursor.next() { body(node, entering, type) }
}

// cmark 0.30's node starts `mem, next, prev, parent, first_child, last_child, user_data, data, len,
// start_line, start_column, end_line, end_column, internal_offset, type` (node.h). Two full walks per
// document went through `cmark_iter_next` and `cmark_iter_get_node`, a call each per event and a
// `cmark_node_get_type` per node; `TreeCursor` reads those links itself when a probe at startup finds
// this layout (as `storedLiteralLength` does), else it uses cmark's iterator.
private let nextOffset = 1 * MemoryLayout<UnsafeRawPointer>.stride
private let parentOffset = 3 * MemoryLayout<UnsafeRawPointer>.stride
private let firstChildOffset = 4 * MemoryLayout<UnsafeRawPointer>.stride
private let userDataOffset = 6 * MemoryLayout<UnsafeRawPointer>.stride
private let typeOffset = literalLengthOffset + 6 * MemoryLayout<Int32>.stride

@inline(__always) private func link(_ node: Node, _ offset: Int) -> Node? {
    UnsafeRawPointer(node).load(fromByteOffset: offset, as: Node?.self)
}

@inline(__always) private func storedType(_ node: Node) -> UInt32 {
    UInt32(UnsafeRawPointer(node).load(fromByteOffset: typeOffset, as: UInt16.self))
}

/// The node types cmark's iterator enters without exiting (`S_is_leaf` in iterator.c); computed
/// where it is used (a global would be a lazy one, checked on every step).
@inline(__always) private var leafMask: UInt32 {
    (1 << CMARK_NODE_HTML_BLOCK.rawValue) | (1 << CMARK_NODE_THEMATIC_BREAK.rawValue) | (1 << CMARK_NODE_CODE_BLOCK.rawValue)
        | (1 << CMARK_NODE_TEXT.rawValue) | (1 << CMARK_NODE_SOFTBREAK.rawValue) | (1 << CMARK_NODE_LINEBREAK.rawValue)
        | (1 << CMARK_NODE_CODE.rawValue) | (1 << CMARK_NODE_HTML_INLINE.rawValue)
}

/// Whether `TreeCursor` may read the links and types itself: checked on a small tree of every
/// node kind the walks meet, against cmark's accessors.
let directTreeWalk: Bool = {
    guard MemoryLayout<Int>.size == 8, literalLengthField else { return false }
    let markdown = "# a *b*\n\n> - c `d` <i>\n>   e  \n>   f\n\n```\ng\n```\n\n<p>\n\n---\n[h](i) ![j](k)\n"
    guard let doc = cmark_parse_document(markdown, markdown.utf8.count, 0) else { return false }
    defer { cmark_node_free(doc) }
    let custom = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK)!
    if cmark_node_append_child(doc, custom) == 0 { cmark_node_free(custom); return false }
    var seen: UInt32 = 0
    var stack: [Node] = [doc]
    while let node = stack.popLast() {
        guard storedType(node) == cmark_node_get_type(node).rawValue,
              link(node, nextOffset) == cmark_node_next(node),
              link(node, parentOffset) == cmark_node_parent(node),
              link(node, firstChildOffset) == cmark_node_first_child(node) else { return false }
        let mark = UnsafeMutableRawPointer(bitPattern: Int(storedType(node)) << 8 | 0x5A)
        cmark_node_set_user_data(node, mark)
        guard userData(node, direct: true) == Int(bitPattern: mark) else { return false }
        setUserData(node, 0x1234, direct: true)
        guard cmark_node_get_user_data(node) == UnsafeMutableRawPointer(bitPattern: 0x1234) else { return false }
        seen |= 1 << storedType(node)
        var child = cmark_node_first_child(node)
        while let c = child { stack.append(c); child = cmark_node_next(c) }
    }
    return seen.nonzeroBitCount >= 16 // the probe itself parsed as expected
}()

/// A node's links and type, read directly when `direct` (`directTreeWalk`, read once by the
/// caller: the global is checked on every access) for loops over many children.
@inline(__always) func nextSibling(_ node: Node, direct: Bool) -> Node? {
    direct ? link(node, nextOffset) : cmark_node_next(node)
}

@inline(__always) func firstChild(_ node: Node, direct: Bool) -> Node? {
    direct ? link(node, firstChildOffset) : cmark_node_first_child(node)
}

@inline(__always) func parentNode(_ node: Node, direct: Bool) -> Node? {
    direct ? link(node, parentOffset) : cmark_node_parent(node)
}

/// The node's user data (the dialect's flags), read and written directly when `direct`.
@inline(__always) func userData(_ node: Node, direct: Bool) -> Int {
    direct ? UnsafeRawPointer(node).load(fromByteOffset: userDataOffset, as: Int.self) : Int(bitPattern: cmark_node_get_user_data(node))
}

@inline(__always) func setUserData(_ node: Node, _ value: Int, direct: Bool) {
    if direct {
        UnsafeMutableRawPointer(node).storeBytes(of: value, toByteOffset: userDataOffset, as: Int.self)
    } else {
        cmark_node_set_user_data(node, UnsafeMutableRawPointer(bitPattern: value))
    }
}

@inline(__always) func kind(_ node: Node, direct: Bool) -> cmark_node_type {
    direct ? cmark_node_type(storedType(node)) : cmark_node_get_type(node)
}

/// cmark's iterator (same events, same order) over a tree that is not changed meanwhile.
struct TreeCursor {
    private let root: Node
    private var node: Node?
    private var entering = true
    private var started = false
    private let iter: OpaquePointer?

    /// (`direct: false` only to check the direct walk against cmark's iterator)
    @inline(__always) init(_ root: Node, direct: Bool = directTreeWalk) {
        self.root = root
        node = root
        iter = direct ? nil : cmark_iter_new(root)
    }

    @inline(__always) func close() { if let iter { cmark_iter_free(iter) } }

    /// The next node, whether it is entered, and its type; nil when done.
    @inline(__always) mutating func next() -> (Node, Bool, cmark_node_type)? {
        if let iter {
            let event = cmark_iter_next(iter)
            guard event != CMARK_EVENT_DONE, let n = cmark_iter_get_node(iter) else { return nil }
            return (n, event == CMARK_EVENT_ENTER, cmark_node_get_type(n))
        }
        guard let current = node else { return nil }
        if !started {
            started = true
            return (current, true, cmark_node_type(storedType(current)))
        }
        if entering && (leafMask >> storedType(current)) & 1 == 0 {
            if let child = link(current, firstChildOffset) { node = child } else { entering = false }
        } else if current == root {
            node = nil
        } else if let sibling = link(current, nextOffset) {
            node = sibling
            entering = true
        } else {
            node = link(current, parentOffset)
            entering = false
        }
        guard let n = node else { return nil }
        return (n, entering, cmark_node_type(storedType(n)))
    }
}

/// Visits the block nodes under `root` in document order (what `walk` enters), with their types,
/// without going into the inline content of paragraphs and headings, which is most of a document's
/// nodes. Collect first, change afterwards.
@inline(__always) func walkBlocks(_ root: Node, _ body: (Node, cmark_node_type) -> Void) {
    let direct = directTreeWalk
    var next: Node? = firstChild(root, direct: direct)
    while let node = next {
        let t = kind(node, direct: direct)
        body(node, t)
        if t == CMARK_NODE_BLOCK_QUOTE || t == CMARK_NODE_LIST || t == CMARK_NODE_ITEM || t == CMARK_NODE_CUSTOM_BLOCK,
           let child = firstChild(node, direct: direct), isBlock(kind(child, direct: direct)) {
            next = child
            continue
        }
        var current = node
        next = nil
        while true {
            if let sibling = nextSibling(current, direct: direct) { next = sibling; break }
            guard let parent = parentNode(current, direct: direct), parent != root else { break }
            current = parent
        }
    }
}

@inline(__always) private func isBlock(_ t: cmark_node_type) -> Bool {
    t.rawValue >= CMARK_NODE_FIRST_BLOCK.rawValue && t.rawValue <= CMARK_NODE_LAST_BLOCK.rawValue
}

/// A range of byte offsets (`start..<end`) into a buffer.
struct ByteRange {
    var start: Int
    var end: Int
}

// MARK: - bytes

extension Array where Element == UInt8 {
    /// Appends a literal's bytes straight from its static storage (no `String.UTF8View` copy path).
    @inline(__always) mutating func append(static s: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}

extension UInt8 {
    @inline(__always) var isASCIIAlnum: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
    }
    @inline(__always) var isASCIILetter: Bool { (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) }
    @inline(__always) var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    @inline(__always) var isSpaceOrTab: Bool { self == 0x20 || self == 0x09 }
    @inline(__always) var isWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D || self == 0x0C || self == 0x0B }
    @inline(__always) var lowerASCII: UInt8 { (self >= 0x41 && self <= 0x5A) ? self | 0x20 : self }
}

/// Appends `bytes` HTML-escaped (`&`, `<`, `>`, `"`), the same set cmark escapes.
@inline(__always) func appendEscaped<C: Collection>(_ out: inout [UInt8], _ bytes: C) where C.Element == UInt8 {
    if let done: Void = bytes.withContiguousStorageIfAvailable({ appendEscaped(&out, $0) }) { return done }
    for b in bytes { appendEscapedByte(&out, b) }
}

@inline(__always) func appendEscapedByte(_ out: inout [UInt8], _ b: UInt8) {
    switch b {
    case 0x26: out.append(contentsOf: [0x26, 0x61, 0x6D, 0x70, 0x3B]) // &amp;
    case 0x3C: out.append(contentsOf: [0x26, 0x6C, 0x74, 0x3B]) // &lt;
    case 0x3E: out.append(contentsOf: [0x26, 0x67, 0x74, 0x3B]) // &gt;
    case 0x22: out.append(contentsOf: [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B]) // &quot;
    default: out.append(b)
    }
}

/// The byte-buffer form: copies runs of bytes that need no escaping in one go.
func appendEscaped(_ out: inout [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress else { return }
    let n = bytes.count
    var runStart = 0
    while true {
        let i = firstHTMLEscape(base, from: runStart, count: n)
        if i > runStart { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
        if i == n { return }
        appendEscapedByte(&out, base[i])
        runStart = i + 1
    }
}

/// The bits 0x80 of the bytes of `x` that are `&`, `<`, `>` or `"`, exactly (no borrow from one byte
/// into the next, so every bit stands for its own byte). `x | 2` is 0x3E for `<` and `>` only, and
/// `x | 4` is 0x26 for `&` and `"` only: two comparisons instead of four. A byte's
/// `((v & 0x7F) + 0x7F) | v` has its high bit set when `v` is not zero.
@inline(__always) func htmlEscapeBits(_ x: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101, low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    let v1 = (x | (ones &* 0x02)) ^ (ones &* 0x3E), v2 = (x | (ones &* 0x04)) ^ (ones &* 0x26)
    let nonzero1 = ((v1 & low7) &+ low7) | v1, nonzero2 = ((v2 & low7) &+ low7) | v2
    return ~(nonzero1 & nonzero2) & ~low7
}

/// The index of the first byte at or after `from` (and before `n`) that HTML escaping changes (`&`,
/// `<`, `>`, `"`), or `n`. Eight bytes at a time, the escape found in a word by its bit's position (not
/// by going back to bytes), and the tail as the buffer's last word with the bytes already looked at
/// masked off; only buffers shorter than a word are read byte by byte.
@inline(__always) func firstHTMLEscape(_ base: UnsafePointer<UInt8>, from: Int, count n: Int) -> Int {
    var i = from
    guard n >= 8 else {
        while i < n {
            let b = base[i]
            if b | 2 == 0x3E || b | 4 == 0x26 { return i }
            i += 1
        }
        return n
    }
    let raw = UnsafeRawPointer(base)
    let high: UInt64 = 0x8080_8080_8080_8080
    while i < n {
        let at = min(i, n - 8)
        let x = raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
        // (eight non-ASCII bytes, Japanese text, answer at once)
        if x & high != high {
            let hit = htmlEscapeBits(x) & (~0 &<< UInt64((i - at) &* 8))
            if hit != 0 { return at + hit.trailingZeroBitCount >> 3 }
        }
        i = at + 8
    }
    return n
}

func escapeHTML(_ s: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count)
    appendEscaped(&out, s.utf8)
    return String(decoding: out, as: UTF8.self)
}

/// Escapes a URL for an attribute the way cmark does: unsafe bytes percent-encoded, `&` and `'` as entities.
func appendEscapedHref<C: Collection>(_ out: inout [UInt8], _ bytes: C) where C.Element == UInt8 {
    if let done: Void = bytes.withContiguousStorageIfAvailable({ appendEscapedHref(&out, $0) }) { return done }
    for b in bytes {
        if isHrefSafe(b) { out.append(b) } else { appendHrefEscape(&out, b) }
    }
}

/// The byte-buffer form: copies runs of bytes that stay as they are in one go.
func appendEscapedHref(_ out: inout [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress else { return }
    let n = bytes.count
    var runStart = 0
    var i = 0
    while i < n {
        let b = base[i]
        if !isHrefSafe(b) {
            if i > runStart { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
            appendHrefEscape(&out, b)
            runStart = i + 1
        }
        i += 1
    }
    if n > runStart { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: n - runStart)) }
}

/// Bytes an href keeps as they are.
@inline(__always) private func isHrefSafe(_ b: UInt8) -> Bool {
    if b.isASCIIAlnum { return true }
    switch b {
    case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "~"),
         UInt8(ascii: "*"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ";"), UInt8(ascii: "/"),
         UInt8(ascii: "?"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "="), UInt8(ascii: "+"),
         UInt8(ascii: "$"), UInt8(ascii: ","), UInt8(ascii: "%"), UInt8(ascii: "#"):
        return true
    default:
        return false
    }
}

/// One byte an href does not keep: an entity or a percent escape.
@inline(__always) private func appendHrefEscape(_ out: inout [UInt8], _ b: UInt8) {
    switch b {
    case UInt8(ascii: "&"): out.append(contentsOf: [0x26, 0x61, 0x6D, 0x70, 0x3B]) // &amp;
    case UInt8(ascii: "'"): out.append(contentsOf: [0x26, 0x23, 0x78, 0x32, 0x37, 0x3B]) // &#x27;
    default:
        let hex = hexDigits
        out.append(UInt8(ascii: "%"))
        out.append(hex.utf8Start[Int(b >> 4)])
        out.append(hex.utf8Start[Int(b & 15)])
    }
}

private let hexDigits: StaticString = "0123456789ABCDEF"

/// A NUL-terminated C string as bytes (empty for NULL), valid while the node is unchanged.
@inline(__always) func cBytesView(_ p: UnsafePointer<CChar>?) -> UnsafeBufferPointer<UInt8> {
    guard let p else { return UnsafeBufferPointer(start: nil, count: 0) }
    return UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
}

/// True for URLs cmark's safe mode would blank: `javascript:`, `vbscript:`, `file:`, and `data:` except images.
func isDangerousURL<C: Collection>(_ url: C, allowDataImages: Bool = true) -> Bool where C.Element == UInt8 {
    var scheme: [UInt8] = []
    var rest = url.drop(while: { $0 <= 0x20 })
    var sawColon = false
    while let b = rest.first {
        rest = rest.dropFirst()
        if b == UInt8(ascii: ":") { sawColon = true; break }
        if b == 0x09 || b == 0x0A || b == 0x0D { continue } // browsers drop these inside schemes
        if !(b.isASCIIAlnum || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")) { return false }
        scheme.append(b.lowerASCII)
        if scheme.count > 32 { return false }
    }
    guard sawColon else { return false }
    switch String(decoding: scheme, as: UTF8.self) {
    case "javascript", "vbscript", "file": return true
    case "data":
        if !allowDataImages { return true }
        let lower = String(decoding: rest.prefix(11).map { $0.lowerASCII }, as: UTF8.self)
        return !(lower.hasPrefix("image/png") || lower.hasPrefix("image/gif") || lower.hasPrefix("image/jpeg")
            || lower.hasPrefix("image/webp"))
    default: return false
    }
}

// MARK: - output buffer

/// A growable byte buffer for the HTML writer: appends without `Array`'s uniqueness checks and
/// generic paths (hundreds of thousands of short appends per thousand documents). The owner calls
/// `deallocate()` once done.
struct ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    /// Bytes written; writers that store through `base` after `reserve` advance it themselves.
    var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    func deallocate() { base.deallocate() }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    @inline(__always) var last: UInt8? { count > 0 ? base[count - 1] : nil }

    @inline(__always) mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    @inline(never) private mutating func grow(_ needed: Int) {
        let newCapacity = max(capacity * 2, needed)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = newCapacity
    }

    @inline(__always) mutating func append(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    @inline(__always) mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard n > 0 else { return }
        reserve(n)
        (base + count).update(from: bytes.baseAddress!, count: n)
        count += n
    }

    @inline(__always) mutating func append(static s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// `bytes` HTML-escaped (`&`, `<`, `>`, `"`), as `appendEscaped(_:_:)` on arrays.
    mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let src = bytes.baseAddress else { return }
        let n = bytes.count
        reserve(n)
        var runStart = 0
        while true {
            let i = firstHTMLEscape(src, from: runStart, count: n)
            if i > runStart { append(UnsafeBufferPointer(start: src + runStart, count: i - runStart)) }
            if i == n { return }
            switch src[i] {
            case 0x26: append(static: "&amp;")
            case 0x3C: append(static: "&lt;")
            case 0x3E: append(static: "&gt;")
            default: append(static: "&quot;")
            }
            runStart = i + 1
        }
    }

    /// A URL escaped for an attribute the way cmark does (see `appendEscapedHref(_:_:)`).
    mutating func appendEscapedHref(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let src = bytes.baseAddress else { return }
        let n = bytes.count
        var runStart = 0
        var i = 0
        while i < n {
            let b = src[i]
            if !isHrefSafe(b) {
                if i > runStart { append(UnsafeBufferPointer(start: src + runStart, count: i - runStart)) }
                switch b {
                case UInt8(ascii: "&"): append(static: "&amp;")
                case UInt8(ascii: "'"): append(static: "&#x27;")
                default:
                    let hex = hexDigits.utf8Start
                    append(UInt8(ascii: "%"))
                    append(hex[Int(b >> 4)])
                    append(hex[Int(b & 15)])
                }
                runStart = i + 1
            }
            i += 1
        }
        if n > runStart { append(UnsafeBufferPointer(start: src + runStart, count: n - runStart)) }
    }
}
