/// Fenced code blocks: Qiita's ```` ```lang:filename ```` info strings, ```` ```math ````, and highlighting.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BlogCore
import Synchronization

/// The cache behind `CodeBlockRenderer.cachedPlan` (slots read and written under the lock).
final class PlanCache: Sendable {
    /// One cached info string and its plan. A class, like `SharedPlan`: a hit is then a retain or two,
    /// where a struct entry would copy its arrays and the plan's out of the slot and back.
    final class Entry: Sendable {
        let info: [UInt8]
        let qiita: Bool
        let highlight: Bool
        let plan: CodeBlockRenderer.SharedPlan?
        init(info: [UInt8], qiita: Bool, highlight: Bool, plan: CodeBlockRenderer.SharedPlan?) {
            self.info = info
            self.qiita = qiita
            self.highlight = highlight
            self.plan = plan
        }
    }
    static let shared = PlanCache()
    let slots = Mutex([Entry?](repeating: nil, count: 512))
}

enum CodeBlockRenderer {
    /// What an info string asks for: the language name as written out (lowercase) or the file name.
    struct Info {
        var math = false
        /// The lexer, if the name is one we highlight.
        var language: Language?
        /// `data-lang` / `language-` value; empty for none.
        var canonical: [UInt8] = []
        var fileName: [UInt8]?
        /// `{linenos}` after the language: the frame gets the class `linenos` (themes number its lines).
        var lineNumbers = false
    }

    /// How a code block with a given info string is written (the same for every block with that info).
    struct Plan {
        enum Kind {
            /// Plain CommonMark options with highlighting: `<pre><code class="language-WORD">`.
            case plainHighlight(Language)
            case math
            /// The Qiita frame (`code-frame`, file name, `language-` class).
            case frame
        }
        var kind: Kind
        var infoWord: [UInt8] = []
        var info = Info()
    }

    /// A plan by reference: the code blocks of a document (and the cache) share one per info string
    /// instead of copying the struct and its arrays for each block.
    final class SharedPlan: @unchecked Sendable {
        let plan: Plan
        init(_ plan: Plan) { self.plan = plan }
    }

    /// The plan for a code block's info string, or nil to let the block be written as CommonMark does.
    static func plan(info rawInfo: UnsafeBufferPointer<UInt8>, qiita: Bool, highlight: Bool) -> Plan? {
        var wordEnd = 0
        while wordEnd < rawInfo.count && !rawInfo[wordEnd].isWhitespace { wordEnd += 1 }
        let infoWord = UnsafeBufferPointer(rebasing: rawInfo[0..<wordEnd])
        if !qiita {
            guard highlight, !infoWord.isEmpty, let lang = Language.named(bytes: infoWord) else { return nil }
            return Plan(kind: .plainHighlight(lang), infoWord: Array(infoWord))
        }
        guard !infoWord.isEmpty else { return nil }
        var info = infoWord.allSatisfy({ $0 < 0x80 }) ? parseASCII(infoWord) : parseString(infoWord)
        if info.math { return Plan(kind: .math) }
        info.lineNumbers = asksForLineNumbers(UnsafeBufferPointer(rebasing: rawInfo[wordEnd...]))
        return Plan(kind: .frame, info: info)
    }

    /// `plan(info:qiita:highlight:)` through a small process-wide cache: a site's code blocks share a
    /// few hundred info strings at most, and working one out (file name, language lookups) is far
    /// dearer than a lookup. Direct-mapped, 512 slots by a hash of the info bytes and options.
    static func cachedPlan(info: UnsafeBufferPointer<UInt8>, qiita: Bool, highlight: Bool) -> SharedPlan? {
        guard info.count <= 64 else { return plan(info: info, qiita: qiita, highlight: highlight).map(SharedPlan.init) }
        var hash = FNV1a64()
        hash.add(UInt8(qiita ? 1 : 0) | UInt8(highlight ? 2 : 0))
        hash.add(info)
        let slot = Int(truncatingIfNeeded: (hash.value >> 32) & 511)
        // An entry never changes once made, so it is compared outside the lock.
        if let e = PlanCache.shared.slots.withLock({ $0[slot] }), e.qiita == qiita, e.highlight == highlight, e.info.count == info.count,
           e.info.withUnsafeBufferPointer({ $0.isEmpty || memcmp($0.baseAddress!, info.baseAddress!, info.count) == 0 }) {
            return e.plan
        }
        let made = plan(info: info, qiita: qiita, highlight: highlight).map(SharedPlan.init)
        let entry = PlanCache.Entry(info: Array(info), qiita: qiita, highlight: highlight, plan: made)
        PlanCache.shared.slots.withLock { $0[slot] = entry }
        return made
    }

    /// Whether the words after an info string's first hold `{linenos}`.
    static func asksForLineNumbers(_ rest: UnsafeBufferPointer<UInt8>) -> Bool {
        let word = Array("{linenos}".utf8)
        guard rest.count >= word.count else { return false }
        for start in 0...(rest.count - word.count) where rest[start] == word[0] {
            if (0..<word.count).allSatisfy({ rest[start + $0] == word[$0] }) { return true }
        }
        return false
    }

    /// Writes a code block's HTML (with its final newline) as the plan says.
    static func write(_ plan: Plan, code: UnsafeBufferPointer<UInt8>, highlight: Bool, into out: inout ByteBuffer) {
        switch plan.kind {
        case .plainHighlight(let lang):
            out.append(static: "<pre><code class=\"language-")
            plan.infoWord.withUnsafeBufferPointer { out.appendEscaped($0) }
            out.append(static: "\">")
            SyntaxHighlighter.highlight(code, lang, into: &out)
            out.append(static: "</code></pre>\n")
        case .math:
            out.append(static: "<div class=\"math display\">")
            var body = code
            if body.last == 0x0A { body = UnsafeBufferPointer(rebasing: body.dropLast()) }
            out.appendEscaped(body)
            out.append(static: "</div>\n")
        case .frame:
            let info = plan.info
            let canonical = info.canonical
            out.append(static: info.lineNumbers ? "<div class=\"code-frame linenos\"" : "<div class=\"code-frame\"")
            if !canonical.isEmpty {
                out.append(static: " data-lang=\"")
                canonical.withUnsafeBufferPointer { out.appendEscaped($0) }
                out.append(UInt8(ascii: "\""))
            }
            out.append(UInt8(ascii: ">"))
            if let name = info.fileName {
                out.append(static: "<div class=\"code-lang\">")
                name.withUnsafeBufferPointer { out.appendEscaped($0) }
                out.append(static: "</div>")
            }
            out.append(static: "<pre><code")
            if !canonical.isEmpty {
                out.append(static: " class=\"language-")
                canonical.withUnsafeBufferPointer { out.appendEscaped($0) }
                out.append(UInt8(ascii: "\""))
            }
            out.append(UInt8(ascii: ">"))
            if highlight, let language = info.language {
                SyntaxHighlighter.highlight(code, language, into: &out)
            } else {
                out.appendEscaped(code)
            }
            out.append(static: "</code></pre></div>\n")
        }
    }

    /// The info word when it is all ASCII: lookups on bytes, ASCII lowercasing (the same as
    /// `lowercased()` for ASCII).
    static func parseASCII(_ word: UnsafeBufferPointer<UInt8>) -> Info {
        var langName: UnsafeBufferPointer<UInt8> = word
        var fileName: UnsafeBufferPointer<UInt8>?
        let hasDot = word.contains(UInt8(ascii: "."))
        var languageFromFile: Language?
        var fromFile = false
        if let colon = word.firstIndex(of: UInt8(ascii: ":")) {
            langName = UnsafeBufferPointer(rebasing: word[..<colon])
            let name = UnsafeBufferPointer(rebasing: word[(colon + 1)...])
            fileName = name.isEmpty ? nil : name
            if langName.isEmpty, !name.isEmpty {
                languageFromFile = Language.forFileName(bytes: name)
                fromFile = true
            }
        } else if let lang = Language.forFileName(bytes: word), hasDot || Language.fileNameKnown(bytes: word) {
            fileName = word
            languageFromFile = lang
            fromFile = true
        } else if hasDot && Language.named(bytes: word) == nil {
            fileName = word
            fromFile = true // no language
        }
        var info = Info()
        info.fileName = fileName.map { Array($0) }
        if fromFile {
            // a canonical name (or none), never "math"
            info.language = languageFromFile
            info.canonical = languageFromFile.map { Array($0.name.utf8) } ?? []
            return info
        }
        var lower = Array(langName)
        for k in lower.indices { lower[k] = lower[k].lowerASCII }
        if lower.elementsEqual("math".utf8) { return Info(math: true) }
        let language = lower.withUnsafeBufferPointer { Language.named(bytes: $0) }
        info.language = language
        info.canonical = language.map { Array($0.name.utf8) } ?? lower
        return info
    }

    /// The general form (any Unicode in the info word), through `String`.
    static func parseString(_ infoWord: UnsafeBufferPointer<UInt8>) -> Info {
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
        var info = Info()
        if lower == "math" { info.math = true; return info }
        let language = Language.named(lower)
        info.language = language
        info.canonical = Array((language?.name ?? lower).utf8)
        info.fileName = fileName.map { Array($0.utf8) }
        return info
    }
}
