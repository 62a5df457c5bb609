import BlogCore
import BlogContent
import Foundation

/// What to build.
public struct BuildOptions: Sendable {
    public var siteDirectory: URL
    public var includeDrafts = false
    public var includeFuture = false
    /// Overrides `base_url` from blog.yml.
    public var baseURL: String?
    /// "Now", for leaving out posts dated in the future.
    public var now = Date()

    public init(siteDirectory: URL, includeDrafts: Bool = false, includeFuture: Bool = false, baseURL: String? = nil, now: Date = Date()) {
        self.siteDirectory = siteDirectory
        self.includeDrafts = includeDrafts
        self.includeFuture = includeFuture
        self.baseURL = baseURL
        self.now = now
    }
}

/// A site built in memory.
public struct BuiltSite: Sendable {
    /// Every output file, sorted by path.
    public var files: [OutputFile]
    public var model: SiteModel
    public var warnings: [Diagnostic]
    /// Seconds spent in each phase, in the order they ran.
    public var timings: [(phase: String, seconds: Double)]
}

/// The build, in the order it runs: config → theme → content → assemble → render → indexes → static files.
public enum SiteBuilder {
    public static func build(_ options: BuildOptions, console: Console?) throws -> BuiltSite {
        var timings: [(String, Double)] = []
        var clock = Date()
        func lap(_ phase: String) {
            let now = Date()
            timings.append((phase, now.timeIntervalSince(clock)))
            clock = now
        }
        var config = try SiteConfig.load(siteDirectory: options.siteDirectory, console: console)
        if let override = options.baseURL {
            guard let normalized = SiteConfig.normalizeBaseURL(override) else {
                throw Diagnostic.error("--base-url must be an absolute http(s) URL such as https://example.com/, not '\(override)'")
            }
            config.baseURL = normalized
        }
        lap("config")
        let theme = try Theme.load(siteDirectory: options.siteDirectory, config: config)
        lap("theme")
        let content = try ContentLoader(siteDirectory: options.siteDirectory, config: config).load()
        lap("content")
        let model = try SiteModel.assemble(content, config: config,
                                           options: SiteModel.Options(includeDrafts: options.includeDrafts, includeFuture: options.includeFuture, now: options.now))
        lap("assemble")
        let renderer = PageRenderer(model: model, theme: theme)
        var files = try renderer.renderAll()
        lap("render")
        let urls = renderer.urls
        let feeds = FeedWriter(model: model, urls: urls)
        files += feeds.feeds()
        let indexes = IndexWriter(model: model, urls: urls)
        files.append(indexes.tagsJSON())
        files.append(indexes.postsJSON())
        files += indexes.searchIndex()
        var pagePaths: [(path: String, lastmod: String?)] = []
        let lastmod = model.posts.first.map { ($0.updated ?? $0.date).iso8601 }
        pagePaths.append((urls.path(""), lastmod))
        for post in model.posts { pagePaths.append((urls.post(post.slug), (post.updated ?? post.date).iso8601)) }
        for page in model.pages { pagePaths.append((urls.path(Slug.percentEncodePath(page.path) + "/"), nil)) }
        pagePaths.append((urls.path("tags/"), lastmod))
        for tag in model.tags { pagePaths.append((urls.tag(tag.slug), nil)) }
        pagePaths.append((urls.path("archive/"), lastmod))
        files += feeds.sitemap(pagePaths: pagePaths)
        files.append(feeds.robots())
        files.append(OutputFile(path: ".nojekyll", bytes: []))
        files += theme.assets.map { OutputFile(path: $0.path, bytes: $0.bytes) }
        lap("indexes")
        files += try staticFiles(options.siteDirectory, generated: Set(files.map(\.path)))
        files.sort { $0.path < $1.path }
        lap("static")
        return BuiltSite(files: files, model: model, warnings: content.warnings, timings: timings)
    }

    /// `static/` copied as is (dotfiles left out); a file that clashes with a generated one is an error.
    static func staticFiles(_ siteDirectory: URL, generated: Set<String>) throws -> [OutputFile] {
        let root = siteDirectory.appendingPathComponent("static")
        var files: [OutputFile] = []
        var errors: [Diagnostic] = []
        for relative in listFiles(root) {
            if generated.contains(relative) {
                errors.append(.error("static/\(relative) has the same path as a generated file; rename it", at: SourceLocation(file: "static/\(relative)")))
                continue
            }
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(relative).path) else {
                errors.append(.error("cannot read the file", at: SourceLocation(file: "static/\(relative)")))
                continue
            }
            files.append(OutputFile(path: relative, bytes: [UInt8](data)))
        }
        if !errors.isEmpty { throw DiagnosticList(errors) }
        return files
    }
}
