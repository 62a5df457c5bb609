import CCmark

/// `@name` mentions (Qiita's user names: letters, digits, `_` and `-`) linked to the user's page
/// under `mentions.base_url`, and bare e-mail addresses linked with `mailto:`. Neither inside code
/// or links (their text is not split); an address is never read as a mention.
extension Transformer {
    /// Bytes of a Qiita user name.
    @inline(__always) static func isUserNameByte(_ b: UInt8) -> Bool {
        b.isASCIIAlnum || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
    }

    /// Bytes of an e-mail address's local part (GFM's extended autolinks).
    @inline(__always) static func isLocalPartByte(_ b: UInt8) -> Bool {
        b.isASCIIAlnum || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
    }

    /// The end of the user name after the `@` at `at`, when a mention starts there: at a word's
    /// start (not after a letter, digit or an address's characters) and with a letter or digit.
    func mentionEnd(_ lit: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int? {
        guard options.mentionsBaseURL != nil else { return nil }
        if at > 0 {
            let before = lit[at - 1]
            if Transformer.isLocalPartByte(before) || before == UInt8(ascii: "@") || before == UInt8(ascii: "/")
                || before == UInt8(ascii: "`") { return nil }
        }
        var end = at + 1
        var alnum = false
        while end < lit.count && Transformer.isUserNameByte(lit[end]) {
            if lit[end].isASCIIAlnum { alnum = true }
            end += 1
        }
        // `@name@host` and `@name.tld` read as an address or a host: not a mention
        if end < lit.count && (lit[end] == UInt8(ascii: "@") || (lit[end] == UInt8(ascii: ".") && end + 1 < lit.count && lit[end + 1].isASCIIAlnum)) {
            return nil
        }
        return alnum ? end : nil
    }

    /// A link to the user's page with `@name` as its text.
    func mentionLink(_ name: [UInt8], line: Int32) -> Node {
        let link = newNode(CMARK_NODE_LINK)
        withCBytes(Array((options.mentionsBaseURL ?? "").utf8) + name) { _ = cmark_node_set_url(link, $0) }
        append(link, makeText([UInt8(ascii: "@")] + name))
        setLineOverride(link, line)
        return link
    }

    /// The address around the `@` at `at`: its start (at or after `from`) and end, GFM's rules (a
    /// domain with a dot, not ending in `-` or `_`).
    func emailRange(_ lit: UnsafeBufferPointer<UInt8>, _ at: Int, from: Int) -> (start: Int, end: Int)? {
        var start = at
        while start > from && Transformer.isLocalPartByte(lit[start - 1]) { start -= 1 }
        guard start < at else { return nil }
        if start > 0 && (lit[start - 1] == UInt8(ascii: "/") || lit[start - 1] == UInt8(ascii: ":")) { return nil }
        var end = at + 1
        var dots = 0
        while end < lit.count && (lit[end].isASCIIAlnum || lit[end] == UInt8(ascii: "-") || lit[end] == UInt8(ascii: "_") || lit[end] == UInt8(ascii: ".")) {
            end += 1
        }
        // a sentence's full stop is not part of the domain
        while end > at + 1 && lit[end - 1] == UInt8(ascii: ".") { end -= 1 }
        for k in (at + 1)..<max(at + 1, end) where lit[k] == UInt8(ascii: ".") { dots += 1 }
        guard dots > 0, end > at + 1, lit[end - 1].isASCIIAlnum, lit[at + 1].isASCIIAlnum else { return nil }
        return (start, end)
    }

    /// A `mailto:` link for an address.
    func emailLink(_ address: [UInt8], line: Int32) -> Node {
        let link = newNode(CMARK_NODE_LINK)
        withCBytes(Array("mailto:".utf8) + address) { _ = cmark_node_set_url(link, $0) }
        append(link, makeText(address))
        setLineOverride(link, line)
        return link
    }

    /// `@_name_`: cmark read the underscores as emphasis. When an emphasis (or strong) node made
    /// with `_` holds only name bytes and follows text ending in a mention's `@`, the two become
    /// the mention of `_name_`. Returns true when `container` (the emphasis) was replaced.
    func underscoreMention(_ container: Node) -> Bool {
        let t = kind(container)
        guard t == CMARK_NODE_EMPH || t == CMARK_NODE_STRONG,
              let text = cmark_node_first_child(container), cmark_node_next(text) == nil, kind(text) == CMARK_NODE_TEXT,
              let before = cmark_node_previous(container), kind(before) == CMARK_NODE_TEXT,
              let parent = cmark_node_parent(container), !insideLink(parent) else { return false }
        let name = literalBytes(text)
        guard !name.isEmpty, name.allSatisfy({ Transformer.isUserNameByte($0) }) else { return false }
        let lead = literalBytes(before)
        guard let last = lead.last, last == UInt8(ascii: "@") else { return false }
        if lead.count >= 2 {
            let b = lead[lead.count - 2]
            if Transformer.isLocalPartByte(b) || b == UInt8(ascii: "@") || b == UInt8(ascii: "/") { return false }
        }
        // the delimiter as written: `*alice*` stays emphasis
        let line = sourceLine(Int(cmark_node_get_start_line(container)))
        let column = Int(cmark_node_get_start_column(container))
        guard options.mentionsBaseURL != nil, column >= 1, column <= line.count,
              line[line.startIndex + column - 1] == UInt8(ascii: "_") else { return false }
        let marks = t == CMARK_NODE_STRONG ? 2 : 1
        let underscores = [UInt8](repeating: UInt8(ascii: "_"), count: marks)
        let full = underscores + Array(name) + underscores
        let lineNumber = self.line(of: before)
        if lead.count == 1 { cmark_node_free(before) } else { setLiteral(before, Array(lead.dropLast())) }
        replace(container, with: mentionLink(full, line: lineNumber))
        return true
    }
}
