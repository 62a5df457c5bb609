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
        let prefix = Array(((absolute ? origin : "") + basePath).utf8)
        if prefix == [UInt8(ascii: "/")] { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 256)
        bytes.withUnsafeBufferPointer { buffer in
            let count = buffer.count
            var runStart = 0
            var i = 0
            // Looks for `="/` and checks that `href` or `src` comes before it.
            while i + 2 < count {
                guard buffer[i] == UInt8(ascii: "="), buffer[i + 1] == UInt8(ascii: "\""), buffer[i + 2] == UInt8(ascii: "/") else {
                    i += 1
                    continue
                }
                let isHref = i >= 5 && buffer[i - 4] == UInt8(ascii: "h") && buffer[i - 3] == UInt8(ascii: "r") && buffer[i - 2] == UInt8(ascii: "e")
                    && buffer[i - 1] == UInt8(ascii: "f") && buffer[i - 5] == UInt8(ascii: " ")
                let isSrc = i >= 4 && buffer[i - 3] == UInt8(ascii: "s") && buffer[i - 2] == UInt8(ascii: "r") && buffer[i - 1] == UInt8(ascii: "c")
                    && buffer[i - 4] == UInt8(ascii: " ")
                // Protocol-relative `//host` stays as is.
                let protocolRelative = i + 3 < count && buffer[i + 3] == UInt8(ascii: "/")
                if (isHref || isSrc) && !protocolRelative {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<(i + 2)]))
                    out.append(contentsOf: prefix)
                    i += 3
                    runStart = i
                } else {
                    i += 1
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<count]))
        }
        return out
    }
}
