import BlogCore
import BlogContent
import BlogSearch

/// `tags.json`, `posts.json` and the search index.
struct IndexWriter {
    let model: SiteModel
    let urls: URLBuilder

    func tagsJSON() -> OutputFile {
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
            json.field("posts", strings: tag.postIndices.map { model.posts[$0].id })
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return OutputFile(path: "tags.json", bytes: json.bytes)
    }

    func postsJSON() -> OutputFile {
        var json = JSONWriter()
        json.beginObject()
        json.field("version", 1)
        json.key("posts")
        json.beginArray()
        for (index, post) in model.posts.enumerated() {
            json.beginObject()
            json.field("id", post.id)
            json.field("title", post.title)
            json.field("url", urls.post(post.slug))
            json.field("date", post.date.iso8601)
            json.field("updated", post.updated?.iso8601)
            json.field("tags", strings: model.postTags[index].map { model.tags[$0].name })
            json.field("summary", post.summary)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return OutputFile(path: "posts.json", bytes: json.bytes)
    }

    /// The search document of a post.
    func searchDocument(_ index: Int) -> SearchDocument {
        let post = model.posts[index]
        return SearchDocument(id: post.id, title: post.title, url: urls.post(post.slug), date: post.date.iso8601,
                              tags: model.postTags[index].map { model.tags[$0].name },
                              headings: post.content.headings.map(\.text), body: post.content.plainText,
                              code: post.content.codeText, summary: post.summary)
    }

    /// The search index. `cache` keeps each post's analysis between builds (keyed by source path);
    /// a post is analysed again only when `key(index)` changes.
    func searchIndex(cache: inout [String: (key: Int, analyzed: AnalyzedDocument)], key: (Int) -> Int) -> [OutputFile] {
        var analyzed = [AnalyzedDocument?](repeating: nil, count: model.posts.count)
        var stale: [Int] = []
        for index in model.posts.indices {
            if let cached = cache[model.posts[index].sourcePath], cached.key == key(index) {
                analyzed[index] = cached.analyzed
            } else {
                stale.append(index)
            }
        }
        let fresh = SearchIndexBuilder.analyzeAll(stale.map(searchDocument))
        var newCache: [String: (key: Int, analyzed: AnalyzedDocument)] = [:]
        newCache.reserveCapacity(model.posts.count)
        for (n, index) in stale.enumerated() { analyzed[index] = fresh[n] }
        for index in model.posts.indices { newCache[model.posts[index].sourcePath] = (key(index), analyzed[index]!) }
        cache = newCache
        return SearchIndexBuilder.build(analyzed: analyzed.map { $0! }).map { OutputFile(path: $0.path, bytes: $0.bytes) }
    }
}
