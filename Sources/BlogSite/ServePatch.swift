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

extension BuildPipeline {
    /// A patched build: its outputs (sorted by path) and by path, the paths whose bytes changed,
    /// and the pages rendered.
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
    func patch(_ state: inout BuildCache.PatchState, model: SiteModel, stale: [String], config: SiteConfig, theme: Theme,
                       timer: inout PhaseTimer) throws -> Patched? {
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
        for index in changedPosts { postVersions[index] = cache.contentCache[state.sourcePaths[index]]?.version ?? 0 }
        let urls = URLBuilder(config: config)
        let keys = Fingerprints(model: model, postVersions: postVersions, pageVersions: state.pageVersions, epoch: cache.epoch,
                                sourcePaths: state.sourcePaths, slugs: state.slugs)

        // posts and lists: the pages that show a changed post.
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
            if cache.outputCache[entry.key]?.fingerprint != entry.fingerprint { dirty.append((job, entry.key, entry.fingerprint)) }
        }
        var needed = Set<Int>()
        for entry in dirty { needed.formUnion(PageRenderer.listedPosts(entry.job, model: model)) }
        let rendered = try PageRenderer(model: model, theme: theme, summariesFor: needed, yearsTree: cache.archiveTree(model, keys: keys))
            .renderPostsThenLists(dirty.map(\.job), timer: &timer)
        for (n, entry) in dirty.enumerated() {
            cache.outputCache[entry.key] = BuildCache.CachedOutput(fingerprint: entry.fingerprint, files: [rendered[n]])
        }
        var made = rendered

        // feeds: those a changed post is in.
        let limit = config.feedLimit
        var requests: [(request: FeedWriter.Request, fingerprint: Int)] = []
        if changedPosts.contains(where: { $0 < limit }) {
            let request = FeedWriter.Request(key: "feed:", tag: nil)
            let fingerprint = keys.feed(request)
            if cache.outputCache["feed:"]?.fingerprint != fingerprint { requests.append((request, fingerprint)) }
        }
        var feedTags = Set<Int>()
        for index in changedPosts {
            for tag in model.postTags[index] where model.tags[tag].postIndices.prefix(limit).contains(index) { feedTags.insert(tag) }
        }
        for tagIndex in feedTags.sorted() {
            let tag = model.tags[tagIndex]
            let request = FeedWriter.Request(key: "feed:" + tag.key, tag: tag)
            let fingerprint = keys.feed(request)
            if cache.outputCache[request.key]?.fingerprint != fingerprint { requests.append((request, fingerprint)) }
        }
        let feeds = Outputs.feeds(requests.map(\.request), model: model, urls: urls)
        for (entry, file) in zip(requests, feeds) {
            cache.outputCache[entry.request.key] = BuildCache.CachedOutput(fingerprint: entry.fingerprint, files: [file])
        }
        made += feeds
        timer.lap("feeds")

        // JSON indexes: posts.json with the changed objects replaced. (tags.json lists names, slugs
        // and ids, and the sitemap paths and dates: both unchanged.)
        let indexes = IndexWriter(model: model, urls: urls, sourcePaths: state.sourcePaths)
        let tagNames = model.tags.map(\.name)
        var postObjects = state.postObjects
        state.postObjects = []
        for index in changedPosts {
            let bytes = indexes.postObject(index)
            postObjects[index] = bytes
            cache.postObjectCache[state.sourcePaths[index]] = (BuildCache.postObjectKey(epoch: cache.epoch, version: postVersions[index], slug: state.slugs[index],
                                                                                          tags: model.postTags[index], tagNames: tagNames), bytes)
        }
        // posts.json's fingerprint covers every post: a full rebuild makes the file again (from the cached objects).
        cache.outputCache["json:posts"] = nil
        made.append(Outputs.postsJSON(objects: postObjects))
        timer.lap("indexes")

        // search: the index patched for the changed posts.
        var analyzed = state.analyzed
        state.analyzed = []
        var toAnalyze: [(index: Int, key: Int)] = []
        for index in changedPosts {
            let key = BuildCache.searchKey(version: postVersions[index], slug: state.slugs[index], tags: model.postTags[index], tagNames: tagNames)
            if let cached = cache.searchCache[state.sourcePaths[index]], cached.key == key {
                analyzed[index] = cached.analyzed
            } else {
                toAnalyze.append((index, key))
            }
        }
        let fresh = SearchIndexBuilder.analyzeAll(count: toAnalyze.count) { indexes.searchDocument(toAnalyze[$0].index) }
        for (n, entry) in toAnalyze.enumerated() {
            analyzed[entry.index] = fresh[n]
            cache.searchCache[state.sourcePaths[entry.index]] = (entry.key, fresh[n])
        }
        let searchFiles = Outputs.searchIndex(analyzed, state: cache.searchState)
        timer.lap("search")

        // static: static/ did not change; the last build's outputs with the files made here put in.
        guard let spliced = cache.splice(made, searchFiles: searchFiles, state: &state) else { return nil }
        state.model = model
        state.postVersions = postVersions
        state.postObjects = postObjects
        state.analyzed = analyzed
        cache.patchState = state
        timer.lap("static")
        return Patched(outputs: spliced.outputs, files: spliced.files, changed: spliced.changed, rendered: dirty.count,
                       renderedPaths: rendered.map(\.path))
    }
}
