import BlogCore
import BlogMarkdown
import Foundation
#if canImport(Glibc)
import Glibc
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
    /// files and folders are skipped; symbolic links are followed.
    public func markdownFiles() -> [String] {
        var result: [String] = []
        collect(folderPath + "content", relative: "content", into: &result)
        return result.sorted()
    }

    /// The site folder's path with a trailing `/`, made once per listing or load (URL path
    /// arithmetic per file cost more than reading the file).
    private var folderPath: String {
        siteDirectory.path.hasSuffix("/") ? siteDirectory.path : siteDirectory.path + "/"
    }

    /// readdir's file types (a stat only for links and file systems that give none): the
    /// FileManager listing plus a `fileExists` per entry cost ~3,000 instructions a file.
    private func collect(_ directory: String, relative: String, into result: inout [String]) {
        guard let handle = opendir(directory) else { return }
        var entries: [(name: String, directory: Bool)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard !name.hasPrefix(".") else { continue }
            var isDirectory: Bool
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR): isDirectory = true
            case Int32(DT_REG): isDirectory = false
            default:
                var info = stat()
                guard stat(directory + "/" + name, &info) == 0 else { continue }
                isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            }
            entries.append((name, isDirectory))
        }
        closedir(handle)
        for (name, isDirectory) in entries {
            if isDirectory {
                collect(directory + "/" + name, relative: relative + "/" + name, into: &result)
            } else if name.hasSuffix(".md") || name.hasSuffix(".markdown") {
                result.append(relative + "/" + name)
            }
        }
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
        MarkdownRenderer(options: MarkdownOptions(hardBreaks: config.markdownHardBreaks, unsafeHTML: config.markdownUnsafe))
    }

    static func renderBody(_ body: PendingBody, with renderer: MarkdownRenderer) -> RenderedMarkdown {
        body.text.withUnsafeBufferPointer { renderer.render(validUTF8: UnsafeBufferPointer(rebasing: $0[body.offset...])) }
    }

    /// Loads the given files (paths relative to the site folder) on all cores, in order. With
    /// `deferringPostBodies`, posts are loaded with an empty body and their Markdown is kept in
    /// `LoadedFile.pendingBody` instead (nothing in a body can make a file fail to load): `blog
    /// build` renders each body later, beside the post's page (see `IncrementalBuilder.stream`).
    public func loadFiles(_ files: [String], deferringPostBodies: Bool = false) -> [LoadedFile] {
        let renderer = markdownRenderer()
        let root = folderPath
        var results = [LoadedFile?](repeating: nil, count: files.count)
        // Once a file is found out of the page cache, the next ones are read ahead (see ReadAhead).
        let readAhead = ReadAhead(root: root, paths: files)
        defer { readAhead.stop() }
        results.withUnsafeMutableBufferPointer { buffer in
            let out = buffer
            DispatchQueue.concurrentPerform(iterations: files.count) { index in
                readAhead.reached(index)
                var found: [Diagnostic] = []
                var pending: PendingBody?
                let loaded = withUnsafeMutablePointer(to: &pending) { slot in
                    loadFile(files[index], root: root, renderer: renderer, diagnostics: &found,
                             deferring: deferringPostBodies ? slot : nil, uncached: { readAhead.missed(at: index) })
                }
                var file = LoadedFile(path: files[index], post: nil, page: nil, diagnostics: found, pendingBody: pending)
                switch loaded {
                case .post(let post): file.post = post
                case .page(let page): file.page = page
                case .failed: break
                }
                out[index] = file
            }
        }
        return results.map { $0! }
    }

    /// Turns loaded files into a content set; throws a `DiagnosticList` with every error (capped) when any file is bad.
    public func collect(_ files: [LoadedFile]) throws -> ContentSet {
        let all = files.flatMap(\.diagnostics)
        let errors = all.filter { $0.severity == .error }
        if !errors.isEmpty {
            var listed = Array(errors.prefix(errorLimit))
            if errors.count > errorLimit {
                listed.append(.error("\(errors.count - errorLimit) more errors not shown"))
            }
            throw DiagnosticList(listed + all.filter { $0.severity != .error }.prefix(errorLimit))
        }
        return ContentSet(posts: files.compactMap(\.post), pages: files.compactMap(\.page), warnings: all)
    }

    /// Loads every file. Throws a `DiagnosticList` with every error found (capped) when any file is bad.
    public func load() throws -> ContentSet {
        try collect(loadFiles(markdownFiles()))
    }

    /// `uncached`: called when the file was not in the page cache. With `deferring`, a post's body
    /// is not rendered but stored there (the post gets an empty one).
    func loadFile(_ path: String, root: String, renderer: MarkdownRenderer, diagnostics: inout [Diagnostic],
                  deferring pending: UnsafeMutablePointer<PendingBody?>? = nil, uncached: (() -> Void)? = nil) -> Loaded {
        // The file stays bytes: the front matter is cut from them and the body rendered from them.
        let text: [UInt8]
        let document: (yaml: Range<Int>?, yamlFirstLine: Int, bodyOffset: Int, bodyFirstLine: Int)
        do {
            text = try SourceText.readUTF8(path: root + path, displayPath: path, uncached: uncached)
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
        var slug = Slug.make(title)
        if slug.count > 80 { slug = String(slug.prefix(80)) }
        while slug.hasSuffix("-") { slug.removeLast() }
        if slug.isEmpty {
            slug = Slug.make((fileName as NSString).deletingPathExtension)
        }
        return slug.isEmpty ? "post-\(String(fnv1a64(title.utf8), radix: 16))" : slug
    }
}
