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
