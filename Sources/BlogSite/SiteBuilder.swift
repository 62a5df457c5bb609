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

/// One build with nothing kept for a next one (`blog build`, `blog check`, the tests). The steps
/// are `BuildPipeline`'s.
public enum SiteBuilder {
    /// Builds into memory: the returned site has every output.
    public static func build(_ options: BuildOptions, console: Console?) throws -> BuiltSite {
        try IncrementalBuilder(options: options).rebuild(console: console).site
    }

    /// Builds and writes the outputs into `sink` in batches as they are made, keeping none of them
    /// (the returned site has no files). Throws the build's errors or the sink's.
    public static func build(_ options: BuildOptions, console: Console?, into sink: BuildSink) throws -> BuiltSite {
        try BuildPipeline(options: options, cache: BuildCache()).run(changed: [], console: console, sink: sink).site
    }

    /// As `build(_:console:into:)`, handing each batch to `sink`.
    public static func build(_ options: BuildOptions, console: Console?, sink: @escaping ([OutputFile]) throws -> Void) throws -> BuiltSite {
        try build(options, console: console, into: StreamingSink(sink))
    }
}

/// Reads the base path from blog.yml without building (for `blog serve` before the first build).
public enum BlogContentConfig {
    public static func basePath(_ siteDirectory: URL) throws -> String {
        try SiteConfig.load(siteDirectory: siteDirectory, console: nil).basePath
    }
}
