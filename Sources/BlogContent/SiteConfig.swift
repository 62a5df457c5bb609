import BlogCore
import BlogYAML
import BlogMarkdown
import Foundation

/// One link of the header's menu: `{label, url}` or `{label, page}` in `blog.yml`.
public struct MenuItem: Sendable, Hashable {
    public var label: String
    /// An absolute URL (`https://…`), or a path under the site without its base path (`about/`).
    public var url: String
    public var isExternal: Bool

    public init(label: String, url: String, isExternal: Bool) {
        self.label = label
        self.url = url
        self.isExternal = isExternal
    }

    static func parse(_ value: YAMLValue, location: (YAMLValue) -> SourceLocation, errors: inout [Diagnostic], console: Console?) -> [MenuItem] {
        if value.isNull { return [] }
        guard let items = value.sequence else {
            errors.append(.error("'menu' must be a list of {label, url} or {label, page} items", at: location(value)))
            return []
        }
        var menu: [MenuItem] = []
        for item in items {
            guard let pairs = item.mapping else {
                errors.append(.error("each 'menu' item must be a mapping with 'label' and 'url' (or 'page')", at: location(item)))
                continue
            }
            var label: String?, target: String?, isPage = false
            for pair in pairs {
                let name = pair.key.scalar ?? ""
                switch name {
                case "label", "url", "page":
                    guard let text = pair.value.scalar?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                        errors.append(.error("'menu.\(name)' must be non-empty text", at: location(pair.value)))
                        continue
                    }
                    if name == "label" { label = text } else { target = text; isPage = name == "page" }
                default:
                    console?.report(.warning("unknown key 'menu.\(name)' (known: label, url, page)", at: location(pair.key)))
                }
            }
            guard let label, let target else {
                errors.append(.error("each 'menu' item needs 'label' and 'url' (or 'page')", at: location(item)))
                continue
            }
            let lower = target.lowercased()
            if !isPage && (lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("mailto:") || target.hasPrefix("//")) {
                menu.append(MenuItem(label: label, url: target, isExternal: true))
                continue
            }
            // A page path (`about`, `about.md`, `/about/`) or a site path: the URL of that folder.
            var path = target
            while path.hasPrefix("/") { path.removeFirst() }
            if isPage {
                if path.hasPrefix("content/") { path.removeFirst("content/".count) }
                if path.hasSuffix(".md") { path.removeLast(3) }
                if path.hasSuffix("/index") { path.removeLast("/index".count) }
                if !path.isEmpty && !path.hasSuffix("/") { path += "/" }
            }
            menu.append(MenuItem(label: label, url: path, isExternal: false))
        }
        return menu
    }
}

/// The site's settings from `blog.yml`. Every key is optional.
public struct SiteConfig: Sendable {
    public var title = "My Blog"
    public var description = ""
    /// Absolute URL of the site, always ending with `/` (`https://example.com/archive/`).
    public var baseURL = "http://localhost/"
    public var language = "ja"
    public var author = ""
    public var theme = "default"
    public var timezone = TimeZone(identifier: "Asia/Tokyo")!
    public var postsPerPage = 10
    public var markdownHardBreaks = true
    public var markdownUnsafe = false
    /// `embeds.scripts`: keep the scripts of allowed embeds (tweets, pens...); off, their static
    /// fallback shows.
    public var embedScripts = false
    /// `mentions.base_url`, or nil for `mentions: false`.
    public var mentionsBaseURL: String? = "https://qiita.com/"
    /// `markdown.math`: MathML at build time (default) or the TeX kept for a theme's own renderer.
    public var markdownMath = MathOutput.mathml
    /// Known tag names used by `blog import text` to infer tags from titles.
    public var importKnownTags: [String] = []
    /// Extra hosts (`host`, `host:port` or `host/path-prefix`) whose images `blog import --images` downloads.
    public var importImageHosts: [String] = []
    /// Minimum number of headings for a post to show a table of contents.
    public var tocMinHeadings = 3
    /// Number of entries in the main feed.
    public var feedLimit = 20
    /// Whether symbolic links that lead outside the site folder are followed (see `SiteFiles`).
    public var followOutsideLinks = false
    /// The largest Markdown file read, in bytes (`limits.max_file_mb`).
    public var maxFileBytes = 16 << 20
    /// The social card's picture for pages without one of their own (`image`).
    public var image = ""
    /// The header's links, in order (`menu`); empty: the theme's own.
    public var menu: [MenuItem] = []
    /// Anything a theme wants (`params`), handed to templates as `site.params` unchecked.
    public var params: YAMLValue?

    public init() {}

    /// How the site's folders are listed under these settings.
    public func siteFiles(_ siteDirectory: URL) -> SiteFiles {
        SiteFiles(siteDirectory: siteDirectory, allowOutsideLinks: followOutsideLinks)
    }

    /// The path part of `baseURL`: `/` or `/archive/`.
    public var basePath: String {
        guard let schemeEnd = baseURL.range(of: "://") else { return "/" }
        let rest = baseURL[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        var path = String(rest[slash...])
        if !path.hasSuffix("/") { path += "/" }
        return path
    }

    /// `https://example.com` without the path.
    public var origin: String {
        guard let schemeEnd = baseURL.range(of: "://") else { return baseURL }
        let rest = baseURL[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return baseURL }
        return String(baseURL[..<slash])
    }

    static let knownKeys: Set<String> = ["title", "description", "base_url", "language", "author", "theme",
                                         "timezone", "posts_per_page", "markdown", "import", "toc_min_headings",
                                         "feed_limit", "embeds", "mentions",
                                         "follow_outside_links", "limits", "image", "menu", "params"]

    /// Loads `blog.yml` from the site folder; returns defaults when the file is absent.
    /// Unknown keys are warnings; wrong types and bad values are errors.
    public static func load(siteDirectory: URL, console: Console?) throws -> SiteConfig {
        let file = siteDirectory.appendingPathComponent("blog.yml")
        let displayPath = "blog.yml"
        guard FileManager.default.fileExists(atPath: file.path) else { return SiteConfig() }
        let text = try SourceText.read(file, displayPath: displayPath)
        return try parse(text, path: displayPath, console: console)
    }

    public static func parse(_ text: String, path: String, console: Console?) throws -> SiteConfig {
        var config = SiteConfig()
        let root: YAMLValue
        do {
            root = try YAML.parse(text)
        } catch let error as YAMLError {
            throw Diagnostic.error(error.message, at: SourceLocation(file: path, line: error.line, column: error.column))
        }
        if root.isNull { return config }
        guard let pairs = root.mapping else {
            throw Diagnostic.error("blog.yml must be a mapping of keys to values", at: SourceLocation(file: path, line: root.line, column: root.column))
        }
        var errors: [Diagnostic] = []
        func location(_ value: YAMLValue) -> SourceLocation {
            SourceLocation(file: path, line: value.line, column: value.column)
        }
        for duplicate in root.duplicateKeys {
            console?.report(.warning("'\(duplicate.key)' is given twice, on lines \(duplicate.first.line) and \(duplicate.again.line); the second is used",
                                     at: SourceLocation(file: path, line: duplicate.again.line, column: duplicate.again.column)))
        }
        func string(_ value: YAMLValue, _ key: String) -> String? {
            if value.isNull { return "" }
            guard let text = value.scalar else {
                errors.append(.error("'\(key)' must be text, not \(value.typeName)", at: location(value)))
                return nil
            }
            return text
        }
        func bool(_ value: YAMLValue, _ key: String) -> Bool? {
            guard let flag = value.bool else {
                errors.append(.error("'\(key)' must be true or false", at: location(value)))
                return nil
            }
            return flag
        }
        func positive(_ value: YAMLValue, _ key: String) -> Int? {
            guard let number = value.int, number > 0 else {
                errors.append(.error("'\(key)' must be a whole number greater than 0", at: location(value)))
                return nil
            }
            return number
        }
        for pair in pairs {
            guard let key = pair.key.scalar else {
                errors.append(.error("keys of blog.yml must be text", at: location(pair.key)))
                continue
            }
            let value = pair.value
            switch key {
            case "title": if let v = string(value, key) { config.title = v }
            case "description": if let v = string(value, key) { config.description = v }
            case "author": if let v = string(value, key) { config.author = v }
            case "language":
                if let v = string(value, key) {
                    if v.isEmpty || v.contains(where: { !($0.isLetter || $0 == "-" || $0.isNumber) }) {
                        errors.append(.error("'language' must be a language tag such as ja or en, not '\(v)'", at: location(value)))
                    } else {
                        config.language = v
                    }
                }
            case "theme":
                if let v = string(value, key) {
                    if v.isEmpty || v.contains("/") || v.hasPrefix(".") {
                        errors.append(.error("'theme' must be the name of a folder in themes/, not '\(v)'", at: location(value)))
                    } else {
                        config.theme = v
                    }
                }
            case "base_url":
                if let v = string(value, key) {
                    if let normalized = normalizeBaseURL(v) {
                        config.baseURL = normalized
                    } else {
                        errors.append(.error("'base_url' must be an absolute http(s) URL such as https://example.com/, not '\(v)'", at: location(value)))
                    }
                }
            case "timezone":
                if let v = string(value, key) {
                    if let zone = TimeZone(identifier: v) {
                        config.timezone = zone
                    } else {
                        errors.append(.error("unknown time zone '\(v)' (use a name like Asia/Tokyo or UTC)", at: location(value)))
                    }
                }
            case "posts_per_page": if let v = positive(value, key) { config.postsPerPage = v }
            case "toc_min_headings": if let v = positive(value, key) { config.tocMinHeadings = v }
            case "feed_limit": if let v = positive(value, key) { config.feedLimit = v }
            case "follow_outside_links": if let v = bool(value, key) { config.followOutsideLinks = v }
            case "limits":
                guard let inner = value.mapping else {
                    errors.append(.error("'limits' must be a mapping (max_file_mb)", at: location(value)))
                    continue
                }
                for item in inner {
                    let name = item.key.scalar ?? ""
                    if name == "max_file_mb" {
                        if let v = positive(item.value, "limits.max_file_mb") {
                            if v > 2048 {
                                errors.append(.error("'limits.max_file_mb' must be at most 2048", at: location(item.value)))
                            } else {
                                config.maxFileBytes = v << 20
                            }
                        }
                    } else {
                        console?.report(.warning("unknown key 'limits.\(name)' (known: max_file_mb)", at: location(item.key)))
                    }
                }
            case "markdown":
                guard let inner = value.mapping else {
                    errors.append(.error("'markdown' must be a mapping (hardbreaks, unsafe, math)", at: location(value)))
                    continue
                }
                for item in inner {
                    let name = item.key.scalar ?? ""
                    switch name {
                    case "hardbreaks": if let v = bool(item.value, "markdown.hardbreaks") { config.markdownHardBreaks = v }
                    case "unsafe": if let v = bool(item.value, "markdown.unsafe") { config.markdownUnsafe = v }
                    case "math":
                        if let text = item.value.scalar, let v = MathOutput(rawValue: text) {
                            config.markdownMath = v
                        } else {
                            errors.append(.error("'markdown.math' must be mathml or keep", at: location(item.value)))
                        }
                    default: console?.report(.warning("unknown key 'markdown.\(name)' (known: hardbreaks, unsafe, math)", at: location(item.key)))
                    }
                }
            case "embeds":
                guard let inner = value.mapping else {
                    errors.append(.error("'embeds' must be a mapping (scripts)", at: location(value)))
                    continue
                }
                for item in inner {
                    let name = item.key.scalar ?? ""
                    if name == "scripts" {
                        if let v = bool(item.value, "embeds.scripts") { config.embedScripts = v }
                    } else {
                        console?.report(.warning("unknown key 'embeds.\(name)' (known: scripts)", at: location(item.key)))
                    }
                }
            case "mentions":
                if value.mapping == nil {
                    // `mentions: false` turns them off, `mentions: true` keeps Qiita's profiles
                    if let on = bool(value, "mentions") { config.mentionsBaseURL = on ? "https://qiita.com/" : nil }
                    continue
                }
                for item in value.mapping ?? [] {
                    let name = item.key.scalar ?? ""
                    if name == "base_url" {
                        if let v = string(item.value, "mentions.base_url") {
                            if v.hasPrefix("https://") || v.hasPrefix("http://") || v.hasPrefix("/") {
                                config.mentionsBaseURL = v
                            } else {
                                errors.append(.error("'mentions.base_url' must be an http(s) URL or a path starting with /", at: location(item.value)))
                            }
                        }
                    } else {
                        console?.report(.warning("unknown key 'mentions.\(name)' (known: base_url)", at: location(item.key)))
                    }
                }
            case "import":
                guard let inner = value.mapping else {
                    errors.append(.error("'import' must be a mapping (known_tags, image_hosts)", at: location(value)))
                    continue
                }
                for item in inner {
                    let name = item.key.scalar ?? ""
                    if name == "known_tags" || name == "image_hosts" {
                        if let list = item.value.sequence, list.allSatisfy({ $0.scalar != nil }) {
                            let values = list.compactMap(\.scalar)
                            if name == "known_tags" { config.importKnownTags = values } else { config.importImageHosts = values }
                        } else {
                            errors.append(.error("'import.\(name)' must be a list of \(name == "known_tags" ? "tag names" : "host names")", at: location(item.value)))
                        }
                    } else {
                        console?.report(.warning("unknown key 'import.\(name)' (known: known_tags, image_hosts)", at: location(item.key)))
                    }
                }
            case "image": if let v = string(value, key) { config.image = v.trimmingCharacters(in: .whitespaces) }
            case "params":
                if !value.isNull && value.mapping == nil {
                    errors.append(.error("'params' must be a mapping of names to values", at: location(value)))
                } else {
                    config.params = value
                }
            case "menu": config.menu = MenuItem.parse(value, location: location, errors: &errors, console: console)
            default:
                let known = knownKeys.sorted().joined(separator: ", ")
                console?.report(.warning("unknown key '\(key)' in blog.yml (known keys: \(known))", at: location(pair.key)))
            }
        }
        if !errors.isEmpty { throw DiagnosticList(errors) }
        return config
    }

    /// `https://example.com/archive` → `https://example.com/archive/`; nil when not an http(s) URL.
    public static func normalizeBaseURL(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let components = URLComponents(string: trimmed),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil else { return nil }
        return trimmed.hasSuffix("/") ? trimmed : trimmed + "/"
    }
}
