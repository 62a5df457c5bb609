import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// GFM tables: found in paragraphs, written as one HTML block or built as a tree.
extension Transformer {
    /// A table written as one HTML block: its cells as byte ranges of `source`, row by row.
    struct DirectTable {
        var cells: [ByteRange]
        /// Number of cells of each row (rows may have more or fewer cells than columns).
        var rowCounts: [Int]
        var columns: Int
        /// Index into `TableTags.th` / `td` of each column.
        var aligns: [Int]
    }

    /// The HTML of a direct table (what cmark would write for the tree `makeTable` builds).
    func writeDirectTable(_ table: DirectTable, _ src: UnsafeBufferPointer<UInt8>, into out: inout ByteBuffer) {
        out.append(static: "<table>\n<thead>\n")
        var offset = 0
        let base = src.baseAddress!
        // (cell tags as static strings and the cells through one buffer pointer, so that no cell
        // pays for a lazy-global check, a retain and a release)
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


    func buildTables(_ doc: Node) {
        // no pipe anywhere, no table
        guard !source.isEmpty && memchr(source.baseAddress!, Int32(UInt8(ascii: "|")), source.count) != nil else { return }
        var candidates: [Node] = []
        walkBlocks(doc) { node, t in
            if t == CMARK_NODE_PARAGRAPH && cmark_node_get_end_line(node) > cmark_node_get_start_line(node) {
                candidates.append(node)
            }
        }
        for paragraph in candidates where mayHoldTable(paragraph) {
            makeDirectTable(paragraph, source)
        }
    }

    /// Cheap filter before `makeTable`: a table needs a `|` somewhere in the paragraph's source lines.
    func mayHoldTable(_ paragraph: Node) -> Bool {
        makeLineStarts()
        let first = Int(cmark_node_get_start_line(paragraph))
        let last = Int(cmark_node_get_end_line(paragraph))
        guard first >= 1 && first <= lineStarts.count else { return true }
        let from = lineStarts[first - 1]
        let to = last < lineStarts.count ? lineStarts[last] : source.count
        guard to > from else { return false }
        return memchr(source.baseAddress! + from, Int32(UInt8(ascii: "|")), to - from) != nil
    }

    /// The one table parser, on byte ranges (no array slices, so no reference counting per cell):
    /// finds the table, and when every cell is plain text that no later pass changes, writes it as
    /// one HTML block. Tables with inline markup go to `makeTable`, which builds them as a tree.
    func makeDirectTable(_ paragraph: Node, _ src: UnsafeBufferPointer<UInt8>) {
        let lines = paragraphLineRanges(paragraph, src)
        guard lines.count >= 2 else { return }
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
        guard headerIndex >= 0 else { return }
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
                if !Transformer.isDirectCell(UnsafeBufferPointer(rebasing: src[cell.start..<cell.end])) {
                    makeTable(paragraph, DirectTable(cells: cells, rowCounts: rowCounts, columns: columns, aligns: aligns),
                              headerIndex: headerIndex)
                    return
                }
            }
            offset += count
        }
        // Cut the paragraph before the header line (top-level line breaks only).
        var cutAt: Node?
        if headerIndex > 0 {
            cutAt = lineBreak(headerIndex, in: paragraph)
            guard cutAt != nil else { return }
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
    }

    /// `paragraphLines` as byte ranges of `source`.
    func paragraphLineRanges(_ paragraph: Node, _ src: UnsafeBufferPointer<UInt8>) -> [ByteRange] {
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


    @inline(__always) func trim(_ r: ByteRange, _ src: UnsafeBufferPointer<UInt8>) -> ByteRange {
        var a = r.start, b = r.end
        while a < b && src[a].isWhitespace { a += 1 }
        while b > a && src[b - 1].isWhitespace { b -= 1 }
        return ByteRange(start: a, end: b)
    }

    @inline(__always) func contains(_ r: ByteRange, _ byte: UInt8, _ src: UnsafeBufferPointer<UInt8>) -> Bool {
        r.end > r.start && memchr(src.baseAddress! + r.start, Int32(byte), r.end - r.start) != nil
    }

    /// `splitRow` on ranges: appends the row's cells to `cells` and returns how many.
    func splitRow(_ line: ByteRange, _ src: UnsafeBufferPointer<UInt8>, into cells: inout [ByteRange]) -> Int {
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

    /// `delimiterRow` on ranges, with each column's alignment as `cellTag`'s index. The cells are split into `scratch`
    /// (the caller's, left empty: an array of its own cost two allocations a table).
    func delimiterRow(_ line: ByteRange, _ src: UnsafeBufferPointer<UInt8>, scratch cells: inout [ByteRange]) -> [Int]? {
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
            aligns.append(left && right ? 2 : left ? 1 : right ? 3 : 0) // `cellTag`'s index
        }
        return aligns
    }

    /// Builds a table `makeDirectTable` found as a tree of cells, for the inline passes to see.
    func makeTable(_ paragraph: Node, _ parsed: DirectTable, headerIndex: Int) {
        // Cut the paragraph before the header line (top-level line breaks only).
        var cutAt: Node?
        if headerIndex > 0 {
            cutAt = lineBreak(headerIndex, in: paragraph)
            guard cutAt != nil else { return }
        }
        let columns = parsed.columns
        let bytes = sourceArray
        var rows: [[ArraySlice<UInt8>]] = []
        rows.reserveCapacity(parsed.rowCounts.count)
        var offset = 0
        for count in parsed.rowCounts {
            rows.append(parsed.cells[offset..<(offset + count)].map { bytes[$0.start..<$0.end] })
            offset += count
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
                let alignIndex = parsed.aligns[c]
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

    /// True for a plain cell (`isPlainCell`) that no later pass touches (no strikethrough, autolink,
    /// e-mail, mention, emoji or footnote marker), skipping eight bytes at a time while they are all
    /// non-ASCII and none is 0xEE (the lead byte of the pre-pass markers).
    static func isDirectCell(_ cell: UnsafeBufferPointer<UInt8>) -> Bool {
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
                 UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "@"), 0xEE:
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

    /// True if cmark would parse the cell as exactly its bytes in one text node: no control bytes
    /// and none of the characters that start an inline construct in CommonMark.
    static func isPlainCell<C: Collection>(_ cell: C) -> Bool where C.Element == UInt8 {
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
}
