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

    func searchIndex() -> [OutputFile] {
        let documents = model.posts.enumerated().map { index, post in
            SearchDocument(id: post.id, title: post.title, url: urls.post(post.slug), date: post.date.iso8601,
                           tags: model.postTags[index].map { model.tags[$0].name },
                           headings: post.content.headings.map(\.text), body: post.content.plainText,
                           code: post.content.codeText, summary: post.summary)
        }
        return SearchIndexBuilder.build(documents).map { OutputFile(path: $0.path, bytes: $0.bytes) }
    }
}
