import BlogContent
import BlogCore
import BlogMustache
import BlogYAML
import Foundation

/// What a page's `<head>` says about it besides its text: the document title, the social card's
/// picture, the Open Graph locale and the JSON-LD structured data (see docs/themes.md).
enum PageMeta {
    /// Which page of a list, in words: 「2ページ目」 or "Page 2".
    static func pageWords(_ page: Int, language: String) -> String {
        language.hasPrefix("ja") ? "\(page)ページ目" : "Page \(page)"
    }

    /// A list's own title on its page `page`: the title alone on the first page, else with the
    /// page in words (「Swift（2ページ目）」, "Swift (page 2)").
    static func listTitle(_ title: String, page: Int, language: String) -> String {
        if page <= 1 { return title }
        return language.hasPrefix("ja") ? "\(title)（\(page)ページ目）" : "\(title) (page \(page))"
    }

    /// The one rule for `<title>`: the page's own title, then the site's; the home page (own
    /// title nil) is the site's title alone.
    static func documentTitle(_ own: String?, site: String) -> String {
        guard let own, !own.isEmpty, own != site else { return site }
        return site.isEmpty ? own : own + " | " + site
    }

    /// `og:locale` from the site language: `ja` → `ja_JP`, `en-GB` → `en_GB`.
    static func locale(_ language: String) -> String {
        let parts = language.split(separator: "-")
        if parts.count >= 2 { return parts[0].lowercased() + "_" + parts[1].uppercased() }
        switch language.lowercased() {
        case "ja": return "ja_JP"
        case "en": return "en_US"
        case "zh": return "zh_CN"
        case "ko": return "ko_KR"
        default: return language.lowercased()
        }
    }

    /// An image reference made absolute: URLs stay, root paths (`/img/a.png`) get the base path,
    /// and other paths are taken relative to `page` (an absolute URL).
    static func absoluteImage(_ reference: String, relativeTo page: String, urls: URLBuilder) -> String? {
        let text = reference.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return nil }
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return text }
        if text.hasPrefix("//") { return (urls.absolute("").hasPrefix("http://") ? "http:" : "https:") + text }
        if text.hasPrefix("/") { return urls.absolute(urls.path(String(text.dropFirst()))) }
        if lower.hasPrefix("data:") || lower.hasPrefix("javascript:") { return nil }
        return URL(string: text, relativeTo: URL(string: page))?.absoluteString
    }

    /// The `src` of the first `<img>` in rendered HTML, with `&amp;` undone; nil when none.
    static func firstImage(in html: String) -> String? {
        var html = html
        return html.withUTF8 { bytes -> String? in
            guard let base = bytes.baseAddress, bytes.count > 10 else { return nil }
            let n = bytes.count
            var i = 0
            while i < n, let found = memchr(base + i, Int32(UInt8(ascii: "<")), n - i) {
                let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                i = at + 1
                guard at + 5 < n, base[at + 1] == UInt8(ascii: "i"), base[at + 2] == UInt8(ascii: "m"),
                      base[at + 3] == UInt8(ascii: "g"), base[at + 4] == UInt8(ascii: " ") else { continue }
                // The tag's attributes up to its `>`; blog's renderer writes `src="…"`.
                var end = at + 5
                while end < n, base[end] != UInt8(ascii: ">") { end += 1 }
                let tag = String(decoding: UnsafeBufferPointer(start: base + at, count: end - at), as: UTF8.self)
                guard let start = tag.range(of: " src=\"") else { continue }
                let rest = tag[start.upperBound...]
                guard let close = rest.firstIndex(of: "\"") else { continue }
                let src = String(rest[..<close]).replacingOccurrences(of: "&amp;", with: "&")
                return src.isEmpty ? nil : src
            }
            return nil
        }
    }

    /// JSON for a `<script type="application/ld+json">`: the writer's `.markup` escaping writes `<`,
    /// `>` and `&` as `\u003c`, `\u003e` and `\u0026` (they occur only inside strings), so no text
    /// can close the script.
    static func scriptSafe(_ json: JSONWriter) -> String {
        precondition(json.escaping == .markup, "JSON-LD needs the markup escaping")
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// A post's `BlogPosting`.
    static func blogPosting(_ post: Post, permalink: String, image: String?, config: SiteConfig) -> String {
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.field("@context", "https://schema.org")
        json.field("@type", "BlogPosting")
        json.field("headline", post.title)
        json.field("url", permalink)
        json.field("mainEntityOfPage", permalink)
        json.field("datePublished", post.date.iso8601)
        json.field("dateModified", (post.updated ?? post.date).iso8601)
        if !post.summary.isEmpty { json.field("description", post.summary) }
        if !config.author.isEmpty {
            json.key("author")
            json.beginObject()
            json.field("@type", "Person")
            json.field("name", config.author)
            json.endObject()
        }
        if let image { json.field("image", image) }
        if !post.tags.isEmpty { json.field("keywords", strings: post.tags) }
        json.field("inLanguage", config.language)
        json.endObject()
        return scriptSafe(json)
    }

    /// The home page's `WebSite`, with a `SearchAction` for the search page's `?q=`.
    static func webSite(config: SiteConfig, urls: URLBuilder) -> String {
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.field("@context", "https://schema.org")
        json.field("@type", "WebSite")
        json.field("name", config.title)
        json.field("url", urls.absolute(urls.path("")))
        if !config.description.isEmpty { json.field("description", config.description) }
        json.field("inLanguage", config.language)
        json.key("potentialAction")
        json.beginObject()
        json.field("@type", "SearchAction")
        json.field("target", urls.absolute(urls.path("search/")) + "?q={search_term_string}")
        json.field("query-input", "required name=search_term_string")
        json.endObject()
        json.endObject()
        return scriptSafe(json)
    }

    /// `params` from blog.yml as template values: mappings become objects, lists arrays, and
    /// plain `true`/`false` and whole numbers keep their type so that sections test them.
    static func value(_ yaml: YAMLValue?) -> MustacheValue {
        guard let yaml, !yaml.isNull else { return .object([:]) }
        if let pairs = yaml.mapping {
            var object = MustacheObject()
            for pair in pairs { object[pair.key.scalar ?? ""] = value(pair.value) }
            return .object(object)
        }
        if let items = yaml.sequence { return .array(items.map { value($0) }) }
        if let flag = yaml.bool { return .bool(flag) }
        if let number = yaml.int { return .int(number) }
        return .string(yaml.scalar ?? "")
    }
}

/// The header's menu for every page: one array per item that can be the current one (and one
/// with none current), made once, so that a page only picks one.
struct MenuViews: Sendable {
    /// Each item's URL path (nil for external links).
    let paths: [String?]
    let basePath: String
    /// `variants[0]`: no item current; `variants[i + 1]`: item `i` is the page; `variants[count + i + 1]`:
    /// the page is in item `i`'s section.
    let variants: [MustacheValue]

    init(config: SiteConfig, urls: URLBuilder, lang: [String: String]) {
        var items = config.menu
        if items.isEmpty {
            items = [MenuItem(label: lang["tags"] ?? "Tags", url: "tags/", isExternal: false),
                     MenuItem(label: lang["archive"] ?? "Archive", url: "archive/", isExternal: false)]
        }
        let paths: [String?] = items.map { $0.isExternal ? nil : urls.path(Slug.percentEncodePath($0.url)) }
        self.paths = paths
        basePath = urls.path("")
        func variant(current: Int, exact: Bool) -> MustacheValue {
            .array(items.enumerated().map { index, item in
                var fields = MustacheObject()
                fields["label"] = .string(item.label)
                fields["url"] = .string(paths[index] ?? item.url)
                fields["is_external"] = .bool(item.isExternal)
                fields["is_current"] = .bool(index == current)
                // `page` for the page itself, `true` for a page in the item's section.
                fields["aria_current"] = .string(index == current ? (exact ? "page" : "true") : "")
                return .object(fields)
            })
        }
        variants = [variant(current: -1, exact: true)] + items.indices.map { variant(current: $0, exact: true) }
            + items.indices.map { variant(current: $0, exact: false) }
    }

    /// The menu as page `url` shows it: the item with that URL is current, else the item whose
    /// URL holds it (the tags item on a tag's page), the longest such.
    func value(for url: String) -> MustacheValue {
        var best = -1, bestLength = 0
        for (index, path) in paths.enumerated() {
            guard let path else { continue }
            if path == url { return variants[index + 1] }
            if path != basePath, url.hasPrefix(path), path.utf8.count > bestLength {
                best = index
                bestLength = path.utf8.count
            }
        }
        return best < 0 ? variants[0] : variants[paths.count + best + 1]
    }
}
