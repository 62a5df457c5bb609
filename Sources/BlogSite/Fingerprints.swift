import BlogCore
import Foundation

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
            combineArchive(model, into: &hasher) { hasher, index in
                let post = posts.baseAddress! + index
                hasher.combine(index)
                hasher.combine(post.pointee.title)
                hasher.combine(post.pointee.slug)
                hasher.combine(post.pointee.date)
                hasher.combine(post.pointee.draft)
            }
        }
        return hasher.finalize()
    }

    /// The archive's years and months, each with its post count, and with `post` each post it lists.
    static func combineArchive(_ model: SiteModel, into hasher: inout Hasher, post: ((inout Hasher, Int) -> Void)? = nil) {
        for year in model.years {
            hasher.combine(year.year)
            hasher.combine(year.postIndices.count)
            for month in model.months[year.year] ?? [] {
                hasher.combine(month.month)
                hasher.combine(month.postIndices.count)
                if let post { for index in month.postIndices { post(&hasher, index) } }
            }
        }
    }

    func hashPosts(_ hasher: inout Hasher, _ indices: some Sequence<Int>) {
        for index in indices {
            hasher.combine(index)
            hasher.combine(postVersions[index])
            for tag in model.postTags[index] { hasher.combine(tagCounts[tag]) }
        }
    }

    func archiveStructure(_ hasher: inout Hasher) {
        Fingerprints.combineArchive(model, into: &hasher)
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

    /// A feed's fingerprint: the posts it lists, and its tag's name and slug.
    func feed(_ request: FeedWriter.Request) -> Int {
        var hasher = Hasher()
        hasher.combine(epoch)
        hasher.combine(request.tag?.name ?? "")
        hasher.combine(request.tag?.slug ?? "")
        hashPosts(&hasher, FeedWriter.listed(request.tag, in: model))
        return hasher.finalize()
    }

    /// tags.json's fingerprint: each tag's name, slug and posts.
    func tagsIndex() -> Int {
        let postIDs = postColumn(model.posts) { $0.pointee.id }
        var hasher = Hasher()
        hasher.combine(epoch)
        for tag in model.tags {
            hasher.combine(tag.name)
            hasher.combine(tag.slug)
            for index in tag.postIndices { hasher.combine(postIDs[index]) }
        }
        return hasher.finalize()
    }

    /// posts.json's fingerprint: each post's version and tags.
    func postsIndex(tagNames: [String]) -> Int {
        var hasher = Hasher()
        hasher.combine(epoch)
        for (index, version) in postVersions.enumerated() {
            hasher.combine(version)
            for tag in model.postTags[index] { hasher.combine(tagNames[tag]) }
        }
        return hasher.finalize()
    }

    /// The sitemap's fingerprint: every path it lists and each post's dates.
    func sitemap() -> Int {
        var hasher = Hasher()
        hasher.combine(epoch)
        model.posts.withUnsafeBufferPointer { posts in
            guard let base = posts.baseAddress else { return }
            for index in 0..<posts.count {
                let post = base + index
                hasher.combine(slugs[index]); hasher.combine(post.pointee.date); hasher.combine(post.pointee.updated)
            }
        }
        for (index, page) in model.pages.enumerated() { hasher.combine(page.path); hasher.combine(pageVersions[index]) }
        for tag in model.tags { hasher.combine(tag.slug) }
        return hasher.finalize()
    }
}
