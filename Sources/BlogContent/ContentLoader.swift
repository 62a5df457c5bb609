import BlogCore
import BlogMarkdown
import Foundation

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

    /// The Markdown files under `content/`, as paths relative to the site folder, sorted.
    public func markdownFiles() -> [String] {
        let content = siteDirectory.appendingPathComponent("content")
        var result: [String] = []
        collect(content, relative: "content", into: &result)
        return result.sorted()
    }

    private func collect(_ directory: URL, relative: String, into result: inout [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where !name.hasPrefix(".") {
            let url = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                collect(url, relative: relative + "/" + name, into: &result)
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
    }

    /// Loads the given files (paths relative to the site folder) on all cores, in order.
    public func loadFiles(_ files: [String]) -> [LoadedFile] {
        let renderer = MarkdownRenderer(options: MarkdownOptions(hardBreaks: config.markdownHardBreaks, unsafeHTML: config.markdownUnsafe))
        // the folder's path once (URL path arithmetic per file cost more than reading the file)
        let root = siteDirectory.path.hasSuffix("/") ? siteDirectory.path : siteDirectory.path + "/"
        var results = [LoadedFile?](repeating: nil, count: files.count)
        results.withUnsafeMutableBufferPointer { buffer in
            let out = buffer
            DispatchQueue.concurrentPerform(iterations: files.count) { index in
                var found: [Diagnostic] = []
                let loaded = loadFile(files[index], root: root, renderer: renderer, diagnostics: &found)
                var file = LoadedFile(path: files[index], post: nil, page: nil, diagnostics: found)
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

    func loadFile(_ path: String, root: String, renderer: MarkdownRenderer, diagnostics: inout [Diagnostic]) -> Loaded {
        let text: String
        let document: SplitDocument
        do {
            text = try SourceText.read(path: root + path, displayPath: path)
            document = try SplitDocument.split(text, path: path)
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
        let front = FrontMatter.parse(yaml, firstLine: document.yamlFirstLine, path: path, zone: config.timezone, diagnostics: &diagnostics)
        if diagnostics[before...].contains(where: { $0.severity == .error }) { return .failed }
        guard let title = front.title, !title.isBlank else {
            diagnostics.append(.error("missing 'title' in the front matter", at: SourceLocation(file: path, line: front.keyLines["title"] ?? 1, column: 1)))
            return .failed
        }
        if isPost && front.date == nil {
            diagnostics.append(.error("missing 'date' in the front matter (ISO 8601, e.g. date: 2020-02-06T10:00:00+09:00)", at: SourceLocation(file: path, line: 1, column: 1)))
            return .failed
        }
        let rendered = renderer.render(document.body)
        if isPost {
            guard let date = front.date else { return .failed }
            let slug = front.slug ?? front.id ?? derivedSlug(title: title, fileName: (path as NSString).lastPathComponent)
            return .post(Post(sourcePath: path, title: title, date: date.inZone(config.timezone),
                              updated: front.updated?.inZone(config.timezone), tags: front.tags, draft: front.draft,
                              slug: slug, description: front.description, id: front.id ?? slug, content: rendered,
                              bodyFirstLine: document.bodyFirstLine, keyLines: front.keyLines))
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
