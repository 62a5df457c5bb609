import BlogCore
import BlogContent
import BlogMustache
import BlogSearch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds a site and keeps what it computed, so the next build after a change does only the work
/// the change needs: a changed post is re-read and re-rendered, and of the other pages only those
/// whose inputs changed (its neighbours, the list pages that show it, its tags, its archives, the
/// feeds it is in). A change to blog.yml, a theme or layouts/ rebuilds everything.
///
/// `blog build` runs it once; `blog serve` keeps one for the whole session.
public final class IncrementalBuilder: @unchecked Sendable {
    public let options: BuildOptions

    /// Identity of a file's contents on disk.
    struct FileStamp: Equatable {
        var size: Int64
        var mtime: Int64
        var mtimeNanos: Int
        var inode: UInt64
    }

    /// A class: the cache is read for every post on every rebuild, and copying a reference is one retain.
    final class CachedFile {
        let stamp: FileStamp
        let file: ContentLoader.LoadedFile
        /// Changes every time the file is (re)loaded.
        let version: Int
        init(stamp: FileStamp, file: ContentLoader.LoadedFile, version: Int) {
            self.stamp = stamp
            self.file = file
            self.version = version
        }
    }

    struct CachedOutput {
        var fingerprint: Int
        var files: [OutputFile]
    }

    private var config: SiteConfig?
    private var theme: Theme?
    private var contentCache: [String: CachedFile] = [:]
    /// The content files of the last good build (sorted relative paths), their loaded files and
    /// each path's index.
    private var lastPaths: [String] = []
    private var lastFiles: [ContentLoader.LoadedFile] = []
    private var lastPathIndex: [String: Int] = [:]
    private var outputCache: [String: CachedOutput] = [:]
    /// The page and feed keys of the last build, in order (the cache holds exactly these).
    private var lastPageKeys: [String] = []
    private var lastFeedKeys: [String] = []
    private var staticCache: [OutputFile]?
    private var searchCache: [String: (key: Int, analyzed: AnalyzedDocument)] = [:]
    private var searchState = SearchIndexState()
    /// Each post's object in posts.json, by source path.
    private var postObjectCache: [String: (key: Int, bytes: [UInt8])] = [:]
    private var lastModel: SiteModel?
    private var nextVersion = 1
    private var epoch = 0

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

    /// Builds, reusing what is still valid. `changed` holds absolute paths that changed since the last
    /// call (empty: check every file's stamp). Throws the build's errors; the cache keeps the last good state.
    ///
    /// With a `sink`, the build streams: outputs are handed to the sink in batches as they are made
    /// and not kept (the returned site has no files, and nothing is cached for a next build). This
    /// is how `blog build` writes a large site without holding all of it in memory.
    public func rebuild(changed: Set<String> = [], console: Console? = nil,
                        sink: (([OutputFile]) throws -> Void)? = nil) throws -> Result {
        // The patch state is valid only right after a successful build: taken now, put back at the end.
        var previousPatch = patchState
        patchState = nil
        var outputs: [OutputFile] = []
        var timings: [(phase: String, seconds: Double, cpuSeconds: Double?)] = []
        var clock = Date()
        var cpuClock = ProcessClock.cpuSeconds()
        func lap(_ phase: String) {
            let now = Date()
            let cpu = ProcessClock.cpuSeconds()
            timings.append((phase, now.timeIntervalSince(clock), cpu - cpuClock))
            clock = now
            cpuClock = cpu
        }
        let root = options.siteDirectory.standardizedFileURL.path
        func touches(_ prefix: String) -> Bool {
            changed.contains { $0 == root + "/" + prefix || $0.hasPrefix(root + "/" + prefix + "/") }
        }
        // Every page links the favicon, which a file in static/ replaces (see `Theme.favicon`).
        let configChanged = config == nil || touches("blog.yml") || touches("themes") || touches("layouts")
            || changed.contains { $0.hasPrefix(root + "/static/favicon.") }
        // A rescan (the watcher lost track) shows up as the site folder itself.
        let everything = changed.contains(root)

        if configChanged || everything {
            var loaded = try SiteConfig.load(siteDirectory: options.siteDirectory, console: console)
            if let override = options.baseURL {
                guard let normalized = SiteConfig.normalizeBaseURL(override) else {
                    throw Diagnostic.error("--base-url must be an absolute http(s) URL such as https://example.com/, not '\(override)'")
                }
                loaded.baseURL = normalized
            }
            if options.allowOutsideLinks { loaded.followOutsideLinks = true }
            let newTheme = try Theme.load(siteDirectory: options.siteDirectory, config: loaded, hashAssetNames: options.hashAssetNames)
            if config == nil || config!.markdownHardBreaks != loaded.markdownHardBreaks || config!.markdownUnsafe != loaded.markdownUnsafe
                || config!.markdownMath != loaded.markdownMath || config!.timezone != loaded.timezone {
                contentCache = [:]
            }
            config = loaded
            theme = newTheme
            outputCache = [:]
            epoch += 1
        }
        guard let config, let theme else { throw Diagnostic.error("internal: no configuration") }
        lap(configChanged ? "theme" : "config")

        // Content: re-read only files whose stamp changed. When the watcher named only Markdown
        // files, only those are looked at; anything else (a folder, a rescan) lists content/ again.
        let loader = ContentLoader(siteDirectory: options.siteDirectory, config: config)
        let contentPrefix = root + "/content/"
        // `blog build` (a sink, a new builder): no cache to fill, no stamps to take (see `stream`).
        let oneShot = sink != nil && contentCache.isEmpty && lastModel == nil
        let onlyMarkdown = !changed.isEmpty && !contentCache.isEmpty && !configChanged && changed.allSatisfy { path in
            if path.hasPrefix(root + "/static/") { return true }
            guard path.hasPrefix(contentPrefix), path.hasSuffix(".md") || path.hasSuffix(".markdown") else { return false }
            var info = stat()
            // lstat: a new link is checked by a full listing (SiteFiles), not read as it is.
            return lstat(path, &info) != 0 || (info.st_mode & S_IFMT) == S_IFREG
        }
        // Only stale files (new, or whose stamp changed) are loaded; the cache, the sorted path list
        // and the list of loaded files are patched in place, so a rebuild after one edit costs
        // little per unchanged file.
        var paths: [String]
        var stale: [(path: String, stamp: FileStamp?)] = []
        var sameList = false
        if onlyMarkdown {
            var added: [String] = []
            var removed: [String] = []
            var touched: [String] = []
            for path in changed where path.hasPrefix(contentPrefix) {
                let relative = String(path.dropFirst(root.count + 1))
                if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                let exists = FileManager.default.fileExists(atPath: path)
                let known = contentCache[relative] != nil
                if exists { touched.append(relative) }
                if exists && !known { added.append(relative) }
                if !exists && known { removed.append(relative) }
            }
            if added.isEmpty && removed.isEmpty && lastPaths.count == contentCache.count {
                paths = lastPaths
                sameList = true
            } else {
                var set = Set(contentCache.keys)
                set.formUnion(added)
                set.subtract(removed)
                paths = set.sorted()
            }
            for relative in touched.sorted() {
                let stamp = IncrementalBuilder.stamp(root + "/" + relative)
                if let cached = contentCache[relative], let stamp, cached.stamp == stamp { continue }
                stale.append((relative, stamp))
            }
        } else if oneShot {
            // `blog build` keeps nothing for a next build: every file is read, none needs a stamp.
            paths = try loader.markdownFiles()
            stale = paths.map { ($0, nil) }
        } else {
            paths = try loader.markdownFiles()
            let list = paths
            let stamps = WorkShare.map(count: list.count) { IncrementalBuilder.stamp(root + "/" + list[$0]) }
            for (index, path) in paths.enumerated() {
                if let cached = contentCache[path], let stamp = stamps[index], cached.stamp == stamp { continue }
                stale.append((path, stamps[index]))
            }
            sameList = paths == lastPaths && lastPaths.count == contentCache.count
        }
        // `blog build` renders each post's body beside its page when the theme allows (see `stream`).
        let deferBodies = oneShot && PageRenderer.postPagesNeedOnlyOwnBody(theme)
        var reloaded = loader.loadFiles(stale.map(\.path), deferringPostBodies: deferBodies)
        for (n, entry) in stale.enumerated() where !oneShot {
            contentCache[entry.path] = CachedFile(stamp: entry.stamp ?? FileStamp(size: -1, mtime: 0, mtimeNanos: 0, inode: 0),
                                                  file: reloaded[n], version: nextVersion)
            nextVersion += 1
        }
        var files: [ContentLoader.LoadedFile]
        if oneShot {
            files = reloaded
        } else if sameList && lastFiles.count == paths.count {
            files = lastFiles
            lastFiles = []
            for (n, entry) in stale.enumerated() {
                if let index = lastPathIndex[entry.path] { files[index] = reloaded[n] }
            }
        } else {
            if contentCache.count != paths.count {
                let live = Set(paths)
                contentCache = contentCache.filter { live.contains($0.key) }
            }
            files = paths.map { contentCache[$0]!.file }
            lastPathIndex = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($0.element, $0.offset) })
        }
        // Errors are reported before the cache keeps them, so a fix is noticed even if the stamp repeats.
        var content: ContentSet
        do {
            content = try loader.collect(files)
        } catch {
            // Keep good files cached; drop the broken ones so they are re-read next time.
            contentCache = contentCache.filter { !$0.value.file.diagnostics.contains { $0.severity == .error } }
            lastPaths = []
            lastFiles = []
            throw error
        }
        lastPaths = paths
        lastFiles = files
        let warnings = content.warnings
        let freshWarnings = reloaded.flatMap(\.diagnostics)
        lap("content")

        var model = try SiteModel.assemble(content, config: config,
                                           options: SiteModel.Options(includeDrafts: options.includeDrafts, includeFuture: options.includeFuture, now: options.now),
                                           previous: lastModel)
        lastModel = model
        lap("assemble")

        // `blog build`: one pass that keeps nothing for a next build (see `stream`).
        if let sink {
            // The bodies left to render, in the model's order (drafts and future posts left out
            // of the site are never rendered).
            var bodies: [ContentLoader.PendingBody]?
            if deferBodies {
                var byPath: [String: ContentLoader.PendingBody] = [:]
                byPath.reserveCapacity(files.count)
                for file in files { if let body = file.pendingBody { byPath[file.path] = body } }
                bodies = try model.posts.map { post in
                    guard let body = byPath[post.sourcePath] else { throw Diagnostic.error("internal: no body for \(post.sourcePath)") }
                    return body
                }
            }
            // Only `model` keeps the posts' HTML from here on, so `stream` can let go of it.
            contentCache = [:]
            lastModel = nil
            reloaded = []
            files = []
            lastPaths = []
            lastFiles = []
            lastPathIndex = [:]
            content = ContentSet(posts: [], pages: [], warnings: [])
            var mathWarnings: [Diagnostic] = []
            let rendered = try stream(&model, bodies: &bodies, loader: loader, config: config, theme: theme, sink: sink, lap: lap,
                                      record: { timings.append(($0, $1, nil)) }, mathWarnings: &mathWarnings)
            let site = BuiltSite(files: [], model: model, warnings: warnings + mathWarnings, timings: timings)
            return Result(site: site, files: [:], warnings: freshWarnings, renderedPages: rendered, changedPaths: nil)
        }

        // `blog serve`, an edit that kept the site's structure: patch the last build.
        if !configChanged, !everything, !touches("static"), sameList, model.reusedStructure, previousPatch != nil,
           let patched = try patch(&previousPatch!, model: model, stale: stale.map(\.path), config: config, theme: theme, lap: lap) {
            let site = BuiltSite(files: patched.outputs, model: model, warnings: warnings, timings: timings)
            return Result(site: site, files: patched.files, warnings: freshWarnings, renderedPages: patched.rendered,
                          renderedPaths: patched.renderedPaths, changedPaths: patched.changed, patched: true)
        }

        let postVersions = postColumn(model.posts) { contentCache[$0.pointee.sourcePath]?.version ?? 0 }
        let postSlugs = postColumn(model.posts) { $0.pointee.slug }
        let pageVersions = model.pages.map { contentCache[$0.sourcePath]?.version ?? 0 }
        // Pages and feeds, in a scope of their own: the renderer and feed writer hold the model with
        // every post's HTML, and let go of it when the scope ends.
        let urls = URLBuilder(config: config)
        var renderedPages = 0
        var renderedPaths: [String] = []
        do {
            let keys = Fingerprints(model: model, postVersions: postVersions, pageVersions: pageVersions, epoch: epoch)
            let jobs = PageRenderer.jobs(model)
            // One key and fingerprint per page, on all cores (a serve rebuild does this for every page).
            var jobKeys: [(key: String, fingerprint: Int)] = WorkShare.map(count: jobs.count) { keys.key(for: jobs[$0]) }
            var dirty: [Int] = []
            for (index, entry) in jobKeys.enumerated() where outputCache[entry.key]?.fingerprint != entry.fingerprint {
                dirty.append(index)
            }
            // Only the list items the dirty pages show are built (all of them in a full build).
            var needed: Set<Int>?
            if dirty.count < jobs.count {
                var indices = Set<Int>()
                for index in dirty { indices.formUnion(PageRenderer.listedPosts(jobs[index], model: model)) }
                needed = indices
            }
            let renderer = PageRenderer(model: model, theme: theme, summariesFor: needed, yearsTree: archiveTree(model, keys: keys))
            // The cache is patched in place: entries are checked by fingerprint, so a page rendered
            // for inputs that are still current is valid even if a later step of this build fails.
            var keysChanged = false
            let rendered = try renderer.render(dirty.map { jobs[$0] })
            renderedPaths = rendered.map(\.path)
            for (n, index) in dirty.enumerated() {
                outputCache[jobKeys[index].key] = CachedOutput(fingerprint: jobKeys[index].fingerprint, files: [rendered[n]])
            }
            outputs.reserveCapacity(jobs.count + model.tags.count * 2 + 64)
            for entry in jobKeys { outputs += outputCache[entry.key]!.files }
            var same = jobKeys.count == lastPageKeys.count
            if same { for (index, entry) in jobKeys.enumerated() where entry.key != lastPageKeys[index] { same = false; break } }
            if !same {
                lastPageKeys = jobKeys.map(\.key)
                keysChanged = true
            }
            jobKeys = []
            lap("render")

            // Feeds: each is rebuilt only when an entry in it changed.
            _ = renderer
            let feeds = FeedWriter(model: model, urls: urls)
            var feedRequests: [FeedWriter.Request] = []
            var feedKeys: [String: Int] = [:]
            feedKeys["feed:"] = keys.feedKey(indices: Array(model.posts.indices.prefix(config.feedLimit)), name: "", slug: "")
            for tag in model.tags {
                feedKeys["feed:" + tag.key] = keys.feedKey(indices: Array(tag.postIndices.prefix(config.feedLimit)), name: tag.name, slug: tag.slug)
            }
            if outputCache["feed:"]?.fingerprint != feedKeys["feed:"] { feedRequests.append(.init(key: "feed:", tag: nil)) }
            for tag in model.tags where outputCache["feed:" + tag.key]?.fingerprint != feedKeys["feed:" + tag.key] {
                feedRequests.append(.init(key: "feed:" + tag.key, tag: tag))
            }
            for (request, file) in zip(feedRequests, feeds.feeds(feedRequests)) {
                outputCache[request.key] = CachedOutput(fingerprint: feedKeys[request.key]!, files: [file])
            }
            let feedKeyList = ["feed:"] + model.tags.map({ "feed:" + $0.key })
            for key in feedKeyList { outputs += outputCache[key]!.files }
            if keysChanged || feedKeyList != lastFeedKeys {
                // Pages or feeds that no longer exist leave the cache (the outputs cached
                // after this point are kept; their fingerprints are checked there).
                var live = Set(lastPageKeys)
                live.formUnion(feedKeyList)
                live.formUnion(["json:tags", "json:posts", "sitemap"])
                outputCache = outputCache.filter { live.contains($0.key) }
                lastFeedKeys = feedKeyList
            }
            lap("feeds")
            renderedPages = dirty.count
        }
        let indexes = IndexWriter(model: model, urls: urls)
        // tags.json and posts.json: rebuilt only when what they list changed.
        let postIDs = postColumn(model.posts) { $0.pointee.id }
        let tagNames = model.tags.map(\.name)
        var tagsHasher = Hasher()
        tagsHasher.combine(epoch)
        for tag in model.tags {
            tagsHasher.combine(tag.name)
            tagsHasher.combine(tag.slug)
            for index in tag.postIndices { tagsHasher.combine(postIDs[index]) }
        }
        var postsHasher = Hasher()
        postsHasher.combine(epoch)
        for (index, version) in postVersions.enumerated() {
            postsHasher.combine(version)
            for tag in model.postTags[index] { postsHasher.combine(tagNames[tag]) }
        }
        var postObjects: [[UInt8]]?
        func postsJSON() -> OutputFile {
            var objects: [[UInt8]] = []
            defer { postObjects = objects }
            return indexes.postsJSON(cache: &postObjectCache, objects: &objects) { index in
                IncrementalBuilder.postObjectKey(epoch: epoch, version: postVersions[index], slug: postSlugs[index],
                                                 tags: model.postTags[index], tagNames: tagNames)
            }
        }
        for (key, fingerprint, make) in [("json:tags", tagsHasher.finalize(), indexes.tagsJSON), ("json:posts", postsHasher.finalize(), postsJSON)] {
            let entry = outputCache[key]?.fingerprint == fingerprint ? outputCache[key]! : CachedOutput(fingerprint: fingerprint, files: [make()])
            outputCache[key] = entry
            outputs += entry.files
        }
        lap("json")
        var analyzed: [AnalyzedDocument] = []
        let searchFiles = indexes.searchIndex(cache: &searchCache, state: searchState, analyzedOut: &analyzed) { index in
            IncrementalBuilder.searchKey(version: postVersions[index], slug: postSlugs[index], tags: model.postTags[index], tagNames: tagNames)
        }
        outputs += searchFiles
        lap("search")
        let sitemaps = FeedWriter(model: model, urls: urls)
        // The sitemap lists every page: made again only when a listed path or date may have changed.
        var sitemapHasher = Hasher()
        sitemapHasher.combine(epoch)
        model.posts.withUnsafeBufferPointer { posts in
            guard let base = posts.baseAddress else { return }
            for index in 0..<posts.count {
                let post = base + index
                sitemapHasher.combine(postSlugs[index]); sitemapHasher.combine(post.pointee.date); sitemapHasher.combine(post.pointee.updated)
            }
        }
        for (index, page) in model.pages.enumerated() { sitemapHasher.combine(page.path); sitemapHasher.combine(pageVersions[index]) }
        for tag in model.tags { sitemapHasher.combine(tag.slug) }
        let sitemapKey = sitemapHasher.finalize()
        let sitemapFiles: [OutputFile]
        if let cached = outputCache["sitemap"], cached.fingerprint == sitemapKey {
            sitemapFiles = cached.files
        } else {
            sitemapFiles = sitemaps.sitemap(pagePaths: SiteBuilder.sitemapPaths(model: model, urls: urls))
            outputCache["sitemap"] = CachedOutput(fingerprint: sitemapKey, files: sitemapFiles)
        }
        outputs += IncrementalBuilder.rootFiles(sitemap: sitemapFiles, writer: sitemaps, theme: theme)
        lap("sitemap")

        if staticCache == nil || touches("static") || everything {
            staticCache = try SiteBuilder.staticFiles(options.siteDirectory, config: config)
        }
        if !staticCache!.isEmpty {
            let staticPaths = Set(staticCache!.map(\.path))
            let clashing = Set(outputs.lazy.map(\.path).filter { staticPaths.contains($0) })
            try IncrementalBuilder.checkClashes(staticCache!.filter { clashing.contains($0.path) })
        }
        outputs += staticCache!
        var fileMap: [String: [UInt8]] = [:]
        var changedPaths: Set<String>?
        do {
            sortOutputs(&outputs)
            (fileMap, changedPaths) = patchFileMap(outputs)
            // What the next rebuild needs to patch this one.
            let sourcePaths = postColumn(model.posts) { $0.pointee.sourcePath }
            if postObjects == nil {
                // posts.json was reused: its objects are the cached ones (made with it).
                postObjects = sourcePaths.map { postObjectCache[$0]?.bytes ?? [] }
            }
            var postIndexByPath: [String: Int] = [:]
            postIndexByPath.reserveCapacity(sourcePaths.count)
            for (index, path) in sourcePaths.enumerated() { postIndexByPath[path] = index }
            let searchIndices = searchFiles.map { lastOutputIndex[$0.path] ?? -1 }
            if !searchIndices.contains(-1) {
                patchState = PatchState(model: model, postVersions: postVersions, pageVersions: pageVersions,
                                        postIndexByPath: postIndexByPath, sourcePaths: sourcePaths, slugs: postSlugs,
                                        postObjects: postObjects!, analyzed: analyzed,
                                        searchPaths: searchFiles.map(\.path), searchOutputIndices: searchIndices)
            }
        }
        lap("static")
        let site = BuiltSite(files: outputs, model: model, warnings: warnings, timings: timings)
        return Result(site: site, files: fileMap, warnings: freshWarnings, renderedPages: renderedPages, renderedPaths: renderedPaths,
                      changedPaths: changedPaths)
    }

    /// The archive's tree (`PageRenderer.years`) of the last build and the fingerprint of what it shows.
    private var archiveTreeCache: (fingerprint: Int, tree: MustacheValue)?

    /// The archive's tree for `model`, made again only when what it shows changed: it lists every
    /// post, so making it for each edit would cost as much as the rest of a patch.
    private func archiveTree(_ model: SiteModel, keys: Fingerprints) -> MustacheValue {
        if let cached = archiveTreeCache, cached.fingerprint == keys.archiveIndex { return cached.tree }
        let tree = PageRenderer.years(model)
        archiveTreeCache = (keys.archiveIndex, tree)
        return tree
    }

    /// The one-shot build of `blog build`: every output goes to `sink` in batches as it is made and
    /// nothing is kept for a next build (no fingerprints, no caches). With `bodies`, each post's
    /// page is made as soon as its body is rendered, first, and each feed as soon as the posts it
    /// lists are made. The other feeds, tags.json, posts.json and the sitemap are made beside the
    /// pages, on another thread whose batches are handed to the sink between page batches, so that
    /// both cores stay busy while the render waits on its slowest page or on the writer. Then the
    /// posts' HTML is let go and the search index is written. With `bodies`, the index is made as
    /// the posts' pages are (each chunk of posts analysed on another thread, their plain and code
    /// texts let go then); without, from every post's texts after the render, each let go as the
    /// search analyses it. `model` must hold the only references to the HTML and the texts.
    /// Returns how many pages were rendered.
    /// `bodies`: the posts' bodies, in the model's order, when `loadFiles` left them unrendered
    /// (`PageRenderer.postPagesNeedOnlyOwnBody`); nil when every post has its body. Each is let go
    /// once rendered (the caller must hold no other reference to them).
    private func stream(_ model: inout SiteModel, bodies: inout [ContentLoader.PendingBody]?, loader: ContentLoader, config: SiteConfig,
                        theme: Theme, sink: ([OutputFile]) throws -> Void,
                        lap: (String) -> Void, record: (String, Double) -> Void, mathWarnings: inout [Diagnostic]) throws -> Int {
        // static/'s files are listed first, so that only the outputs that could clash with one
        // are remembered (a set of all 15,700 paths of a 10,000-post site cost a hash each, for
        // sites that mostly have no static/ at all). A file added to static/ during the build
        // still cannot replace an output: the writer refuses a path given twice.
        let staticNames = Set(try config.siteFiles(options.siteDirectory).files(under: "static"))
        var clashing = Set<String>()
        func emit(_ files: [OutputFile]) throws {
            if !staticNames.isEmpty {
                for file in files where staticNames.contains(file.path) { clashing.insert(file.path) }
            }
            try sink(files)
        }
        let urls = URLBuilder(config: config)
        let jobs = PageRenderer.jobs(model)
        // Optional so that it can let go of the model before the HTML is cleared below (else
        // clearing would copy the posts and free nothing).
        // With `bodies`, the archive's tree is made after the posts' pages (which do not show it),
        // so that it is not held through that phase.
        var renderer: PageRenderer? = PageRenderer(model: model, theme: theme, summariesFor: nil, yearsTree: bodies != nil ? .null : nil)
        var rest = jobs[...]
        // With `bodies`, the search index is made as the posts are (`SearchIndexStream`): each
        // chunk of posts analysed on another thread once handed on, its texts let go then.
        var search: SearchIndexStream?
        // With `bodies`, each feed is written as soon as the posts it lists are made; the
        // render's beside thread writes the others (all of them without `bodies`).
        var feedSchedule = FeedSchedule(model)
        if bodies != nil {
            // The posts' pages first, each made as soon as its post's body is rendered (on all
            // cores, handed on 128 posts at a time), its HTML let go at once unless a feed not yet
            // written lists it, so that no post's HTML is held from the content phase to the render
            // (fresh memory, and cold in the caches again when its page copied it). The other pages
            // show list-item views, which need every post's summary, and come after, with the
            // feeds. The workers do not wait for each other between chunks (`renderPostsInOrder`),
            // so that no core idles while one worker finishes a chunk's last posts.
            let markdown = loader.bodyRenderer()
            let verbatim = FeedWriter.PostFlags()
            var summaries = renderer!.postSummaries
            let documents = SearchDocumentMaker(model: model, urls: urls)
            let stream = SearchIndexStream(places: postColumn(model.posts) { documents.place($0.pointee) })
            search = stream
            try bodies!.withUnsafeMutableBufferPointer { bodyBuffer in
                let bodyBuffer = bodyBuffer
                try renderer!.renderPostsInOrder(bodies: bodyBuffer, markdown: markdown, chunk: 128) { range, made in
                    var searched: [SearchDocument] = []
                    searched.reserveCapacity(made.count)
                    for (n, item) in zip(range, made) {
                        var post = item.post
                        if !post.content.mathProblems.isEmpty {
                            mathWarnings += ContentLoader.mathWarnings(post.content, path: post.sourcePath, bodyFirstLine: post.bodyFirstLine)
                        }
                        searched.append(documents.document(n, post))
                        post.content.plainText = ""
                        post.content.codeText = ""
                        if !feedSchedule.needsHTML(n) { post.content.html = "" }
                        model.posts[n] = post
                        summaries[n] = item.summary
                        bodyBuffer[n] = .empty
                    }
                    stream.add(searched, at: range)
                    try emit(made.map(\.file))
                    // The feeds whose posts all have their HTML now, and then that HTML let go
                    // where no other feed needs it.
                    let (due, done) = feedSchedule.take(postsDone: range.upperBound)
                    if !due.isEmpty {
                        try emit(FeedWriter(model: model, urls: urls, verbatimPosts: verbatim).feeds(due))
                        for index in done { model.posts[index].content.html = "" }
                    }
                }
            }
            renderer = renderer!.completed(model: model, summaries: summaries)
            rest = jobs.filter { if case .post = $0 { return false } else { return true } }[...]
            lap("posts")
        }
        // The beside thread waits while a few batches of its files wait for this one, because
        // the feeds are made faster than this thread hands them on between its page batches and
        // a larger allowance would hold nearly every feed in memory at the build's peak.
        let beside = BesideWork(model, maximumPendingBytes: 8 << 20)
        defer { beside.cancelAndWait() }
        let requests = feedSchedule.remaining
        beside.start { model, put, lap in
            let feeds = FeedWriter(model: model, urls: urls)
            // In batches of ten, so that the prepared entries are never all in memory at once (an
            // entry shared by two batches is prepared twice: the price of bounded memory, small now
            // that whether a post's HTML goes in as it is was found once per post).
            var start = 0
            while start < requests.count {
                let end = min(requests.count, start + 10)
                guard put(feeds.feeds(Array(requests[start..<end]))) else { return }
                start = end
            }
            lap("+feeds")
            let indexes = IndexWriter(model: model, urls: urls)
            guard put([indexes.tagsJSON(), indexes.postsJSON()]) else { return }
            lap("+json")
            _ = put(IncrementalBuilder.rootFiles(sitemap: feeds.sitemap(pagePaths: SiteBuilder.sitemapPaths(model: model, urls: urls)),
                                                 writer: feeds, theme: theme))
            lap("+sitemap")
        }
        // Small batches of pages, handed on while the workers go on with the next
        // (`renderInOrder`): a few batches are in memory at once (up to three being made, three
        // waiting for the writer), and larger batches only raise the peak, not the busy cores.
        try renderer!.renderInOrder(Array(rest), chunk: 128) { files in
            try emit(files)
            try emit(beside.take())
        }
        renderer = nil
        while let files = beside.next() { try emit(files) }
        lap("render")
        for (phase, seconds) in beside.timings { record(phase, seconds) }

        // The posts' HTML goes now (and, without `bodies`, each post's plain and code text once
        // the search has analysed it): the search's allocations reuse that memory where malloc
        // keeps it, rather than take as much again from the system page by page (so no malloc_trim).
        for index in model.posts.indices { model.posts[index].content.html = "" }
        for index in model.pages.indices { model.pages[index].content.html = "" }
        // The index is freed on another thread while this one goes on, since freeing the analysed
        // posts object by object would hold the main thread with the other cores idle (and keeping
        // it until exit would raise the peak). It lets the
        // analyses' terms go once its postings hold them, so the index files reuse that memory.
        var garbage: Unmanaged<AnyObject>?
        if let stream = search {
            search = nil
            try emit(stream.finish().map { OutputFile(path: $0.path, bytes: $0.bytes) })
            garbage = Unmanaged.passRetained(stream)
        } else {
            let texts = PostTexts(taking: &model.posts)
            let searchState = SearchIndexState(releasingAnalyses: true)
            try emit(IndexWriter(model: model, urls: urls).searchIndex(state: searchState, texts: texts))
            garbage = Unmanaged.passRetained(searchState)
        }
        // Once the scope above has let go, that retain is the index's last owner, so the release
        // below is the one that frees it.
        if let garbage { DispatchQueue.global(qos: .utility).async { garbage.release() } }
        lap("search")
        let staticFiles = try SiteBuilder.staticFiles(options.siteDirectory, config: config)
        try IncrementalBuilder.checkClashes(staticFiles.filter { clashing.contains($0.path) })
        try emit(staticFiles)
        lap("static")
        return jobs.count
    }

    /// The sitemap files with what sits beside them at the root: robots.txt, .nojekyll and the theme's assets.
    static func rootFiles(sitemap: [OutputFile], writer: FeedWriter, theme: Theme) -> [OutputFile] {
        sitemap + [writer.robots(), OutputFile(path: ".nojekyll", bytes: [])] + theme.assets.map { OutputFile(path: $0.path, bytes: $0.bytes) }
    }

    /// Throws when a file of static/ has the path of a generated one.
    static func checkClashes(_ clashes: [OutputFile]) throws {
        if !clashes.isEmpty {
            throw DiagnosticList(clashes.map { .error("static/\($0.path) has the same path as a generated file; rename it", at: SourceLocation(file: "static/\($0.path)")) })
        }
    }

    static func postObjectKey(epoch: Int, version: Int, slug: String, tags: [Int], tagNames: [String]) -> Int {
        var hasher = Hasher()
        hasher.combine(epoch)
        hasher.combine(version)
        hasher.combine(slug)
        for tag in tags { hasher.combine(tagNames[tag]) }
        return hasher.finalize()
    }

    /// The cache key of a post's search analysis.
    static func searchKey(version: Int, slug: String, tags: [Int], tagNames: [String]) -> Int {
        var hasher = Hasher()
        hasher.combine(version)
        hasher.combine(slug)
        for tag in tags { hasher.combine(tagNames[tag]) }
        return hasher.finalize()
    }

    /// What a rebuild needs to patch the last successful in-memory build instead of going through
    /// the whole site. Set at the end of every such build; cleared when a build starts, so a failed
    /// build leaves none (the next one goes the whole way).
    struct PatchState {
        var model: SiteModel
        var postVersions: [Int]
        var pageVersions: [Int]
        var postIndexByPath: [String: Int]
        var sourcePaths: [String]
        var slugs: [String]
        /// Each post's object in posts.json and its search analysis, in model order.
        var postObjects: [[UInt8]]
        var analyzed: [AnalyzedDocument]
        /// The search index files in the order `SearchIndexState.update` gives them, and the index of
        /// each in `lastOutputs`.
        var searchPaths: [String]
        var searchOutputIndices: [Int]
    }
    private var patchState: PatchState?

    struct Patched {
        var outputs: [OutputFile]
        var files: [String: [UInt8]]
        var changed: Set<String>
        var rendered: Int
        var renderedPaths: [String]
    }

    /// The rebuild after an edit that kept the structure of the site (`SiteModel.reusedStructure`:
    /// every post kept its place, date, slug and tags; no post or page came or went) and changed
    /// only posts, not their ids or `updated` dates. Then only the pages whose fingerprint hashes a
    /// changed post can differ (its own page, its neighbours', the posts relating to it, the home,
    /// tag and archive pages listing it), the feeds it is in, posts.json and the search index; every
    /// other output of the last build stays as it is. Those pages get the same keys and fingerprints
    /// as in a full rebuild, and every cache a full rebuild reads is kept valid, so the two can
    /// alternate. Returns nil, having changed nothing a full rebuild relies on, when the edit is not
    /// of that kind.
    private func patch(_ state: inout PatchState, model: SiteModel, stale: [String], config: SiteConfig, theme: Theme,
                       lap: (String) -> Void) throws -> Patched? {
        var changedPosts: [Int] = []
        for path in stale {
            // A page, a draft or a post dated in the future: the full rebuild.
            guard let index = state.postIndexByPath[path] else { return nil }
            changedPosts.append(index)
        }
        changedPosts.sort()
        let oldPosts = state.model.posts
        for index in changedPosts {
            let old = oldPosts[index], new = model.posts[index]
            // tags.json lists ids; the sitemap shows `updated`.
            if old.id != new.id || old.updated != new.updated || old.sourcePath != new.sourcePath { return nil }
        }
        // The arrays are moved out of the state (not copied) and patched in place.
        var postVersions = state.postVersions
        state.postVersions = []
        for index in changedPosts { postVersions[index] = contentCache[state.sourcePaths[index]]?.version ?? 0 }
        let urls = URLBuilder(config: config)
        let keys = Fingerprints(model: model, postVersions: postVersions, pageVersions: state.pageVersions, epoch: epoch,
                                sourcePaths: state.sourcePaths, slugs: state.slugs)

        // The pages that show a changed post.
        let perPage = config.postsPerPage
        let changedSet = Set(changedPosts)
        var affected: [PageJob] = []
        for index in changedPosts {
            affected.append(.home(page: index / perPage + 1))
            affected.append(.postList(page: index / perPage + 1))
            affected.append(.archiveAll)
            affected.append(.post(index))
            if index > 0 { affected.append(.post(index - 1)) }
            if index + 1 < model.posts.count { affected.append(.post(index + 1)) }
            for tag in model.postTags[index] {
                if let position = model.tags[tag].postIndices.firstIndex(of: index) {
                    affected.append(.tag(tag, page: position / perPage + 1))
                }
            }
            let civil = model.posts[index].date.civil
            if let year = model.years.firstIndex(where: { $0.year == civil.year }) {
                affected.append(.archiveYear(year))
                if let month = model.months[civil.year]?.firstIndex(where: { $0.month == civil.month }) {
                    affected.append(.archiveMonth(year: civil.year, monthIndex: month))
                }
            }
        }
        for (index, related) in model.related.enumerated() where related.contains(where: changedSet.contains) {
            affected.append(.post(index))
        }
        var seen = Set<String>()
        var dirty: [(job: PageJob, key: String, fingerprint: Int)] = []
        for job in affected {
            let entry = keys.key(for: job)
            guard seen.insert(entry.key).inserted else { continue }
            if outputCache[entry.key]?.fingerprint != entry.fingerprint { dirty.append((job, entry.key, entry.fingerprint)) }
        }
        var needed = Set<Int>()
        for entry in dirty { needed.formUnion(PageRenderer.listedPosts(entry.job, model: model)) }
        let rendered = try PageRenderer(model: model, theme: theme, summariesFor: needed, yearsTree: archiveTree(model, keys: keys))
            .render(dirty.map(\.job))
        for (n, entry) in dirty.enumerated() {
            outputCache[entry.key] = CachedOutput(fingerprint: entry.fingerprint, files: [rendered[n]])
        }
        var made = rendered
        lap("render")

        // The feeds a changed post is in.
        let limit = config.feedLimit
        var requests: [(request: FeedWriter.Request, fingerprint: Int)] = []
        if changedPosts.contains(where: { $0 < limit }) {
            let fingerprint = keys.feedKey(indices: Array(model.posts.indices.prefix(limit)), name: "", slug: "")
            if outputCache["feed:"]?.fingerprint != fingerprint { requests.append((.init(key: "feed:", tag: nil), fingerprint)) }
        }
        var feedTags = Set<Int>()
        for index in changedPosts {
            for tag in model.postTags[index] where model.tags[tag].postIndices.prefix(limit).contains(index) { feedTags.insert(tag) }
        }
        for tagIndex in feedTags.sorted() {
            let tag = model.tags[tagIndex]
            let fingerprint = keys.feedKey(indices: Array(tag.postIndices.prefix(limit)), name: tag.name, slug: tag.slug)
            if outputCache["feed:" + tag.key]?.fingerprint != fingerprint { requests.append((.init(key: "feed:" + tag.key, tag: tag), fingerprint)) }
        }
        let feeds = FeedWriter(model: model, urls: urls).feeds(requests.map(\.request))
        for (entry, file) in zip(requests, feeds) {
            outputCache[entry.request.key] = CachedOutput(fingerprint: entry.fingerprint, files: [file])
        }
        made += feeds
        lap("feeds")

        // posts.json: the changed objects replaced. (tags.json lists names, slugs and ids: unchanged.)
        let indexes = IndexWriter(model: model, urls: urls, sourcePaths: state.sourcePaths)
        let tagNames = model.tags.map(\.name)
        var postObjects = state.postObjects
        state.postObjects = []
        for index in changedPosts {
            let bytes = indexes.postObject(index)
            postObjects[index] = bytes
            postObjectCache[state.sourcePaths[index]] = (IncrementalBuilder.postObjectKey(epoch: epoch, version: postVersions[index], slug: state.slugs[index],
                                                                                          tags: model.postTags[index], tagNames: tagNames), bytes)
        }
        // posts.json's fingerprint covers every post: a full rebuild makes the file again (from the cached objects).
        outputCache["json:posts"] = nil
        made.append(IndexWriter.postsJSON(objects: postObjects))
        lap("json")

        // The search index, patched for the changed posts.
        var analyzed = state.analyzed
        state.analyzed = []
        var toAnalyze: [(index: Int, key: Int)] = []
        for index in changedPosts {
            let key = IncrementalBuilder.searchKey(version: postVersions[index], slug: state.slugs[index], tags: model.postTags[index], tagNames: tagNames)
            if let cached = searchCache[state.sourcePaths[index]], cached.key == key {
                analyzed[index] = cached.analyzed
            } else {
                toAnalyze.append((index, key))
            }
        }
        let fresh = SearchIndexBuilder.analyzeAll(count: toAnalyze.count) { indexes.searchDocument(toAnalyze[$0].index) }
        for (n, entry) in toAnalyze.enumerated() {
            analyzed[entry.index] = fresh[n]
            searchCache[state.sourcePaths[entry.index]] = (entry.key, fresh[n])
        }
        let searchFiles = searchState.update(analyzed)
        // A shard may have been added or removed (an edit moves shard boundaries in its run).
        let sameSearchPaths = searchFiles.count == state.searchPaths.count
            && zip(searchFiles, state.searchPaths).allSatisfy({ $0.path == $1 })
        lap("search")

        // The outputs of the last build, with the files made here put in.
        var positions: [Int] = []
        for file in made {
            guard let position = lastOutputIndex[file.path] else { return nil }
            positions.append(position)
        }
        var outputs = lastOutputs
        var files = lastFileMap
        lastOutputs = []
        lastFileMap = [:]
        var changed = Set<String>()
        func put(_ file: OutputFile, at position: Int) {
            if IncrementalBuilder.sameBytes(outputs[position].bytes, file.bytes) { return }
            outputs[position] = file
            files[file.path] = file.bytes
            changed.insert(file.path)
        }
        for (file, position) in zip(made, positions) { put(file, at: position) }
        var searchOutputIndices = state.searchOutputIndices
        if sameSearchPaths {
            for (n, file) in searchFiles.enumerated() { put(OutputFile(path: file.path, bytes: file.bytes), at: searchOutputIndices[n]) }
        } else {
            // The old search files out, the new ones in, sorted again like a full rebuild's outputs.
            let newSearch = Dictionary(uniqueKeysWithValues: searchFiles.map { ($0.path, $0.bytes) })
            let oldSearch = Set(state.searchPaths)
            for path in oldSearch where newSearch[path] == nil {
                files[path] = nil
                changed.insert(path)
            }
            for (path, bytes) in newSearch {
                if let old = files[path], IncrementalBuilder.sameBytes(old, bytes) { continue }
                files[path] = bytes
                changed.insert(path)
            }
            outputs.removeAll { oldSearch.contains($0.path) }
            outputs += searchFiles.map { OutputFile(path: $0.path, bytes: $0.bytes) }
            outputs.sort { $0.path < $1.path }
            lastOutputIndex = [:]
            lastOutputIndex.reserveCapacity(outputs.count)
            for (index, file) in outputs.enumerated() { lastOutputIndex[file.path] = index }
            searchOutputIndices = searchFiles.map { lastOutputIndex[$0.path]! }
            // The full rebuild's sequence of unsorted paths changed too: it sorts again.
            lastOutputPaths = []
        }
        lastOutputs = outputs
        lastFileMap = files
        state.searchPaths = searchFiles.map(\.path)
        state.searchOutputIndices = searchOutputIndices
        state.model = model
        state.postVersions = postVersions
        state.postObjects = postObjects
        state.analyzed = analyzed
        patchState = state
        lap("static")
        return Patched(outputs: outputs, files: files, changed: changed, rendered: dirty.count, renderedPaths: rendered.map(\.path))
    }

    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                a.isEmpty || x.baseAddress == y.baseAddress || memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0
            }
        }
    }

    /// The unsorted paths of the last build's outputs and the order that sorts them.
    private var lastOutputPaths: [String] = []
    private var lastOutputOrder: [Int] = []
    /// The last build's outputs (sorted) and the same by path.
    private var lastOutputs: [OutputFile] = []
    private var lastFileMap: [String: [UInt8]] = [:]

    /// Sorts by path, reusing the last order when the outputs come in the same sequence of paths
    /// (the usual case in `blog serve`: an edit changes bytes, not which files there are).
    private func sortOutputs(_ outputs: inout [OutputFile]) {
        var same = outputs.count == lastOutputPaths.count
        if same {
            for index in outputs.indices where outputs[index].path != lastOutputPaths[index] { same = false; break }
        }
        if !same {
            lastOutputPaths = outputs.map(\.path)
            let paths = lastOutputPaths
            lastOutputOrder = paths.indices.sorted { paths[$0] < paths[$1] }
        }
        let unsorted = outputs
        outputs = lastOutputOrder.map { unsorted[$0] }
    }

    /// Each output's index in `lastOutputs`, by path.
    private var lastOutputIndex: [String: Int] = [:]

    /// The outputs by path: the last build's map with the files whose bytes changed replaced; and
    /// the paths whose bytes changed (nil when the set of paths changed).
    private func patchFileMap(_ outputs: [OutputFile]) -> ([String: [UInt8]], Set<String>?) {
        var map = lastFileMap
        lastFileMap = [:]
        var changed = Set<String>()
        var samePaths = outputs.count == lastOutputs.count
        if samePaths {
            for index in outputs.indices {
                let new = outputs[index], old = lastOutputs[index]
                if new.path != old.path { samePaths = false; break }
                if !IncrementalBuilder.sameBytes(new.bytes, old.bytes) {
                    map[new.path] = new.bytes
                    changed.insert(new.path)
                }
            }
        }
        if !samePaths {
            map = [:]
            map.reserveCapacity(outputs.count)
            for file in outputs { map[file.path] = file.bytes }
            lastOutputIndex = [:]
            lastOutputIndex.reserveCapacity(outputs.count)
            for (index, file) in outputs.enumerated() { lastOutputIndex[file.path] = index }
        }
        lastOutputs = outputs
        lastFileMap = map
        return (map, samePaths ? changed : nil)
    }

    static func stamp(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(size: Int64(info.st_size), mtime: Int64(info.modificationTime.tv_sec), mtimeNanos: Int(info.modificationTime.tv_nsec), inode: UInt64(info.st_ino))
    }
}

/// What each page's output depends on, as a key (which page) and a fingerprint (of its inputs).
struct Fingerprints {
    let model: SiteModel
    let postVersions: [Int]
    let pageVersions: [Int]
    let epoch: Int
    /// Read once (subscripting `model.posts` copies a whole Post).
    let sourcePaths: [String]
    let slugs: [String]
    let newestYear: Int
    let tagCounts: [Int]
    /// The fingerprint of what the archive's tree shows (see `archiveIndex(_:epoch:)`).
    let archiveIndex: Int

    init(model: SiteModel, postVersions: [Int], pageVersions: [Int], epoch: Int, sourcePaths: [String]? = nil, slugs: [String]? = nil) {
        self.model = model
        self.postVersions = postVersions
        self.pageVersions = pageVersions
        self.epoch = epoch
        self.sourcePaths = sourcePaths ?? postColumn(model.posts) { $0.pointee.sourcePath }
        self.slugs = slugs ?? postColumn(model.posts) { $0.pointee.slug }
        self.newestYear = model.posts.withUnsafeBufferPointer { $0.baseAddress?.pointee.date.civil.year ?? 0 }
        self.tagCounts = model.tags.map(\.postIndices.count)
        self.archiveIndex = Fingerprints.archiveIndex(model, epoch: epoch)
    }

    /// What the archive's tree (`PageRenderer.years`) shows: its years and months and, for each
    /// post listed, its title, slug, date and draft flag. Not the post's body, so that an edit of a
    /// post's text does not make the archive's index again.
    static func archiveIndex(_ model: SiteModel, epoch: Int) -> Int {
        var hasher = Hasher()
        hasher.combine(epoch)
        model.posts.withUnsafeBufferPointer { posts in
            for year in model.years {
                hasher.combine(year.year)
                hasher.combine(year.postIndices.count)
                for month in model.months[year.year] ?? [] {
                    hasher.combine(month.month)
                    hasher.combine(month.postIndices.count)
                    for index in month.postIndices {
                        let post = posts.baseAddress! + index
                        hasher.combine(index)
                        hasher.combine(post.pointee.title)
                        hasher.combine(post.pointee.slug)
                        hasher.combine(post.pointee.date)
                        hasher.combine(post.pointee.draft)
                    }
                }
            }
        }
        return hasher.finalize()
    }

    func hashPosts(_ hasher: inout Hasher, _ indices: some Sequence<Int>) {
        for index in indices {
            hasher.combine(index)
            hasher.combine(postVersions[index])
            for tag in model.postTags[index] { hasher.combine(tagCounts[tag]) }
        }
    }

    func archiveStructure(_ hasher: inout Hasher) {
        for year in model.years {
            hasher.combine(year.year)
            hasher.combine(year.postIndices.count)
            for month in model.months[year.year] ?? [] {
                hasher.combine(month.month)
                hasher.combine(month.postIndices.count)
            }
        }
    }

    func key(for job: PageJob) -> (key: String, fingerprint: Int) {
        var hasher = Hasher()
        hasher.combine(epoch)
        // Site-wide values every page shows (the copyright year is the newest post's).
        hasher.combine(newestYear)
        let perPage = model.config.postsPerPage
        func slice(_ indices: [Int], _ page: Int) -> ArraySlice<Int> {
            let start = (page - 1) * perPage
            return start < indices.count ? indices[start..<min(indices.count, start + perPage)] : []
        }
        let key: String
        switch job {
        case .home(let page):
            key = "home:\(page)"
            hasher.combine(model.posts.count)
            let start = (page - 1) * perPage
            hashPosts(&hasher, start < model.posts.count ? start..<min(model.posts.count, start + perPage) : 0..<0)
        case .postList(let page):
            key = "posts:\(page)"
            hasher.combine(model.posts.count)
            let start = (page - 1) * perPage
            hashPosts(&hasher, start < model.posts.count ? start..<min(model.posts.count, start + perPage) : 0..<0)
        case .post(let index):
            key = "post:" + sourcePaths[index]
            hashPosts(&hasher, [index])
            hasher.combine(slugs[index])
            if index > 0 { hashPosts(&hasher, [index - 1]) } else { hasher.combine(-1) }
            if index + 1 < model.posts.count { hashPosts(&hasher, [index + 1]) } else { hasher.combine(-2) }
            hashPosts(&hasher, model.related[index])
        case .page(let index):
            key = "page:" + model.pages[index].sourcePath
            hasher.combine(pageVersions[index])
        case .tags:
            key = "tags"
            for tag in model.tags {
                hasher.combine(tag.name)
                hasher.combine(tag.slug)
                hasher.combine(tag.postIndices.count)
            }
        case .tag(let tagIndex, let page):
            let tag = model.tags[tagIndex]
            key = "tag:\(tag.key):\(page)"
            hasher.combine(tag.name)
            hasher.combine(tag.slug)
            hasher.combine(tag.postIndices.count)
            hashPosts(&hasher, slice(tag.postIndices, page))
        case .archiveAll:
            key = "archive"
            hasher.combine(archiveIndex)
        case .archiveYear(let index):
            let year = model.years[index]
            key = "archive:\(year.year)"
            archiveStructure(&hasher)
            hashPosts(&hasher, year.postIndices)
        case .archiveMonth(let year, let monthIndex):
            let month = model.months[year]![monthIndex]
            key = "archive:\(year):\(month.month)"
            archiveStructure(&hasher)
            hashPosts(&hasher, month.postIndices)
        case .search:
            key = "search"
        case .notFound:
            key = "404"
        }
        hasher.combine(key)
        return (key, hasher.finalize())
    }

    func feedKey(indices: [Int], name: String, slug: String) -> Int {
        var hasher = Hasher()
        hasher.combine(epoch)
        hasher.combine(name)
        hasher.combine(slug)
        hashPosts(&hasher, indices)
        return hasher.finalize()
    }
}
