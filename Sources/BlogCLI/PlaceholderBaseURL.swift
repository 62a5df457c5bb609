import BlogCore

/// The warning `blog build` prints when the site's address is a local one: a site published that
/// way links to localhost in its canonical links, feeds and sitemap. `blog serve` never warns (it
/// serves at a local address on purpose).
enum PlaceholderBaseURL {
    /// The warning for `baseURL`, or nil when it is a real address.
    static func warning(baseURL: String) -> Diagnostic? {
        guard isLocal(baseURL) else { return nil }
        return Diagnostic.warning("base_url is \(baseURL): canonical links, feeds and the sitemap will point at "
            + "localhost. Set base_url in blog.yml to the site's address (e.g. https://user.github.io/archive/) "
            + "or build with --base-url URL")
    }

    /// Whether the URL's host is this machine (localhost, a *.localhost name, 127.x.x.x, ::1, 0.0.0.0).
    static func isLocal(_ baseURL: String) -> Bool {
        guard let schemeEnd = baseURL.range(of: "://") else { return false }
        var host = Substring(baseURL[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        let name = host.lowercased()
        return name == "localhost" || name.hasSuffix(".localhost") || name.hasPrefix("127.") || name == "::1"
            || name == "0.0.0.0"
    }
}
