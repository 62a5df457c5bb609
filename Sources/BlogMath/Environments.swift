/// `\begin{…}…\end{…}`: matrices, cases, alignments and arrays, as `mtable`.
extension Parser {
    private struct Layout {
        var open: String?
        var close: String?
        var cellStyle: Style
        var columnAlign: (Int) -> String?
        var rowSpacing: String
        var columnSpacing: String
        var small = false
        var alignAttr = true
    }

    private func layout(_ name: String, spec: [String]) throws -> Layout {
        let center: (Int) -> String? = { _ in "center" }
        switch name {
        case "matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix":
            let fences: [String: (String, String)] = ["pmatrix": ("(", ")"), "bmatrix": ("[", "]"), "Bmatrix": ("{", "}"),
                                                      "vmatrix": ("∣", "∣"), "Vmatrix": ("∥", "∥")]
            return Layout(open: fences[name]?.0, close: fences[name]?.1, cellStyle: .text, columnAlign: center,
                          rowSpacing: "0.16em", columnSpacing: "1em")
        case "smallmatrix":
            return Layout(cellStyle: .script, columnAlign: center, rowSpacing: "0.1em", columnSpacing: "0.2778em", small: true, alignAttr: false)
        case "cases", "dcases":
            return Layout(open: "{", cellStyle: name == "dcases" ? .display : .text, columnAlign: { _ in "left" }, rowSpacing: "0.36em", columnSpacing: "1em")
        case "rcases":
            return Layout(close: "}", cellStyle: .text, columnAlign: { _ in "left" }, rowSpacing: "0.36em", columnSpacing: "1em")
        case "aligned", "align", "align*", "split", "alignedat", "alignat", "alignat*", "flalign", "flalign*":
            return Layout(cellStyle: .display, columnAlign: { $0 % 2 == 0 ? "right" : "left" }, rowSpacing: "0.25em", columnSpacing: "0em")
        case "gathered", "gather", "gather*":
            return Layout(cellStyle: .display, columnAlign: center, rowSpacing: "0.25em", columnSpacing: "0em")
        case "equation", "equation*":
            return Layout(cellStyle: .display, columnAlign: center, rowSpacing: "0.16em", columnSpacing: "1em", alignAttr: false)
        case "array", "darray":
            return Layout(cellStyle: name == "darray" ? .display : .text, columnAlign: { $0 < spec.count ? spec[$0] : "center" },
                          rowSpacing: "0.16em", columnSpacing: "1em")
        default:
            throw MathError.invalid("unknown environment \(name)")
        }
    }

    func environment() throws -> MNode {
        let name = try textArgument()
        var spec: [String] = []
        var columnLines: [String] = []
        if name == "array" || name == "darray" {
            for t in try rawArgument() {
                guard case .char(let c) = t else { continue }
                switch c {
                case "l": spec.append("left"); if columnLines.count < spec.count - 1 { columnLines.append("none") }
                case "c": spec.append("center"); if columnLines.count < spec.count - 1 { columnLines.append("none") }
                case "r": spec.append("right"); if columnLines.count < spec.count - 1 { columnLines.append("none") }
                case "|": if !spec.isEmpty { columnLines.append("solid") }
                default: throw MathError.invalid("array column \(c)")
                }
            }
            if columnLines.count >= spec.count { columnLines.removeLast(columnLines.count - spec.count + 1) }
        } else if name.hasPrefix("alignedat") || name.hasPrefix("alignat") {
            _ = try rawArgument()
        }
        let layout = try layout(name, spec: spec)
        let saved = style
        style = layout.cellStyle
        defer { style = saved }

        var rows: [[MNode]] = []
        var row: [MNode] = []
        var lines: [String] = []
        var lineAbove = false
        while true {
            skipSpaces()
            if case .command("hline") = try peek() { pos += 1; if rows.isEmpty && row.isEmpty { lineAbove = true } else { lines.append("solid") }; continue }
            if case .command("hdashline") = try peek() { pos += 1; lines.append("dashed"); continue }
            let cell = try parseList(.cell)
            row.append(MNode.row(cell.isEmpty ? [MNode("mrow")] : cell))
            guard let t = try next() else { throw MathError.invalid("\\begin{\(name)} without \\end") }
            switch t {
            case .align:
                continue
            case .command("end"):
                let endName = try textArgument()
                guard endName == name else { throw MathError.invalid("\\begin{\(name)} ended by \\end{\(endName)}") }
                // a final `\\` leaves an empty row that TeX does not show
                if !(row.count == 1 && row[0].tag == "mrow" && row[0].children.isEmpty && !rows.isEmpty) { rows.append(row) }
                return wrap(rows, layout, columnLines: columnLines, rowLines: lines, lineAbove: lineAbove)
            default:
                _ = try optionalArgument()
                rows.append(row)
                row = []
                if lines.count < rows.count - 1 { lines.append("none") }
                while lines.count < rows.count - 1 { lines.append("none") }
            }
        }
    }

    private func wrap(_ rows: [[MNode]], _ layout: Layout, columnLines: [String], rowLines: [String], lineAbove: Bool) -> MNode {
        let columns = rows.map(\.count).max() ?? 0
        let level = layout.small ? "1" : "0"
        let display = layout.cellStyle == .display ? "true" : "false"
        let trs = rows.map { cells in
            MNode("mtr", children: cells.map { cell in
                MNode("mtd", children: [MNode("mstyle", [("scriptlevel", level), ("displaystyle", display)], children: [cell])])
            })
        }
        var attrs: [(String, String)] = [("rowspacing", layout.rowSpacing)]
        if layout.alignAttr {
            attrs.append(("columnalign", (0..<columns).compactMap { layout.columnAlign($0) }.joined(separator: " ")))
        }
        if columnLines.contains("solid") { attrs.append(("columnlines", columnLines.joined(separator: " "))) }
        attrs.append(("columnspacing", layout.columnSpacing))
        var lines = rowLines
        while lines.last == "none" { lines.removeLast() }
        if !lines.isEmpty { attrs.append(("rowlines", lines.joined(separator: " "))) }
        var table = MNode("mtable", attrs, children: trs)
        if lineAbove { table = MNode("menclose", [("notation", "top")], children: [table]) }
        if layout.small { table = MNode("mstyle", [("scriptlevel", "1")], children: [table]) }
        guard layout.open != nil || layout.close != nil else { return table }
        var parts: [MNode] = []
        if let open = layout.open { parts.append(MNode(token: "mo", open, [("fence", "true")])) }
        parts.append(table)
        if let close = layout.close { parts.append(MNode(token: "mo", close, [("fence", "true")])) }
        return MNode("mrow", children: parts)
    }
}
