import Dispatch
import BlogCore
import BlogContent
import BlogSearch

/// One field of every post, read in place: `model.posts[i].field` copies the whole Post (dozens of
/// retains and releases), which for a large archive adds up on every pass of a serve rebuild.
func postColumn<T>(_ posts: [Post], _ field: (UnsafePointer<Post>) -> T) -> [T] {
    posts.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return [] }
        return (0..<buffer.count).map { field(base + $0) }
    }
}

/// `tags.json`, `posts.json` and the search index.
struct IndexWriter {
    let model: SiteModel
    let urls: URLBuilder
    /// Each post's source path, in model order.
    let sourcePaths: [String]

    init(model: SiteModel, urls: URLBuilder, sourcePaths: [String]? = nil) {
        self.model = model
        self.urls = urls
        self.sourcePaths = sourcePaths ?? postColumn(model.posts) { $0.pointee.sourcePath }
    }

    func tagsJSON() -> OutputFile {
        let ids = postColumn(model.posts) { $0.pointee.id }
        var json = JSONWriter()
        json.beginObject()
        json.field("version", 1)
        json.key("tags")
        json.beginArray()
        for tag in model.tags {
            json.beginObject()
            json.field("name", tag.name)
            json.field("slug", tag.slug)
            json.field("count", tag.postIndices.count)
            json.field("url", urls.tag(tag.slug))
            json.field("posts", strings: tag.postIndices.map { ids[$0] })
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return OutputFile(path: "tags.json", bytes: json.bytes)
    }

    /// Each post's object in posts.json, in model order, with no cache (a one-shot build): made on all cores.
    func postObjects() -> [[UInt8]] {
        WorkShare.map(count: model.posts.count) { postObject($0) }
    }

    /// The object of one post in posts.json.
    func postObject(_ index: Int) -> [UInt8] {
        let post = model.posts[index]
        // Room for the fields around the title and summary, so the buffer is not grown while written.
        var json = JSONWriter(capacity: 320 + post.title.utf8.count + post.summary.utf8.count + post.slug.utf8.count * 2)
        json.beginObject()
        json.field("id", post.id)
        json.field("title", post.title)
        json.field("url", urls.post(post.slug))
        json.field("date", post.date.iso8601)
        json.field("updated", post.updated?.iso8601)
        json.field("tags", strings: model.postTags[index].map { model.tags[$0].name })
        json.field("summary", post.summary)
        json.endObject()
        return json.bytes
    }

    /// Each post's object in posts.json, in model order, reusing the object in `cache` (keyed by
    /// source path) while `key(index)` stays the same.
    func postObjects(cache: inout [String: (key: Int, bytes: [UInt8])], key: (Int) -> Int) -> [[UInt8]] {
        var objects: [[UInt8]] = []
        objects.reserveCapacity(model.posts.count)
        // The cache is patched in place (a rebuild after one edit touches one entry).
        for index in model.posts.indices {
            let path = sourcePaths[index]
            let k = key(index)
            let bytes: [UInt8]
            if let cached = cache[path], cached.key == k {
                bytes = cached.bytes
            } else {
                bytes = postObject(index)
                cache[path] = (k, bytes)
            }
            objects.append(bytes)
        }
        if cache.count != model.posts.count {
            let live = Set(sourcePaths)
            cache = cache.filter { live.contains($0.key) }
        }
        return objects
    }

    /// posts.json from each post's object, in model order.
    static func postsJSON(objects: [[UInt8]]) -> OutputFile {
        var head = JSONWriter()
        head.beginObject()
        head.field("version", 1)
        head.key("posts")
        head.beginArray()
        var total = head.bytes.count + 2
        for object in objects { total += object.count + 1 }
        var out = head.bytes
        out.reserveCapacity(total)
        for (n, object) in objects.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: object)
        }
        out.append(contentsOf: [UInt8(ascii: "]"), UInt8(ascii: "}")])
        return OutputFile(path: "posts.json", bytes: out)
    }

    /// The search document of a post.
    func searchDocument(_ index: Int) -> SearchDocument {
        SearchDocumentMaker.document(model.posts[index], tags: model.postTags[index].map { model.tags[$0].name }, urls: urls)
    }

    /// Each post's search analysis, in model order, in a build that keeps nothing for the next one
    /// (`blog build`): every post analysed, with no cache to fill. The posts' plain and code texts
    /// come from `texts` (moved out of the model), each freed once analysed.
    func analyses(texts: PostTexts) -> [AnalyzedDocument] {
        SearchIndexBuilder.analyzeAll(count: model.posts.count, keepsText: false) { index in
            var document = searchDocument(index)
            (document.body, document.code) = texts.take(index)
            return document
        }
    }

    /// Each post's search analysis, in model order. `cache` keeps each post's analysis between
    /// builds (keyed by source path); a post is analysed again only when `key(index)` changes.
    func analyses(cache: inout [String: (key: Int, analyzed: AnalyzedDocument)], key: (Int) -> Int) -> [AnalyzedDocument] {
        var analyzed: [AnalyzedDocument?] = []
        analyzed.reserveCapacity(model.posts.count)
        var keys: [Int] = []
        keys.reserveCapacity(model.posts.count)
        var stale: [Int] = []
        for index in model.posts.indices {
            let k = key(index)
            keys.append(k)
            if let cached = cache[sourcePaths[index]], cached.key == k {
                analyzed.append(cached.analyzed)
            } else {
                stale.append(index)
                analyzed.append(nil)
            }
        }
        let fresh = SearchIndexBuilder.analyzeAll(count: stale.count) { searchDocument(stale[$0]) }
        // The cache is patched in place (a rebuild after one edit touches one entry).
        for (n, index) in stale.enumerated() {
            analyzed[index] = fresh[n]
            cache[sourcePaths[index]] = (keys[index], fresh[n])
        }
        if cache.count != model.posts.count {
            let live = Set(sourcePaths)
            cache = cache.filter { live.contains($0.key) }
        }
        return analyzed.map { $0! }
    }
}

/// Makes posts' search documents without reading the model, for threads that run while the
/// model changes (`blog build`'s post pages).
struct SearchDocumentMaker: Sendable {
    let urls: URLBuilder
    let tagNames: [String]
    let postTags: [[Int]]

    init(model: SiteModel, urls: URLBuilder) {
        self.urls = urls
        tagNames = model.tags.map(\.name)
        postTags = model.postTags
    }

    /// Post `index`'s search document (its body and code text from `post.content`).
    func document(_ index: Int, _ post: Post) -> SearchDocument {
        SearchDocumentMaker.document(post, tags: postTags[index].map { tagNames[$0] }, urls: urls)
    }

    /// The document as far as its place in the index goes (date, id, url and title).
    func place(_ post: Post) -> SearchDocument {
        SearchDocument(id: post.id, title: post.title, url: urls.post(post.slug), date: post.date.iso8601,
                       tags: [], headings: [], body: "", code: "", summary: "")
    }

    static func document(_ post: Post, tags: [String], urls: URLBuilder) -> SearchDocument {
        SearchDocument(id: post.id, title: post.title, url: urls.post(post.slug), date: post.date.iso8601, tags: tags,
                       headings: post.content.headings.map(\.text), body: post.content.plainText,
                       code: post.content.codeText, summary: post.summary)
    }
}

/// The plain text and code text of every post, moved out of the posts for `blog build`'s search
/// analysis, which alone reads them: each is taken, and so freed, by the one worker that analyses
/// its post (`SearchIndexBuilder.analyzeAll` hands every index to one worker), so no two threads
/// touch the same slot.
final class PostTexts: @unchecked Sendable {
    private let count: Int
    private let slots: UnsafeMutablePointer<(body: String, code: String)>

    /// Moves each post's `content.plainText` and `content.codeText` here, leaving them empty.
    init(taking posts: inout [Post]) {
        count = posts.count
        slots = .allocate(capacity: max(1, count))
        for index in posts.indices {
            (slots + index).initialize(to: (posts[index].content.plainText, posts[index].content.codeText))
            posts[index].content.plainText = ""
            posts[index].content.codeText = ""
        }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// Post `index`'s texts, leaving its slot empty.
    func take(_ index: Int) -> (body: String, code: String) {
        precondition(index >= 0 && index < count, "post index out of range")
        let texts = slots[index]
        slots[index] = ("", "")
        return texts
    }
}
