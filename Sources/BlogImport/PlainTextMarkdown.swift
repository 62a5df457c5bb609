/// Turns lines of plain text (Qiita pages saved as text, where the Markdown markup is lost) into
/// Markdown that renders back to exactly those lines, one per line (hard breaks are on), with
/// BlogMarkdown's Qiita dialect.
///
/// The escaping, and why it is lossless:
/// - Every ASCII punctuation character may be backslash-escaped and then renders as itself
///   (CommonMark §2.4). We escape those that can open inline markup anywhere in a line:
///   `\` `` ` `` `*` `_` `[` `]` `<` `>` `&` `~` `|` `$`. With `` ` `` and `<` escaped there are no
///   code spans, autolinks or raw HTML, so backslash escapes work everywhere in the line; with `&`
///   escaped no entity is decoded; with `[`/`]` escaped no link, image or footnote opens (so `!`
///   need not be escaped). The dialect's pre-pass skips escaped characters, so an escaped `$` opens
///   no math and an escaped `|` makes no table row (a delimiter row may only hold `|`, `-`, `:`
///   and spaces, and every `|` we write comes with a backslash).
/// - At the start of a line (block structure) we also escape the first character when it could
///   open a block: `#` (heading), `>` (quote), `-` `+` `*` (list, thematic break, setext underline),
///   `=` (setext underline), `:` (Qiita `:::note`), `` ` `` `~` (fences, also ```` ```math ````),
///   `<` (HTML block), `|` (table), `[` (link reference or footnote definition `[^1]:`); and for
///   `1.` / `1)` the `.` or `)` (ordered list).
/// - Backslash escapes do not survive as such: cmark merges an escaped character into the
///   surrounding text, and the dialect then works on that text. It pairs runs of exactly two `~`
///   (strikethrough) and, next to CJK text, of exactly two `*` or `_` (emphasis repair). So a run of
///   exactly two of these characters is split by an empty HTML comment `<!---->`, which ends the text
///   node and renders as nothing (the sanitizer drops comments). Likewise a list item that starts
///   with `[ ]`, `[x]` or `[X]` (whatever follows) gets `<!---->` after the `[`, so it does not become
///   a task-list box. A `:` or `@` before a name's letter gets one too (the dialect reads `:name:`
///   as an emoji, `@name` as a mention and `a@b.c` as an address only within one text node), and so
///   does a line starting `www.` at its end (a URL alone in its paragraph becomes a link card).
/// - U+E000…U+E002, which the dialect uses as private markers (and replaces when they are in the
///   source), are written as character references. U+E000 and U+E002 then render as themselves;
///   U+E001 does not yet: BlogMarkdown takes it as a footnote marker in any text, however it got
///   there (a renderer issue; no Markdown spelling of it survives).
/// - Leading and trailing spaces and tabs (and vertical tabs, form feeds) would be stripped (or make
///   an indented code block): they are written as the character references `&#32;`, `&#9;`
///   (`&#11;`, `&#12;`), which render as the same characters. A line that starts with a reference
///   starts with `&`, which opens no block.
/// - A line that is a bare `http(s)://` URL (no spaces or `<>`) becomes an autolink `<URL>`,
///   whose text is the URL itself (`&` written as `&amp;`, since cmark decodes references there).
///   A URL that the dialect would alter inside a link (a run of two `~`, `*` or `_`, a private
///   marker) is escaped as text instead. Bare URLs inside longer lines are autolinked by the
///   dialect itself; the link text is the URL as written, so the line's text is unchanged.
/// - A line starting with `- ` (and more after it) is a list item in the dump and stays one: the
///   marker is kept and the rest is escaped as a line of its own. A list is closed with a blank line
///   before a following non-list line, so that line does not become part of the last item.
/// - Blank lines separate paragraphs (runs of them become one), as in Markdown.
/// Tests render random lines over every ASCII punctuation character and the dialect's markers with
/// the real renderer and check the rendered text.
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
                out.append("- " + escapeLine(content, listItem: true))
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
    /// Characters the dialect pairs when they come in runs of exactly two.
    private static let pairedRun: Set<UInt8> = Set("~*_".utf8)
    /// An empty HTML comment: ends a text node, renders as nothing.
    private static let separator: [UInt8] = Array("<!---->".utf8)

    /// One line of text as Markdown that renders as exactly that text.
    public static func escapeLine(_ line: String) -> String {
        escapeLine(line, listItem: false)
    }

    /// `listItem`: the line is the content of a list item (after `- `), where `[ ]` would be a task box.
    static func escapeLine(_ line: String, listItem: Bool) -> String {
        let bytes = Array(line.utf8)
        var start = 0
        var end = bytes.count
        while start < end, isEdgeSpace(bytes[start]) { start += 1 }
        while end > start, isEdgeSpace(bytes[end - 1]) { end -= 1 }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        func reference(_ byte: UInt8) { out.append(contentsOf: Array("&#\(byte);".utf8)) }
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
            // `[ ]`, `[x]`, `[X]` opening a list item: a task-list box unless the text is split after `[`.
            let taskBox = listItem && atBlockStart && startsWithTaskBox(middle)
            var index = 0
            while index < middle.count {
                let byte = middle[index]
                if let marker = privateMarker(middle, index) {
                    out.append(contentsOf: Array("&#x\(String(0xE000 + marker, radix: 16, uppercase: true));".utf8))
                    index += 3
                    continue
                }
                if inlineSpecial.contains(byte)
                    || (atBlockStart && index == 0 && blockStartSpecial.contains(byte))
                    || index == orderedDelimiter {
                    out.append(UInt8(ascii: "\\"))
                }
                out.append(byte)
                if taskBox && index == 0 {
                    out.append(contentsOf: separator)
                } else if pairedRun.contains(byte), index + 1 < middle.count, middle[index + 1] == byte,
                          index == 0 || middle[index - 1] != byte,
                          index + 2 == middle.count || middle[index + 2] != byte {
                    out.append(contentsOf: separator)
                } else if byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@"), index + 1 < middle.count, isNameByte(middle[index + 1]) {
                    out.append(contentsOf: separator)
                }
                index += 1
            }
            // a `www.` URL alone in its paragraph would become a link card
            if atBlockStart && middle.count > 4 && middle.prefix(4).map({ $0 | 0x20 }) == Array("www.".utf8) {
                out.append(contentsOf: separator)
            }
        }
        for byte in bytes[end...] { reference(byte) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes of an emoji shortcode's or a user's name after `:` or `@`.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }

    /// Space, tab, vertical tab, form feed: cmark strips them at the ends of a line.
    private static func isEdgeSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0B || byte == 0x0C
    }

    /// 0, 1 or 2 when `bytes` holds U+E000, U+E001 or U+E002 at `index`.
    private static func privateMarker(_ bytes: [UInt8], _ index: Int) -> Int? {
        guard bytes[index] == 0xEE, index + 2 < bytes.count, bytes[index + 1] == 0x80,
              bytes[index + 2] >= 0x80, bytes[index + 2] <= 0x82 else { return nil }
        return Int(bytes[index + 2] - 0x80)
    }

    /// `[ ]`, `[x]` or `[X]`, followed by anything: the dialect looks for the box in the item's first
    /// text node, which may end right after `]` (where an autolink such as `www.…` begins).
    private static func startsWithTaskBox(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "["), bytes[2] == UInt8(ascii: "]") else { return false }
        return bytes[1] == 0x20 || bytes[1] == UInt8(ascii: "x") || bytes[1] == UInt8(ascii: "X")
    }

    /// A bare `http://` or `https://` URL that an autolink can carry unchanged: no spaces, controls
    /// or `<>`, and nothing the dialect would rework inside the link text (a run of two `~`, `*`
    /// or `_`, a private marker U+E000…U+E002).
    public static func isAutolinkable(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else { return false }
        let schemeLength = text.hasPrefix("https://") ? 8 : 7
        guard bytes.count > schemeLength else { return false }
        for (index, byte) in bytes.enumerated() {
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") { return false }
            if pairedRun.contains(byte), index + 1 < bytes.count, bytes[index + 1] == byte { return false }
            if privateMarker(bytes, index) != nil { return false }
        }
        return true
    }
}
