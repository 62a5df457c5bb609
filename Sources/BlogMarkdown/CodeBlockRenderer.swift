/// Fenced code blocks: Qiita's ```` ```lang:filename ```` info strings, ```` ```math ````, and highlighting.
enum CodeBlockRenderer {
    /// The HTML for a code block, or nil to let cmark render it as usual.
    static func render(info rawInfo: [UInt8], code: UnsafeBufferPointer<UInt8>, qiita: Bool, highlight: Bool) -> [UInt8]? {
        let infoWord = rawInfo.prefix(while: { !$0.isWhitespace })
        if !qiita {
            guard highlight, !infoWord.isEmpty, let lang = Language.named(String(decoding: infoWord, as: UTF8.self)) else { return nil }
            var out = Array("<pre><code class=\"language-".utf8)
            appendEscaped(&out, infoWord)
            out.append(contentsOf: Array("\">".utf8))
            SyntaxHighlighter.highlight(code, lang, into: &out)
            out.append(contentsOf: Array("</code></pre>\n".utf8))
            return out
        }
        guard !infoWord.isEmpty else { return nil }
        let word = String(decoding: infoWord, as: UTF8.self)
        var langName = word
        var fileName: String?
        if let colon = word.firstIndex(of: ":") {
            langName = String(word[..<colon])
            let name = String(word[word.index(after: colon)...])
            fileName = name.isEmpty ? nil : name
            if langName.isEmpty, let name = fileName { langName = SyntaxHighlighter.language(forFileName: name) ?? "" }
        } else if let inferred = SyntaxHighlighter.language(forFileName: word), word.contains(".") || Language.fileNames[word.lowercased()] != nil {
            fileName = word
            langName = inferred
        } else if word.contains(".") && Language.named(word) == nil {
            fileName = word
            langName = ""
        }
        let lower = langName.lowercased()
        if lower == "math" {
            var out = Array("<div class=\"math display\">".utf8)
            var body = code[...]
            if body.last == 0x0A { body = body.dropLast() }
            appendEscaped(&out, body)
            out.append(contentsOf: Array("</div>\n".utf8))
            return out
        }
        let language = Language.named(lower)
        let canonical = language?.name ?? lower
        var out: [UInt8] = []
        out.reserveCapacity(code.count * 2 + 128)
        out.append(contentsOf: Array("<div class=\"code-frame\"".utf8))
        if !canonical.isEmpty {
            out.append(contentsOf: Array(" data-lang=\"".utf8))
            appendEscaped(&out, canonical.utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: ">"))
        if let name = fileName {
            out.append(contentsOf: Array("<div class=\"code-lang\">".utf8))
            appendEscaped(&out, name.utf8)
            out.append(contentsOf: Array("</div>".utf8))
        }
        out.append(contentsOf: Array("<pre><code".utf8))
        if !canonical.isEmpty {
            out.append(contentsOf: Array(" class=\"language-".utf8))
            appendEscaped(&out, canonical.utf8)
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: ">"))
        if highlight, let language {
            SyntaxHighlighter.highlight(code, language, into: &out)
        } else {
            appendEscaped(&out, code)
        }
        out.append(contentsOf: Array("</code></pre></div>\n".utf8))
        return out
    }
}
