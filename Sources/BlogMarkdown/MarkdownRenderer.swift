import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#endif

/// Options for rendering one document.
public struct MarkdownOptions: Sendable, Hashable {
    /// Newlines inside a paragraph become `<br />` (Qiita's behaviour).
    public var hardBreaks: Bool
    /// Raw HTML passes through untouched (trusted archives only).
    public var unsafeHTML: Bool
    /// The Qiita dialect (tables, notes, code file names, math, footnotes...).
    public var qiitaExtensions: Bool
    /// Server-side syntax highlighting of fenced code.
    public var highlightCode: Bool

    public init(hardBreaks: Bool = true, unsafeHTML: Bool = false, qiitaExtensions: Bool = true, highlightCode: Bool = true) {
        self.hardBreaks = hardBreaks
        self.unsafeHTML = unsafeHTML
        self.qiitaExtensions = qiitaExtensions
        self.highlightCode = highlightCode
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

    public init(html: String, headings: [Heading] = [], plainText: String = "", codeText: String = "", links: [MarkdownLink] = []) {
        self.html = html
        self.headings = headings
        self.plainText = plainText
        self.codeText = codeText
        self.links = links
    }
}

/// Renders Markdown (Qiita's dialect) to HTML with libcmark. Thread-safe: keep one, call from many threads.
public struct MarkdownRenderer: Sendable {
    public let options: MarkdownOptions

    public init(options: MarkdownOptions = MarkdownOptions()) {
        self.options = options
    }

    public func render(_ markdown: String) -> RenderedMarkdown {
        var flags = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8
        if options.hardBreaks { flags |= CMARK_OPT_HARDBREAKS }
        if options.unsafeHTML { flags |= CMARK_OPT_UNSAFE }
        let html: String = markdown.withCString { pointer in
            guard let out = cmark_markdown_to_html(pointer, strlen(pointer), flags) else { return "" }
            defer { free(out) }
            return String(cString: out)
        }
        return RenderedMarkdown(html: html)
    }
}
