import BlogCore
import BlogContent
import BlogMustache
import Foundation

/// One file of the built site.
public struct OutputFile: Sendable {
    /// Path relative to the site root, without a leading slash: `posts/hello/index.html`.
    public var path: String
    public var bytes: [UInt8]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }
}

/// The pages a site has; each is rendered on its own, on any core.
enum PageJob: Sendable {
    case home(page: Int)
    /// `/posts/`, every post, paginated like the home page.
    case postList(page: Int)
    case post(Int)
    case page(Int)
    case tags
    case tag(Int, page: Int)
    case archiveAll
    case archiveYear(Int)
    case archiveMonth(year: Int, monthIndex: Int)
    case search
    case notFound
}

/// The views every page's context holds (see `PageRenderer.sharedViews`).
struct SharedViews: Sendable {
    let site: MustacheValue
    let lang: MustacheValue
    let asset: MustacheValue
    /// The lookup hints the worker holding these views renders with (see `RenderLane`).
    var lane: RenderLane? = nil
}

/// The member names of the objects built for every page, hashed once (see `MustacheKey`).
final class ViewKeys: Sendable {
    let number = MustacheKey("number"), url = MustacheKey("url"), isCurrent = MustacheKey("is_current")
    let isGap = MustacheKey("is_gap"), current = MustacheKey("current"), total = MustacheKey("total")
    let hasPages = MustacheKey("has_pages"), pages = MustacheKey("pages"), prev = MustacheKey("prev")
    let next = MustacheKey("next"), kind = MustacheKey("kind"), title = MustacheKey("title")
    let description = MustacheKey("description"), permalink = MustacheKey("permalink")
    let isPost = MustacheKey("is_post"), isHome = MustacheKey("is_home"), ogType = MustacheKey("og_type")
    let site = MustacheKey("site"), lang = MustacheKey("lang"), asset = MustacheKey("asset"), page = MustacheKey("page")
    let content = MustacheKey("content"), toc = MustacheKey("toc"), hasToc = MustacheKey("has_toc")
    let level = MustacheKey("level"), text = MustacheKey("text"), id = MustacheKey("id")
    let related = MustacheKey("related"), hasRelated = MustacheKey("has_related"), dateISO = MustacheKey("date_iso")
    let publishedTime = MustacheKey("published_time"), tags = MustacheKey("tags"), modifiedTime = MustacheKey("modified_time")
    let summary = MustacheKey("summary"), readingMinutes = MustacheKey("reading_minutes")
    let documentTitle = MustacheKey("document_title"), noindex = MustacheKey("noindex"), image = MustacheKey("image")
    let jsonLD = MustacheKey("json_ld"), menu = MustacheKey("menu")
}

/// Builds view models and renders every HTML page of the site with the theme.
struct PageRenderer {
    static let keys = ViewKeys()

    /// Set anew only by `completed(model:summaries:)`.
    private(set) var model: SiteModel
    let theme: Theme
    let urls: URLBuilder
    /// `site`, `lang` and `asset`, which every page shows, once per core (the first as made, the
    /// others `unshared` copies): the render's threads each read their own, instead of all
    /// retaining and releasing the same strings for every tag of every page (`swift_retain` was
    /// the render phase's top symbol).
    let sharedViews: [SharedViews]
    /// A list-item view of each post, built once and shared by every list that shows it.
    private(set) var postSummaries: [MustacheValue]
    let tagValues: [MustacheValue]
    /// The archive's years (with months and their posts), shown on every archive page: built once
    /// (see `years`).
    private(set) var yearsTree: MustacheValue
    /// The URL of each page of the home list (`listURLs[0]`) and of each tag's list
    /// (`listURLs[1 + tag]`), made once in a full build: a list page's pagination shows up to
    /// nine of them, and building each again on every list page adds up. Nil when `summariesFor` is given (an
    /// incremental build renders a few pages).
    let listURLs: [[String]]?
    /// The header's menu, one variant per current item.
    let menu: MenuViews
    /// `image` of blog.yml, absolute: the social card of pages without a picture of their own.
    let siteImage: String?

    /// `summariesFor`: the posts whose list-item view will be needed (nil: all). An incremental
    /// rebuild that renders a few pages builds only the views those pages show. `yearsTree`: the
    /// archive's tree (`years(model)`) when the caller has it already, or `.null` when no archive
    /// page will be rendered before `completed` supplies it; nil: built here.
    init(model: SiteModel, theme: Theme, summariesFor needed: Set<Int>? = nil, yearsTree: MustacheValue? = nil) {
        self.model = model
        self.theme = theme
        let config = model.config
        let urls = URLBuilder(config: config)
        self.urls = urls
        let basePath0 = config.basePath
        let siteImage = PageMeta.absoluteImage(config.image, relativeTo: urls.absolute(urls.path("")), urls: urls)
        self.siteImage = siteImage
        menu = MenuViews(config: config, urls: urls, lang: UIStrings.table(for: config.language))
        let year = model.posts.first?.date.civil.year ?? CivilDateTime(epochSeconds: Int64(Date().timeIntervalSince1970)).year
        let siteValue: MustacheValue = .object([
            "title": .string(config.title),
            "description": .string(config.description),
            "author": .string(config.author),
            "language": .string(config.language),
            "base_url": .string(config.baseURL),
            "base_path": .string(config.basePath),
            "feed_url": .string(urls.path("feed.xml")),
            "tags_json_url": .string(urls.path("tags.json")),
            "search_url": .string(urls.path("search/")),
            "year": .int(year),
            "generator": .string("blog \(BlogVersion.current)"),
            "locale": .string(PageMeta.locale(config.language)),
            "image": .string(siteImage ?? ""),
            "favicon_url": .string(basePath0 + Slug.percentEncodePath(theme.favicon.path)),
            "favicon_type": .string(theme.favicon.type),
            "params": PageMeta.value(config.params),
        ])
        var lang: MustacheObject = [:]
        for (key, value) in UIStrings.table(for: config.language) { lang[key] = .string(value) }
        let langValue: MustacheValue = .object(lang)
        let assetPaths = theme.assetPaths
        let basePath = config.basePath
        // The URL of every theme asset is made once; the lambda only looks it up.
        var assetURLs: [String: String] = [:]
        for (name, target) in assetPaths { assetURLs[name] = basePath + Slug.percentEncodePath(target) }
        let assetLambda: MustacheValue = .lambda(MustacheLambda(rendered: { [assetURLs] text in
            if let url = assetURLs[text] { return url }
            let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return assetURLs[name] ?? (basePath + Slug.percentEncodePath("assets/" + name))
        }))
        let tagValues = model.tags.map { tag in
            MustacheValue.object([
                "name": .string(tag.name),
                "slug": .string(tag.slug),
                "url": .string(urls.tag(tag.slug)),
                "count": .int(tag.postIndices.count),
                "feed_url": .string(urls.path("tags/\(Slug.percentEncodePath(tag.slug))/feed.xml")),
            ])
        }
        self.tagValues = tagValues
        let original = SharedViews(site: siteValue, lang: langValue, asset: assetLambda)
        sharedViews = [original] + (1..<max(1, ProcessInfo.processInfo.activeProcessorCount)).map { _ in
            SharedViews(site: original.site.unshared(), lang: original.lang.unshared(), asset: original.asset.unshared())
        }
        let language = config.language
        self.yearsTree = yearsTree ?? PageRenderer.years(model)
        if needed == nil {
            let perPage = config.postsPerPage
            func list(_ base: String, _ count: Int) -> [String] {
                (1...max(1, (count + perPage - 1) / perPage)).map { PageRenderer.pagedURL(base, $0) }
            }
            listURLs = [list(urls.path(""), model.posts.count)] + model.tags.map { list(urls.tag($0.slug), $0.postIndices.count) }
        } else {
            listURLs = nil
        }
        // On all cores, because made before any page renders, this would be a serial stretch of
        // the render phase with every core but one idle.
        postSummaries = WorkShare.map(count: model.posts.count) { index in
            if let needed, !needed.contains(index) { return .null }
            return PageRenderer.postValue(model.posts[index], tags: model.postTags[index].map { tagValues[$0] }, urls: urls, language: language, full: false)
        }
    }

    static func postValue(_ post: Post, tags: [MustacheValue], urls: URLBuilder, language: String, full: Bool) -> MustacheValue {
        var fields: MustacheObject = [
            "id": .string(post.id),
            "title": .string(post.title),
            "url": .string(urls.post(post.slug)),
            "permalink": .string(urls.absolute(urls.post(post.slug))),
            "date_iso": .string(post.date.iso8601),
            "date_display": .string(post.date.display(language: language)),
            "summary": .string(post.summary),
            "reading_minutes": .int(post.readingMinutes),
            "tags": .array(tags),
            "has_tags": .bool(!tags.isEmpty),
            "is_draft": .bool(post.draft),
        ]
        let meta = post.meta
        if let qiitaURL = meta.qiitaURL { fields["qiita_url"] = .string(qiitaURL) }
        if let likes = meta.likesCount { fields["likes_count"] = .int(likes) }
        if let updated = post.updated, updated.epochSeconds != post.date.epochSeconds {
            fields["updated_iso"] = .string(updated.iso8601)
            fields["updated_display"] = .string(updated.display(language: language))
            fields["has_updated"] = .bool(true)
        } else {
            fields["has_updated"] = .bool(false)
        }
        if full {
            fields["content"] = .string(urls.rewriteRootLinks(post.content.html))
        }
        return .object(fields)
    }

    /// The posts a page shows as list items.
    static func listedPosts(_ job: PageJob, model: SiteModel) -> [Int] {
        let perPage = model.config.postsPerPage
        func slice(_ indices: [Int], _ page: Int) -> ArraySlice<Int> {
            let start = (page - 1) * perPage
            return start < indices.count ? indices[start..<min(indices.count, start + perPage)] : []
        }
        switch job {
        case .home(let page), .postList(let page):
            // The home pages list every post in order: a range, not a copy of all indices per page.
            let start = (page - 1) * perPage
            return start < model.posts.count ? Array(start..<min(model.posts.count, start + perPage)) : []
        case .post(let index): return model.related[index]
        case .tag(let tagIndex, let page): return Array(slice(model.tags[tagIndex].postIndices, page))
        case .archiveYear(let index): return model.years[index].postIndices
        case .archiveMonth(let year, let monthIndex): return model.months[year]![monthIndex].postIndices
        case .page, .tags, .archiveAll, .search, .notFound: return []
        }
    }

    var jobs: [PageJob] { PageRenderer.jobs(model) }

    /// Renders the given pages on all cores, in order. Template errors are collected and thrown together.
    func render(_ jobs: [PageJob]) throws -> [OutputFile] {
        var files: [OutputFile] = []
        // One chunk: the pages are handed on together once all are made.
        try renderInOrder(jobs, chunk: jobs.count) { files = $0 }
        return files
    }

    /// Renders the given pages in two steps, the posts' pages (lap "posts") and then the others
    /// (lap "lists"); the files come back in the order of `jobs`.
    func renderPostsThenLists(_ jobs: [PageJob], timer: inout PhaseTimer) throws -> [OutputFile] {
        let isPost = jobs.map { job -> Bool in if case .post = job { return true } else { return false } }
        let posts = try render(jobs.indices.filter { isPost[$0] }.map { jobs[$0] })
        timer.lap("posts")
        let lists = try render(jobs.indices.filter { !isPost[$0] }.map { jobs[$0] })
        timer.lap("lists")
        var nextPost = posts.makeIterator(), nextList = lists.makeIterator()
        return isPost.map { $0 ? nextPost.next()! : nextList.next()! }
    }

    /// Whether `blog build` may make each post's page as soon as that post's body is rendered
    /// (`renderPosts`), before the other posts' bodies: when the `post` template, with every
    /// partial and parent it reaches, reads no body-made member of another post. A post's
    /// `summary` (unless its front matter has a description) and `reading_minutes` come from its
    /// body, and a theme can show them for related posts (`{{#post.related}}{{summary}}…`); the
    /// post's own are `post.summary` and `post.reading_minutes`. Any other name with one of those
    /// parts, or a template named at render time, keeps the bodies rendered first.
    static func postPagesNeedOnlyOwnBody(_ theme: Theme) -> Bool {
        guard theme.library.has("post"), let names = theme.library.namesRead(by: "post") else { return false }
        return names.allSatisfy { parts in
            parts == ["post", "summary"] || parts == ["post", "reading_minutes"]
                || !parts.contains { $0 == "summary" || $0 == "reading_minutes" }
        }
    }

    /// A post's page made by `renderPostsInOrder`, with the post (now with its body) and its
    /// completed list-item view.
    struct MadePost {
        var file: OutputFile
        var post: Post
        var summary: MustacheValue
    }

    /// `blog build`'s post pages, each made right after its post's body is rendered
    /// (`bodies[index]`, with `markdown`), on all cores; only when `postPagesNeedOnlyOwnBody`: the
    /// related posts' list-item views lack what their bodies give. The pages, the posts with their
    /// bodies and their completed list-item views go to `deliver` `chunk` posts at a time, as
    /// `inOrder` hands them on.
    func renderPostsInOrder(bodies: UnsafeMutableBufferPointer<ContentLoader.PendingBody>, markdown: ContentLoader.BodyRenderer, chunk: Int,
                            deliver: (_ range: Range<Int>, _ made: [MadePost]) throws -> Void) throws {
        precondition(bodies.count == model.posts.count, "one body per post")
        try inOrder(count: model.posts.count, chunk: chunk, { index, views in
            var post = model.posts[index]
            markdown.render(bodies[index], into: &post)
            // The Markdown goes as soon as it is rendered, before the page copies the HTML (only
            // this worker touches this post's body until the chunk is handed on).
            bodies[index] = .empty
            let item = completedSummary(index, post: post)
            let (template, path, context) = postView(index, post: post, item: item, views: views)
            let bytes = try theme.library.renderBytes(template, context, capacity: PageRenderer.postCapacity(post), lane: views.lane)
            return MadePost(file: OutputFile(path: path, bytes: bytes), post: post, summary: item)
        }, deliver: deliver)
    }

    /// The pages of `jobs`, handed to `deliver` `chunk` pages at a time, as `inOrder` hands them on.
    func renderInOrder(_ jobs: [PageJob], chunk: Int, deliver: (_ files: [OutputFile]) throws -> Void) throws {
        try inOrder(count: jobs.count, chunk: chunk, { index, views in try render(jobs[index], views: views) },
                    deliver: { _, files in try deliver(files) })
    }

    /// `make(index, views)` for every index below `count` on all cores (`views` being the
    /// worker's own `sharedViews`), the results handed to `deliver` `chunk` at a time, in order,
    /// one chunk at a time: the workers go on with the next indices meanwhile, instead of waiting
    /// for each other at each chunk's end (see `WorkShare.ordered`). A page's error stops the
    /// work: the errors of its chunk are thrown together (as `render` throws a batch's) and no
    /// later chunk is handed on; so does an error `deliver` throws.
    private func inOrder<T>(count: Int, chunk: Int, _ make: (Int, SharedViews) throws -> T,
                            deliver: (_ range: Range<Int>, _ results: [T]) throws -> Void) throws {
        var thrown: Error?
        // Each worker's closure lives only as long as `ordered` runs.
        // (Whether every chunk was delivered is in `thrown`.)
        _ = withoutActuallyEscaping(make) { make in
            WorkShare.ordered(count: count, workers: sharedViews.count, batch: 4, chunk: chunk, setUp: { worker in
                var views = sharedViews[worker]
                // Held by this worker until it has nothing left to make (the closure goes with it).
                views.lane = theme.library.claimLane()
                return { index in Result { try make(index, views) }.mapError(PageRenderer.diagnostic) }
            }, deliver: { range, results in
                var made: [T] = []
                made.reserveCapacity(results.count)
                var failures: [Diagnostic] = []
                for result in results {
                    switch result {
                    case .success(let value): made.append(value)
                    case .failure(let failure): failures.append(failure)
                    }
                }
                do {
                    if !failures.isEmpty { throw PageRenderer.diagnostics(failures) }
                    try deliver(range, made)
                    return true
                } catch {
                    thrown = error
                    return false
                }
            })
        }
        if let thrown { throw thrown }
    }

    /// The list-item view of post `index` (built without its body) with the summary and the
    /// reading time of `post`, which has its body now: what `postValue(full: false)` gives.
    func completedSummary(_ index: Int, post: Post) -> MustacheValue {
        guard case .object(var fields) = postSummaries[index] else { return postSummaries[index] }
        let k = PageRenderer.keys
        fields[k.summary] = .string(post.summary)
        fields[k.readingMinutes] = .int(post.readingMinutes)
        return .object(fields)
    }

    /// This renderer with `model` (the same posts as its own, now with their bodies), the posts'
    /// list-item views made from them and, when it was left out at init, the archive's tree.
    func completed(model: SiteModel, summaries: [MustacheValue]) -> PageRenderer {
        var renderer = self
        renderer.model = model
        renderer.postSummaries = summaries
        if case .null = yearsTree { renderer.yearsTree = PageRenderer.years(model) }
        return renderer
    }

    /// A page's error as a diagnostic (a template's names its file and line).
    static func diagnostic(_ error: Error) -> Diagnostic {
        switch error {
        case let error as MustacheError: .error(error.message, at: error.location)
        case let diagnostic as Diagnostic: diagnostic
        default: .error("\(error)")
        }
    }

    /// The pages' errors, each once, in a fixed order, at most 20.
    static func diagnostics(_ errors: [Diagnostic]) -> DiagnosticList {
        DiagnosticList(Array(Array(Set(errors)).sorted { $0.description < $1.description }.prefix(20)))
    }

    /// One page: its view model, the template and the view model's release. Not inlined, so that
    /// profilers can attribute the cost of each page to one function.
    @inline(never)
    func render(_ job: PageJob, views: SharedViews? = nil) throws -> OutputFile {
        let (template, path, context) = view(for: job, views: views)
        let bytes = try theme.library.renderBytes(template, context, capacity: PageRenderer.capacityEstimate(job, model: model), lane: views?.lane)
        return OutputFile(path: path, bytes: bytes)
    }

    /// Bytes to reserve for a page, so the output buffer is not grown (and copied) while the
    /// template writes: a post page is its HTML plus the theme around it (`postCapacity`); other
    /// pages start from a fixed room and grow only when they need more.
    static func capacityEstimate(_ job: PageJob, model: SiteModel) -> Int {
        if case .post(let index) = job { return postCapacity(model.posts[index]) }
        return 16_384
    }

    /// A post page's bytes: its HTML, the theme around it and a table-of-contents line per heading
    /// (escaped text, its id twice over at most, markup), so that a post with thousands of
    /// headings does not outgrow its buffer, which would then be copied.
    static func postCapacity(_ post: Post) -> Int {
        var toc = 0
        for heading in post.content.headings { toc += 2 * (heading.text.utf8.count + heading.id.utf8.count) + 80 }
        return post.content.html.utf8.count + toc + 10_240
    }

    /// Paginated URL: `base`, then `base` + `page/N/`.
    static func pagedURL(_ base: String, _ page: Int) -> String {
        page == 1 ? base : base + "page/\(page)/"
    }

    func pagedURL(_ base: String, _ page: Int) -> String { PageRenderer.pagedURL(base, page) }

    /// `pagedURL(base, page)` of list `list` (see `listURLs`), from `listURLs` when it was made.
    func listURL(_ list: Int?, base: String, page: Int) -> String {
        if let listURLs, let list, listURLs.indices.contains(list), listURLs[list].indices.contains(page - 1) { return listURLs[list][page - 1] }
        return pagedURL(base, page)
    }

    /// Pagination with a window of page links: the first, the last, and two on each side of the
    /// current page, with `is_gap` entries where numbers are left out (so a list of 1,000 pages
    /// does not put 1,000 links on every page).
    /// `list`: the list's index in `listURLs` (nil: the URLs are made here).
    func pagination(current: Int, total: Int, base: String, list: Int? = nil) -> MustacheValue {
        let total = max(total, 1)
        let k = PageRenderer.keys
        // Built member by member, without an array of candidate numbers, because literals of small
        // objects are dear (see the note above `context(page:)`).
        var pages: [MustacheValue] = []
        pages.reserveCapacity(9)
        var last = 0
        func add(_ number: Int) {
            guard number >= 1 && number <= total && number > last else { return }
            if last > 0 && number > last + 1 {
                var gap = MustacheObject()
                gap.reserveCapacity(2)
                gap.append(new: k.isGap, .bool(true))
                gap.append(new: k.isCurrent, .bool(false))
                pages.append(.object(gap))
            }
            var item = MustacheObject()
            item.reserveCapacity(4)
            item.append(new: k.number, .int(number))
            item.append(new: k.url, .string(listURL(list, base: base, page: number)))
            item.append(new: k.isCurrent, .bool(number == current))
            item.append(new: k.isGap, .bool(false))
            pages.append(.object(item))
            last = number
        }
        add(1)
        for number in current - 2...current + 2 { add(number) }
        add(total)
        var fields = MustacheObject()
        fields.reserveCapacity(6)
        fields.append(new: k.current, .int(current))
        fields.append(new: k.total, .int(total))
        fields.append(new: k.hasPages, .bool(total > 1))
        fields.append(new: k.pages, .array(pages))
        if current > 1 { fields.append(new: k.prev, link(listURL(list, base: base, page: current - 1))) }
        if current < total { fields.append(new: k.next, link(listURL(list, base: base, page: current + 1))) }
        return .object(fields)
    }

    private func link(_ url: String) -> MustacheValue {
        var fields = MustacheObject()
        fields.reserveCapacity(1)
        fields.append(new: PageRenderer.keys.url, .string(url))
        return .object(fields)
    }

    /// `documentTitle`: the `<title>` (see `PageMeta.documentTitle`); nil: the page's title, then the site's.
    func pageValue(kind: String, title: String, url: String, description: String? = nil, documentTitle: String? = nil,
                   image: String? = nil, extra: MustacheObject = [:]) -> MustacheValue {
        let k = PageRenderer.keys
        var fields = MustacheObject()
        fields.reserveCapacity(11 + extra.count)
        fields.append(new: k.kind, .string(kind))
        fields.append(new: k.title, .string(title))
        fields.append(new: k.documentTitle, .string(documentTitle ?? PageMeta.documentTitle(title, site: model.config.title)))
        fields.append(new: k.noindex, .bool(kind == "search" || kind == "404"))
        fields.append(new: k.image, .string(image ?? siteImage ?? ""))
        fields.append(new: k.description, .string(description ?? model.config.description))
        fields.append(new: k.url, .string(url))
        fields.append(new: k.permalink, .string(urls.absolute(url)))
        fields.append(new: k.isPost, .bool(kind == "post"))
        fields.append(new: k.isHome, .bool(kind == "home"))
        fields.append(new: k.ogType, .string(kind == "post" ? "article" : "website"))
        fields.merge(extra)
        return .object(fields)
    }

    /// A post page's link to the previous or next post.
    /// The title and URL are taken from the post's list-item view when it was built (the same
    /// strings), so the URL is not percent-encoded again.
    func neighbour(_ index: Int) -> MustacheValue {
        let k = PageRenderer.keys
        var fields = MustacheObject()
        fields.reserveCapacity(2)
        if case .object(let summary) = postSummaries[index], let title = summary[k.title], let url = summary[k.url] {
            fields.append(new: k.title, title)
            fields.append(new: k.url, url)
        } else {
            let post = model.posts[index]
            fields.append(new: k.title, .string(post.title))
            fields.append(new: k.url, .string(urls.post(post.slug)))
        }
        return .object(fields)
    }

    // The per-page objects below are filled member by member rather than written as literals: a
    // literal's variadic array of (key, value) tuples is destroyed through the runtime's generic
    // tuple destroy, which is dear for every small literal of every page.
    func context(page: MustacheValue, url: String, _ extra: MustacheObject, views: SharedViews) -> MustacheValue {
        let k = PageRenderer.keys
        var fields = MustacheObject()
        fields.reserveCapacity(5 + extra.count)
        fields.append(new: k.menu, menu.value(for: url))
        fields.append(new: k.site, views.site)
        fields.append(new: k.lang, views.lang)
        fields.append(new: k.asset, views.asset)
        fields.append(new: k.page, page)
        fields.merge(extra)
        return .object(fields)
    }

    func slice(_ indices: [Int], page: Int) -> [MustacheValue] {
        let perPage = model.config.postsPerPage
        let start = (page - 1) * perPage
        guard start < indices.count else { return [] }
        return indices[start..<min(indices.count, start + perPage)].map { postSummaries[$0] }
    }

    func view(for job: PageJob, views: SharedViews? = nil) -> (template: String, path: String, context: MustacheValue) {
        let views = views ?? sharedViews[0]
        func context(page: MustacheValue, _ extra: MustacheObject) -> MustacheValue {
            let url: String
            if case .string(let pageURL)? = page[PageRenderer.keys.url.name] { url = pageURL } else { url = "" }
            return self.context(page: page, url: url, extra, views: views)
        }
        let config = model.config
        let language = config.language
        let lang = UIStrings.table(for: language)
        let perPage = config.postsPerPage
        switch job {
        case .home(let page):
            let total = max(1, (model.posts.count + perPage - 1) / perPage)
            let url = listURL(0, base: urls.path(""), page: page)
            // The home page is the site's title alone; its later pages say which page they are.
            let title = page == 1 ? config.title : PageMeta.pageWords(page, language: language)
            let posts = PageRenderer.listedPosts(job, model: model).map { postSummaries[$0] }
            var value = pageValue(kind: "home", title: title, url: url,
                                  documentTitle: page == 1 ? config.title : PageMeta.documentTitle(title, site: config.title))
            if page == 1, case .object(var fields) = value {
                fields[PageRenderer.keys.jsonLD] = .string(PageMeta.webSite(config: config, urls: urls))
                value = .object(fields)
            }
            return ("home", urls.file(url), context(page: value, [
                "posts": .array(posts), "has_posts": .bool(!posts.isEmpty),
                "pagination": pagination(current: page, total: total, base: urls.path(""), list: 0),
            ]))
        case .postList(let page):
            let total = max(1, (model.posts.count + perPage - 1) / perPage)
            let base = urls.path("posts/")
            let url = pagedURL(base, page)
            let title = PageMeta.listTitle(lang["all_posts"] ?? "All posts", page: page, language: language)
            let posts = PageRenderer.listedPosts(job, model: model).map { postSummaries[$0] }
            return ("posts", urls.file(url), context(page: pageValue(kind: "posts", title: title, url: url), [
                "posts": .array(posts), "has_posts": .bool(!posts.isEmpty), "count": .int(model.posts.count),
                "pagination": pagination(current: page, total: total, base: base),
            ]))
        case .post(let index):
            return postView(index, post: model.posts[index], item: postSummaries[index], views: views)
        case .page(let index):
            let page = model.pages[index]
            let url = urls.path(Slug.percentEncodePath(page.path) + "/")
            let value = pageValue(kind: "page", title: page.title, url: url, description: page.description,
                                  extra: ["content": .string(urls.rewriteRootLinks(page.content.html))])
            return ("page", page.path + "/index.html", context(page: value, [:]))
        case .tags:
            let url = urls.path("tags/")
            return ("tags", "tags/index.html", context(page: pageValue(kind: "tags", title: lang["tags"] ?? "Tags", url: url), [
                "tags": .array(tagValues), "has_tags": .bool(!tagValues.isEmpty),
            ]))
        case .tag(let tagIndex, let page):
            let tag = model.tags[tagIndex]
            let total = max(1, (tag.postIndices.count + perPage - 1) / perPage)
            let base = urls.tag(tag.slug)
            let url = listURL(1 + tagIndex, base: base, page: page)
            let title = PageMeta.listTitle(tag.name, page: page, language: language)
            let value = pageValue(kind: "tag", title: title, url: url, extra: ["feed_url": .string(urls.path("tags/\(Slug.percentEncodePath(tag.slug))/feed.xml"))])
            let file = page == 1 ? "tags/\(tag.slug)/index.html" : "tags/\(tag.slug)/page/\(page)/index.html"
            return ("tag", file, context(page: value, [
                "tag": tagValues[tagIndex], "posts": .array(slice(tag.postIndices, page: page)),
                "pagination": pagination(current: page, total: total, base: base, list: 1 + tagIndex),
            ]))
        case .archiveAll:
            let url = urls.path("archive/")
            return ("archive", "archive/index.html", context(page: pageValue(kind: "archive", title: lang["archive"] ?? "Archive", url: url), [
                "archive": .object(["is_all": .bool(true), "is_year": .bool(false), "is_month": .bool(false),
                                    "label": .string(lang["archive"] ?? "Archive"), "years": yearsValue()]),
            ]))
        case .archiveYear(let index):
            let year = model.years[index]
            let label = UIStrings.periodLabel(year: year.year, month: 0, language: language)
            let url = urls.path("archive/\(year.year)/")
            return ("archive", "archive/\(year.year)/index.html", context(page: pageValue(kind: "archive", title: label, url: url), [
                "archive": .object(["is_all": .bool(false), "is_year": .bool(true), "is_month": .bool(false), "label": .string(label),
                                    "years": yearsValue(), "posts": .array(year.postIndices.map { postSummaries[$0] }),
                                    "months": .array((model.months[year.year] ?? []).map(monthValue))]),
            ]))
        case .archiveMonth(let year, let monthIndex):
            let month = model.months[year]![monthIndex]
            let label = UIStrings.periodLabel(year: year, month: month.month, language: language)
            let monthText = month.month < 10 ? "0\(month.month)" : "\(month.month)"
            let url = urls.path("archive/\(year)/\(monthText)/")
            return ("archive", "archive/\(year)/\(monthText)/index.html", context(page: pageValue(kind: "archive", title: label, url: url), [
                "archive": .object(["is_all": .bool(false), "is_year": .bool(false), "is_month": .bool(true), "label": .string(label),
                                    "year": .int(year), "year_url": .string(urls.path("archive/\(year)/")),
                                    "years": yearsValue(), "posts": .array(month.postIndices.map { postSummaries[$0] })]),
            ]))
        case .search:
            let url = urls.path("search/")
            return ("search", "search/index.html", context(page: pageValue(kind: "search", title: lang["search"] ?? "Search", url: url), [:]))
        case .notFound:
            let url = urls.path("404.html")
            return ("404", "404.html", context(page: pageValue(kind: "404", title: lang["not_found"] ?? "Not found", url: url), [:]))
        }
    }


    /// The page of post `index`: `post` (with its body) and `item`, its list-item view, whose
    /// members are the full view's but `content` (the dates and URLs are not made again).
    func postView(_ index: Int, post: Post, item: MustacheValue, views: SharedViews) -> (template: String, path: String, context: MustacheValue) {
        let k = PageRenderer.keys
        let config = model.config
        var fields: MustacheObject
        if case .object(let summary) = item {
            // The list-item view already holds every member of the full view but `content`
            // (postValue with full: false, the same tags): its dates and URLs are not made again.
            fields = summary
            fields.reserveCapacity(summary.count + 8)
            fields[k.content] = .string(urls.rewriteRootLinks(post.content.html))
        } else {
            let tags = model.postTags[index].map { tagValues[$0] }
            guard case .object(let full) = PageRenderer.postValue(post, tags: tags, urls: urls, language: config.language, full: true) else { fatalError() }
            fields = full
        }
        let headings = post.content.headings
        fields[k.toc] = .array(headings.map { heading in
            var entry = MustacheObject()
            entry.reserveCapacity(3)
            entry.append(new: k.level, .int(heading.level))
            entry.append(new: k.text, .string(heading.text))
            entry.append(new: k.id, .string(heading.id))
            return .object(entry)
        })
        fields[k.hasToc] = .bool(headings.count >= config.tocMinHeadings)
        if index + 1 < model.posts.count {
            fields[k.prev] = neighbour(index + 1)
        }
        if index > 0 {
            fields[k.next] = neighbour(index - 1)
        }
        let related = model.related[index].map { postSummaries[$0] }
        fields[k.related] = .array(related)
        fields[k.hasRelated] = .bool(!related.isEmpty)
        let url: String
        if case .string(let postURL)? = fields[k.url] { url = postURL } else { url = urls.post(post.slug) }
        let published: MustacheValue = fields[k.dateISO] ?? .string(post.date.iso8601)
        var extra = MustacheObject()
        extra.reserveCapacity(4)
        extra.append(new: k.publishedTime, published)
        extra.append(new: k.tags, .array(post.tags.map { .string($0) }))
        extra.append(new: k.modifiedTime, post.updated.map { .string($0.iso8601) } ?? published)
        let permalink = urls.absolute(url)
        var image: String? = nil
        if let own = post.meta.image {
            image = PageMeta.absoluteImage(own, relativeTo: urls.absolute(urls.path("")), urls: urls)
        } else if post.content.mayHaveImages, let first = PageMeta.firstImage(in: post.content.html) {
            image = PageMeta.absoluteImage(first, relativeTo: permalink, urls: urls)
        }
        if let image { fields[k.image] = .string(image) }
        extra.append(new: k.jsonLD, .string(PageMeta.blogPosting(post, permalink: permalink, image: image ?? siteImage, config: config)))
        let page = pageValue(kind: "post", title: post.title, url: url, description: post.summary, image: image, extra: extra)
        return ("post", "posts/" + post.slug + "/index.html", context(page: page, url: url, ["post": .object(fields)], views: views))
    }

    /// `withPosts`: the month's posts too (`{title, url, date_iso, date_display}`), for the archive's index.
    static func monthValue(_ month: ArchivePeriod, urls: URLBuilder, language: String, posts: [Post]? = nil) -> MustacheValue {
        let monthText = month.month < 10 ? "0\(month.month)" : "\(month.month)"
        let listed: MustacheValue = posts.map { posts in
            .array(month.postIndices.map { index in
                let post = posts[index]
                var fields = MustacheObject()
                fields["title"] = .string(post.title)
                fields["url"] = .string(urls.post(post.slug))
                fields["date_iso"] = .string(post.date.iso8601)
                fields["date_display"] = .string(post.date.display(language: language))
                fields["is_draft"] = .bool(post.draft)
                return .object(fields)
            })
        } ?? .array([])
        return .object([
            "posts": listed,
            "month": .int(month.month),
            "label": .string(UIStrings.periodLabel(year: month.year, month: month.month, language: language)),
            "count": .int(month.postIndices.count),
            "url": .string(urls.path("archive/\(month.year)/\(monthText)/")),
        ])
    }

    func monthValue(_ month: ArchivePeriod) -> MustacheValue {
        PageRenderer.monthValue(month, urls: urls, language: model.config.language)
    }

    func yearsValue() -> MustacheValue { yearsTree }

    static func jobs(_ model: SiteModel) -> [PageJob] {
        var jobs: [PageJob] = []
        let perPage = model.config.postsPerPage
        let homePages = max(1, (model.posts.count + perPage - 1) / perPage)
        for page in 1...homePages { jobs.append(.home(page: page)) }
        for index in model.posts.indices { jobs.append(.post(index)) }
        for page in 1...homePages { jobs.append(.postList(page: page)) }
        for index in model.pages.indices { jobs.append(.page(index)) }
        jobs.append(.tags)
        for (index, tag) in model.tags.enumerated() {
            let pages = max(1, (tag.postIndices.count + perPage - 1) / perPage)
            for page in 1...pages { jobs.append(.tag(index, page: page)) }
        }
        jobs.append(.archiveAll)
        for (index, year) in model.years.enumerated() {
            jobs.append(.archiveYear(index))
            for monthIndex in (model.months[year.year] ?? []).indices {
                jobs.append(.archiveMonth(year: year.year, monthIndex: monthIndex))
            }
        }
        jobs.append(.search)
        jobs.append(.notFound)
        return jobs
    }

    static func years(_ model: SiteModel) -> MustacheValue {
        let urls = URLBuilder(config: model.config)
        let language = model.config.language
        return .array(model.years.map { year in
            .object([
                "year": .int(year.year),
                "label": .string(UIStrings.periodLabel(year: year.year, month: 0, language: model.config.language)),
                "count": .int(year.postIndices.count),
                "url": .string(urls.path("archive/\(year.year)/")),
                "months": .array((model.months[year.year] ?? []).map { monthValue($0, urls: urls, language: language, posts: model.posts) }),
            ])
        })
    }
}

public enum BlogVersion {
    public static let current = "0.1.0"
}
