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
    /// Content-hashed asset names (`main.1a2b3c4d.css`) so hosts can cache them for ever. `blog serve`
    /// turns this off so that a stylesheet edit changes only the stylesheet and can be swapped in place.
    public var hashAssetNames = true
    /// Follow symbolic links that lead out of the site folder (`--allow-outside-links`), as
    /// `follow_outside_links: true` in blog.yml does.
    public var allowOutsideLinks = false

    public init(siteDirectory: URL, includeDrafts: Bool = false, includeFuture: Bool = false, baseURL: String? = nil,
                now: Date = Date(), hashAssetNames: Bool = true) {
        self.siteDirectory = siteDirectory
        self.includeDrafts = includeDrafts
        self.includeFuture = includeFuture
        self.baseURL = baseURL
        self.now = now
        self.hashAssetNames = hashAssetNames
    }
}

/// A site built in memory.
public struct BuiltSite: Sendable {
    /// Every output file, sorted by path.
    public var files: [OutputFile]
    public var model: SiteModel
    public var warnings: [Diagnostic]
    /// Seconds spent in each phase, in the order they ran, with the CPU seconds of the whole process
    /// meanwhile (nil for a phase that ran beside another, whose CPU time is part of that one's).
    public var timings: [(phase: String, seconds: Double, cpuSeconds: Double?)]
}

/// The build, in the order it runs: config → theme → content → assemble → render → feeds and
/// indexes → static files. (`IncrementalBuilder` holds the steps; this is its one-shot form.)
public enum SiteBuilder {
    public static func build(_ options: BuildOptions, console: Console?) throws -> BuiltSite {
        try IncrementalBuilder(options: options).rebuild(console: console).site
    }

    /// Builds and hands the outputs to `sink` in batches as they are made, keeping none of them
    /// (the returned site has no files). Throws the build's errors or the sink's.
    public static func build(_ options: BuildOptions, console: Console?, sink: @escaping ([OutputFile]) throws -> Void) throws -> BuiltSite {
        try IncrementalBuilder(options: options).rebuild(console: console, sink: sink).site
    }

    /// The HTML pages for the sitemap, with their last modification where known.
    static func sitemapPaths(model: SiteModel, urls: URLBuilder) -> [(path: String, lastmod: String?)] {
        var pagePaths: [(path: String, lastmod: String?)] = []
        let lastmod = model.posts.first.map { ($0.updated ?? $0.date).iso8601 }
        pagePaths.append((urls.path(""), lastmod))
        for post in model.posts { pagePaths.append((urls.post(post.slug), (post.updated ?? post.date).iso8601)) }
        for page in model.pages { pagePaths.append((urls.path(Slug.percentEncodePath(page.path) + "/"), nil)) }
        pagePaths.append((urls.path("tags/"), lastmod))
        for tag in model.tags { pagePaths.append((urls.tag(tag.slug), nil)) }
        pagePaths.append((urls.path("archive/"), lastmod))
        return pagePaths
    }

    /// `static/` copied as is (dotfiles left out), listed under `SiteFiles`' rules.
    static func staticFiles(_ siteDirectory: URL, config: SiteConfig) throws -> [OutputFile] {
        let root = siteDirectory.appendingPathComponent("static")
        var files: [OutputFile] = []
        var errors: [Diagnostic] = []
        for relative in try config.siteFiles(siteDirectory).files(under: "static") {
            do {
                files.append(OutputFile(path: relative, bytes: try SourceText.readBytes(root.appendingPathComponent(relative).path)))
            } catch {
                errors.append(.error("cannot read the file: \(SourceText.reason(error))", at: SourceLocation(file: "static/\(relative)")))
            }
        }
        if !errors.isEmpty { throw DiagnosticList(errors) }
        return files
    }
}

/// Reads the base path from blog.yml without building (for `blog serve` before the first build).
public enum BlogContentConfig {
    public static func basePath(_ siteDirectory: URL) throws -> String {
        try SiteConfig.load(siteDirectory: siteDirectory, console: nil).basePath
    }
}
