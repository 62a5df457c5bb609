import BlogCore
import BlogContent
import Foundation

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
        bytes.withUnsafeBufferPointer { source in
            withRootLinksRewritten(source, absolute: absolute) { Array($0) }
        }
    }

    /// What replaces the `/` of a root-relative link: the base path, after the origin with `absolute`.
    func rootLinkPrefix(absolute: Bool) -> [UInt8] { Array(((absolute ? origin : "") + basePath).utf8) }

    /// Whether the `="/` at `i` (the `=`; the caller has seen `"/` after it) opens a root-relative
    /// link to rewrite: it follows ` href` or ` src`, and is not a protocol-relative `//host`.
    @inline(__always)
    static func startsRootLink(_ source: UnsafeBufferPointer<UInt8>, equalsAt i: Int) -> Bool {
        let isHref = i >= 5 && source[i - 4] == UInt8(ascii: "h") && source[i - 3] == UInt8(ascii: "r") && source[i - 2] == UInt8(ascii: "e")
            && source[i - 1] == UInt8(ascii: "f") && source[i - 5] == UInt8(ascii: " ")
        let isSrc = i >= 4 && source[i - 3] == UInt8(ascii: "s") && source[i - 2] == UInt8(ascii: "r") && source[i - 1] == UInt8(ascii: "c")
            && source[i - 4] == UInt8(ascii: " ")
        return (isHref || isSrc) && !(i + 3 < source.count && source[i + 3] == UInt8(ascii: "/"))
    }

    /// Calls `body` with `source` after the rewrite (`source` itself when nothing changes).
    func withRootLinksRewritten<R>(_ source: UnsafeBufferPointer<UInt8>, absolute: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let prefix = rootLinkPrefix(absolute: absolute)
        if prefix == [UInt8(ascii: "/")] { return body(source) }
        guard let base = source.baseAddress else { return body(source) }
        let count = source.count
        var out: [UInt8] = []
        var runStart = 0
        var i = 0
        // Looks for `="/` and checks that `href` or `src` comes before it.
        while i + 2 < count {
            // Eight bytes at a time to the next `=`, then check for `"/` after it.
            while i + 8 <= count {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) ^ 0x3D3D_3D3D_3D3D_3D3D
                if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            while i + 2 < count && source[i] != UInt8(ascii: "=") { i += 1 }
            guard i + 2 < count else { break }
            guard source[i + 1] == UInt8(ascii: "\""), source[i + 2] == UInt8(ascii: "/") else {
                i += 1
                continue
            }
            if URLBuilder.startsRootLink(source, equalsAt: i) {
                if out.isEmpty { out.reserveCapacity(count + 256) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<(i + 2)]))
                out.append(contentsOf: prefix)
                i += 3
                runStart = i
            } else {
                i += 1
            }
        }
        if runStart == 0 { return body(source) }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: source[runStart..<count]))
        return out.withUnsafeBufferPointer(body)
    }
}
