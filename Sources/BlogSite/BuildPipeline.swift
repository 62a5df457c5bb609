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

/// PIPELINE_DOC
struct BuildPipeline {
    typealias Result = IncrementalBuilder.Result
    let options: BuildOptions
    /// What serve keeps between builds (a fresh one for `blog build` and the tests).
    let cache: BuildCache


    /// Builds, reusing what is still valid. `changed` holds absolute paths that changed since the last
    /// call (empty: check every file's stamp). Throws the build's errors; the cache keeps the last good state.
    ///
    /// With a `sink`, the build streams: outputs are handed to the sink in batches as they are made
    /// and not kept (the returned site has no files, and nothing is cached for a next build). This
    /// is how `blog build` writes a large site without holding all of it in memory.
    func run(changed: Set<String> = [], console: Console? = nil,
                        sink: (([OutputFile]) throws -> Void)? = nil) throws -> Result {
        // The patch state is valid only right after a successful build: taken now, put back at the end.
        var previousPatch = cache.patchState
        cache.patchState = nil
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
        let configChanged = cache.config == nil || touches("blog.yml") || touches("themes") || touches("layouts")
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
            let sameMarkdown = cache.config.map {
                $0.markdownHardBreaks == loaded.markdownHardBreaks && $0.markdownUnsafe == loaded.markdownUnsafe
                    && $0.markdownMath == loaded.markdownMath && $0.timezone == loaded.timezone
            } ?? false
            if !sameMarkdown { cache.contentCache = [:] }
            cache.config = loaded
            cache.theme = newTheme
            cache.outputCache = [:]
            cache.epoch += 1
        }
        guard let config = cache.config, let theme = cache.theme else { throw Diagnostic.error("internal: no configuration") }
        lap(configChanged ? "theme" : "config")

        // Content: re-read only files whose stamp changed. When the watcher named only Markdown
        // files, only those are looked at; anything else (a folder, a rescan) lists content/ again.
        let loader = ContentLoader(siteDirectory: options.siteDirectory, config: config)
        let contentPrefix = root + "/content/"
        // `blog build` (a sink, a new builder): no cache to fill, no stamps to take (see `stream`).
        let oneShot = sink != nil && cache.contentCache.isEmpty && cache.lastModel == nil
        let onlyMarkdown = !changed.isEmpty && !cache.contentCache.isEmpty && !configChanged && changed.allSatisfy { path in
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
        var stale: [(path: String, stamp: BuildCache.FileStamp?)] = []
        var sameList = false
        if onlyMarkdown {
            var added: [String] = []
            var removed: [String] = []
            var touched: [String] = []
            for path in changed where path.hasPrefix(contentPrefix) {
                let relative = String(path.dropFirst(root.count + 1))
                if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                let exists = FileManager.default.fileExists(atPath: path)
                let known = cache.contentCache[relative] != nil
                if exists { touched.append(relative) }
                if exists && !known { added.append(relative) }
                if !exists && known { removed.append(relative) }
            }
            if added.isEmpty && removed.isEmpty && cache.lastPaths.count == cache.contentCache.count {
                paths = cache.lastPaths
                sameList = true
            } else {
                var set = Set(cache.contentCache.keys)
                set.formUnion(added)
                set.subtract(removed)
                paths = set.sorted()
            }
            for relative in touched.sorted() {
                let stamp = BuildCache.stamp(root + "/" + relative)
                if let cached = cache.contentCache[relative], let stamp, cached.stamp == stamp { continue }
                stale.append((relative, stamp))
            }
        } else if oneShot {
            // `blog build` keeps nothing for a next build: every file is read, none needs a stamp.
            paths = try loader.markdownFiles()
            stale = paths.map { ($0, nil) }
        } else {
            paths = try loader.markdownFiles()
            let list = paths
            let stamps = WorkShare.map(count: list.count) { BuildCache.stamp(root + "/" + list[$0]) }
            for (index, path) in paths.enumerated() {
                if let cached = cache.contentCache[path], let stamp = stamps[index], cached.stamp == stamp { continue }
                stale.append((path, stamps[index]))
            }
            sameList = paths == cache.lastPaths && cache.lastPaths.count == cache.contentCache.count
        }
        // `blog build` renders each post's body beside its page when the theme allows (see `stream`).
        let deferBodies = oneShot && PageRenderer.postPagesNeedOnlyOwnBody(theme)
        var reloaded = loader.loadFiles(stale.map(\.path), deferringPostBodies: deferBodies)
        for (n, entry) in stale.enumerated() where !oneShot {
            cache.contentCache[entry.path] = BuildCache.CachedFile(stamp: entry.stamp ?? BuildCache.FileStamp(size: -1, mtime: 0, mtimeNanos: 0, inode: 0),
                                                  file: reloaded[n], version: cache.nextVersion)
            cache.nextVersion += 1
        }
        var files: [ContentLoader.LoadedFile]
        if oneShot {
            files = reloaded
        } else if sameList && cache.lastFiles.count == paths.count {
            files = cache.lastFiles
            cache.lastFiles = []
            for (n, entry) in stale.enumerated() {
                if let index = cache.lastPathIndex[entry.path] { files[index] = reloaded[n] }
            }
        } else {
            if cache.contentCache.count != paths.count {
                let live = Set(paths)
                cache.contentCache = cache.contentCache.filter { live.contains($0.key) }
            }
            files = paths.map { cache.contentCache[$0]!.file }
            cache.lastPathIndex = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($0.element, $0.offset) })
        }
        // Errors are reported before the cache keeps them, so a fix is noticed even if the stamp repeats.
        var content: ContentSet
        do {
            content = try loader.collect(files)
        } catch {
            // Keep good files cached; drop the broken ones so they are re-read next time.
            cache.contentCache = cache.contentCache.filter { !$0.value.file.diagnostics.contains { $0.severity == .error } }
            cache.lastPaths = []
            cache.lastFiles = []
            throw error
        }
        cache.lastPaths = paths
        cache.lastFiles = files
        let warnings = content.warnings
        let freshWarnings = reloaded.flatMap(\.diagnostics)
        lap("content")

        var model = try SiteModel.assemble(content, config: config,
                                           options: SiteModel.Options(includeDrafts: options.includeDrafts, includeFuture: options.includeFuture, now: options.now),
                                           previous: cache.lastModel)
        cache.lastModel = model
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
            cache.contentCache = [:]
            cache.lastModel = nil
            reloaded = []
            files = []
            cache.lastPaths = []
            cache.lastFiles = []
            cache.lastPathIndex = [:]
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

        let postVersions = postColumn(model.posts) { cache.contentCache[$0.pointee.sourcePath]?.version ?? 0 }
        let postSlugs = postColumn(model.posts) { $0.pointee.slug }
        let pageVersions = model.pages.map { cache.contentCache[$0.sourcePath]?.version ?? 0 }
        // Pages and feeds, in a scope of their own: the renderer and feed writer hold the model with
        // every post's HTML, and let go of it when the scope ends.
        let urls = URLBuilder(config: config)
        var renderedPages = 0
        var renderedPaths: [String] = []
        do {
            let keys = Fingerprints(model: model, postVersions: postVersions, pageVersions: pageVersions, epoch: cache.epoch)
            let jobs = PageRenderer.jobs(model)
            // One key and fingerprint per page, on all cores (a serve rebuild does this for every page).
            var jobKeys: [(key: String, fingerprint: Int)] = WorkShare.map(count: jobs.count) { keys.key(for: jobs[$0]) }
            var dirty: [Int] = []
            for (index, entry) in jobKeys.enumerated() where cache.outputCache[entry.key]?.fingerprint != entry.fingerprint {
                dirty.append(index)
            }
            // Only the list items the dirty pages show are built (all of them in a full build).
            var needed: Set<Int>?
            if dirty.count < jobs.count {
                var indices = Set<Int>()
                for index in dirty { indices.formUnion(PageRenderer.listedPosts(jobs[index], model: model)) }
                needed = indices
            }
            let renderer = PageRenderer(model: model, theme: theme, summariesFor: needed, yearsTree: cache.archiveTree(model, keys: keys))
            // The cache is patched in place: entries are checked by fingerprint, so a page rendered
            // for inputs that are still current is valid even if a later step of this build fails.
            var keysChanged = false
            let rendered = try renderer.render(dirty.map { jobs[$0] })
            renderedPaths = rendered.map(\.path)
            for (n, index) in dirty.enumerated() {
                cache.outputCache[jobKeys[index].key] = BuildCache.CachedOutput(fingerprint: jobKeys[index].fingerprint, files: [rendered[n]])
            }
            outputs.reserveCapacity(jobs.count + model.tags.count * 2 + 64)
            for entry in jobKeys { outputs += cache.outputCache[entry.key]!.files }
            var same = jobKeys.count == cache.lastPageKeys.count
            if same { for (index, entry) in jobKeys.enumerated() where entry.key != cache.lastPageKeys[index] { same = false; break } }
            if !same {
                cache.lastPageKeys = jobKeys.map(\.key)
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
            if cache.outputCache["feed:"]?.fingerprint != feedKeys["feed:"] { feedRequests.append(.init(key: "feed:", tag: nil)) }
            for tag in model.tags where cache.outputCache["feed:" + tag.key]?.fingerprint != feedKeys["feed:" + tag.key] {
                feedRequests.append(.init(key: "feed:" + tag.key, tag: tag))
            }
            for (request, file) in zip(feedRequests, feeds.feeds(feedRequests)) {
                cache.outputCache[request.key] = BuildCache.CachedOutput(fingerprint: feedKeys[request.key]!, files: [file])
            }
            let feedKeyList = ["feed:"] + model.tags.map({ "feed:" + $0.key })
            for key in feedKeyList { outputs += cache.outputCache[key]!.files }
            if keysChanged || feedKeyList != cache.lastFeedKeys {
                // Pages or feeds that no longer exist leave the cache (the outputs cached
                // after this point are kept; their fingerprints are checked there).
                var live = Set(cache.lastPageKeys)
                live.formUnion(feedKeyList)
                live.formUnion(["json:tags", "json:posts", "sitemap"])
                cache.outputCache = cache.outputCache.filter { live.contains($0.key) }
                cache.lastFeedKeys = feedKeyList
            }
            lap("feeds")
            renderedPages = dirty.count
        }
        let indexes = IndexWriter(model: model, urls: urls)
        // tags.json and posts.json: rebuilt only when what they list changed.
        let postIDs = postColumn(model.posts) { $0.pointee.id }
        let tagNames = model.tags.map(\.name)
        var tagsHasher = Hasher()
        tagsHasher.combine(cache.epoch)
        for tag in model.tags {
            tagsHasher.combine(tag.name)
            tagsHasher.combine(tag.slug)
            for index in tag.postIndices { tagsHasher.combine(postIDs[index]) }
        }
        var postsHasher = Hasher()
        postsHasher.combine(cache.epoch)
        for (index, version) in postVersions.enumerated() {
            postsHasher.combine(version)
            for tag in model.postTags[index] { postsHasher.combine(tagNames[tag]) }
        }
        var postObjects: [[UInt8]]?
        func postsJSON() -> OutputFile {
            var objects: [[UInt8]] = []
            defer { postObjects = objects }
            return indexes.postsJSON(cache: &cache.postObjectCache, objects: &objects) { index in
                BuildCache.postObjectKey(epoch: cache.epoch, version: postVersions[index], slug: postSlugs[index],
                                                 tags: model.postTags[index], tagNames: tagNames)
            }
        }
        for (key, fingerprint, make) in [("json:tags", tagsHasher.finalize(), indexes.tagsJSON), ("json:posts", postsHasher.finalize(), postsJSON)] {
            let entry = cache.outputCache[key]?.fingerprint == fingerprint ? cache.outputCache[key]! : BuildCache.CachedOutput(fingerprint: fingerprint, files: [make()])
            cache.outputCache[key] = entry
            outputs += entry.files
        }
        lap("json")
        var analyzed: [AnalyzedDocument] = []
        let searchFiles = indexes.searchIndex(cache: &cache.searchCache, state: cache.searchState, analyzedOut: &analyzed) { index in
            BuildCache.searchKey(version: postVersions[index], slug: postSlugs[index], tags: model.postTags[index], tagNames: tagNames)
        }
        outputs += searchFiles
        lap("search")
        let sitemaps = FeedWriter(model: model, urls: urls)
        // The sitemap lists every page: made again only when a listed path or date may have changed.
        var sitemapHasher = Hasher()
        sitemapHasher.combine(cache.epoch)
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
        if let cached = cache.outputCache["sitemap"], cached.fingerprint == sitemapKey {
            sitemapFiles = cached.files
        } else {
            sitemapFiles = sitemaps.sitemap(pagePaths: SiteBuilder.sitemapPaths(model: model, urls: urls))
            cache.outputCache["sitemap"] = BuildCache.CachedOutput(fingerprint: sitemapKey, files: sitemapFiles)
        }
        outputs += BuildPipeline.rootFiles(sitemap: sitemapFiles, writer: sitemaps, theme: theme)
        lap("sitemap")

        if cache.staticCache == nil || touches("static") || everything {
            cache.staticCache = try SiteBuilder.staticFiles(options.siteDirectory, config: config)
        }
        if !cache.staticCache!.isEmpty {
            let staticPaths = Set(cache.staticCache!.map(\.path))
            let clashing = Set(outputs.lazy.map(\.path).filter { staticPaths.contains($0) })
            try BuildPipeline.checkClashes(cache.staticCache!.filter { clashing.contains($0.path) })
        }
        outputs += cache.staticCache!
        var fileMap: [String: [UInt8]] = [:]
        var changedPaths: Set<String>?
        do {
            cache.sortOutputs(&outputs)
            (fileMap, changedPaths) = cache.patchFileMap(outputs)
            // What the next rebuild needs to patch this one.
            let sourcePaths = postColumn(model.posts) { $0.pointee.sourcePath }
            if postObjects == nil {
                // posts.json was reused: its objects are the cached ones (made with it).
                postObjects = sourcePaths.map { cache.postObjectCache[$0]?.bytes ?? [] }
            }
            var postIndexByPath: [String: Int] = [:]
            postIndexByPath.reserveCapacity(sourcePaths.count)
            for (index, path) in sourcePaths.enumerated() { postIndexByPath[path] = index }
            let searchIndices = searchFiles.map { cache.lastOutputIndex[$0.path] ?? -1 }
            if !searchIndices.contains(-1) {
                cache.patchState = BuildCache.PatchState(model: model, postVersions: postVersions, pageVersions: pageVersions,
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
    func stream(_ model: inout SiteModel, bodies: inout [ContentLoader.PendingBody]?, loader: ContentLoader, config: SiteConfig,
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
            _ = put(BuildPipeline.rootFiles(sitemap: feeds.sitemap(pagePaths: SiteBuilder.sitemapPaths(model: model, urls: urls)),
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
        try BuildPipeline.checkClashes(staticFiles.filter { clashing.contains($0.path) })
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
}
