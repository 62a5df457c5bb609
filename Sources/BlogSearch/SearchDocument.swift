/// One post (or page) as the search index sees it. All text is plain text (no HTML).
public struct SearchDocument: Sendable, Hashable {
    /// Stable identifier (the post id); documents are ordered by `date` (newest first), then `id`.
    public var id: String
    public var title: String
    /// Absolute path of the page including the site's base path, e.g. `/posts/hello/`.
    public var url: String
    /// ISO 8601 date (`2020-02-06` or `2020-02-06T10:00:00+09:00`); compared as text.
    public var date: String
    public var tags: [String]
    /// Section headings, in order.
    public var headings: [String]
    /// Prose of the body (without code blocks).
    public var body: String
    /// Text of code blocks and inline code.
    public var code: String
    /// Short plain-text summary shown in results (and used for snippets).
    public var summary: String

    public init(id: String, title: String, url: String, date: String, tags: [String], headings: [String], body: String, code: String, summary: String) {
        self.id = id
        self.title = title
        self.url = url
        self.date = date
        self.tags = tags
        self.headings = headings
        self.body = body
        self.code = code
        self.summary = summary
    }
}
