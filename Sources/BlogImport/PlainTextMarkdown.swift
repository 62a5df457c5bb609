/// Turns lines of plain text (Qiita pages saved as text, where the Markdown markup is lost) into
/// Markdown that renders back to exactly those lines, one per line (hard breaks are on).
///
/// The escaping, and why it is lossless under CommonMark (cmark 0.30):
/// - Every ASCII punctuation character may be backslash-escaped and then renders as itself
///   (CommonMark §2.4). We escape those that can open inline markup anywhere in a line:
///   `\` `` ` `` `*` `_` `[` `]` `<` `>` `&` `~` `|` `$` (`$` and `~`/`|` for Qiita math,
///   strikethrough and tables). With `` ` `` and `<` escaped there are no code spans, autolinks
///   or raw HTML, so backslash escapes work everywhere in the line; with `&` escaped no entity is
///   decoded; with `[`/`]` escaped no link, image or footnote opens (so `!` need not be escaped).
/// - At the start of a line (block structure) we also escape the first character when it could
///   open a block: `#` (heading), `>` (quote), `-` `+` `*` (list, thematic break, setext underline),
///   `=` (setext underline), `:` (Qiita `:::note`), `` ` `` `~` (fences), `<` (HTML block),
///   `|` (table), `[` (link reference definition); and for `1.` / `1)` the `.` or `)` (ordered list).
/// - Leading and trailing spaces and tabs would be stripped (or make an indented code block):
///   they are written as the character references `&#32;` and `&#9;`, which render as the same
///   characters. A line that starts with a reference starts with `&`, which opens no block.
/// - A line that is a bare `http(s)://` URL (no spaces or `<>`) becomes an autolink `<URL>`,
///   whose text is the URL itself (`&` written as `&amp;`, since cmark decodes references there).
/// - A line starting with `- ` (and more after it) is a list item in the dump and stays one: the
///   marker is kept and the rest is escaped as a line of its own. A list is closed with a blank line
///   before a following non-list line, so that line does not become part of the last item.
/// - Blank lines separate paragraphs (runs of them become one), as in Markdown.
/// Tests render random lines made of every ASCII punctuation character and check the rendered text.
public enum PlainTextMarkdown {
    /// Escapes `lines` (without line terminators) into a Markdown body ending with a newline
    /// (empty for no lines).
    public static func markdown(lines: [String]) -> String {
        var out: [String] = []
        var previousWasListItem = false
        var previousWasBlank = true
        for line in lines {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                if !previousWasBlank { out.append("") }
                previousWasBlank = true
                previousWasListItem = false
                continue
            }
            if let content = listItemContent(line) {
                if !previousWasBlank && !previousWasListItem { out.append("") }
                out.append("- " + escapeLine(content))
                previousWasListItem = true
            } else {
                if previousWasListItem { out.append("") }
                out.append(escapeLine(line))
                previousWasListItem = false
            }
            previousWasBlank = false
        }
        while out.last == "" { out.removeLast() }
        return out.isEmpty ? "" : out.joined(separator: "\n") + "\n"
    }

    /// The text after `- ` when `line` is a list item of the dump.
    public static func listItemContent(_ line: String) -> String? {
        guard line.hasPrefix("- ") else { return nil }
        let content = String(line.dropFirst(2))
        return content.allSatisfy({ $0 == " " || $0 == "\t" }) ? nil : content
    }

    private static let inlineSpecial: Set<UInt8> = Set("\\`*_[]<>&~|$".utf8)
    private static let blockStartSpecial: Set<UInt8> = Set("#>-+*=:`~<|[".utf8)

    /// One line of text as Markdown that renders as exactly that text.
    public static func escapeLine(_ line: String) -> String {
        let bytes = Array(line.utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        func reference(_ byte: UInt8) { out.append(contentsOf: Array((byte == 0x09 ? "&#9;" : "&#32;").utf8)) }
        for byte in bytes[0..<start] { reference(byte) }
        let middle = Array(bytes[start..<end])
        if isAutolinkable(middle) {
            // cmark decodes entity references inside autolinks, so `&` is written as `&amp;`.
            out.append(UInt8(ascii: "<"))
            for byte in middle {
                if byte == UInt8(ascii: "&") { out.append(contentsOf: Array("&amp;".utf8)) } else { out.append(byte) }
            }
            out.append(UInt8(ascii: ">"))
        } else {
            let atBlockStart = start == 0
            // `1.` / `12)`: the position of the delimiter to escape.
            var orderedDelimiter = -1
            if atBlockStart {
                var digits = 0
                while digits < middle.count, middle[digits] >= 0x30, middle[digits] <= 0x39 { digits += 1 }
                if digits > 0, digits < middle.count, middle[digits] == UInt8(ascii: ".") || middle[digits] == UInt8(ascii: ")") {
                    orderedDelimiter = digits
                }
            }
            for (index, byte) in middle.enumerated() {
                if inlineSpecial.contains(byte)
                    || (atBlockStart && index == 0 && blockStartSpecial.contains(byte))
                    || index == orderedDelimiter {
                    out.append(UInt8(ascii: "\\"))
                }
                out.append(byte)
            }
        }
        for byte in bytes[end...] { reference(byte) }
        return String(decoding: out, as: UTF8.self)
    }

    /// A bare `http://` or `https://` URL that an autolink can carry unchanged.
    public static func isAutolinkable(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else { return false }
        let schemeLength = text.hasPrefix("https://") ? 8 : 7
        guard bytes.count > schemeLength else { return false }
        return bytes.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }
    }
}
