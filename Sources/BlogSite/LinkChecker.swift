import BlogCore
import BlogContent
import Foundation

/// Verifies that every internal link and `#anchor` of a built site resolves.
/// External links are not fetched. Each broken link names the Markdown file and line it came from,
/// or the page and the theme when it came from a template.
public struct LinkChecker {
    public struct BrokenLink: Sendable, Equatable, CustomStringConvertible {
        public var location: SourceLocation
        public var page: String
        public var link: String
        public var reason: String

        public var description: String {
            "\(location): error: broken link '\(link)' on /\(page): \(reason)"
        }
    }

    let site: BuiltSite
    let basePath: String

    public init(site: BuiltSite) {
        self.site = site
        self.basePath = site.model.config.basePath
    }

    public func check() -> [BrokenLink] {
        var files: [String: Int] = [:]
        for (index, file) in site.files.enumerated() { files[file.path] = index }
        let htmlIndices = site.files.indices.filter { site.files[$0].path.hasSuffix(".html") }
        // Anchors of every HTML page, computed once.
        let found = WorkShare.map(count: htmlIndices.count, batch: 8) { n -> (anchors: Set<String>, links: [String]) in
            let bytes = site.files[htmlIndices[n]].bytes
            return (Set(LinkChecker.attributeValues(bytes, names: ["id", "name"])), LinkChecker.attributeValues(bytes, names: ["href", "src"]))
        }
        var anchors = [Set<String>](repeating: [], count: site.files.count)
        var links = [[String]](repeating: [], count: site.files.count)
        for (n, index) in htmlIndices.enumerated() {
            anchors[index] = found[n].anchors
            links[index] = found[n].links
        }
        // Which source produced each page.
        var sources: [String: (path: String, firstLine: Int, links: [(String, Int)])] = [:]
        for post in site.model.posts {
            let page = "posts/\(post.slug)/index.html"
            sources[page] = (post.sourcePath, post.bodyFirstLine, post.content.links.map { ($0.destination, $0.line) })
        }
        for page in site.model.pages {
            sources["\(page.path)/index.html"] = (page.sourcePath, page.bodyFirstLine, page.content.links.map { ($0.destination, $0.line) })
        }
        var broken: [BrokenLink] = []
        for index in htmlIndices {
            let page = site.files[index].path
            var seen = Set<String>()
            for raw in links[index] where seen.insert(raw).inserted {
                guard let reason = problem(with: raw, page: page, files: files, anchors: anchors) else { continue }
                var location = SourceLocation(file: "/" + page + " (theme template)")
                if let source = sources[page] {
                    if let found = source.links.first(where: { matches(markdown: $0.0, html: raw) }) {
                        location = SourceLocation(file: source.path, line: source.firstLine + found.1 - 1)
                    } else {
                        location = SourceLocation(file: source.path)
                    }
                }
                broken.append(BrokenLink(location: location, page: page, link: raw, reason: reason))
            }
        }
        return broken
    }

    func matches(markdown: String, html: String) -> Bool {
        let decoded = html.replacingOccurrences(of: "&amp;", with: "&")
        if markdown == decoded { return true }
        if markdown.hasPrefix("/") && decoded == String(basePath.dropLast()) + markdown { return true }
        return Slug.percentEncodePath(markdown) == decoded || decoded.removingPercentEncoding == markdown
    }

    /// nil when the link resolves.
    func problem(with raw: String, page: String, files: [String: Int], anchors: [Set<String>]) -> String? {
        let link = raw.replacingOccurrences(of: "&amp;", with: "&")
        if link.isEmpty { return nil }
        let lower = link.lowercased()
        if lower.hasPrefix("javascript:") { return "javascript: links are not allowed" }
        if lower.hasPrefix("//") || lower.range(of: "^[a-z][a-z0-9+.-]*:", options: .regularExpression) != nil { return nil }
        var target = link
        var fragment: String?
        if let hash = target.firstIndex(of: "#") {
            fragment = String(target[target.index(after: hash)...])
            target = String(target[..<hash])
        }
        if let question = target.firstIndex(of: "?") { target = String(target[..<question]) }
        var filePath: String
        if target.isEmpty {
            filePath = page
        } else {
            var absolute: String
            if target.hasPrefix("/") {
                absolute = target
            } else {
                let pageDirectory = "/" + (page as NSString).deletingLastPathComponent
                absolute = (pageDirectory == "/" ? "/" : pageDirectory + "/") + target
            }
            absolute = normalize(absolute)
            guard absolute.hasPrefix(basePath) || absolute + "/" == basePath else {
                return "it points outside the site's base path \(basePath)"
            }
            var relative = String(absolute.dropFirst(min(basePath.count, absolute.count)))
            relative = relative.removingPercentEncoding ?? relative
            if relative.isEmpty || relative.hasSuffix("/") {
                filePath = relative + "index.html"
            } else if files[relative] != nil {
                filePath = relative
            } else {
                filePath = relative + "/index.html"
            }
            guard files[filePath] != nil else { return "no such page or file" }
        }
        if let fragment, !fragment.isEmpty, filePath.hasSuffix(".html"), let index = files[filePath] {
            let id = fragment.removingPercentEncoding ?? fragment
            if !anchors[index].contains(id) { return "no element with id '\(id)' on /\(filePath)" }
        }
        return nil
    }

    /// Folds `.` and `..` segments.
    func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Values of the named attributes in HTML (double- or single-quoted), outside comments and scripts.
    static func attributeValues(_ bytes: [UInt8], names: [String]) -> [String] {
        var values: [String] = []
        let patterns = names.map { Array(" \($0)=".utf8) }
        var i = 0
        let count = bytes.count
        while i < count {
            let b = bytes[i]
            if b == UInt8(ascii: "<") && i + 3 < count && bytes[i + 1] == UInt8(ascii: "!") && bytes[i + 2] == UInt8(ascii: "-") && bytes[i + 3] == UInt8(ascii: "-") {
                // Skip comments.
                var j = i + 4
                while j + 2 < count && !(bytes[j] == UInt8(ascii: "-") && bytes[j + 1] == UInt8(ascii: "-") && bytes[j + 2] == UInt8(ascii: ">")) { j += 1 }
                i = j + 3
                continue
            }
            if b == UInt8(ascii: " ") || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\t") {
                for pattern in patterns where i + pattern.count < count {
                    var matched = true
                    for k in 1..<pattern.count where bytes[i + k] != pattern[k] {
                        matched = false
                        break
                    }
                    guard matched else { continue }
                    let quote = bytes[i + pattern.count]
                    guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { continue }
                    var j = i + pattern.count + 1
                    let start = j
                    while j < count && bytes[j] != quote { j += 1 }
                    values.append(String(decoding: bytes[start..<j], as: UTF8.self))
                    i = j
                    break
                }
            }
            i += 1
        }
        return values
    }
}
