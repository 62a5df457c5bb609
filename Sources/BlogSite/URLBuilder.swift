import BlogCore
import BlogContent

/// Every URL of the site, with the base path applied once, here.
struct URLBuilder: Sendable {
    let basePath: String
    let origin: String

    init(config: SiteConfig) {
        basePath = config.basePath
        origin = config.origin
    }

    /// `base_path + relative` (relative has no leading slash).
    func path(_ relative: String) -> String { basePath + relative }
    func post(_ slug: String) -> String { basePath + "posts/" + Slug.percentEncodePath(slug) + "/" }
    func tag(_ slug: String) -> String { basePath + "tags/" + Slug.percentEncodePath(slug) + "/" }
    func absolute(_ path: String) -> String { origin + path }

    /// The output file for a URL path ending in `/`: `/archive/posts/x/` → `posts/x/index.html`.
    func file(_ urlPath: String) -> String {
        var relative = String(urlPath.dropFirst(basePath.count))
        relative = relative.removingPercentEncoding ?? relative
        return relative.isEmpty || relative.hasSuffix("/") ? relative + "index.html" : relative
    }

    /// Root-relative links in content (`href="/x"`, `src="/x"`) get the base path, so archives
    /// published under a sub-path keep working. With `absolute`, they get the origin too (feeds).
    func rewriteRootLinks(_ html: String, absolute: Bool = false) -> String {
        if !absolute && basePath == "/" { return html }
        return String(decoding: rewriteRootLinks(bytes: Array(html.utf8), absolute: absolute), as: UTF8.self)
    }

    func rewriteRootLinks(bytes: [UInt8], absolute: Bool) -> [UInt8] {
        let prefix = (absolute ? origin : "") + basePath
        if prefix == "/" { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 256)
        let patterns: [[UInt8]] = [Array("href=\"/".utf8), Array("src=\"/".utf8)]
        var i = 0
        outer: while i < bytes.count {
            if bytes[i] == UInt8(ascii: "h") || bytes[i] == UInt8(ascii: "s") {
                for pattern in patterns where i + pattern.count <= bytes.count && bytes[i..<(i + pattern.count)].elementsEqual(pattern) {
                    // Protocol-relative `//host` stays as is.
                    let next = i + pattern.count
                    if next < bytes.count && bytes[next] == UInt8(ascii: "/") { break }
                    out.append(contentsOf: pattern.dropLast())
                    out.append(contentsOf: prefix.utf8)
                    i = next
                    continue outer
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }
}
