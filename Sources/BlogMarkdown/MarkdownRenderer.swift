import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Options for rendering one document.
public struct MarkdownOptions: Sendable, Hashable {
    /// Newlines inside a paragraph become `<br />` (Qiita's behaviour).
    public var hardBreaks: Bool
    /// Raw HTML passes through as written (trusted archives only), but for URLs that would run
    /// script (`javascript:`, `vbscript:`, `data:` other than images), which are removed still.
    public var unsafeHTML: Bool
    /// The Qiita dialect (tables, notes, code file names, math, footnotes...).
    public var qiitaExtensions: Bool
    /// Server-side syntax highlighting of fenced code.
    public var highlightCode: Bool
    /// The `<script src>` of allowed embeds is kept (`embeds.scripts`); by default only their
    /// static fallback is.
    public var embedScripts: Bool
    /// Where `@name` links to (`mentions.base_url`, ending in `/`); nil: mentions stay text.
    public var mentionsBaseURL: String?

    /// Math as MathML (converted at build time) or kept as TeX.
    public var math: MathOutput

    public static let qiitaUsers = "https://qiita.com/"

    public init(hardBreaks: Bool = true, unsafeHTML: Bool = false, qiitaExtensions: Bool = true, highlightCode: Bool = true,
                embedScripts: Bool = false, mentionsBaseURL: String? = MarkdownOptions.qiitaUsers, math: MathOutput = .mathml) {
        self.hardBreaks = hardBreaks
        self.unsafeHTML = unsafeHTML
        self.qiitaExtensions = qiitaExtensions
        self.highlightCode = highlightCode
        self.embedScripts = embedScripts
        self.mentionsBaseURL = mentionsBaseURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.math = math
    }
}

/// A heading of the document, for the table of contents.
public struct Heading: Sendable, Hashable {
    public var level: Int
    public var text: String
    public var id: String

    public init(level: Int, text: String, id: String) {
        self.level = level
        self.text = text
        self.id = id
    }
}

/// A link found in the document, with the Markdown line it came from (for `blog check`).
public struct MarkdownLink: Sendable, Hashable {
    public var destination: String
    public var line: Int

    public init(destination: String, line: Int) {
        self.destination = destination
        self.line = line
    }
}

/// The result of rendering one document.
public struct RenderedMarkdown: Sendable {
    /// The HTML body.
    public var html: String
    /// Headings in document order with their anchor ids.
    public var headings: [Heading]
    /// Prose text without markup and without code blocks (summaries, reading time, search).
    public var plainText: String
    /// Text of code blocks and inline code (search).
    public var codeText: String
    /// Links and images with their source lines.
    public var links: [MarkdownLink]
    /// Formulas kept as TeX because they did not convert, one per problem (the first line it is on).
    public var mathProblems: [MathProblem]
    /// False only when the HTML certainly holds no `<img>` (no image and no raw HTML was written).
    public var mayHaveImages: Bool

    public init(html: String, headings: [Heading] = [], plainText: String = "", codeText: String = "", links: [MarkdownLink] = [],
                mathProblems: [MathProblem] = [], mayHaveImages: Bool = true) {
        self.html = html
        self.headings = headings
        self.plainText = plainText
        self.codeText = codeText
        self.links = links
        self.mathProblems = mathProblems
        self.mayHaveImages = mayHaveImages
    }
}

/// A String from UTF-8 bytes. `trusted` bytes are valid UTF-8 by construction (cmark's literals of a
/// valid document cut only before ASCII bytes, ASCII markup, custom HTML checked by `isValidUTF8`),
/// so they are copied without validating them again; other bytes are repaired like `String(decoding:)`.
/// Debug builds check the claim.
@inline(__always) func makeString(_ bytes: inout [UInt8], trusted: Bool) -> String {
    bytes.withUnsafeBufferPointer { makeString($0, trusted: trusted) }
}

@inline(__always) func makeString(_ buffer: UnsafeBufferPointer<UInt8>, trusted: Bool) -> String {
    guard trusted else { return String(decoding: buffer, as: UTF8.self) }
    assert(isValidUTF8(buffer), "BlogMarkdown produced invalid UTF-8")
    guard buffer.count > 0 else { return "" }
    return String(copying: unsafe UTF8Span(unchecked: unsafe Span(_unsafeElements: buffer)))
}

/// Renders Markdown (Qiita's dialect) to HTML with libcmark. Thread-safe: keep one, call from many threads.
public struct MarkdownRenderer: Sendable {
    public let options: MarkdownOptions
    /// Whether the bodies of top-level fenced code blocks bypass cmark (see Prepass.swift); off only
    /// in tests that compare both ways.
    var fenceBypass = true
    /// Documents longer than this (bytes) are rendered in sections (see `renderSectioned`); tests
    /// lower it to compare both ways.
    var sectionThreshold = 2 << 20
    /// The least length of a section (bytes): a section ends at the first cut after it.
    var sectionSize = 1 << 20

    public init(options: MarkdownOptions = MarkdownOptions()) {
        self.options = options
    }

    /// Renders one document. Parses with cmark, applies the dialect on the tree, renders with cmark.
    public func render(_ markdown: String) -> RenderedMarkdown {
        var markdown = markdown
        return markdown.withUTF8 { render(validUTF8: $0) }
    }

    /// `render(_:)` of bytes that must be valid UTF-8 (e.g. a part of a String cut before an
    /// ASCII byte): a file's body is rendered from the file's text without copying it out first.
    public func render(validUTF8 markdown: UnsafeBufferPointer<UInt8>) -> RenderedMarkdown {
        assert(String(validating: markdown, as: UTF8.self) != nil, "render(validUTF8:) was given invalid UTF-8")
        // The text is parsed where it is (no copy) unless the pre-pass had to change it.
        guard options.qiitaExtensions else { return render(source: markdown, prepass: nil)! }
        if markdown.count > sectionThreshold, let result = renderSectioned(markdown) { return result }
        if let result = render(markdown, prepass: Prepass.run(markdown, bypassFences: fenceBypass)) { return result }
        // a bypassed fence was not parsed as expected: once more without the bypass
        return render(markdown, prepass: Prepass.run(markdown, bypassFences: false))!
    }

    private func render(_ markdown: UnsafeBufferPointer<UInt8>, prepass: Prepass) -> RenderedMarkdown? {
        guard let changed = prepass.bytes else { return render(source: markdown, prepass: prepass) }
        return changed.withUnsafeBufferPointer { render(source: $0, prepass: prepass) }
    }

    /// Parses `source` (the text after the pre-pass) and writes the results. Nil when the pre-pass's
    /// bypassed fences are not in the tree as expected (never without any).
    private func render(source: UnsafeBufferPointer<UInt8>, prepass: Prepass?) -> RenderedMarkdown? {
        // The bytes come from a Swift String (always valid UTF-8) and the pre-pass only inserts whole
        // UTF-8 sequences, so cmark's own UTF-8 validation (a sizeable share of its parse time) is skipped.
        let parseFlags = CMARK_OPT_DEFAULT
        guard let doc = parseDocument(source, options: parseFlags) else { return RenderedMarkdown(html: "") }
        // The tree is freed as soon as the HTML is written, before it is copied out: a very large
        // document then never holds both at once.
        var released = false
        func releaseTree() {
            guard !released else { return }
            released = true
            cmark_node_free(doc)
        }
        defer { releaseTree() }
        if let prepass, !prepass.restoreFenceBodies(doc) { return nil }

        let transformer = Transformer(options: options, parseFlags: parseFlags, source: source, prepass: prepass)
        transformer.run(doc)

        let html = transformer.renderHTML(doc, hardBreaks: options.hardBreaks, unsafe: options.unsafeHTML)
        // The tree goes before the results are copied out, so that it and the copies never
        // take memory at the same time; each buffer goes as soon as its copy is made.
        releaseTree()
        let htmlString = makeString(html.bytes, trusted: transformer.payloadsValid)
        html.deallocate()
        var plain = transformer.plainText.bytes
        while let last = plain.last, last == 0x0A || last == 0x20 { plain = UnsafeBufferPointer(rebasing: plain.dropLast()) }
        let plainString = makeString(plain, trusted: true)
        transformer.plainText.deallocate()
        let codeString = makeString(transformer.codeText.bytes, trusted: true)
        transformer.codeText.deallocate()
        return RenderedMarkdown(html: htmlString,
                                headings: transformer.headings,
                                plainText: plainString,
                                codeText: codeString,
                                links: transformer.links,
                                mathProblems: transformer.mathProblems,
                                mayHaveImages: transformer.mayHaveImages)
    }

    // MARK: - sections

    /// Renders a large document a section at a time: each is pre-passed, parsed, transformed and
    /// written, and its tree freed, before the next is parsed, so that cmark's tree (several times
    /// the text) is never held for the whole document. The result is that of rendering the document
    /// whole: a section starts on a line where the pre-pass holds no state (`Prepass.sectionCuts`)
    /// and cmark has closed every block before it (checked by parsing the section with that line
    /// after it: the line must start a top-level block); what the transforms carry across the
    /// document (heading ids, the text buffers, the HTML's and plain text's last byte, lines) is
    /// handed from one section to the next, and lists filled in two phases (links, code text, math
    /// problems) are joined phase by phase; the HTML and plain text are kept in pieces until the end
    /// (see `SectionState`). Nil (render it whole) when the document has `]:`
    /// (link reference and footnote definitions are resolved across the whole document), a `\r`
    /// (cmark would count lines the pre-pass does not), no cut, or a note left open at the top
    /// level of a section (a later marker could close it).
    func renderSectioned(_ markdown: UnsafeBufferPointer<UInt8>) -> RenderedMarkdown? {
        guard let base = markdown.baseAddress else { return nil }
        let n = markdown.count
        guard memchr(base, 0x0D, n) == nil, !containsBracketColon(markdown) else { return nil }
        let cuts = Prepass.sectionCuts(markdown, spacing: sectionSize)
        guard !cuts.isEmpty else { return nil }
        var state = SectionState(sectionSize: sectionSize)
        var start = 0, linesBefore = 0, next = 0, retries = 0
        while start < n {
            let end = next < cuts.count ? cuts[next].offset : n
            switch renderSection(markdown, start..<end, linesBefore: linesBefore, state: &state) {
            case .done:
                retries = 0
                start = end
                if next < cuts.count { linesBefore = cuts[next].linesBefore }
                next += 1
            case .notClosed:
                // A block is still open at the cut: the section runs on to the next one. A document
                // whose blocks stay open across cuts (one long list, an unclosed HTML block) is
                // rendered whole rather than parsed again and again in ever longer sections.
                next += 1
                retries += 1
                if retries > 3 {
                    state.deallocate()
                    return nil
                }
            case .wholeOnly:
                state.deallocate()
                return nil
            }
        }
        return state.result()
    }

    private enum SectionOutcome { case done, notClosed, wholeOnly }

    /// What the sections of one document hand on, and their results so far.
    private struct SectionState {
        /// Each section's HTML and plain text, kept as pieces of their size and joined at the end,
        /// each unmapped once copied: the joined text and all its pieces never take memory at once.
        /// (Mapped rather than allocated: the allocator would keep freed pieces' pages.)
        var htmlPieces: [MappedBytes] = [], plainPieces: [MappedBytes] = []
        /// The buffers the HTML writer writes a section into, reused. Each starts with the last byte
        /// of the text before, which the writer looks at (whether a newline is needed), and which
        /// is left out of the piece.
        var htmlScratch: ByteBuffer
        var plainScratch: ByteBuffer
        /// Code block text (written by the transforms) and inline code (by the HTML writer): the
        /// whole document's code text is all of the first, then all of the second.
        var blockCode = ByteBuffer(capacity: 256)
        var inlineCode = ByteBuffer(capacity: 0)
        var usedSlugs = Transformer.SlugTable()
        var headings: [Heading] = []
        /// Links and math problems found by the transforms and by the HTML writer, joined the same way.
        var transformLinks: [MarkdownLink] = [], writerLinks: [MarkdownLink] = []
        var transformProblems: [MathProblem] = [], writerProblems: [MathProblem] = []
        var mayHaveImages = false
        var payloadsValid = true

        init(sectionSize: Int) {
            htmlScratch = ByteBuffer(capacity: sectionSize * 3 + 256)
            plainScratch = ByteBuffer(capacity: sectionSize + 64)
        }

        func deallocate() {
            for piece in htmlPieces + plainPieces { piece.unmap() }
            htmlScratch.deallocate()
            plainScratch.deallocate()
            blockCode.deallocate()
            inlineCode.deallocate()
        }

        /// A scratch buffer emptied and started with the last byte written so far (if any).
        static func restart(_ scratch: inout ByteBuffer, after pieces: [MappedBytes]) -> Int {
            scratch.count = 0
            guard let last = pieces.last?.bytes.last else { return 0 }
            scratch.append(last)
            return 1
        }

        /// The scratch buffer's bytes after the first `skip` as a piece.
        static func keep(_ scratch: ByteBuffer, skip: Int, in pieces: inout [MappedBytes]) {
            guard scratch.count > skip else { return }
            pieces.append(MappedBytes(UnsafeBufferPointer(rebasing: scratch.bytes[skip...])))
        }

        /// The pieces as one String, each freed once copied. Invalid UTF-8 is repaired as by
        /// `String(decoding:)` (the whole-document path's `makeString` of untrusted bytes).
        static func join(_ pieces: inout [MappedBytes]) -> String {
            let total = pieces.reduce(0) { $0 + $1.count }
            defer { pieces = [] }
            guard total > 0 else { return "" }
            return String(unsafeUninitializedCapacity: total) { buffer in
                var at = 0
                for piece in pieces {
                    (buffer.baseAddress! + at).update(from: piece.bytes.baseAddress!, count: piece.count)
                    at += piece.count
                    piece.unmap()
                }
                return total
            }
        }

        mutating func result() -> RenderedMarkdown {
            htmlScratch.deallocate()
            plainScratch.deallocate()
            let htmlString = Self.join(&htmlPieces)
            // the plain text without the blanks it ends with, as the whole-document path trims it
            while let last = plainPieces.last?.bytes.last, last == 0x0A || last == 0x20 {
                plainPieces[plainPieces.count - 1].count -= 1
                if plainPieces[plainPieces.count - 1].count == 0 { plainPieces.removeLast().unmap() }
            }
            let plainString = Self.join(&plainPieces)
            var code = ByteBuffer(capacity: blockCode.count + inlineCode.count)
            code.append(blockCode.bytes)
            code.append(inlineCode.bytes)
            blockCode.deallocate()
            inlineCode.deallocate()
            let codeString = makeString(code.bytes, trusted: true)
            code.deallocate()
            // each message once, at its first place in the whole document's order
            var problems: [MathProblem] = []
            for problem in transformProblems + writerProblems where !problems.contains(where: { $0.message == problem.message }) {
                problems.append(problem)
            }
            return RenderedMarkdown(html: htmlString, headings: headings, plainText: plainString, codeText: codeString,
                                    links: transformLinks + writerLinks, mathProblems: problems, mayHaveImages: mayHaveImages)
        }
    }

    /// One section (`range` of `markdown`, whole lines): rendered into `state` (`.done`), or not
    /// touched when cmark has a block still open at its end (`.notClosed`) or the document must be
    /// rendered whole (`.wholeOnly`).
    private func renderSection(_ markdown: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, linesBefore: Int,
                               state: inout SectionState) -> SectionOutcome {
        let section = UnsafeBufferPointer(rebasing: markdown[range])
        // The first line after the section, as the pre-pass makes it within the whole text: its
        // state is the initial one there, and it looks past the line only for a `$$` line (up to a
        // blank line at most).
        var nextLine: [UInt8] = []
        if range.upperBound < markdown.count {
            let rest = UnsafeBufferPointer(rebasing: markdown[range.upperBound...])
            let window = UnsafeBufferPointer(rebasing: rest[..<nextLineWindow(rest)])
            let pass = Prepass.run(window, bypassFences: false)
            let lineEnd = pass.lineStarts.count > 1 ? pass.lineStarts[1] : (pass.bytes?.count ?? window.count)
            if let bytes = pass.bytes { nextLine = Array(bytes[..<lineEnd]) } else { nextLine = Array(window[..<lineEnd]) }
        }
        for bypass in fenceBypass ? [true, false] : [false] {
            let prepass = Prepass.run(section, bypassFences: bypass)
            guard !prepass.sawFootnotes else { return .wholeOnly }
            let outcome: SectionOutcome? = withParsedText(section, prepass, nextLine) { source, parsed in
                renderSection(source: source, parsed: parsed, prepass: prepass, checkLine: !nextLine.isEmpty,
                              linesBefore: linesBefore, last: range.upperBound == markdown.count, state: &state)
            }
            if let outcome { return outcome }
        }
        return .wholeOnly // (not reached: without the bypass, the fence check always passes)
    }

    /// Calls `body` with the section's text after the pre-pass (`source`) and the text to parse:
    /// `source` and then `nextLine`.
    private func withParsedText<R>(_ section: UnsafeBufferPointer<UInt8>, _ prepass: Prepass, _ nextLine: [UInt8],
                                   _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> R) -> R {
        if nextLine.isEmpty {
            if let bytes = prepass.bytes { return bytes.withUnsafeBufferPointer { body($0, $0) } }
            return body(section, section)
        }
        var text: [UInt8] = []
        let sourceCount = prepass.bytes?.count ?? section.count
        text.reserveCapacity(sourceCount + nextLine.count)
        if let bytes = prepass.bytes { text.append(contentsOf: bytes) } else { text.append(contentsOf: section) }
        text.append(contentsOf: nextLine)
        return text.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[..<sourceCount]), $0) }
    }

    /// Nil when a bypassed fence was not parsed as expected (the section is then pre-passed again
    /// without the bypass).
    private func renderSection(source: UnsafeBufferPointer<UInt8>, parsed: UnsafeBufferPointer<UInt8>, prepass: Prepass,
                               checkLine: Bool, linesBefore: Int, last: Bool, state: inout SectionState) -> SectionOutcome? {
        let parseFlags = CMARK_OPT_DEFAULT
        guard let doc = parseDocument(parsed, options: parseFlags) else { return .wholeOnly }
        defer { cmark_node_free(doc) }
        if checkLine {
            // The line after the section must start a top-level block: cmark then closed every
            // block of the section on it, as in the whole text, and parses the rest from scratch.
            var lines: Int32 = 0
            if let p = source.baseAddress {
                var k = 0
                while k < source.count, let q = memchr(p + k, 0x0A, source.count - k) {
                    k = UnsafeRawPointer(q).assumingMemoryBound(to: UInt8.self) - p + 1
                    lines += 1
                }
            }
            guard let after = cmark_node_last_child(doc), cmark_node_get_start_line(after) == lines + 1 else { return .notClosed }
            cmark_node_free(after)
        }
        guard prepass.restoreFenceBodies(doc) else { return nil }

        let transformer = Transformer(options: options, parseFlags: parseFlags, source: source, prepass: prepass)
        transformer.lineBase = Int32(linesBefore)
        transformer.usedSlugs = state.usedSlugs
        // code block text goes on after that of the sections before (the transforms look at its last byte)
        transformer.codeText.deallocate()
        transformer.codeText = state.blockCode
        transformer.run(doc)
        state.blockCode = transformer.codeText
        transformer.codeText = state.inlineCode
        if transformer.openNoteAtTop && !last {
            state.inlineCode = transformer.codeText
            transformer.plainText.deallocate()
            return .wholeOnly
        }
        state.usedSlugs = transformer.usedSlugs
        state.headings += transformer.headings
        state.transformLinks += transformer.links
        transformer.links = []
        state.transformProblems += transformer.mathProblems
        transformer.mathProblems = []
        let htmlSkip = SectionState.restart(&state.htmlScratch, after: state.htmlPieces)
        let plainSkip = SectionState.restart(&state.plainScratch, after: state.plainPieces)
        transformer.plainText.deallocate()
        transformer.plainText = state.plainScratch
        transformer.carriesText = true
        state.htmlScratch = transformer.renderHTML(doc, hardBreaks: options.hardBreaks, unsafe: options.unsafeHTML, continuing: state.htmlScratch)
        state.plainScratch = transformer.plainText
        SectionState.keep(state.htmlScratch, skip: htmlSkip, in: &state.htmlPieces)
        SectionState.keep(state.plainScratch, skip: plainSkip, in: &state.plainPieces)
        state.inlineCode = transformer.codeText
        state.writerLinks += transformer.links
        state.writerProblems += transformer.mathProblems
        state.mayHaveImages = state.mayHaveImages || transformer.mayHaveImages
        state.payloadsValid = state.payloadsValid && transformer.payloadsValid
        return .done
    }

    /// Plain libcmark (`cmark_markdown_to_html`, CommonMark only) for benchmarks and comparisons:
    /// `make bench` can time this against `render` on the same corpus.
    public static func renderPlainCmark(_ markdown: String, unsafe: Bool = true, hardBreaks: Bool = false) -> String {
        var flags = CMARK_OPT_DEFAULT
        if unsafe { flags |= CMARK_OPT_UNSAFE }
        if hardBreaks { flags |= CMARK_OPT_HARDBREAKS }
        let bytes = Array(markdown.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> String in
            let out: UnsafeMutablePointer<CChar>?
            if let base = buffer.baseAddress {
                out = base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { cmark_markdown_to_html($0, buffer.count, flags) }
            } else {
                out = cmark_markdown_to_html("", 0, flags)
            }
            guard let out else { return "" }
            defer { free(out) }
            return String(cString: out)
        }
    }
}


/// Whether `text` holds `]:`.
private func containsBracketColon(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = text.baseAddress else { return false }
    var k = 0
    while k < text.count, let p = memchr(base + k, Int32(UInt8(ascii: "]")), text.count - k) {
        k = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self) - base + 1
        if k < text.count && text[k] == UInt8(ascii: ":") { return true }
    }
    return false
}

/// The length of `text`'s first line, or, when that line starts with `$$` (after blanks), of `text`
/// up to and including its first blank line (spaces and tabs only) or all of it.
private func nextLineWindow(_ text: UnsafeBufferPointer<UInt8>) -> Int {
    guard let base = text.baseAddress else { return 0 }
    var first = 0
    while first < text.count && (text[first] == 0x20 || text[first] == 0x09) { first += 1 }
    if !(first + 1 < text.count && text[first] == UInt8(ascii: "$") && text[first + 1] == UInt8(ascii: "$")) {
        guard let p = memchr(base, 0x0A, text.count) else { return text.count }
        return UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self) - base + 1
    }
    var start = 0
    while start < text.count {
        var end = text.count
        if let p = memchr(base + start, 0x0A, text.count - start) { end = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self) - base }
        var i = start
        while i < end && (text[i] == 0x20 || text[i] == 0x09) { i += 1 }
        let lineEnd = end < text.count ? end + 1 : end
        if i == end { return lineEnd }
        start = lineEnd
    }
    return text.count
}

/// Bytes in pages of their own (`mmap`), given back to the system by `unmap`.
private struct MappedBytes {
    let base: UnsafeMutablePointer<UInt8>
    let mapped: Int
    var count: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        mapped = max(bytes.count, 1)
        #if canImport(Glibc)
        let flags = MAP_PRIVATE | MAP_ANONYMOUS
        #else
        let flags = MAP_PRIVATE | MAP_ANON
        #endif
        guard let p = mmap(nil, mapped, PROT_READ | PROT_WRITE, flags, -1, 0), p != MAP_FAILED else {
            fatalError("out of memory: mmap of \(mapped) bytes failed")
        }
        base = p.assumingMemoryBound(to: UInt8.self)
        base.update(from: bytes.baseAddress!, count: bytes.count)
        count = bytes.count
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    func unmap() { munmap(base, mapped) }
}
