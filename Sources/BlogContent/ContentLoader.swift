import BlogCore
import BlogMarkdown
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loads `content/`: reads every Markdown file, parses front matter, renders Markdown on all cores.
public struct ContentLoader {
    public var siteDirectory: URL
    public var config: SiteConfig
    /// How many errors to list before giving up on the rest.
    public var errorLimit = 50

    public init(siteDirectory: URL, config: SiteConfig) {
        self.siteDirectory = siteDirectory
        self.config = config
    }

    /// The Markdown files under `content/`, as paths relative to the site folder, sorted. Hidden
    /// files and folders are skipped; symbolic links are followed under `SiteFiles`' rules, whose
    /// errors (a link out of the site, a loop, a FIFO named `.md`) this throws.
    public func markdownFiles() throws -> [String] {
        try config.siteFiles(siteDirectory).files(under: "content") { $0.hasSuffix(".md") || $0.hasSuffix(".markdown") }
            .map { "content/" + $0 }
    }

    /// The site folder's path with a trailing `/`, made once per listing or load (URL path
    /// arithmetic per file cost more than reading the file).
    private var folderPath: String {
        siteDirectory.path.hasSuffix("/") ? siteDirectory.path : siteDirectory.path + "/"
    }

    /// One file's outcome.
    enum Loaded {
        case post(Post)
        case page(Page)
        case failed
    }

    /// The result of loading one Markdown file.
    public struct LoadedFile: Sendable {
        public var path: String
        public var post: Post?
        public var page: Page?
        /// Errors and warnings of this file.
        public var diagnostics: [Diagnostic]
        /// A post's body when it was left unrendered (`loadFiles(_:deferringPostBodies: true)`).
        public var pendingBody: PendingBody?
    }

    /// A post's Markdown body, read and checked but not rendered yet: `renderBody` renders it.
    public struct PendingBody: Sendable {
        /// The whole file, valid UTF-8, and where the body starts in it.
        let text: [UInt8]
        let offset: Int

        /// An empty body: put in the place of one rendered already, so that its text is let go.
        public static let empty = PendingBody(text: [], offset: 0)
    }

    /// Renders the bodies `loadFiles` left pending as it would have rendered them. Thread-safe.
    public struct BodyRenderer: Sendable {
        let renderer: MarkdownRenderer

        /// Gives `post` (loaded with `body` pending) its rendered body (`Post.setContent`).
        public func render(_ body: PendingBody, into post: inout Post) {
            post.setContent(ContentLoader.renderBody(body, with: renderer))
        }
    }

    /// The renderer for bodies left pending, set up from the site's configuration as `loadFiles`'s.
    public func bodyRenderer() -> BodyRenderer {
        BodyRenderer(renderer: markdownRenderer())
    }

    func markdownRenderer() -> MarkdownRenderer {
        MarkdownRenderer(options: MarkdownOptions(hardBreaks: config.markdownHardBreaks, unsafeHTML: config.markdownUnsafe,
                                                  embedScripts: config.embedScripts, mentionsBaseURL: config.mentionsBaseURL,
                                                  math: config.markdownMath))
    }

    /// `file:line: unsupported TeX command \foo` for each formula of a rendered body left as TeX.
    public static func mathWarnings(_ content: RenderedMarkdown, path: String, bodyFirstLine: Int) -> [Diagnostic] {
        content.mathProblems.map { .warning($0.message, at: SourceLocation(file: path, line: bodyFirstLine + $0.line - 1)) }
    }

    static func renderBody(_ body: PendingBody, with renderer: MarkdownRenderer) -> RenderedMarkdown {
        body.text.withUnsafeBufferPointer { renderer.render(validUTF8: UnsafeBufferPointer(rebasing: $0[body.offset...])) }
    }

    /// Loads the given files (paths relative to the site folder) on all cores, in order. With
    /// `deferringPostBodies`, posts are loaded with an empty body and their Markdown is kept in
    /// `LoadedFile.pendingBody` instead (nothing in a body can make a file fail to load): `blog
    /// build` renders each body later, beside the post's page (see `BuildPipeline.stream`).
    public func loadFiles(_ files: [String], deferringPostBodies: Bool = false) -> [LoadedFile] {
        let renderer = markdownRenderer()
        let root = folderPath
        return WorkShare.map(count: files.count, batch: 1) { index -> LoadedFile in
            var found: [Diagnostic] = []
            var pending: PendingBody?
            let loaded = withUnsafeMutablePointer(to: &pending) { slot in
                loadFile(files[index], root: root, renderer: renderer, diagnostics: &found,
                         deferring: deferringPostBodies ? slot : nil)
            }
            var file = LoadedFile(path: files[index], post: nil, page: nil, diagnostics: found, pendingBody: pending)
            switch loaded {
            case .post(let post): file.post = post
            case .page(let page): file.page = page
            case .failed: break
            }
            return file
        }
    }

    /// Turns loaded files into a content set; throws a `DiagnosticList` with every error (capped) when any file is bad.
    public func collect(_ files: [LoadedFile]) throws -> ContentSet {
        let all = files.flatMap(\.diagnostics)
        let errors = all.filter { $0.severity == .error }
        if !errors.isEmpty {
            var listed = Array(errors.prefix(errorLimit))
            if errors.count > errorLimit {
                listed.append(.error("\(Wording.count(errors.count - errorLimit, "more error")) not shown"))
            }
            throw DiagnosticList(listed + all.filter { $0.severity != .error }.prefix(errorLimit))
        }
        return ContentSet(posts: files.compactMap(\.post), pages: files.compactMap(\.page), warnings: all)
    }

    /// Loads every file. Throws a `DiagnosticList` with every error found (capped) when any file is bad.
    public func load() throws -> ContentSet {
        try collect(loadFiles(try markdownFiles()))
    }

    /// With `deferring`, a post's body is not rendered but stored there (the post gets an empty one).
    func loadFile(_ path: String, root: String, renderer: MarkdownRenderer, diagnostics: inout [Diagnostic],
                  deferring pending: UnsafeMutablePointer<PendingBody?>? = nil) -> Loaded {
        // The file stays bytes: the front matter is cut from them and the body rendered from them.
        let text: [UInt8]
        let document: (yaml: Range<Int>?, yamlFirstLine: Int, bodyOffset: Int, bodyFirstLine: Int)
        do {
            text = try SourceText.readUTF8(path: root + path, displayPath: path, maxBytes: config.maxFileBytes)
            document = try text.withUnsafeBufferPointer { try SplitDocument.splitRanges(utf8: $0, path: path) }
        } catch let diagnostic as Diagnostic {
            diagnostics.append(diagnostic)
            return .failed
        } catch {
            diagnostics.append(.error("\(error)", at: SourceLocation(file: path)))
            return .failed
        }
        let isPost = path.hasPrefix("content/posts/")
        guard let yaml = document.yaml else {
            diagnostics.append(.error("missing front matter: start the file with a '---' line, then 'title: …' (and 'date: …' for posts), then '---'",
                                      at: SourceLocation(file: path, line: 1, column: 1)))
            return .failed
        }
        let before = diagnostics.count
        // Parsed from the file's bytes (a String of it was made, then copied again for libyaml).
        let front = text.withUnsafeBufferPointer {
            FrontMatter.parse(utf8: UnsafeBufferPointer(rebasing: $0[yaml]), firstLine: document.yamlFirstLine, path: path,
                              zone: config.timezone, diagnostics: &diagnostics)
        }
        if diagnostics[before...].contains(where: { $0.severity == .error }) { return .failed }
        guard let title = front.title, !title.isBlank else {
            diagnostics.append(.error("missing 'title' in the front matter", at: SourceLocation(file: path, line: front.keyLines["title"] ?? 1, column: 1)))
            return .failed
        }
        if isPost && front.date == nil {
            diagnostics.append(.error("missing 'date' in the front matter (ISO 8601, e.g. date: 2020-02-06T10:00:00+09:00)", at: SourceLocation(file: path, line: 1, column: 1)))
            return .failed
        }
        // The body is cut from the checked text after a line end, so it is valid UTF-8 too.
        let body = PendingBody(text: text, offset: document.bodyOffset)
        let rendered: RenderedMarkdown
        if isPost, let pending {
            pending.pointee = body
            rendered = RenderedMarkdown(html: "")
        } else {
            rendered = ContentLoader.renderBody(body, with: renderer)
            diagnostics += ContentLoader.mathWarnings(rendered, path: path, bodyFirstLine: document.bodyFirstLine)
        }
        if isPost {
            guard let date = front.date else { return .failed }
            let slug = front.slug ?? front.id ?? derivedSlug(title: title, fileName: (path as NSString).lastPathComponent)
            var post = Post(sourcePath: path, title: title, date: date.inZone(config.timezone),
                            updated: front.updated?.inZone(config.timezone), tags: front.tags, draft: front.draft,
                            slug: slug, description: front.description, id: front.id ?? slug, content: rendered,
                            bodyFirstLine: document.bodyFirstLine, keyLines: front.keyLines, tagKeys: front.tagKeys)
            if front.meta != PostMeta() { post.meta = front.meta }
            return .post(post)
        }
        var pagePath = String(path.dropFirst("content/".count))
        pagePath = String(pagePath[..<(pagePath.lastIndex(of: ".") ?? pagePath.endIndex)])
        if pagePath.hasSuffix("/index") { pagePath.removeLast("/index".count) }
        if let slug = front.slug {
            let parent = (pagePath as NSString).deletingLastPathComponent
            pagePath = parent.isEmpty ? slug : parent + "/" + slug
        }
        return .page(Page(sourcePath: path, title: title, path: pagePath, description: front.description,
                          draft: front.draft, content: rendered, bodyFirstLine: document.bodyFirstLine))
    }

    /// A slug from the title that keeps Japanese; when the title has no letters, the file name.
    func derivedSlug(title: String, fileName: String) -> String {
        Slug.derived(title: title, fileName: fileName)
    }
}
