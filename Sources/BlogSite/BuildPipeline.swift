import BlogCore
import BlogContent
import BlogMustache
import BlogSearch
import Foundation

/// The build, in the order it runs. `run` reads top to bottom:
///
///     config → theme → content → assemble → posts → lists → feeds → JSON indexes → sitemap → search → static
///
/// with a `--timings` lap after each step, named after it. The outputs go into a `BuildSink`: the
/// output folder's transaction for `blog build` (`OutputWriter.Transaction`), which the build
/// streams into, letting each post's HTML go once its page is written (unless a feed not yet
/// written lists it); or a `MemorySink`, which keeps every output for `blog serve` and the tests
/// (the build hands them back sorted and in a map by path).
///
/// Serve's state sits beside the pipeline in a `BuildCache` that the pipeline consults: which
/// content files to read again, which pages, feeds and indexes are unchanged, each post's
/// posts.json object and search analysis, the last outputs. `blog build` keeps nothing in it but
/// the configuration.
///
/// Up to assemble every build runs the same steps. From there on the steps run one of three
/// ways, all three making each output with the same maker (`Outputs`, below):
/// - streaming (`stream`: `blog build`): the posts' pages first, each as soon as its body is
///   rendered ("posts"), with each feed once the posts it lists are made; then the list pages
///   ("lists") while another thread makes the other feeds, the JSON indexes and the sitemap
///   ("+feeds", "+indexes", "+sitemap": a lap marked + ran beside the one before it); then, the
///   HTML let go, the search index and static/.
/// - in memory (`inMemory`: serve's first build, a change of structure, the tests): the posts'
///   and then the lists' pages whose fingerprint changed, then the feeds, JSON indexes, sitemap,
///   search index and static/, each reused from the cache while its inputs are the same.
/// - patch (`patch`, in ServePatch.swift: serve, after an edit of posts that kept the site's
///   structure): only the pages, feeds, posts.json objects and search analyses of the changed
///   posts, put into the last build's outputs.
struct BuildPipeline {
    typealias Result = IncrementalBuilder.Result
    let options: BuildOptions
    /// What serve keeps between builds (an empty one for `blog build` and one-shot tests).
    let cache: BuildCache

    /// Builds into `sink`. `changed` holds absolute paths that changed since the last build with
    /// this cache (empty: check every file's stamp). Throws the build's errors; the cache keeps the
    /// last good state. A sink other than a `MemorySink` is streamed into: the returned site has no
    /// files and nothing is cached for a next build.
    func run(changed: Set<String>, console: Console?, sink: BuildSink) throws -> Result {
        // The patch state is valid only right after a successful build: taken now, put back at the end.
        var previousPatch = cache.patchState
        cache.patchState = nil
        var timer = PhaseTimer()
        let scope = ChangeScope(changed: changed, root: options.siteDirectory.standardizedFileURL.path, configLoaded: cache.config != nil)
        let memory = sink as? MemorySink

        // config and theme: read again only when blog.yml, a theme, layouts/ or the favicon changed.
        let (config, theme) = try configAndTheme(scope, console: console, timer: &timer)

        // content: every Markdown file read, or (serve) only those whose stamp changed.
        let loader = ContentLoader(siteDirectory: options.siteDirectory, config: config)
        // `blog build` renders each post's body beside its page when the theme allows (see `stream`).
        let deferBodies = memory == nil && PageRenderer.postPagesNeedOnlyOwnBody(theme)
        var read = try memory == nil ? BuildCache.ContentRead(all: loader.markdownFiles(), loader: loader, deferringPostBodies: deferBodies)
            : cache.contentFiles(scope, loader: loader)
        var content: ContentSet
        do {
            content = try loader.collect(read.files)
        } catch {
            // Errors are reported before the cache keeps the files, so a fix is noticed even if the stamp repeats.
            if memory != nil { cache.forgetBrokenFiles() }
            throw error
        }
        if memory != nil { cache.keepContent(read) }
        let warnings = content.warnings
        let freshWarnings = read.reloaded.flatMap(\.diagnostics)
        timer.lap("content")

        // assemble: the site model (serve reuses the last one's structure where it can).
        var model = try SiteModel.assemble(content, config: config,
                                           options: SiteModel.Options(includeDrafts: options.includeDrafts, includeFuture: options.includeFuture, now: options.now),
                                           previous: memory == nil ? nil : cache.lastModel)
        if memory != nil { cache.lastModel = model }
        timer.lap("assemble")

        // posts → lists → feeds → JSON indexes → sitemap → search → static, one of three ways.
        guard let memory else {
            // `blog build`. Only `model` keeps the posts' HTML from here on, so `stream` can let go of it.
            var bodies: [ContentLoader.PendingBody]? = try deferBodies ? pendingBodies(model, read: read) : nil
            read = BuildCache.ContentRead()
            content = ContentSet(posts: [], pages: [], warnings: [])
            var mathWarnings: [Diagnostic] = []
            let rendered = try stream(&model, bodies: &bodies, loader: loader, config: config, theme: theme, sink: sink,
                                      timer: &timer, mathWarnings: &mathWarnings)
            let site = BuiltSite(files: [], model: model, warnings: warnings + mathWarnings, timings: timer.timings)
            return Result(site: site, files: [:], warnings: freshWarnings, renderedPages: rendered, changedPaths: nil)
        }
        if !scope.configChanged, !scope.everything, !scope.touches("static"), read.sameList, model.reusedStructure, previousPatch != nil,
           let patched = try patch(&previousPatch!, model: model, stale: read.stale, config: config, theme: theme, timer: &timer) {
            let site = BuiltSite(files: patched.outputs, model: model, warnings: warnings, timings: timer.timings)
            return Result(site: site, files: patched.files, warnings: freshWarnings, renderedPages: patched.rendered,
                          renderedPaths: patched.renderedPaths, changedPaths: patched.changed, patched: true)
        }
        var result = try inMemory(model, config: config, theme: theme, scope: scope, sink: memory, timer: &timer)
        result.site = BuiltSite(files: result.site.files, model: model, warnings: warnings, timings: timer.timings)
        result.warnings = freshWarnings
        return result
    }

    /// The bodies `blog build` left to render, in the model's order (drafts and future posts left
    /// out of the site are never rendered).
    private func pendingBodies(_ model: SiteModel, read: BuildCache.ContentRead) throws -> [ContentLoader.PendingBody] {
        var byPath: [String: ContentLoader.PendingBody] = [:]
        byPath.reserveCapacity(read.files.count)
        for file in read.files { if let body = file.pendingBody { byPath[file.path] = body } }
        return try model.posts.map { post in
            guard let body = byPath[post.sourcePath] else { throw Diagnostic.error("internal: no body for \(post.sourcePath)") }
            return body
        }
    }

    /// The configuration and theme: the last build's unless blog.yml, a theme, layouts/ or the
    /// favicon changed. A change of how Markdown is read forgets the loaded files too.
    private func configAndTheme(_ scope: ChangeScope, console: Console?, timer: inout PhaseTimer) throws -> (SiteConfig, Theme) {
        guard scope.configChanged || scope.everything else {
            timer.lap("config")
            timer.lap("theme")
            guard let config = cache.config, let theme = cache.theme else { throw Diagnostic.error("internal: no configuration") }
            return (config, theme)
        }
        var loaded = try SiteConfig.load(siteDirectory: options.siteDirectory, console: console)
        if let override = options.baseURL {
            guard let normalized = SiteConfig.normalizeBaseURL(override) else {
                throw Diagnostic.error("--base-url must be an absolute http(s) URL such as https://example.com/, not '\(override)'")
            }
            loaded.baseURL = normalized
        }
        if options.allowOutsideLinks { loaded.followOutsideLinks = true }
        timer.lap("config")
        let newTheme = try Theme.load(siteDirectory: options.siteDirectory, config: loaded, hashAssetNames: options.hashAssetNames)
        cache.configChanged(to: loaded, theme: newTheme)
        timer.lap("theme")
        return (loaded, newTheme)
    }

    /// The build into memory, each output reused from the cache while the fingerprint of its
    /// inputs is the same. Leaves in the cache what the next build needs, a patch included.
    private func inMemory(_ model: SiteModel, config: SiteConfig, theme: Theme, scope: ChangeScope, sink: MemorySink,
                          timer: inout PhaseTimer) throws -> Result {
        let postVersions = postColumn(model.posts) { cache.contentCache[$0.pointee.sourcePath]?.version ?? 0 }
        let postSlugs = postColumn(model.posts) { $0.pointee.slug }
        let pageVersions = model.pages.map { cache.contentCache[$0.sourcePath]?.version ?? 0 }
        let urls = URLBuilder(config: config)
        let keys = Fingerprints(model: model, postVersions: postVersions, pageVersions: pageVersions, epoch: cache.epoch)
        let jobs = PageRenderer.jobs(model)
        sink.reserve(jobs.count + model.tags.count * 2 + 64)

        // posts, then lists: the pages whose fingerprint changed.
        // One key and fingerprint per page, on all cores (a serve rebuild does this for every page).
        let jobKeys: [(key: String, fingerprint: Int)] = WorkShare.map(count: jobs.count) { keys.key(for: jobs[$0]) }
        let dirty = jobKeys.indices.filter { cache.outputCache[jobKeys[$0].key]?.fingerprint != jobKeys[$0].fingerprint }
        // Only the list items the dirty pages show are built (all of them in a full build).
        var needed: Set<Int>?
        if dirty.count < jobs.count {
            var indices = Set<Int>()
            for index in dirty { indices.formUnion(PageRenderer.listedPosts(jobs[index], model: model)) }
            needed = indices
        }
        // The cache is patched in place: entries are checked by fingerprint, so a page rendered
        // for inputs that are still current is valid even if a later step of this build fails.
        let rendered = try PageRenderer(model: model, theme: theme, summariesFor: needed, yearsTree: cache.archiveTree(model, keys: keys))
            .renderPostsThenLists(dirty.map { jobs[$0] }, timer: &timer)
        for (n, index) in dirty.enumerated() {
            cache.outputCache[jobKeys[index].key] = BuildCache.CachedOutput(fingerprint: jobKeys[index].fingerprint, files: [rendered[n]])
        }
        for entry in jobKeys { try sink.write(cache.outputCache[entry.key]!.files) }
        let pageKeysChanged = cache.pageKeysChanged(jobKeys.lazy.map(\.key))

        // feeds: each made again only when an entry in it changed.
        let feedRequests = FeedWriter.requests(model)
        let feedKeys = feedRequests.map { keys.feed($0) }
        let staleFeeds = feedRequests.indices.filter { cache.outputCache[feedRequests[$0].key]?.fingerprint != feedKeys[$0] }
        for (n, file) in Outputs.feeds(staleFeeds.map { feedRequests[$0] }, model: model, urls: urls).enumerated() {
            cache.outputCache[feedRequests[staleFeeds[n]].key] = BuildCache.CachedOutput(fingerprint: feedKeys[staleFeeds[n]], files: [file])
        }
        for request in feedRequests { try sink.write(cache.outputCache[request.key]!.files) }
        // Pages or feeds that no longer exist leave the cache.
        cache.forgetGoneOutputs(pageKeysChanged: pageKeysChanged, feedKeys: feedRequests.map(\.key), others: ["json:tags", "json:posts", "sitemap"])
        timer.lap("feeds")

        // JSON indexes: tags.json and posts.json, made again only when what they list changed.
        let tagNames = model.tags.map(\.name)
        let indexes = IndexWriter(model: model, urls: urls)
        // Each post's object in posts.json, when made here (the patch state needs them).
        var postObjects: [[UInt8]]?
        try sink.write(cache.reuse("json:tags", fingerprint: keys.tagsIndex()) { [Outputs.tagsJSON(indexes)] })
        try sink.write(cache.reuse("json:posts", fingerprint: keys.postsIndex(tagNames: tagNames)) {
            let objects = indexes.postObjects(cache: &cache.postObjectCache) { index in
                BuildCache.postObjectKey(epoch: cache.epoch, version: postVersions[index], slug: postSlugs[index],
                                         tags: model.postTags[index], tagNames: tagNames)
            }
            postObjects = objects
            return [Outputs.postsJSON(objects: objects)]
        })
        timer.lap("indexes")

        // sitemap, with robots.txt, .nojekyll and the theme's assets: made again only when a listed
        // path or date may have changed.
        try sink.write(cache.reuse("sitemap", fingerprint: keys.sitemap()) { Outputs.sitemap(model: model, urls: urls, theme: theme) })
        timer.lap("sitemap")

        // search: each post analysed again only when it changed.
        let analyzed = indexes.analyses(cache: &cache.searchCache) { index in
            BuildCache.searchKey(version: postVersions[index], slug: postSlugs[index], tags: model.postTags[index], tagNames: tagNames)
        }
        let searchFiles = Outputs.searchIndex(analyzed, state: cache.searchState)
        try sink.write(searchFiles)
        timer.lap("search")

        // static: static/'s files, read again only when something in static/ changed.
        if cache.staticCache == nil || scope.touches("static") || scope.everything {
            cache.staticCache = try Outputs.staticFiles(options.siteDirectory, config: config)
        }
        if !cache.staticCache!.isEmpty {
            let staticPaths = Set(cache.staticCache!.map(\.path))
            try Outputs.checkClashes(cache.staticCache!, generated: Set(sink.outputs.lazy.map(\.path).filter { staticPaths.contains($0) }).contains)
        }
        try sink.write(cache.staticCache!)
        // The outputs by path, and what the next build needs to patch this one.
        let (outputs, fileMap, changedPaths) = cache.publish(sink.take())
        cache.keepPatchState(model: model, postVersions: postVersions, pageVersions: pageVersions, slugs: postSlugs,
                             postObjects: postObjects, analyzed: analyzed, searchFiles: searchFiles)
        timer.lap("static")
        let site = BuiltSite(files: outputs, model: model, warnings: [], timings: [])
        return Result(site: site, files: fileMap, warnings: [], renderedPages: dirty.count, renderedPaths: rendered.map(\.path),
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
    ///
    /// `bodies`: the posts' bodies, in the model's order, when `loadFiles` left them unrendered
    /// (`PageRenderer.postPagesNeedOnlyOwnBody`); nil when every post has its body. Each is let go
    /// once rendered (the caller must hold no other reference to them). Returns how many pages
    /// were rendered.
    private func stream(_ model: inout SiteModel, bodies: inout [ContentLoader.PendingBody]?, loader: ContentLoader, config: SiteConfig,
                        theme: Theme, sink: BuildSink, timer: inout PhaseTimer, mathWarnings: inout [Diagnostic]) throws -> Int {
        // static/'s files are listed first, so that only the outputs that could clash with one
        // are remembered (a set of every output path would cost a hash a page, for sites that
        // mostly have no static/ at all). A file added to static/ during the build
        // still cannot replace an output: the writer refuses a path given twice.
        let staticNames = Set(try config.siteFiles(options.siteDirectory).files(under: "static"))
        var clashing = Set<String>()
        func emit(_ files: [OutputFile]) throws {
            if !staticNames.isEmpty {
                for file in files where staticNames.contains(file.path) { clashing.insert(file.path) }
            }
            try sink.write(files)
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
        let postsMadeFirst = bodies != nil
        if postsMadeFirst {
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
                        try emit(Outputs.feeds(due, model: model, urls: urls, verbatim: verbatim))
                        for index in done { model.posts[index].content.html = "" }
                    }
                }
            }
            renderer = renderer!.completed(model: model, summaries: summaries)
            rest = jobs.filter { if case .post = $0 { return false } else { return true } }[...]
            timer.lap("posts")
        }
        // The beside thread waits while a few batches of its files wait for this one, because
        // the feeds are made faster than this thread hands them on between its page batches and
        // a larger allowance would hold nearly every feed in memory at the build's peak.
        let beside = WorkShare.Beside<SiteModel, OutputFile>(model, maximumPendingBytes: 8 << 20) { $0.bytes.count }
        defer { beside.cancelAndWait() }
        let requests = feedSchedule.remaining
        beside.start { model, put, lap in
            let verbatim = FeedWriter.PostFlags()
            // In batches of ten, so that the prepared entries are never all in memory at once (an
            // entry shared by two batches is prepared twice: the price of bounded memory, small
            // since `verbatim` finds once per post whether its HTML goes in as it is).
            var start = 0
            while start < requests.count {
                let end = min(requests.count, start + 10)
                guard put(Outputs.feeds(Array(requests[start..<end]), model: model, urls: urls, verbatim: verbatim)) else { return }
                start = end
            }
            lap("+feeds")
            let indexes = IndexWriter(model: model, urls: urls)
            guard put([Outputs.tagsJSON(indexes), Outputs.postsJSON(objects: indexes.postObjects())]) else { return }
            lap("+indexes")
            _ = put(Outputs.sitemap(model: model, urls: urls, theme: theme))
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
        timer.lap(postsMadeFirst ? "lists" : "posts+lists")
        for (phase, seconds) in beside.timings { timer.record(phase, seconds) }

        // The posts' HTML goes now (and, without `bodies`, each post's plain and code text once
        // the search has analysed it): the search's allocations reuse that memory where malloc
        // keeps it, rather than take as much again from the system page by page (so no malloc_trim).
        for index in model.posts.indices { model.posts[index].content.html = "" }
        for index in model.pages.indices { model.pages[index].content.html = "" }
        // The index lets the analyses' terms go once its postings hold them, so the index files
        // reuse that memory. It is freed on another thread while this one goes on, since freeing
        // the analysed posts object by object would hold the main thread with the other cores idle
        // (and keeping it until exit would raise the peak).
        var garbage: Unmanaged<AnyObject>?
        if let stream = search {
            search = nil
            try emit(stream.finish().map { OutputFile(path: $0.path, bytes: $0.bytes) })
            garbage = Unmanaged.passRetained(stream)
        } else {
            let texts = PostTexts(taking: &model.posts)
            let searchState = SearchIndexState(releasingAnalyses: true)
            try emit(Outputs.searchIndex(IndexWriter(model: model, urls: urls).analyses(texts: texts), state: searchState))
            garbage = Unmanaged.passRetained(searchState)
        }
        // Once the scope above has let go, that retain is the index's last owner, so the release
        // below is the one that frees it.
        if let garbage { WorkShare.detach { garbage.release() } }
        timer.lap("search")
        let staticFiles = try Outputs.staticFiles(options.siteDirectory, config: config)
        try Outputs.checkClashes(staticFiles, generated: clashing.contains)
        try emit(staticFiles)
        timer.lap("static")
        return jobs.count
    }
}

/// Each output's one maker, whichever way the build runs (streaming, in memory or patching).
enum Outputs {
    /// Atom feeds: the site's (a request without a tag) and each tag's. `verbatim` remembers, across
    /// calls for the same posts, which posts' HTML goes into a feed as it is.
    static func feeds(_ requests: [FeedWriter.Request], model: SiteModel, urls: URLBuilder,
                      verbatim: FeedWriter.PostFlags = FeedWriter.PostFlags()) -> [OutputFile] {
        FeedWriter(model: model, urls: urls, verbatimPosts: verbatim).feeds(requests)
    }

    /// tags.json: each tag with its URL and the ids of its posts.
    static func tagsJSON(_ indexes: IndexWriter) -> OutputFile {
        indexes.tagsJSON()
    }

    /// posts.json from each post's object (`IndexWriter.postObject`), in the model's order.
    static func postsJSON(objects: [[UInt8]]) -> OutputFile {
        IndexWriter.postsJSON(objects: objects)
    }

    /// sitemap.xml and what sits beside it at the root: robots.txt, .nojekyll and the theme's assets.
    static func sitemap(model: SiteModel, urls: URLBuilder, theme: Theme) -> [OutputFile] {
        let writer = FeedWriter(model: model, urls: urls)
        return writer.sitemap(pagePaths: sitemapPaths(model: model, urls: urls)) + [writer.robots(), OutputFile(path: ".nojekyll", bytes: [])]
            + theme.assets.map { OutputFile(path: $0.path, bytes: $0.bytes) }
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

    /// The search index's files from each post's analysis, in the model's order. (`blog build`
    /// hands the analyses to a `SearchIndexStream` as the posts are made instead, which writes the
    /// same files through the same `SearchIndexState`.)
    static func searchIndex(_ analyzed: [AnalyzedDocument], state: SearchIndexState) -> [OutputFile] {
        state.update(analyzed).map { OutputFile(path: $0.path, bytes: $0.bytes) }
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

    /// Throws when a file of static/ has the path of a generated one.
    static func checkClashes(_ staticFiles: [OutputFile], generated: (String) -> Bool) throws {
        let clashes = staticFiles.filter { generated($0.path) }
        if !clashes.isEmpty {
            throw DiagnosticList(clashes.map { .error("static/\($0.path) has the same path as a generated file; rename it", at: SourceLocation(file: "static/\($0.path)")) })
        }
    }
}

/// Where a build's outputs go, in batches as they are made.
public protocol BuildSink: AnyObject {
    /// Takes a batch of outputs. Throws to stop the build (a write error).
    func write(_ files: [OutputFile]) throws
}

/// `blog build`: each batch goes to the output folder's transaction as it is made.
extension OutputWriter.Transaction: BuildSink {
    public func write(_ files: [OutputFile]) throws { try add(files) }
}

/// Each batch handed to a function and kept by none (the tests' stand-in for an output folder).
final class StreamingSink: BuildSink {
    let handler: ([OutputFile]) throws -> Void
    init(_ handler: @escaping ([OutputFile]) throws -> Void) { self.handler = handler }
    func write(_ files: [OutputFile]) throws { try handler(files) }
}

/// `blog serve` and the tests: every output kept in memory, to be served or read by path.
final class MemorySink: BuildSink {
    private(set) var outputs: [OutputFile] = []
    func write(_ files: [OutputFile]) throws { outputs += files }
    func reserve(_ count: Int) { outputs.reserveCapacity(count) }
    /// The outputs written so far, leaving none.
    func take() -> [OutputFile] {
        defer { outputs = [] }
        return outputs
    }
}

/// What changed since the last build, as the watcher reported it (absolute paths).
struct ChangeScope {
    let changed: Set<String>
    /// The site folder's absolute path.
    let root: String
    /// blog.yml, a theme, layouts/ or the favicon changed (or nothing is loaded yet).
    let configChanged: Bool
    /// A rescan (the watcher lost track) shows up as the site folder itself.
    let everything: Bool

    init(changed: Set<String>, root: String, configLoaded: Bool) {
        self.changed = changed
        self.root = root
        everything = changed.contains(root)
        // Every page links the favicon, which a file in static/ replaces (see `Theme.favicon`).
        configChanged = !configLoaded || ["blog.yml", "themes", "layouts"].contains { prefix in
            changed.contains { $0 == root + "/" + prefix || $0.hasPrefix(root + "/" + prefix + "/") }
        } || changed.contains { $0.hasPrefix(root + "/static/favicon.") }
    }

    /// Whether the file or folder `prefix` (relative to the site) or something in it changed.
    func touches(_ prefix: String) -> Bool {
        changed.contains { $0 == root + "/" + prefix || $0.hasPrefix(root + "/" + prefix + "/") }
    }
}

/// The `--timings` laps: each step's wall seconds and the process's CPU seconds meanwhile.
struct PhaseTimer {
    private(set) var timings: [(phase: String, seconds: Double, cpuSeconds: Double?)] = []
    private var clock = Date()
    private var cpuClock = ProcessClock.cpuSeconds()

    /// Ends the step `phase` now.
    mutating func lap(_ phase: String) {
        let now = Date()
        let cpu = ProcessClock.cpuSeconds()
        timings.append((phase, now.timeIntervalSince(clock), cpu - cpuClock))
        clock = now
        cpuClock = cpu
    }

    /// A step that ran beside another (its CPU time is part of that one's).
    mutating func record(_ phase: String, _ seconds: Double) {
        timings.append((phase, seconds, nil))
    }
}
