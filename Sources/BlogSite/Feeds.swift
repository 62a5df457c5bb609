import BlogCore
import BlogContent

/// Atom feeds, the sitemap and robots.txt.
struct FeedWriter {
    let model: SiteModel
    let urls: URLBuilder

    func xmlEscape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default:
                // Characters XML 1.0 forbids are dropped.
                let v = scalar.value
                if v == 0x9 || v == 0xA || v == 0xD || (v >= 0x20 && v <= 0xD7FF) || (v >= 0xE000 && v <= 0xFFFD) || v >= 0x10000 {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// An Atom 1.0 feed of the newest posts among `indices` (already newest first).
    func atom(title: String, selfPath: String, alternatePath: String, indices: [Int]) -> [UInt8] {
        let config = model.config
        let entries = Array(indices.prefix(config.feedLimit))
        let updated = entries.map { model.posts[$0].updated ?? model.posts[$0].date }.max() ?? PostDate(epochSeconds: 0, offsetSeconds: 0)
        let author = config.author.isEmpty ? config.title : config.author
        var xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"\(xmlEscape(config.language))\">\n"
        xml += "  <title>\(xmlEscape(title))</title>\n"
        if !config.description.isEmpty { xml += "  <subtitle>\(xmlEscape(config.description))</subtitle>\n" }
        xml += "  <id>\(xmlEscape(urls.absolute(alternatePath)))</id>\n"
        xml += "  <link rel=\"self\" type=\"application/atom+xml\" href=\"\(xmlEscape(urls.absolute(selfPath)))\"/>\n"
        xml += "  <link rel=\"alternate\" type=\"text/html\" href=\"\(xmlEscape(urls.absolute(alternatePath)))\"/>\n"
        xml += "  <updated>\(updated.iso8601)</updated>\n"
        xml += "  <author><name>\(xmlEscape(author))</name></author>\n"
        xml += "  <generator version=\"\(BlogVersion.current)\">blog</generator>\n"
        for index in entries {
            let post = model.posts[index]
            let link = urls.absolute(urls.post(post.slug))
            xml += "  <entry>\n"
            xml += "    <title>\(xmlEscape(post.title))</title>\n"
            xml += "    <id>\(xmlEscape(link))</id>\n"
            xml += "    <link rel=\"alternate\" type=\"text/html\" href=\"\(xmlEscape(link))\"/>\n"
            xml += "    <published>\(post.date.iso8601)</published>\n"
            xml += "    <updated>\((post.updated ?? post.date).iso8601)</updated>\n"
            for tagIndex in model.postTags[index] {
                let tag = model.tags[tagIndex]
                xml += "    <category term=\"\(xmlEscape(tag.name))\" scheme=\"\(xmlEscape(urls.absolute(urls.tag(tag.slug))))\"/>\n"
            }
            xml += "    <summary>\(xmlEscape(post.summary))</summary>\n"
            xml += "    <content type=\"html\">\(xmlEscape(urls.rewriteRootLinks(post.content.html, absolute: true)))</content>\n"
            xml += "  </entry>\n"
        }
        xml += "</feed>\n"
        return Array(xml.utf8)
    }

    /// `feed.xml`: the newest posts of the site.
    func mainFeed() -> OutputFile {
        OutputFile(path: "feed.xml", bytes: atom(title: model.config.title, selfPath: urls.path("feed.xml"),
                                                 alternatePath: urls.path(""), indices: Array(model.posts.indices)))
    }

    /// `tags/<tag>/feed.xml`: the newest posts of one tag.
    func tagFeed(_ tag: TagInfo) -> OutputFile {
        let base = urls.tag(tag.slug)
        return OutputFile(path: "tags/\(tag.slug)/feed.xml",
                          bytes: atom(title: "\(model.config.title): \(tag.name)", selfPath: base + "feed.xml",
                                      alternatePath: base, indices: tag.postIndices))
    }

    /// `sitemap.xml` for the HTML pages; a sitemap index with parts once there are more than 50,000 URLs.
    func sitemap(pagePaths: [(path: String, lastmod: String?)]) -> [OutputFile] {
        let limit = 50_000
        func urlset(_ items: ArraySlice<(path: String, lastmod: String?)>) -> [UInt8] {
            var xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
            for item in items {
                xml += "  <url><loc>\(xmlEscape(urls.absolute(item.path)))</loc>"
                if let lastmod = item.lastmod { xml += "<lastmod>\(lastmod)</lastmod>" }
                xml += "</url>\n"
            }
            xml += "</urlset>\n"
            return Array(xml.utf8)
        }
        if pagePaths.count <= limit {
            return [OutputFile(path: "sitemap.xml", bytes: urlset(pagePaths[...]))]
        }
        var files: [OutputFile] = []
        var index = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
        var part = 1
        var start = 0
        while start < pagePaths.count {
            let name = "sitemap-\(part).xml"
            files.append(OutputFile(path: name, bytes: urlset(pagePaths[start..<min(pagePaths.count, start + limit)])))
            index += "  <sitemap><loc>\(xmlEscape(urls.absolute(urls.path(name))))</loc></sitemap>\n"
            start += limit
            part += 1
        }
        index += "</sitemapindex>\n"
        files.append(OutputFile(path: "sitemap.xml", bytes: Array(index.utf8)))
        return files
    }

    func robots() -> OutputFile {
        OutputFile(path: "robots.txt", bytes: Array("User-agent: *\nAllow: /\n\nSitemap: \(urls.absolute(urls.path("sitemap.xml")))\n".utf8))
    }
}
