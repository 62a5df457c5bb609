import BlogCore
import BlogContent
import BlogMustache
import BlogSearch
import Foundation

/// Builds a site and keeps what it computed, so the next build after a change does only the work
/// the change needs: a changed post is re-read and re-rendered, and of the other pages only those
/// whose inputs changed (its neighbours, the list pages that show it, its tags, its archives, the
/// feeds it is in). A change to blog.yml, a theme or layouts/ rebuilds everything.
///
/// `blog serve` keeps one for the whole session: each rebuild runs `BuildPipeline` into memory,
/// consulting the session's `BuildCache`.
public final class IncrementalBuilder: @unchecked Sendable {
    public let options: BuildOptions
    /// What the builds of this session keep for the next.
    let cache = BuildCache()

    public init(options: BuildOptions) {
        self.options = options
    }

    /// The result of one build.
    public struct Result: Sendable {
        public var site: BuiltSite
        /// Every output file by path (kept between rebuilds and patched, not rebuilt).
        public var files: [String: [UInt8]]
        /// Warnings of the files read in this build (a file that did not change is not reported again).
        public var warnings: [Diagnostic]
        /// How many pages were rendered (the rest were reused).
        public var renderedPages: Int
        /// The output paths of the pages rendered, in an in-memory build (empty when streaming).
        public var renderedPaths: [String] = []
        /// The paths whose bytes differ from the previous successful in-memory build's `files`
        /// (added, removed or changed), when the build knows them; nil: compare the files.
        public var changedPaths: Set<String>? = nil
        /// Whether the build patched the previous one (see `patch`) instead of going through every page.
        public var patched = false
    }

    /// Builds into memory, reusing what is still valid. `changed` holds absolute paths that changed
    /// since the last call (empty: check every file's stamp). Throws the build's errors; the cache
    /// keeps the last good state.
    public func rebuild(changed: Set<String> = [], console: Console? = nil) throws -> Result {
        try BuildPipeline(options: options, cache: cache).run(changed: changed, console: console, sink: MemorySink())
    }
}
