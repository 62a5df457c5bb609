import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// The Qiita dialect as transforms on cmark's tree. One instance per `render` call (not shared).
final class Transformer {
    let options: MarkdownOptions
    let parseFlags: Int32
    /// The bytes cmark parsed (after the pre-pass), alive for the whole `render` call.
    let source: UnsafeBufferPointer<UInt8>
    /// `source` as an array, for the passes that work on array slices (made when first needed).
    private lazy var sourceArray: [UInt8] = Array(source)
    let prepass: Prepass?
    private var lineStarts: [Int] = []

    var headings: [Heading] = []
    private var usedSlugs = SlugTable()
    /// Code block text (block pass), then inline code (`renderHTML`); the caller deallocates it.
    var codeText = ByteBuffer(capacity: 256)
    /// Filled by `renderHTML`; the caller deallocates it.
    var plainText = ByteBuffer(capacity: 0)
    var links: [MarkdownLink] = []
    // Lines of nodes that cmark did not place in this document (table cells, split text) and the
    // table-cell flag live in each node's cmark user data (no hashing of node pointers):
    // bit 0 = has a line override (line in bits 8...), other bits = the flags below.
    private static let cellFlag = 2, inlineSeenFlag = 4, cjkSeenFlag = 8, directTableFlag = 16, inlineSeenAgainFlag = 32, trustedHTMLFlag = 64, codeBlockFlag = 128
    /// On a paragraph that is one display-math block (`$$…$$` alone): written without `<p>`.
    /// (Paragraphs never carry a line override, so this bit is free on them.)
    private static let unwrappedParagraphFlag = 256
    /// On text nodes (which carry none of the flags above): `collectNodes` scanned the literal, and
    /// what it holds (`scanText`), so that `splitText` does not scan it again.
    private static let textScannedFlag = 2, textStarFlag = 4, textTildeFlag = 8, textInterestingFlag = 16
    private var unwrappedParagraphs = false
    /// Tables written as one HTML block: their cells (source bytes) and column count, for `collect`.
    /// (index in the table node's user data bits 8..., with `directTableFlag`; `renderHTML` writes them)
    private var directTables: [DirectTable] = []
    /// Code blocks written by `CodeBlockRenderer`: the code block node keeps its place in the tree
    /// with `codeBlockFlag` and the index of its entry here in user data bits 8..., and `renderHTML`
    /// writes (and highlights) it straight into the output.
    private var codeBlocks: [(plan: CodeBlockRenderer.SharedPlan, restored: [UInt8]?)] = []
    private func plan(forInfo info: UnsafeBufferPointer<UInt8>, qiita: Bool) -> CodeBlockRenderer.SharedPlan? {
        CodeBlockRenderer.cachedPlan(info: info, qiita: qiita, highlight: options.highlightCode)
    }

    /// A table written as one HTML block: its cells as byte ranges of `source`, row by row.
    private struct DirectTable {
        var cells: [ByteRange]
        /// Number of cells of each row (rows may have more or fewer cells than columns).
        var rowCounts: [Int]
        var columns: Int
        /// Index into `TableTags.th` / `td` of each column.
        var aligns: [Int]
    }

    /// The HTML of a direct table (what cmark would write for the tree `makeTable` builds).
    private func writeDirectTable(_ table: DirectTable, _ src: UnsafeBufferPointer<UInt8>, into out: inout ByteBuffer) {
        out.append(static: "<table>\n<thead>\n")
        var offset = 0
        let base = src.baseAddress!
        // (cell tags as static strings and the cells through one buffer pointer: reading
        // `TableTags` and array elements per cell cost a lazy-global check, a retain and a release)
        table.cells.withUnsafeBufferPointer { cells in
            for (r, count) in table.rowCounts.enumerated() {
                if r == 1 { out.append(static: "<tbody>\n") }
                out.append(static: "<tr>\n")
                for c in 0..<table.columns {
                    out.append(static: Transformer.cellTag(header: r == 0, align: table.aligns[c]))
                    if c < count {
                        let cell = cells[offset + c]
                        out.appendEscaped(UnsafeBufferPointer(start: base + cell.start, count: cell.end - cell.start))
                    }
                    if r == 0 { out.append(static: "</th>\n") } else { out.append(static: "</td>\n") }
                }
                out.append(static: "</tr>\n")
                if r == 0 { out.append(static: "</thead>\n") }
                offset += count
            }
        }
        if table.rowCounts.count > 1 { out.append(static: "</tbody>\n") }
        out.append(static: "</table>")
    }

    /// `TableTags.th` / `td` (without the NUL) for an alignment index.
    @inline(__always) static func cellTag(header: Bool, align: Int) -> StaticString {
        switch align {
        case 1: return header ? "<th style=\"text-align: left\">" : "<td style=\"text-align: left\">"
        case 2: return header ? "<th style=\"text-align: center\">" : "<td style=\"text-align: center\">"
        case 3: return header ? "<th style=\"text-align: right\">" : "<td style=\"text-align: right\">"
        default: return header ? "<th>" : "<td>"
        }
    }

    // (user data read and written in the node itself when the layout probe passed: a call each was
    // ~1.6 M instructions per 1,000 posts)
    @inline(__always) private func setLineOverride(_ node: Node, _ line: Int32) {
        let old = userData(node, direct: direct)
        setUserData(node, (Int(line) << 8) | 1 | (old & 0xFE), direct: direct)
    }

    @inline(__always) private func line(of node: Node) -> Int32 {
        let value = userData(node, direct: direct)
        return value & 1 != 0 ? Int32(truncatingIfNeeded: value >> 8) : cmark_node_get_start_line(node)
    }

    /// A line of the text cmark parsed as a line of the original (the pre-pass may leave code block
    /// bodies out: see Prepass.swift).
    @inline(__always) private func originalLine(_ line: Int32) -> Int32 {
        guard let prepass, !prepass.bypassedFences.isEmpty else { return line }
        return prepass.originalLine(line)
    }

    @inline(__always) private func setFlag(_ node: Node, _ flag: Int) {
        setUserData(node, userData(node, direct: direct) | flag, direct: direct)
    }

    @inline(__always) private func clearFlag(_ node: Node, _ flag: Int) {
        setUserData(node, userData(node, direct: direct) & ~flag, direct: direct)
    }

    @inline(__always) private func hasFlag(_ node: Node, _ flag: Int) -> Bool {
        userData(node, direct: direct) & flag != 0
    }

    private var footnoteDefs: [String: Node] = [:]
    private var footnoteDefOrder: [String] = []
    private var duplicateDefinitions: [Node] = []
    private var footnoteOrder: [String] = []
    private var footnoteRefs: [String: Int] = [:]

    /// `directTreeWalk`, read once.
    private let direct = directTreeWalk
    /// Whether the pre-pass wrote any marker into the text (math, notes, footnotes): when not, no
    /// literal can hold one and `restoreMarkers` (a scan of every code span, code block and raw HTML
    /// literal) is skipped.
    private let markers: Bool

    init(options: MarkdownOptions, parseFlags: Int32, source: UnsafeBufferPointer<UInt8>, prepass: Prepass?) {
        self.options = options
        self.parseFlags = parseFlags
        self.source = source
        self.prepass = prepass
        markers = prepass?.insertedMarkers ?? true
    }

    func run(_ doc: Node) {
        let qiita = options.qiitaExtensions
        if qiita {
            if prepass?.sawNotes == true { groupNotes(doc) }
            if prepass?.sawFootnotes == true { findFootnoteDefinitions(doc) }
            buildTables(doc)
        }
        // One walk finds the nodes of every later pass (they neither free nor create the nodes the
        // others look for, except the CJK repair, after which the inline containers are found again).
        var found = collectNodes(doc, qiita: qiita)
        if qiita {
            if !found.cjk.isEmpty {
                repairCJKStrong(found.cjk)
                found.inline = inlineContainers(doc)
            }
            for container in found.inline { processInlines(container) }
            taskLists(found.items)
        }
        blockPass(found)
        if qiita && !footnoteDefs.isEmpty { buildFootnotes(doc) }
    }

    // MARK: - notes

    private static let noteEndCString: [UInt8] = Array("</div>\0".utf8)

    private func groupNotes(_ doc: Node) {
        var markers: [Node] = []
        markers.reserveCapacity(8) // (a handful per document: no growth from one element)
        walkBlocks(doc) { node, t in
            if t == CMARK_NODE_HTML_BLOCK && literalBytes(ofLiteralNode: node, direct: direct).starts(with: noteMarkerPrefix) {
                markers.append(node)
            }
        }
        // open markers as (index in `markers`, the type's bytes in the literal); paired markers are
        // marked in `done` by index (a Set of nodes hashed each one)
        var stack: [(index: Int, type: Range<Int>)] = []
        var done = [Bool](repeating: false, count: markers.count)
        let notePrefix: StaticString = "note "
        for (k, marker) in markers.enumerated() {
            // the pre-pass wrote `note info|warn|alert-->` or `end-->` after the prefix
            let lit = literalBytes(marker)
            let rest = noteMarkerPrefix.count
            let n = notePrefix.utf8CodeUnitCount
            if lit.count - rest >= n && memcmp(lit.baseAddress! + rest, notePrefix.utf8Start, n) == 0 {
                var end = rest + n
                while end < lit.count && lit[end].isASCIILetter { end += 1 }
                stack.append((k, (rest + n)..<end))
                continue
            }
            let parent = cmark_node_parent(marker)
            guard let index = stack.lastIndex(where: { cmark_node_parent(markers[$0.index]) == parent }) else { continue }
            let open = stack[index]
            let openNode = markers[open.index]
            stack.removeSubrange(index...)
            var enter: [UInt8] = []
            enter.reserveCapacity(32)
            enter.append(static: "<div class=\"note ")
            enter.append(contentsOf: UnsafeBufferPointer(rebasing: literalBytes(openNode)[open.type]))
            enter.append(static: "\">\0")
            let box = makeCustom(block: true, enterC: enter, exitC: Transformer.noteEndCString)
            cmark_node_insert_before(openNode, box)
            moveSiblings(after: openNode, before: marker, to: box)
            cmark_node_free(openNode)
            cmark_node_free(marker)
            done[open.index] = true
            done[k] = true
        }
        // Unmatched markers show their original line as a paragraph.
        for (k, marker) in markers.enumerated() where !done[k] {
            let line = Int(cmark_node_get_start_line(marker))
            let text = prepass?.noteLine(line) ?? []
            let paragraph = newNode(CMARK_NODE_PARAGRAPH)
            append(paragraph, makeText(Array(text.drop(while: { $0.isSpaceOrTab }))))
            replace(marker, with: paragraph)
        }
    }

    // MARK: - footnotes

    private func findFootnoteDefinitions(_ doc: Node) {
        var paragraphs: [Node] = []
        walkBlocks(doc) { node, t in
            if t == CMARK_NODE_PARAGRAPH { paragraphs.append(node) }
        }
        // Definitions on consecutive lines are one paragraph for cmark: split before each marker line.
        var found: [Node] = []
        for paragraph in paragraphs {
            var current = paragraph
            if let first = cmark_node_first_child(current), kind(first) == CMARK_NODE_TEXT, literalBytes(first).starts(with: footnoteMarker) {
                found.append(current)
            }
            var child = cmark_node_first_child(current)
            while let c = child {
                let t = kind(c)
                guard t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK, let next = cmark_node_next(c),
                      kind(next) == CMARK_NODE_TEXT, literalBytes(next).starts(with: footnoteMarker) else {
                    child = cmark_node_next(c)
                    continue
                }
                let split = newNode(CMARK_NODE_PARAGRAPH)
                cmark_node_insert_after(current, split)
                while let moving = cmark_node_next(c) { append(split, moving) }
                cmark_node_free(c)
                found.append(split)
                current = split
                child = cmark_node_first_child(split)
            }
        }
        for paragraph in found {
            let first = cmark_node_first_child(paragraph)!
            let lit = literalArray(first)
            var j = 3
            while j + 2 < lit.count && !(lit[j] == 0xEE && lit[j + 1] == 0x80 && lit[j + 2] == 0x81) { j += 1 }
            guard j + 2 < lit.count else { continue }
            let label = String(decoding: lit[3..<j], as: UTF8.self)
            let rest = Array(lit[(j + 3)...].drop(while: { $0.isSpaceOrTab }))
            if rest.isEmpty { cmark_node_free(first) } else { setLiteral(first, rest) }
            // The pre-pass made the definition a list item: its blocks are the footnote (they stay in
            // place, so the inline passes see them, until `buildFootnotes` moves them).
            var definition = paragraph
            if let item = cmark_node_parent(paragraph), kind(item) == CMARK_NODE_ITEM, cmark_node_first_child(item) == paragraph {
                definition = item
            }
            // a label's second definition is dropped at the end (freeing it now could free a
            // definition nested in it)
            if footnoteDefs[label] == nil {
                footnoteDefs[label] = definition
                footnoteDefOrder.append(label)
            } else {
                duplicateDefinitions.append(definition)
            }
        }
    }

    /// Frees a footnote definition that the output does not show; a definition item takes its list
    /// with it when it was the list's only item.
    private func removeDefinition(_ definition: Node) {
        guard kind(definition) == CMARK_NODE_ITEM, let list = cmark_node_parent(definition) else {
            cmark_node_free(definition)
            return
        }
        cmark_node_free(definition)
        if cmark_node_first_child(list) == nil { cmark_node_free(list) }
    }

    private func buildFootnotes(_ doc: Node) {
        let section = makeCustom(block: true, enter: "<section class=\"footnotes\">\n<ol>", exit: "</ol>\n</section>")
        for (index, label) in footnoteOrder.enumerated() {
            guard let definition = footnoteDefs[label] else { continue }
            let number = index + 1
            let item = makeCustom(block: true, enter: "<li id=\"fn-\(number)\">", exit: "</li>")
            let link = "<a href=\"#fnref-\(number)\" class=\"footnote-backref\" aria-label=\"Back to reference \(number)\">↩</a>"
            if kind(definition) == CMARK_NODE_ITEM {
                // the blocks of the definition item, the back link at the end of its last paragraph
                moveChildren(from: definition, to: item)
                if let last = cmark_node_last_child(item), kind(last) == CMARK_NODE_PARAGRAPH {
                    append(last, makeCustom(block: false, enter: " " + link, exit: ""))
                } else {
                    let paragraph = newNode(CMARK_NODE_PARAGRAPH)
                    append(paragraph, makeCustom(block: false, enter: link, exit: ""))
                    append(item, paragraph)
                }
                removeDefinition(definition)
            } else {
                append(definition, makeCustom(block: false, enter: " " + link, exit: ""))
                append(item, definition) // unlinks it from where it was defined
            }
            append(section, item)
        }
        // Definitions not shown (unreferenced, or a label's second one): each is freed unless one of
        // its ancestors is, which frees it too (nothing is freed twice; the shown ones have moved out).
        var unused = Set<Node>()
        for label in footnoteDefOrder where footnoteRefs[label] == nil {
            if let definition = footnoteDefs[label] { unused.insert(definition) }
        }
        for definition in duplicateDefinitions { unused.insert(definition) }
        let outermost = unused.filter { definition in
            var ancestor = cmark_node_parent(definition)
            while let a = ancestor {
                if unused.contains(a) { return false }
                ancestor = cmark_node_parent(a)
            }
            return true
        }
        for definition in outermost { removeDefinition(definition) }
        if footnoteOrder.isEmpty { cmark_node_free(section) } else { append(doc, section) }
    }

    // MARK: - source lines

    /// A source line (1-based) without its line ending.
    private func sourceLine(_ line: Int) -> ArraySlice<UInt8> {
        let range = sourceLineRange(line)
        return sourceArray[range.start..<range.end]
    }

    private func makeLineStarts() {
        guard lineStarts.isEmpty else { return }
        if let found = prepass?.lineStarts, !found.isEmpty {
            // the pre-pass went through the lines already
            lineStarts = found
            assert(found == Transformer.scanLineStarts(source), "the pre-pass's line starts are wrong")
            return
        }
        lineStarts = Transformer.scanLineStarts(source)
    }

    private static func scanLineStarts(_ source: UnsafeBufferPointer<UInt8>) -> [Int] {
        // built in a local (appending to the stored property checked exclusivity on every line)
        var starts: [Int] = [0]
        starts.reserveCapacity(source.count / 24 + 16) // typical lines are longer: no regrowth
        if let base = source.baseAddress {
            var k = 0
            while k < source.count, let p = memchr(base + k, 0x0A, source.count - k) {
                k = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self) - base + 1
                starts.append(k)
            }
        }
        return starts
    }

    // MARK: - tables

    private func buildTables(_ doc: Node) {
        // no pipe anywhere, no table
        guard !source.isEmpty && memchr(source.baseAddress!, Int32(UInt8(ascii: "|")), source.count) != nil else { return }
        var candidates: [Node] = []
        walkBlocks(doc) { node, t in
            if t == CMARK_NODE_PARAGRAPH && cmark_node_get_end_line(node) > cmark_node_get_start_line(node) {
                candidates.append(node)
            }
        }
        for paragraph in candidates where mayHoldTable(paragraph) {
            if makeDirectTable(paragraph, source) == .needsTree { makeTable(paragraph) }
        }
    }

    /// Cheap filter before `makeTable`: a table needs a `|` somewhere in the paragraph's source lines.
    private func mayHoldTable(_ paragraph: Node) -> Bool {
        makeLineStarts()
        let first = Int(cmark_node_get_start_line(paragraph))
        let last = Int(cmark_node_get_end_line(paragraph))
        guard first >= 1 && first <= lineStarts.count else { return true }
        let from = lineStarts[first - 1]
        let to = last < lineStarts.count ? lineStarts[last] : source.count
        guard to > from else { return false }
        return memchr(source.baseAddress! + from, Int32(UInt8(ascii: "|")), to - from) != nil
    }

    private enum TableResult { case none, built, needsTree }

    /// The common case of `makeTable` on byte ranges (no array slices, so no reference counting per
    /// cell): finds the table, and when every cell is plain text that no later pass changes, writes
    /// it as one HTML block. Tables with inline markup get `.needsTree` and go through `makeTable`.
    private func makeDirectTable(_ paragraph: Node, _ src: UnsafeBufferPointer<UInt8>) -> TableResult {
        let lines = paragraphLineRanges(paragraph, src)
        guard lines.count >= 2 else { return .none }
        var headerIndex = -1
        var aligns: [Int] = []
        var cells: [ByteRange] = []
        // Room for the whole table at once when the second line is its delimiter row (the common
        // case): its pipes give the columns (reserving 16 then the table's size allocated twice).
        var pipes = 0
        for k in lines[1].start..<lines[1].end where src[k] == UInt8(ascii: "|") { pipes += 1 }
        cells.reserveCapacity(max(16, (pipes + 2) * lines.count))
        for k in 1..<lines.count {
            cells.removeAll(keepingCapacity: true)
            if let a = delimiterRow(lines[k], src, scratch: &cells), contains(lines[k - 1], UInt8(ascii: "|"), src),
               splitRow(lines[k - 1], src, into: &cells) == a.count {
                headerIndex = k - 1
                aligns = a
                break
            }
        }
        guard headerIndex >= 0 else { return .none }
        let columns = aligns.count
        // cells holds the header row; the other rows follow
        var rowCounts: [Int] = [] // (reserved before the first append: a literal then a reserve allocated twice)
        rowCounts.reserveCapacity(lines.count - headerIndex)
        rowCounts.append(cells.count)
        // room for rows as wide as the header (growing the array a row at a time cost more than the split)
        cells.reserveCapacity((columns + 1) * (lines.count - headerIndex))
        if headerIndex + 2 < lines.count {
            for k in (headerIndex + 2)..<lines.count { rowCounts.append(splitRow(lines[k], src, into: &cells)) }
        }
        var offset = 0
        for count in rowCounts {
            for c in 0..<min(columns, count) {
                let cell = cells[offset + c]
                if !Transformer.isDirectCell(UnsafeBufferPointer(rebasing: src[cell.start..<cell.end])) { return .needsTree }
            }
            offset += count
        }
        // Cut the paragraph before the header line (top-level line breaks only).
        var cutAt: Node?
        if headerIndex > 0 {
            cutAt = lineBreak(headerIndex, in: paragraph)
            guard cutAt != nil else { return .none }
        }
        // No later pass changes such cells: the whole table is one HTML block, written by
        // `renderHTML` the way cmark would render the tree `makeTable` builds (and its text replayed).
        let table = newNode(CMARK_NODE_CUSTOM_BLOCK)
        cmark_node_set_user_data(table, UnsafeMutableRawPointer(bitPattern: (directTables.count << 8) | Transformer.directTableFlag))
        if directTables.isEmpty { directTables.reserveCapacity(4) }
        directTables.append(DirectTable(cells: cells, rowCounts: rowCounts, columns: columns, aligns: aligns))
        if let cut = cutAt {
            while let next = cmark_node_next(cut) { cmark_node_free(next) }
            cmark_node_free(cut)
            cmark_node_insert_after(paragraph, table)
        } else {
            replace(paragraph, with: table)
        }
        return .built
    }

    /// `paragraphLines` as byte ranges of `source`.
    private func paragraphLineRanges(_ paragraph: Node, _ src: UnsafeBufferPointer<UInt8>) -> [ByteRange] {
        let first = Int(cmark_node_get_start_line(paragraph))
        let last = Int(cmark_node_get_end_line(paragraph))
        var quotes = 0
        var p = cmark_node_parent(paragraph)
        while let q = p { if kind(q) == CMARK_NODE_BLOCK_QUOTE { quotes += 1 }; p = cmark_node_parent(q) }
        var lines: [ByteRange] = []
        lines.reserveCapacity(last - first + 1)
        for l in first...last {
            var line = sourceLineRange(l)
            if l == first {
                let column = Int(cmark_node_get_start_column(paragraph))
                if column > 1 && column - 1 <= line.end - line.start { line.start += column - 1 }
            } else {
                for _ in 0..<quotes {
                    var a = line.start
                    while a < line.end && src[a].isSpaceOrTab { a += 1 }
                    guard a < line.end, src[a] == UInt8(ascii: ">") else { break }
                    line.start = a + 1
                    if line.start < line.end && src[line.start] == 0x20 { line.start += 1 }
                }
            }
            lines.append(trim(line, src))
        }
        return lines
    }

    /// `sourceLine` as a byte range.
    private func sourceLineRange(_ line: Int) -> ByteRange {
        makeLineStarts()
        guard line >= 1 && line <= lineStarts.count else { return ByteRange(start: 0, end: 0) }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : source.count
        if end > start && source[end - 1] == 0x0D { end -= 1 }
        return ByteRange(start: start, end: max(start, end))
    }

    @inline(__always) private func trim(_ r: ByteRange, _ src: UnsafeBufferPointer<UInt8>) -> ByteRange {
        var a = r.start, b = r.end
        while a < b && src[a].isWhitespace { a += 1 }
        while b > a && src[b - 1].isWhitespace { b -= 1 }
        return ByteRange(start: a, end: b)
    }

    @inline(__always) private func contains(_ r: ByteRange, _ byte: UInt8, _ src: UnsafeBufferPointer<UInt8>) -> Bool {
        r.end > r.start && memchr(src.baseAddress! + r.start, Int32(byte), r.end - r.start) != nil
    }

    /// `splitRow` on ranges: appends the row's cells to `cells` and returns how many.
    private func splitRow(_ line: ByteRange, _ src: UnsafeBufferPointer<UInt8>, into cells: inout [ByteRange]) -> Int {
        var s = trim(line, src)
        if s.end > s.start && src[s.start] == UInt8(ascii: "|") { s.start += 1 }
        if s.end > s.start && src[s.end - 1] == UInt8(ascii: "|") && !(s.end - s.start >= 2 && src[s.end - 2] == UInt8(ascii: "\\")) { s.end -= 1 }
        let before = cells.count
        var start = s.start
        var i = s.start
        let raw = UnsafeRawPointer(src.baseAddress!)
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        while i < s.end {
            // eight bytes at a time while none is `\` or `|` (cells of Japanese text are long runs)
            if i + 8 <= s.end {
                let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let a = x ^ (ones &* 0x5C), p = x ^ (ones &* 0x7C)
                if (((a &- ones) & ~a) | ((p &- ones) & ~p)) & high == 0 { i += 8; continue }
            }
            if src[i] == UInt8(ascii: "\\") { i += 2; continue }
            if src[i] == UInt8(ascii: "|") { cells.append(trim(ByteRange(start: start, end: i), src)); start = i + 1 }
            i += 1
        }
        cells.append(trim(ByteRange(start: start, end: max(start, s.end)), src))
        return cells.count - before
    }

    /// `delimiterRow` on ranges, with each column's `Align.index`. The cells are split into `scratch`
    /// (the caller's, left empty: an array of its own cost two allocations a table).
    private func delimiterRow(_ line: ByteRange, _ src: UnsafeBufferPointer<UInt8>, scratch cells: inout [ByteRange]) -> [Int]? {
        guard contains(line, UInt8(ascii: "|"), src), contains(line, UInt8(ascii: "-"), src) else { return nil }
        for k in line.start..<line.end {
            let b = src[k]
            if !(b == UInt8(ascii: "|") || b == UInt8(ascii: "-") || b == UInt8(ascii: ":") || b.isSpaceOrTab) { return nil }
        }
        cells.removeAll(keepingCapacity: true)
        defer { cells.removeAll(keepingCapacity: true) }
        _ = splitRow(line, src, into: &cells)
        var aligns: [Int] = []
        aligns.reserveCapacity(cells.count)
        for cell in cells {
            guard cell.end > cell.start else { return nil }
            let left = src[cell.start] == UInt8(ascii: ":")
            let right = src[cell.end - 1] == UInt8(ascii: ":")
            let a = cell.start + (left ? 1 : 0)
            let b = cell.end - (right && cell.end - cell.start > 1 ? 1 : 0)
            guard b > a else { return nil }
            for k in a..<b where src[k] != UInt8(ascii: "-") { return nil }
            aligns.append((left && right ? Align.center : left ? .left : right ? .right : .none).index)
        }
        return aligns
    }

    private func paragraphLines(_ paragraph: Node) -> [ArraySlice<UInt8>] {
        let first = Int(cmark_node_get_start_line(paragraph))
        let last = Int(cmark_node_get_end_line(paragraph))
        var quotes = 0
        var p = cmark_node_parent(paragraph)
        while let q = p { if kind(q) == CMARK_NODE_BLOCK_QUOTE { quotes += 1 }; p = cmark_node_parent(q) }
        var lines: [ArraySlice<UInt8>] = []
        for l in first...last {
            var line = sourceLine(l)
            if l == first {
                let column = Int(cmark_node_get_start_column(paragraph))
                if column > 1 && column - 1 <= line.count { line = line.dropFirst(column - 1) }
            } else {
                for _ in 0..<quotes {
                    let trimmed = line.drop(while: { $0.isSpaceOrTab })
                    guard trimmed.first == UInt8(ascii: ">") else { break }
                    line = trimmed.dropFirst()
                    if line.first == 0x20 { line = line.dropFirst() }
                }
            }
            lines.append(trim(line))
        }
        return lines
    }

    private func trim(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var a = s.startIndex, b = s.endIndex
        while a < b && s[a].isWhitespace { a += 1 }
        while b > a && s[b - 1].isWhitespace { b -= 1 }
        return s[a..<b]
    }

    /// Splits a table row on unescaped pipes (GFM splits inside code spans too).
    private func splitRow(_ line: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var s = trim(line)
        if s.first == UInt8(ascii: "|") { s = s.dropFirst() }
        if s.last == UInt8(ascii: "|") && !(s.count >= 2 && s[s.endIndex - 2] == UInt8(ascii: "\\")) { s = s.dropLast() }
        var cells: [ArraySlice<UInt8>] = []
        var pipes = 0
        for b in s where b == UInt8(ascii: "|") { pipes += 1 }
        cells.reserveCapacity(pipes + 1) // no regrowth while splitting
        var start = s.startIndex
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "\\") { i += 2; continue }
            if s[i] == UInt8(ascii: "|") { cells.append(trim(s[start..<i])); start = i + 1 }
            i += 1
        }
        cells.append(trim(s[start..<min(s.endIndex, max(start, s.endIndex))]))
        return cells
    }

    private enum Align {
        case none, left, center, right
        var index: Int {
            switch self {
            case .none: return 0
            case .left: return 1
            case .center: return 2
            case .right: return 3
            }
        }
    }

    private func delimiterRow(_ line: ArraySlice<UInt8>) -> [Align]? {
        guard line.contains(UInt8(ascii: "|")), line.contains(UInt8(ascii: "-")) else { return nil }
        for b in line where !(b == UInt8(ascii: "|") || b == UInt8(ascii: "-") || b == UInt8(ascii: ":") || b.isSpaceOrTab) { return nil }
        var aligns: [Align] = []
        for cell in splitRow(line) {
            guard !cell.isEmpty else { return nil }
            let left = cell.first == UInt8(ascii: ":")
            let right = cell.last == UInt8(ascii: ":")
            let dashes = cell.dropFirst(left ? 1 : 0).dropLast(right && cell.count > 1 ? 1 : 0)
            guard !dashes.isEmpty, dashes.allSatisfy({ $0 == UInt8(ascii: "-") }) else { return nil }
            aligns.append(left && right ? .center : left ? .left : right ? .right : .none)
        }
        return aligns
    }

    private func makeTable(_ paragraph: Node) {
        let lines = paragraphLines(paragraph)
        guard lines.count >= 2 else { return }
        var headerIndex = -1
        var aligns: [Align] = []
        for k in 1..<lines.count {
            if let a = delimiterRow(lines[k]), lines[k - 1].contains(UInt8(ascii: "|")), splitRow(lines[k - 1]).count == a.count {
                headerIndex = k - 1
                aligns = a
                break
            }
        }
        guard headerIndex >= 0 else { return }
        // Cut the paragraph before the header line (top-level line breaks only).
        var cutAt: Node?
        if headerIndex > 0 {
            cutAt = lineBreak(headerIndex, in: paragraph)
            guard cutAt != nil else { return }
        }
        let columns = aligns.count
        var rows: [[ArraySlice<UInt8>]] = [splitRow(lines[headerIndex])]
        if headerIndex + 2 < lines.count {
            for k in (headerIndex + 2)..<lines.count { rows.append(splitRow(lines[k])) }
        }
        // Cells without any byte cmark's inline parser treats specially are one text node each:
        // build those directly. Otherwise parse all cells in one cmark document (below).
        var plain = true
        check: for row in rows {
            for c in 0..<min(columns, row.count) where !Transformer.isPlainCell(row[c]) { plain = false; break check }
        }
        var cellParagraphs: [Node] = []
        var cellDoc: Node?
        defer { if let d = cellDoc { cmark_node_free(d) } }
        if !plain {
            // One paragraph per cell. The leading NO-BREAK SPACE keeps each cell an inline-only
            // paragraph (no list, heading or definition), and counts as whitespace for emphasis
            // flanking, like the start of a line.
            var text: [UInt8] = []
            for row in rows {
                for c in 0..<columns {
                    text.append(contentsOf: [0xC2, 0xA0])
                    if c < row.count {
                        let cell = row[c]
                        var i = cell.startIndex
                        while i < cell.endIndex {
                            let b = cell[i]
                            if b == UInt8(ascii: "\\") && i + 1 < cell.endIndex && cell[i + 1] == UInt8(ascii: "|") {
                                text.append(UInt8(ascii: "|")); i += 2; continue
                            }
                            text.append(b == 0x0D ? 0x20 : b)
                            i += 1
                        }
                    }
                    text.append(contentsOf: [0x0A, 0x0A])
                }
            }
            guard let doc = text.withUnsafeBufferPointer({ parseDocument($0, options: parseFlags) }) else { return }
            cellDoc = doc
            var child = cmark_node_first_child(doc)
            while let c = child { cellParagraphs.append(c); child = cmark_node_next(c) }
            guard cellParagraphs.count == rows.count * columns,
                  cellParagraphs.allSatisfy({ kind($0) == CMARK_NODE_PARAGRAPH }) else { return }
        }

        let baseLine = cmark_node_get_start_line(paragraph) + Int32(headerIndex)
        let table = makeCustom(block: true, enterC: TableTags.table, exitC: TableTags.tableEnd)
        let head = makeCustom(block: true, enterC: TableTags.thead, exitC: TableTags.theadEnd)
        append(table, head)
        var body: Node?
        for r in 0..<rows.count {
            let tr = makeCustom(block: true, enterC: TableTags.tr, exitC: TableTags.trEnd)
            let line = r == 0 ? baseLine : baseLine + 1 + Int32(r)
            for c in 0..<columns {
                let alignIndex: Int
                switch aligns[c] {
                case .none: alignIndex = 0
                case .left: alignIndex = 1
                case .center: alignIndex = 2
                case .right: alignIndex = 3
                }
                let cell = r == 0
                    ? makeCustom(block: false, enterC: TableTags.th[alignIndex], exitC: TableTags.thEnd)
                    : makeCustom(block: false, enterC: TableTags.td[alignIndex], exitC: TableTags.tdEnd)
                if plain {
                    if c < rows[r].count, !rows[r][c].isEmpty {
                        let text = makeText(rows[r][c])
                        setLineOverride(text, line)
                        append(cell, text)
                    }
                    setLineOverride(cell, line)
                } else {
                    let cellParagraph = cellParagraphs[r * columns + c]
                    if let first = cmark_node_first_child(cellParagraph), kind(first) == CMARK_NODE_TEXT {
                        let lit = literalBytes(first)
                        if lit.count >= 2 && lit[0] == 0xC2 && lit[1] == 0xA0 {
                            if lit.count == 2 { cmark_node_free(first) } else { setLiteral(first, Array(lit[2...])) }
                        }
                    }
                    moveChildren(from: cellParagraph, to: cell)
                    walk(cell) { node, entering in if entering { self.setLineOverride(node, line) } }
                }
                setFlag(cell, Transformer.cellFlag)
                append(tr, cell)
            }
            if r == 0 {
                append(head, tr)
            } else {
                if body == nil {
                    body = makeCustom(block: true, enterC: TableTags.tbody, exitC: TableTags.tbodyEnd)
                    append(table, body!)
                }
                append(body!, tr)
            }
        }
        if let cut = cutAt {
            while let next = cmark_node_next(cut) { cmark_node_free(next) }
            cmark_node_free(cut)
            cmark_node_insert_after(paragraph, table)
        } else {
            replace(paragraph, with: table)
        }
    }

    /// `isPlainCell && isInertCell` in one pass, skipping eight bytes at a time while they are all
    /// non-ASCII and none is 0xEE (the lead byte of the pre-pass markers).
    private static func isDirectCell(_ cell: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = cell.count
        guard n > 0, let p = cell.baseAddress else { return true }
        let raw = UnsafeRawPointer(p)
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        var k = 0
        while k < n {
            if k + 8 <= n {
                let x = raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                if x & high == high {
                    let t = x ^ (ones &* 0xEE)
                    if (t &- ones) & ~t & high == 0 { k += 8; continue }
                }
            }
            switch p[k] {
            case 0..<0x20, UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "&"), UInt8(ascii: "_"), UInt8(ascii: "*"),
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "<"), UInt8(ascii: "!"),
                 UInt8(ascii: "~"), UInt8(ascii: ":"), 0xEE:
                return false
            case UInt8(ascii: "."):
                // `www.` starts an autolink
                if k >= 3 && p[k - 3] | 0x20 == UInt8(ascii: "w") && p[k - 2] | 0x20 == UInt8(ascii: "w") && p[k - 1] | 0x20 == UInt8(ascii: "w") {
                    return false
                }
            default: break
            }
            k += 1
        }
        return true
    }

    /// True for a plain cell that no later pass touches: no strikethrough, autolink or footnote marker.
    private static func isInertCell(_ cell: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = cell.startIndex
        while k < cell.endIndex {
            switch cell[k] {
            case UInt8(ascii: "~"), UInt8(ascii: ":"), 0xEE: return false
            case UInt8(ascii: "."):
                // `www.` starts an autolink
                if k - cell.startIndex >= 3 && cell[(k - 3)..<k].allSatisfy({ $0 | 0x20 == UInt8(ascii: "w") }) { return false }
            default: break
            }
            k += 1
        }
        return true
    }

    /// True if cmark would parse the cell as exactly its bytes in one text node: no control bytes
    /// and none of the characters that start an inline construct in CommonMark.
    private static func isPlainCell<C: Collection>(_ cell: C) -> Bool where C.Element == UInt8 {
        for b in cell {
            switch b {
            case 0..<0x20, UInt8(ascii: "\\"), UInt8(ascii: "`"), UInt8(ascii: "&"), UInt8(ascii: "_"), UInt8(ascii: "*"),
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "<"), UInt8(ascii: "!"):
                return false
            default: continue
            }
        }
        return true
    }

    // MARK: - task lists

    private func taskLists(_ items: [Node]) {
        for item in items {
            guard let paragraph = cmark_node_first_child(item), kind(paragraph) == CMARK_NODE_PARAGRAPH,
                  let text = cmark_node_first_child(paragraph), kind(text) == CMARK_NODE_TEXT else { continue }
            let lit = literalBytes(text)
            guard lit.count >= 3, lit[0] == UInt8(ascii: "["), lit[2] == UInt8(ascii: "]"),
                  lit.count == 3 || lit[3].isSpaceOrTab else { continue }
            let checked: Bool
            switch lit[1] {
            case 0x20: checked = false
            case UInt8(ascii: "x"), UInt8(ascii: "X"): checked = true
            default: continue
            }
            let box = makeCustom(block: false,
                                 enter: "<input type=\"checkbox\" class=\"task-list-item-checkbox\" disabled=\"\"\(checked ? " checked=\"\"" : "") />",
                                 exit: "")
            cmark_node_insert_before(text, box)
            if lit.count == 3 { cmark_node_free(text) } else { setLiteral(text, Array(lit[3...])) }
        }
    }

    // MARK: - inline pass

    /// The nodes the passes after the tables work on, in document order.
    private struct Found {
        /// Containers whose text has a `**`/`__` run next to non-ASCII text (CJK strong repair).
        var cjk: [Node] = []
        /// Parents of text and code spans (inline pass).
        var inline: [Node] = []
        var items: [Node] = []
        var headings: [Node] = []
        var codeBlocks: [Node] = []
        var htmlNodes: [Node] = []
    }

    private func collectNodes(_ doc: Node, qiita: Bool) -> Found {
        var found = Found()
        found.inline.reserveCapacity(64)
        found.headings.reserveCapacity(16)
        found.codeBlocks.reserveCapacity(16)
        // Text and code spans come in runs of siblings: their parent is checked once per run.
        var lastParent: Node?
        var lastParentIsCJK = false
        walk(doc) { node, entering, t in
            guard entering else { return }
            switch t {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE:
                guard qiita, let parent = parentNode(node, direct: direct) else { return }
                if parent != lastParent {
                    lastParent = parent
                    lastParentIsCJK = hasFlag(parent, Transformer.cjkSeenFlag)
                    if !hasFlag(parent, Transformer.inlineSeenFlag) {
                        setFlag(parent, Transformer.inlineSeenFlag)
                        found.inline.append(parent)
                    }
                }
                guard t == CMARK_NODE_TEXT else { return }
                let lit = literalBytes(ofLiteralNode: node, direct: direct)
                let scan = Transformer.scanText(lit, markers: markers)
                setFlag(node, scan)
                if !lastParentIsCJK && scan & Transformer.textStarFlag != 0 && hasCJKStrongRun(lit) {
                    setFlag(parent, Transformer.cjkSeenFlag)
                    lastParentIsCJK = true
                    found.cjk.append(parent)
                }
            case CMARK_NODE_ITEM: if qiita { found.items.append(node) }
            case CMARK_NODE_HEADING: found.headings.append(node)
            case CMARK_NODE_CODE_BLOCK: found.codeBlocks.append(node)
            case CMARK_NODE_HTML_BLOCK, CMARK_NODE_HTML_INLINE: found.htmlNodes.append(node)
            default: break
            }
        }
        return found
    }

    /// Parents of text and code spans, found again after the CJK repair changed the tree (with a
    /// flag of their own: the first walk's flags are still set on the containers that survived).
    private func inlineContainers(_ doc: Node) -> [Node] {
        var containers: [Node] = []
        walk(doc) { node, entering, t in
            guard entering else { return }
            if t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE, let parent = parentNode(node, direct: direct), !hasFlag(parent, Transformer.inlineSeenAgainFlag) {
                setFlag(parent, Transformer.inlineSeenAgainFlag)
                containers.append(parent)
            }
        }
        return containers
    }

    /// The text-node flags of a literal: `textScannedFlag`, plus `textStarFlag` for a `*` or `_`,
    /// `textTildeFlag` for a `~` (the delimiter pass) and `textInterestingFlag` for a `[`, `:`, `w`,
    /// `W` or, when the pre-pass wrote `markers`, 0xEE (footnote references, autolinks and stray
    /// markers: `splitText`'s full scan). Eight bytes at a time: all non-ASCII (and no 0xEE) at
    /// once, else each byte value tested in all eight lanes (`x ^ c` has a zero byte); the last
    /// bytes through a table. Without markers the 0xEE test is left out of the loop: Japanese text
    /// is almost all whole non-ASCII words, so that test was a third of the loop.
    static func scanText(_ lit: UnsafeBufferPointer<UInt8>, markers: Bool = true) -> Int {
        markers ? scanText(lit, withMarkers: true) : scanText(lit, withMarkers: false)
    }

    /// The flag of each ASCII byte in `scanText` (0xEE, the markers' lead byte, is tested apart).
    /// (computed: a stored static is a lazy global, checked on every read)
    @inline(__always) private static var asciiTextFlags: StaticString { "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{04}\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{10}\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{10}\0\0\0\u{10}\0\0\0\u{04}\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\u{10}\0\0\0\0\0\0\u{08}\0" }

    @inline(__always) private static func scanText(_ lit: UnsafeBufferPointer<UInt8>, withMarkers: Bool) -> Int {
        let n = lit.count
        guard n > 0, let base = lit.baseAddress else { return textScannedFlag }
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroByte(_ v: UInt64) -> UInt64 { (v &- ones) & ~v }
        var star: UInt64 = 0, tilde: UInt64 = 0, interesting: UInt64 = 0
        var p = base
        let end = base + n
        while end - p >= 8 {
            let x = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            if withMarkers { interesting |= zeroByte(x ^ (ones &* 0xEE)) }
            if x & high != high {
                star |= zeroByte(x ^ (ones &* 0x2A)) | zeroByte(x ^ (ones &* 0x5F))
                tilde |= zeroByte(x ^ (ones &* 0x7E))
                // `w` and `W` alike: only they become 0x77 with bit 5 set
                interesting |= zeroByte(x ^ (ones &* 0x5B)) | zeroByte(x ^ (ones &* 0x3A)) | zeroByte((x | (ones &* 0x20)) ^ (ones &* 0x77))
            }
            p += 8
        }
        var flags = textScannedFlag
        if star & high != 0 { flags |= textStarFlag }
        if tilde & high != 0 { flags |= textTildeFlag }
        if interesting & high != 0 { flags |= textInterestingFlag }
        let table = asciiTextFlags.utf8Start
        while p < end {
            let b = p.pointee
            if b < 0x80 { flags |= Int(table[Int(b)]) } else if withMarkers && b == 0xEE { flags |= textInterestingFlag }
            p += 1
        }
        return flags
    }

    /// A `**`/`__` run (exactly two) with non-ASCII text on one side (asked only of text with a `*` or `_`).
    private func hasCJKStrongRun(_ lit: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lit.count >= 2 else { return false }
        var i = 0
        while i + 1 < lit.count {
            let b = lit[i]
            if (b == UInt8(ascii: "*") || b == UInt8(ascii: "_")) && lit[i + 1] == b && (i + 2 == lit.count || lit[i + 2] != b)
                && (i == 0 || lit[i - 1] != b) && ((i > 0 && lit[i - 1] >= 0x80) || (i + 2 < lit.count && lit[i + 2] >= 0x80)) {
                return true
            }
            i += 1
        }
        return false
    }

    /// cmark pairs `**（括弧）**と**【見出し】**` as `**（括弧）<strong>と</strong>【見出し】**`. Where a
    /// container still has a literal `**`/`__` run next to non-ASCII text, its strong nodes are undone
    /// back into delimiter text so the relaxed pairing below sees the whole sequence.
    private func repairCJKStrong(_ containers: [Node]) {
        for container in containers {
            var child = cmark_node_first_child(container)
            while let c = child {
                child = cmark_node_next(c)
                guard kind(c) == CMARK_NODE_STRONG, !hasFlag(c, Transformer.cjkSeenFlag) else { continue }
                let line = sourceLine(Int(cmark_node_get_start_line(c)))
                let column = Int(cmark_node_get_start_column(c))
                var marker: [UInt8] = [UInt8(ascii: "*"), UInt8(ascii: "*")]
                if column >= 1 && column <= line.count && line[line.startIndex + column - 1] == UInt8(ascii: "_") {
                    marker = [UInt8(ascii: "_"), UInt8(ascii: "_")]
                }
                cmark_node_insert_before(c, makeText(marker))
                while let inner = cmark_node_first_child(c) { cmark_node_insert_before(c, inner) }
                cmark_node_insert_before(c, makeText(marker))
                cmark_node_free(c)
            }
            // merge adjacent text so the delimiter scan sees runs and their neighbours
            var node = cmark_node_first_child(container)
            while let n = node {
                if kind(n) == CMARK_NODE_TEXT, let next = cmark_node_next(n), kind(next) == CMARK_NODE_TEXT {
                    setLiteral(n, literalArray(n) + literalArray(next))
                    clearFlag(n, Transformer.textScannedFlag) // scanned again by `splitText`
                    cmark_node_free(next)
                    continue
                }
                node = cmark_node_next(n)
            }
        }
    }

    private func insideLink(_ container: Node) -> Bool {
        var p: Node? = container
        while let node = p {
            let t = kind(node)
            if t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE { return true }
            if t.rawValue < CMARK_NODE_FIRST_INLINE.rawValue || t == CMARK_NODE_CUSTOM_BLOCK { return false }
            p = cmark_node_parent(node)
        }
        return false
    }

    private func processInlines(_ container: Node) {
        let linksAllowed = !insideLink(container)
        var hasDelimiters = false
        let direct = self.direct
        var child = cmark_node_first_child(container)
        while let c = child {
            let next = nextSibling(c, direct: direct)
            let t = kind(c, direct: direct)
            if t == CMARK_NODE_CODE && markers {
                let lit = literalBytes(ofLiteralNode: c, direct: direct)
                if lit.count >= 6 && lit.starts(with: mathMarker) && lit[(lit.count - 3)...].elementsEqual(mathMarker) {
                    var html = Array("<span class=\"math inline\">".utf8)
                    appendEscaped(&html, lit[3..<(lit.count - 3)])
                    html.append(contentsOf: Array("</span>".utf8))
                    let math = makeCustom(block: false, enter: html, exit: [])
                    replace(c, with: math)
                } else if lit.count >= 6 && lit.starts(with: displayMathMarker) && lit[(lit.count - 3)...].elementsEqual(displayMathMarker) {
                    // `$$…$$`: a display block when it is the whole paragraph, else a display span in the text
                    let alone = next == nil && cmark_node_previous(c) == nil && kind(container) == CMARK_NODE_PARAGRAPH
                    var html = Array((alone ? "<div class=\"math display\">" : "<span class=\"math display\">").utf8)
                    appendEscaped(&html, lit[3..<(lit.count - 3)])
                    html.append(contentsOf: Array((alone ? "</div>" : "</span>").utf8))
                    if alone {
                        // the paragraph stays (a footnote may hold it) but is written without <p>
                        setFlag(container, Transformer.unwrappedParagraphFlag)
                        unwrappedParagraphs = true
                    }
                    replace(c, with: makeCustom(block: false, enter: html, exit: []))
                } else if let restored = restoreMarkers(lit) {
                    setLiteral(c, restored)
                }
            } else if t == CMARK_NODE_TEXT {
                if splitText(c, linksAllowed: linksAllowed) { hasDelimiters = true }
            }
            child = next
        }
        if hasDelimiters { pairDelimiters(container) }
    }

    private static let nbsp: [UInt8] = [0xC2, 0xA0]

    /// Footnote references, autolinks and stray markers in one text node. Returns whether the text
    /// (or its remains) contains `~`, `*` or `_` for the delimiter pass.
    private func splitText(_ node: Node, linksAllowed: Bool) -> Bool {
        let lit = literalBytes(ofLiteralNode: node, direct: direct)
        let n = lit.count
        // what `collectNodes` found in the literal, or a scan now for text made or changed since
        let data = userData(node, direct: direct)
        let scan = data & Transformer.textScannedFlag != 0 ? data : Transformer.scanText(lit, markers: markers)
        let delimiters = scan & (Transformer.textStarFlag | Transformer.textTildeFlag) != 0
        let interesting = scan & Transformer.textInterestingFlag != 0
        guard interesting else { return delimiters }
        var pieces: [Node] = []
        var plainStart = 0
        var i = 0
        let line = self.line(of: node)
        func flush(_ upTo: Int) {
            if upTo > plainStart { pieces.append(makeText(Array(lit[plainStart..<upTo]))) }
        }
        while i < n {
            let b = lit[i]
            if b == 0xEE, i + 2 < n, lit[i + 1] == 0x80, lit[i + 2] == 0x81 {
                // a footnote definition that cmark put inside another paragraph: show it as written
                var j = i + 3
                while j + 2 < n && !(lit[j] == 0xEE && lit[j + 1] == 0x80 && lit[j + 2] == 0x81) { j += 1 }
                flush(i)
                var text = Array("[^".utf8)
                if j + 2 < n { text += lit[(i + 3)..<j]; text += Array("]: ".utf8); i = j + 3 } else { i += 3 }
                pieces.append(makeText(text))
                plainStart = i
                continue
            }
            if b == UInt8(ascii: "["), i + 1 < n, lit[i + 1] == UInt8(ascii: "^"), !footnoteDefs.isEmpty {
                var j = i + 2
                while j < n && lit[j] != UInt8(ascii: "]") && !lit[j].isWhitespace { j += 1 }
                if j < n && lit[j] == UInt8(ascii: "]") && j > i + 2 {
                    let label = String(decoding: lit[(i + 2)..<j], as: UTF8.self)
                    if footnoteDefs[label] != nil {
                        flush(i)
                        pieces.append(footnoteReference(label))
                        i = j + 1
                        plainStart = i
                        continue
                    }
                }
            }
            if linksAllowed, b == UInt8(ascii: "h") || b == UInt8(ascii: "w") || b == UInt8(ascii: "H") || b == UInt8(ascii: "W"),
               i == 0 || !(lit[i - 1].isASCIIAlnum || lit[i - 1] == UInt8(ascii: "/") || lit[i - 1] == UInt8(ascii: ".")
                            || lit[i - 1] == UInt8(ascii: "@") || lit[i - 1] == UInt8(ascii: "-")),
               let end = autolinkEnd(lit, i) {
                flush(i)
                let text = Array(lit[i..<end])
                var url = text
                if text.first?.lowerASCII == UInt8(ascii: "w") { url = Array("http://".utf8) + text }
                let link = newNode(CMARK_NODE_LINK)
                withCBytes(url) { _ = cmark_node_set_url(link, $0) }
                append(link, makeText(text))
                setLineOverride(link, line)
                pieces.append(link)
                i = end
                plainStart = i
                continue
            }
            i += 1
        }
        guard !pieces.isEmpty else { return delimiters }
        flush(n)
        for piece in pieces {
            cmark_node_insert_before(node, piece)
            if kind(piece) == CMARK_NODE_TEXT { setLineOverride(piece, line) }
        }
        cmark_node_free(node)
        return delimiters
    }

    /// (a `StaticString`: iterating a `String`'s UTF-8 view cost more than the comparison)
    private func hasPrefixCI(_ lit: UnsafeBufferPointer<UInt8>, _ at: Int, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard lit.count - at >= n else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where lit[at + k].lowerASCII != p[k] { return false }
        return true
    }

    /// End of a bare URL starting at `start`, GFM-style trailing punctuation trimmed; nil if none.
    private func autolinkEnd(_ lit: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var hostStart: Int
        if hasPrefixCI(lit, start, "https://") { hostStart = start + 8 }
        else if hasPrefixCI(lit, start, "http://") { hostStart = start + 7 }
        else if hasPrefixCI(lit, start, "www.") { hostStart = start + 4 }
        else { return nil }
        guard hostStart < lit.count, lit[hostStart].isASCIIAlnum else { return nil }
        var end = hostStart
        while end < lit.count {
            let b = lit[end]
            if b <= 0x20 || b >= 0x7F || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") || b == UInt8(ascii: "\"") { break }
            end += 1
        }
        while end > hostStart {
            let last = lit[end - 1]
            switch last {
            case UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"),
                 UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: ";"):
                end -= 1
                continue
            case UInt8(ascii: ")"):
                var open = 0, close = 0
                for k in start..<end { if lit[k] == UInt8(ascii: "(") { open += 1 } else if lit[k] == UInt8(ascii: ")") { close += 1 } }
                if close > open { end -= 1; continue }
            default: break
            }
            break
        }
        if lit[start].lowerASCII == UInt8(ascii: "w") && !lit[hostStart..<end].contains(UInt8(ascii: ".")) { return nil }
        return end > hostStart ? end : nil
    }

    private func footnoteReference(_ label: String) -> Node {
        let number: Int
        if let index = footnoteOrder.firstIndex(of: label) { number = index + 1 } else {
            footnoteOrder.append(label)
            number = footnoteOrder.count
        }
        let count = (footnoteRefs[label] ?? 0) + 1
        footnoteRefs[label] = count
        let id = count == 1 ? "fnref-\(number)" : "fnref-\(number)-\(count)"
        return makeCustom(block: false, enter: "<sup id=\"\(id)\"><a href=\"#fn-\(number)\" class=\"footnote-ref\">\(number)</a></sup>", exit: "")
    }

    private struct Delimiter {
        var node: Node
        var offset: Int
        var char: UInt8
        var canOpen: Bool
        var canClose: Bool
        var wide: Bool
    }

    /// Pairs `~~x~~` (strikethrough) and the `**`/`__` runs cmark left as text next to CJK text.
    private func pairDelimiters(_ container: Node) {
        var delimiters: [Delimiter] = []
        var child = cmark_node_first_child(container)
        while let c = child {
            defer { child = cmark_node_next(c) }
            guard kind(c) == CMARK_NODE_TEXT else { continue }
            let lit = literalBytes(c)
            var i = 0
            while i < lit.count {
                let b = lit[i]
                guard b == UInt8(ascii: "~") || b == UInt8(ascii: "*") || b == UInt8(ascii: "_") else { i += 1; continue }
                var j = i
                while j < lit.count && lit[j] == b { j += 1 }
                defer { i = j }
                guard j - i == 2 else { continue }
                // neighbours: 0 = whitespace / edge, 1 = other node, else the byte
                let prev: Int = i > 0 ? Int(lit[i - 1]) : neighbour(cmark_node_previous(c))
                let next: Int = j < lit.count ? Int(lit[j]) : neighbour(cmark_node_next(c))
                let prevSpace = prev == 0 || (prev < 128 && UInt8(prev).isWhitespace)
                let nextSpace = next == 0 || (next < 128 && UInt8(next).isWhitespace)
                var canOpen = !nextSpace
                var canClose = !prevSpace
                if b == UInt8(ascii: "_") {
                    if prev > 1 && prev < 128 && UInt8(prev).isASCIIAlnum { canOpen = false }
                    if next > 1 && next < 128 && UInt8(next).isASCIIAlnum { canClose = false }
                }
                delimiters.append(Delimiter(node: c, offset: i, char: b, canOpen: canOpen, canClose: canClose,
                                            wide: prev >= 128 || next >= 128))
            }
        }
        guard delimiters.count >= 2 else { return }
        var stack: [Int] = []
        var pairs: [(Int, Int)] = []
        for (k, d) in delimiters.enumerated() {
            if d.canClose, let s = stack.lastIndex(where: { o in
                delimiters[o].char == d.char && (d.char == UInt8(ascii: "~") || delimiters[o].wide || d.wide)
            }) {
                pairs.append((stack[s], k))
                stack.removeSubrange(s...)
                continue
            }
            if d.canOpen { stack.append(k) }
        }
        guard !pairs.isEmpty else { return }
        // Split the text nodes so that every paired delimiter is its own node.
        var used = Set<Int>()
        for (a, b) in pairs { used.insert(a); used.insert(b) }
        var delimiterNodes: [Int: Node] = [:]
        var k = 0
        while k < delimiters.count {
            let node = delimiters[k].node
            var group: [Int] = []
            while k < delimiters.count && delimiters[k].node == node { if used.contains(k) { group.append(k) }; k += 1 }
            guard !group.isEmpty else { continue }
            let lit = literalArray(node)
            let line = self.line(of: node)
            var pos = 0
            for index in group {
                let off = delimiters[index].offset
                if off > pos { let t = makeText(Array(lit[pos..<off])); setLineOverride(t, line); cmark_node_insert_before(node, t) }
                let d = makeText(Array(lit[off..<(off + 2)]))
                cmark_node_insert_before(node, d)
                delimiterNodes[index] = d
                pos = off + 2
            }
            if pos < lit.count { let t = makeText(Array(lit[pos...])); setLineOverride(t, line); cmark_node_insert_before(node, t) }
            cmark_node_free(node)
        }
        for (a, b) in pairs {
            guard let open = delimiterNodes[a], let close = delimiterNodes[b] else { continue }
            let strike = delimiters[a].char == UInt8(ascii: "~")
            let wrapper = makeCustom(block: false, enter: strike ? "<del>" : "<strong>", exit: strike ? "</del>" : "</strong>")
            cmark_node_insert_before(open, wrapper)
            moveSiblings(after: open, before: close, to: wrapper)
            cmark_node_free(open)
            cmark_node_free(close)
        }
    }

    private func neighbour(_ node: Node?) -> Int {
        guard let node else { return 0 }
        switch kind(node) {
        case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK: return 0
        case CMARK_NODE_TEXT:
            let lit = literalBytes(node)
            return lit.isEmpty ? 1 : Int(lit[lit.count - 1])
        default: return 1
        }
    }

    // MARK: - headings, code blocks, raw HTML

    private func blockPass(_ found: Found) {
        let headingNodes = found.headings, codeBlocks = found.codeBlocks, htmlNodes = found.htmlNodes
        let qiita = options.qiitaExtensions
        for heading in headingNodes {
            var text: [UInt8] = []
            walk(heading) { node, entering, t in
                if entering, t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE { text.append(contentsOf: literalBytes(ofLiteralNode: node, direct: direct)) }
            }
            // whole literals of a valid document, and ids made of their characters: valid UTF-8
            let title = makeString(&text, trusted: true)
            let slug = text.withUnsafeBufferPointer { HeadingID.makeBytes($0) } ?? Array(HeadingID.makeGeneral(title).utf8)
            var idBytes = uniqueSlug(slug)
            let level = Int(cmark_node_get_heading_level(heading))
            headings.append(Heading(level: level, text: title, id: makeString(&idBytes, trusted: true)))
            guard qiita else { continue }
            let digit = UInt8(truncatingIfNeeded: 0x30 + level)
            var enter: [UInt8] = [UInt8(ascii: "<"), UInt8(ascii: "h"), digit]
            enter.reserveCapacity(idBytes.count * 2 + 80)
            enter.append(static: " id=\"")
            appendEscaped(&enter, idBytes)
            enter.append(static: "\"><a class=\"anchor\" href=\"#")
            appendEscaped(&enter, idBytes)
            enter.append(static: "\" aria-hidden=\"true\">#</a>\0")
            let exit: [UInt8] = [UInt8(ascii: "<"), UInt8(ascii: "/"), UInt8(ascii: "h"), digit, UInt8(ascii: ">"), 0]
            let wrapper = makeCustom(block: true, enterC: emptyCString, exitC: emptyCString)
            let inner = makeCustom(block: false, enterC: enter, exitC: exit)
            setFlag(inner, Transformer.trustedHTMLFlag) // ASCII and the id's whole scalars
            append(wrapper, inner)
            moveChildren(from: heading, to: inner)
            replace(heading, with: wrapper)
        }
        for block in codeBlocks {
            let literal = literalBytes(block)
            let restored = qiita && markers ? restoreMarkers(literal) : nil
            let info = cBytesView(cmark_node_get_fence_info(block))
            func take(_ code: UnsafeBufferPointer<UInt8>) {
                codeText.append(code)
                if codeText.last != 0x0A { codeText.append(0x0A) }
            }
            if let r = restored { r.withUnsafeBufferPointer { take($0) } } else { take(literal) }
            if let plan = plan(forInfo: info, qiita: qiita) {
                cmark_node_set_user_data(block, UnsafeMutableRawPointer(bitPattern: (self.codeBlocks.count << 8) | Transformer.codeBlockFlag))
                self.codeBlocks.append((plan, restored))
            } else if let r = restored {
                setLiteral(block, r)
            }
        }
        var scriptURLs = ScriptURLFilter() // one per document: the browser reads its raw HTML as one stream
        for node in htmlNodes {
            let isBlock = kind(node) == CMARK_NODE_HTML_BLOCK
            var bytes: [UInt8]
            if qiita && markers, let r = restoreMarkers(literalBytes(node)) { bytes = r } else { bytes = literalArray(node) }
            if options.unsafeHTML {
                if let filtered = scriptURLs.filter(bytes) {
                    setLiteral(node, filtered)
                } else if qiita && bytes.count != literalBytes(node).count {
                    setLiteral(node, bytes)
                }
                continue
            }
            let clean = bytes.withUnsafeBufferPointer { HTMLSanitizer.sanitize($0) }
            replace(node, with: makeCustom(block: isBlock, enter: clean, exit: []))
        }
    }

    /// Byte keys hashed in one go (String keys would normalize Japanese text on every lookup).
    /// The ids used so far and their last suffix: a list compared with memcmp while it is short (a
    /// document has a handful of headings; hashing every id cost more), a dictionary beyond 32.
    private struct SlugTable {
        /// The ids and their last suffix, in one array (room for 16 made with the first: growing two
        /// arrays from one element cost eight allocations for a document's handful of headings).
        private var entries: [(key: SlugKey, value: Int)] = []
        private var positions: [SlugKey: Int]?

        func index(forKey key: SlugKey) -> Int? {
            if let positions { return positions[key] }
            let n = key.bytes.count
            return key.bytes.withUnsafeBufferPointer { b in
                for (k, other) in entries.enumerated() where other.key.bytes.count == n {
                    if n == 0 || other.key.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, b.baseAddress!, n) == 0 }) { return k }
                }
                return nil
            }
        }

        /// Adds a key that `index(forKey:)` did not find.
        mutating func insertNew(_ key: SlugKey, _ value: Int) {
            if entries.isEmpty { entries.reserveCapacity(16) }
            entries.append((key, value))
            if positions != nil {
                positions![key] = entries.count - 1
            } else if entries.count > 32 {
                var d: [SlugKey: Int] = [:]
                for (k, other) in entries.enumerated() { d[other.key] = k }
                positions = d
            }
        }

        subscript(key: SlugKey) -> Int? {
            get { index(forKey: key).map { entries[$0].value } }
            set {
                guard let value = newValue else { return } // never removed
                if let k = index(forKey: key) { entries[k].value = value; return }
                insertNew(key, value)
            }
        }
    }

    private struct SlugKey: Hashable {
        var bytes: [UInt8]
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    private func uniqueSlug(_ base: [UInt8]) -> [UInt8] {
        let root = SlugKey(bytes: base.isEmpty ? Array("section".utf8) : base)
        // the common case, an id not seen yet: one lookup and one insertion (same result as below)
        if usedSlugs.index(forKey: root) == nil {
            usedSlugs.insertNew(root, 0)
            return root.bytes
        }
        var candidate = root
        var n = usedSlugs[root] ?? 0
        while usedSlugs[candidate] != nil {
            n += 1
            candidate = SlugKey(bytes: root.bytes + Array("-\(n)".utf8))
        }
        usedSlugs[root] = n
        if usedSlugs[candidate] == nil { usedSlugs[candidate] = 0 }
        return candidate.bytes
    }

    // MARK: - HTML, text and links in one walk

    /// Writes the document's HTML the way `cmark_render_html` does (same bytes for every node type,
    /// without source positions), and in the same walk collects the plain text, the code text and the
    /// links. In the Qiita dialect, `http(s)` links get `rel="noopener"` and images `loading="lazy"`.
    /// `payloadsValid` turns false if a custom node's HTML (ours) is not valid UTF-8.
    func renderHTML(_ doc: Node, hardBreaks: Bool, unsafe: Bool) -> ByteBuffer {
        // Room for highlighted code (spans roughly double it) without growing, which copied the
        // whole buffer once for almost every document.
        var out = ByteBuffer(capacity: source.count * 3 + 256)
        var inImage = 0
        // The image whose alt text is being written (attribute mode: only text goes out), and whether
        // it is one of ours (Qiita: text and code only) or cmark's (text, code and raw HTML).
        var altImage: Node?
        var qiitaAlt = false
        let qiita = options.qiitaExtensions
        // the plain text goes into a byte buffer of its own (about 150,000 appends per 1,000 documents)
        var plainText = ByteBuffer(capacity: source.count + 64)
        var codeText = ByteBuffer(capacity: 0)
        var links: [MarkdownLink] = []
        swap(&codeText, &self.codeText)
        swap(&links, &self.links)
        // (a document has a dozen links or so: growing from one element was five allocations)
        links.reserveCapacity(16)
        var valid = true

        // (no nested functions here: capturing `out` would put it in a box with an exclusivity check per access)

        var cursor = TreeCursor(doc)
        defer { cursor.close() }
        while let (node, entering, type) = cursor.next() {

            if let image = altImage {
                // inside an image: only its alt text is written, as an attribute value
                switch type {
                case CMARK_NODE_TEXT:
                    let lit = literalBytes(ofLiteralNode: node, direct: direct)
                    out.appendEscaped(lit)
                    if inImage == 0 { plainText.append(lit) }
                    continue
                case CMARK_NODE_CODE:
                    let lit = literalBytes(ofLiteralNode: node, direct: direct)
                    out.appendEscaped(lit)
                    if inImage == 0 { plainText.append(lit) }
                    codeText.append(lit)
                    codeText.append(0x0A)
                    continue
                case CMARK_NODE_HTML_INLINE:
                    if !qiitaAlt { out.appendEscaped(literalBytes(ofLiteralNode: node, direct: direct)) }
                    continue
                case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
                    out.append(0x20)
                    if inImage == 0 { plainText.append(0x0A) }
                    continue
                case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                    if node != image {
                        if entering {
                            links.append(MarkdownLink(destination: makeString(cBytesView(cmark_node_get_url(node)), trusted: true), line: Int(originalLine(self.line(of: node)))))
                            if type == CMARK_NODE_IMAGE { inImage += 1 }
                        } else if type == CMARK_NODE_IMAGE {
                            inImage -= 1
                        }
                        continue
                    }
                    // the exit of the image itself: handled below
                    altImage = nil
                case CMARK_NODE_CUSTOM_INLINE:
                    if !entering && hasFlag(node, Transformer.cellFlag) && plainText.last != 0x20 && plainText.last != 0x0A { plainText.append(0x20) }
                    continue
                default:
                    continue
                }
            }

            switch type {
            case CMARK_NODE_DOCUMENT:
                break
            case CMARK_NODE_TEXT:
                let lit = literalBytes(ofLiteralNode: node, direct: direct)
                out.appendEscaped(lit)
                if inImage == 0 { plainText.append(lit) }
            case CMARK_NODE_SOFTBREAK:
                if hardBreaks { out.append(static: "<br />\n") } else { out.append(0x0A) }
                if inImage == 0 { plainText.append(0x0A) }
            case CMARK_NODE_LINEBREAK:
                out.append(static: "<br />\n")
                if inImage == 0 { plainText.append(0x0A) }
            case CMARK_NODE_CODE:
                let lit = literalBytes(ofLiteralNode: node, direct: direct)
                out.append(static: "<code>")
                out.appendEscaped(lit)
                out.append(static: "</code>")
                if inImage == 0 { plainText.append(lit) }
                codeText.append(lit)
                codeText.append(0x0A)
            case CMARK_NODE_PARAGRAPH:
                var tight = false
                if let parent = parentNode(node, direct: direct), let grandparent = parentNode(parent, direct: direct), kind(grandparent, direct: direct) == CMARK_NODE_LIST {
                    tight = cmark_node_get_list_tight(grandparent) != 0
                }
                if unwrappedParagraphs && hasFlag(node, Transformer.unwrappedParagraphFlag) {
                    if entering { newlineIfNeeded(&out) } else { out.append(0x0A); newlineIfNeeded(&plainText) }
                } else if entering {
                    if !tight { newlineIfNeeded(&out); out.append(static: "<p>") }
                } else {
                    if !tight { out.append(static: "</p>\n") }
                    newlineIfNeeded(&plainText)
                }
            case CMARK_NODE_EMPH:
                if entering { out.append(static: "<em>") } else { out.append(static: "</em>") }
            case CMARK_NODE_STRONG:
                if entering { out.append(static: "<strong>") } else { out.append(static: "</strong>") }
            case CMARK_NODE_CUSTOM_INLINE:
                appendPayload(&out, entering ? cmark_node_get_on_enter(node) : cmark_node_get_on_exit(node),
                              trusted: hasFlag(node, Transformer.trustedHTMLFlag), &valid)
                if !entering && hasFlag(node, Transformer.cellFlag) && plainText.last != 0x20 && plainText.last != 0x0A { plainText.append(0x20) }
            case CMARK_NODE_CUSTOM_BLOCK:
                newlineIfNeeded(&out)
                let data = userData(node, direct: direct)
                if data & Transformer.directTableFlag != 0 {
                    // cells are source bytes cut before ASCII bytes only: valid UTF-8
                    if entering { writeDirectTable(directTables[data >> 8], source, into: &out) }
                } else {
                    appendPayload(&out, entering ? cmark_node_get_on_enter(node) : cmark_node_get_on_exit(node),
                                  trusted: data & Transformer.trustedHTMLFlag != 0, &valid)
                }
                newlineIfNeeded(&out)
                if entering {
                    if data & Transformer.directTableFlag != 0 {
                        let table = directTables[data >> 8]
                        // the text the cell / row / table nodes would have given
                        let src = source
                        var offset = 0
                        for count in table.rowCounts {
                            for c in 0..<table.columns {
                                if c < count {
                                    let cell = table.cells[offset + c]
                                    plainText.append(UnsafeBufferPointer(rebasing: src[cell.start..<cell.end]))
                                }
                                let last = plainText.last
                                if last != 0x20 && last != 0x0A { plainText.append(0x20) }
                            }
                            if plainText.count > 0 && plainText.last != 0x0A { plainText.append(0x0A) }
                            offset += count
                        }
                    }
                } else {
                    newlineIfNeeded(&plainText)
                }
            case CMARK_NODE_LINK:
                guard entering else { out.append(static: "</a>"); break }
                // cmark's URLs of a valid document are valid UTF-8 (entities decode to whole characters)
                let url = cBytesView(cmark_node_get_url(node))
                links.append(MarkdownLink(destination: makeString(url, trusted: true), line: Int(originalLine(self.line(of: node)))))
                if qiita && inImage == 0 && Transformer.isHTTPURL(url) {
                    out.append(static: "<a href=\"")
                    out.appendEscapedHref(url)
                    out.append(UInt8(ascii: "\""))
                    appendTitle(&out, node)
                    out.append(static: " rel=\"noopener\">")
                } else {
                    out.append(static: "<a href=\"")
                    if unsafe ? !URLSafety.runsScript(utf8: url, use: .link) : !isCmarkDangerousURL(url) { out.appendEscapedHref(url) }
                    out.append(UInt8(ascii: "\""))
                    appendTitle(&out, node)
                    out.append(UInt8(ascii: ">"))
                }
            case CMARK_NODE_IMAGE:
                if entering {
                    let url = cBytesView(cmark_node_get_url(node))
                    links.append(MarkdownLink(destination: makeString(url, trusted: true), line: Int(originalLine(self.line(of: node)))))
                    out.append(static: "<img src=\"")
                    if unsafe {
                        if !URLSafety.runsScript(utf8: url, use: .image) { out.appendEscapedHref(url) }
                    } else if qiita {
                        if !isDangerousURL(url) { out.appendEscapedHref(url) }
                    } else {
                        if !isCmarkDangerousURL(url) { out.appendEscapedHref(url) }
                    }
                    out.append(static: "\" alt=\"")
                    altImage = node
                    qiitaAlt = qiita
                    inImage += 1
                } else {
                    inImage -= 1
                    out.append(UInt8(ascii: "\""))
                    appendTitle(&out, node)
                    if qiitaAlt { out.append(static: " loading=\"lazy\" />") } else { out.append(static: " />") }
                }
            case CMARK_NODE_HEADING:
                if entering {
                    newlineIfNeeded(&out)
                    out.append(static: "<h")
                    out.append(UInt8(truncatingIfNeeded: 0x30 + Int(cmark_node_get_heading_level(node))))
                    out.append(UInt8(ascii: ">"))
                } else {
                    out.append(static: "</h")
                    out.append(UInt8(truncatingIfNeeded: 0x30 + Int(cmark_node_get_heading_level(node))))
                    out.append(static: ">\n")
                    newlineIfNeeded(&plainText)
                }
            case CMARK_NODE_LIST:
                let bullet = cmark_node_get_list_type(node) == CMARK_BULLET_LIST
                if entering {
                    newlineIfNeeded(&out)
                    if bullet {
                        out.append(static: "<ul>\n")
                    } else {
                        let start = cmark_node_get_list_start(node)
                        if start == 1 {
                            out.append(static: "<ol>\n")
                        } else {
                            out.append(static: "<ol start=\"")
                            Array(String(start).utf8).withUnsafeBufferPointer { out.append($0) }
                            out.append(static: "\">\n")
                        }
                    }
                } else {
                    if bullet { out.append(static: "</ul>\n") } else { out.append(static: "</ol>\n") }
                }
            case CMARK_NODE_ITEM:
                if entering {
                    newlineIfNeeded(&out)
                    out.append(static: "<li>")
                } else {
                    out.append(static: "</li>\n")
                    newlineIfNeeded(&plainText)
                }
            case CMARK_NODE_BLOCK_QUOTE:
                newlineIfNeeded(&out)
                if entering {
                    out.append(static: "<blockquote>\n")
                } else {
                    out.append(static: "</blockquote>\n")
                    newlineIfNeeded(&plainText)
                }
            case CMARK_NODE_CODE_BLOCK:
                newlineIfNeeded(&out)
                let data = userData(node, direct: direct)
                if data & Transformer.codeBlockFlag != 0 {
                    // Valid UTF-8 by construction: the code and info are cmark strings of a valid
                    // document (or the pre-pass's restored original bytes), the markup is ASCII.
                    let entry = codeBlocks[data >> 8]
                    if let restored = entry.restored {
                        restored.withUnsafeBufferPointer { CodeBlockRenderer.write(entry.plan.plan, code: $0, highlight: options.highlightCode, into: &out) }
                    } else {
                        CodeBlockRenderer.write(entry.plan.plan, code: literalBytes(node), highlight: options.highlightCode, into: &out)
                    }
                    newlineIfNeeded(&out)
                    newlineIfNeeded(&plainText)
                    break
                }
                let info = cBytesView(cmark_node_get_fence_info(node))
                if info.isEmpty {
                    out.append(static: "<pre><code>")
                } else {
                    var firstTag = 0
                    while firstTag < info.count && !info[firstTag].isWhitespace { firstTag += 1 }
                    out.append(static: "<pre><code class=\"language-")
                    out.appendEscaped(UnsafeBufferPointer(rebasing: info[0..<firstTag]))
                    out.append(static: "\">")
                }
                out.appendEscaped(literalBytes(ofLiteralNode: node, direct: direct))
                out.append(static: "</code></pre>\n")
            case CMARK_NODE_HTML_BLOCK:
                newlineIfNeeded(&out)
                if unsafe { out.append(literalBytes(node)) } else { out.append(static: "<!-- raw HTML omitted -->") }
                newlineIfNeeded(&out)
            case CMARK_NODE_HTML_INLINE:
                if unsafe { out.append(literalBytes(node)) } else { out.append(static: "<!-- raw HTML omitted -->") }
            case CMARK_NODE_THEMATIC_BREAK:
                newlineIfNeeded(&out)
                out.append(static: "<hr />\n")
            default:
                break
            }
        }
        self.plainText.deallocate()
        self.plainText = plainText
        swap(&codeText, &self.codeText)
        codeText.deallocate() // the empty placeholder swapped in above
        swap(&links, &self.links)
        payloadsValid = valid
        return out
    }

    /// Whether a custom node's HTML was valid UTF-8 (set by `renderHTML`).
    var payloadsValid = true

    /// `http://` or `https://` (ASCII case-insensitive), the links the dialect marks `rel="noopener"`.
    static func isHTTPURL(_ url: UnsafeBufferPointer<UInt8>) -> Bool {
        let prefix = httpPrefixLength(url)
        guard prefix > 0 else { return false }
        if prefix < url.count && url[prefix] >= 0x80 {
            // a combining mark right after the prefix changes the Character comparison
            let lower = String(decoding: url, as: UTF8.self).prefix(8).lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        }
        return true
    }

    /// 7 for a URL starting `http://`, 8 for `https://` (letters in either case), else 0. The first
    /// eight bytes are compared as one word with bit 5 set on the letters' lanes (only `A`-`Z`
    /// and `a`-`z` then give the lowercase letter): a byte loop per prefix was ~280 instructions a link.
    @inline(__always) static func httpPrefixLength(_ url: UnsafeBufferPointer<UInt8>) -> Int {
        guard url.count >= 7, let p = url.baseAddress else { return 0 }
        // "http://" and "https://" as little-endian words (the lowest byte first)
        let https: UInt64 = 0x2F2F_3A73_7074_7468, http: UInt64 = 0x002F_2F3A_7074_7468
        if url.count >= 8 {
            let x = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            if x | 0x0000_0020_2020_2020 == https { return 8 }
            if (x & 0x00FF_FFFF_FFFF_FFFF) | 0x0000_0000_2020_2020 == http { return 7 }
            return 0
        }
        var x: UInt64 = 0
        for k in 0..<7 { x |= UInt64(p[k]) << (8 * UInt64(k)) }
        return x | 0x0000_0000_2020_2020 == http ? 7 : 0
    }

    /// ` title="…"` of a link or image, when it has one.
    private func appendTitle(_ html: inout ByteBuffer, _ node: Node) {
        let title = cBytesView(cmark_node_get_title(node))
        guard !title.isEmpty else { return }
        html.append(static: " title=\"")
        html.appendEscaped(title)
        html.append(UInt8(ascii: "\""))
    }
}

/// cmark's `cr()`: a newline unless the output is empty or already ends with one.
@inline(__always) private func newlineIfNeeded(_ out: inout [UInt8]) {
    if let last = out.last, last != 0x0A { out.append(0x0A) }
}

@inline(__always) private func newlineIfNeeded(_ out: inout ByteBuffer) {
    if let last = out.last, last != 0x0A { out.append(0x0A) }
}

/// A custom node's HTML (ours), checked to be UTF-8 unless it is `trusted` (built only from whole
/// UTF-8 sequences: tables cut at `|`, heading ids).
@inline(__always) private func appendPayload(_ out: inout ByteBuffer, _ p: UnsafePointer<CChar>?, trusted: Bool, _ valid: inout Bool) {
    let bytes = cBytesView(p)
    guard !bytes.isEmpty else { return }
    if valid && !trusted && !isValidUTF8(bytes) { valid = false }
    out.append(bytes)
}

/// cmark's `scan_dangerous_url`: `javascript:`, `vbscript:`, `file:`, or `data:` other than
/// `data:image/png|gif|jpeg|webp`, ASCII case-insensitive, at the very start of the URL.
func isCmarkDangerousURL(_ url: UnsafeBufferPointer<UInt8>) -> Bool {
    @inline(__always) func has(_ prefix: StaticString, at offset: Int) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard url.count - offset >= n else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where url[offset + k].lowerASCII != p[k] { return false }
        return true
    }
    if has("javascript:", at: 0) || has("vbscript:", at: 0) || has("file:", at: 0) { return true }
    guard has("data:", at: 0) else { return false }
    if has("image/", at: 5) && (has("png", at: 11) || has("gif", at: 11) || has("jpeg", at: 11) || has("webp", at: 11)) { return false }
    return true
}

/// Whether `bytes` is well-formed UTF-8.
@inline(__always)
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    SourceText.firstInvalidUTF8(bytes) == nil
}
