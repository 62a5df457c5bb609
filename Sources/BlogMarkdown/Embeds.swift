/// Embeds from Qiita's allowlist of services. An `<iframe>` whose `src` is `https` on an allowed
/// host is written whole with a fixed set of attributes; a script embed keeps its static fallback
/// (the `<blockquote>`/`<p>` with its class and `data-` attributes) and its `<script src>` only when
/// `embeds.scripts` asks for it. Everything else is left to the sanitizer's allowlist.
enum Embeds {
    /// The services' iframe hosts and the class naming the service (styled by the theme).
    static let iframeHosts: [String: String] = [
        "www.youtube.com": "youtube", "youtube.com": "youtube",
        "www.youtube-nocookie.com": "youtube", "youtube-nocookie.com": "youtube",
        "player.vimeo.com": "vimeo",
        "docs.google.com": "google", "drive.google.com": "google",
        "www.slideshare.net": "slideshare", "slideshare.net": "slideshare",
        "speakerdeck.com": "speakerdeck",
        "www.figma.com": "figma", "embed.figma.com": "figma",
        "www.docswell.com": "docswell", "docswell.com": "docswell",
        "stackblitz.com": "stackblitz",
        "codepen.io": "codepen",
        "asciinema.org": "asciinema",
        "platform.twitter.com": "twitter",
    ]

    /// The hosts the services' embed scripts are served from.
    static let scriptHosts: [String: String] = [
        "platform.twitter.com": "twitter",
        "cpwebassets.codepen.io": "codepen", "static.codepen.io": "codepen", "public.codepenassets.com": "codepen",
        "speakerdeck.com": "speakerdeck",
        "bcdn.docswell.com": "docswell", "www.docswell.com": "docswell",
        "asciinema.org": "asciinema",
        "gist.github.com": "gist",
    ]

    /// Classes that mark a script embed's static fallback.
    static let fallbackClasses: Set<String> = ["twitter-tweet", "codepen", "speakerdeck-embed", "docswell-embed"]

    /// The HTML for an embed tag, or nil when the tag is none of the embeds' (the sanitizer then
    /// applies its allowlist). Empty for a closing tag of an element the embed already closed.
    static func rewrite(name: String, closing: Bool, attributes: [(String, [UInt8])], context: inout EmbedContext) -> [UInt8]? {
        switch name {
        case "iframe":
            if closing {
                guard context.openIframes > 0 else { return nil }
                context.openIframes -= 1
                return []
            }
            guard let src = attributes.first(where: { $0.0 == "src" })?.1,
                  let (url, service) = allowedURL(src, hosts: iframeHosts, protocolRelative: false) else { return nil }
            context.openIframes += 1
            var out: [UInt8] = []
            out.append(static: "<iframe class=\"embed embed-")
            out.append(contentsOf: service.utf8)
            out.append(static: "\" src=\"")
            appendAttribute(&out, url)
            out.append(UInt8(ascii: "\""))
            for key in ["width", "height"] {
                if let value = attributes.first(where: { $0.0 == key })?.1, isDimension(value) {
                    out.append(0x20)
                    out.append(contentsOf: key.utf8)
                    out.append(static: "=\"")
                    out.append(contentsOf: value)
                    out.append(UInt8(ascii: "\""))
                }
            }
            if let title = attributes.first(where: { $0.0 == "title" })?.1, !title.isEmpty {
                out.append(static: " title=\"")
                appendAttribute(&out, title)
                out.append(UInt8(ascii: "\""))
            }
            out.append(static: " loading=\"lazy\" allowfullscreen referrerpolicy=\"strict-origin-when-cross-origin\"></iframe>")
            return out
        case "script":
            if closing {
                guard context.openScripts > 0 else { return nil }
                context.openScripts -= 1
                return []
            }
            guard let src = attributes.first(where: { $0.0 == "src" })?.1,
                  let (url, service) = allowedURL(src, hosts: scriptHosts, protocolRelative: true) else { return nil }
            context.openScripts += 1
            var out: [UInt8] = []
            if context.scripts {
                out.append(static: "<script async src=\"")
                appendAttribute(&out, url)
                out.append(UInt8(ascii: "\""))
                appendKeptAttributes(&out, attributes, id: true)
                out.append(static: "></script>")
            } else if let page = scriptPage(service, url, attributes) {
                // these scripts have no fallback in the page: a link to what they would show
                out.append(static: "<a class=\"embed-link embed-")
                out.append(contentsOf: service.utf8)
                out.append(static: "\" href=\"")
                appendAttribute(&out, page)
                out.append(static: "\">")
                appendAttribute(&out, page)
                out.append(static: "</a>")
            }
            return out
        case "blockquote", "p", "div":
            guard !closing, let classes = attributes.first(where: { $0.0 == "class" })?.1 else { return nil }
            let names = classes.split(whereSeparator: { $0.isWhitespace }).map { String(decoding: $0, as: UTF8.self) }
            guard names.contains(where: { fallbackClasses.contains($0) }) else { return nil }
            var out: [UInt8] = [UInt8(ascii: "<")]
            out.append(contentsOf: name.utf8)
            appendKeptAttributes(&out, attributes, id: false)
            out.append(UInt8(ascii: ">"))
            return out
        default:
            return nil
        }
    }

    /// The page a script-only embed shows: a gist or an asciicast (its script's URL without `.js`),
    /// a SpeakerDeck deck (its `data-id`), a Docswell slide (its `data-src`).
    private static func scriptPage(_ service: String, _ url: [UInt8], _ attributes: [(String, [UInt8])]) -> [UInt8]? {
        switch service {
        case "gist", "asciinema":
            guard url.count > 3, url.suffix(3).elementsEqual(".js".utf8) else { return nil }
            return Array(url.dropLast(3))
        case "speakerdeck":
            guard let id = attributes.first(where: { $0.0 == "data-id" })?.1, !id.isEmpty, id.count <= 64,
                  id.allSatisfy({ $0.isASCIIAlnum }) else { return nil }
            return Array("https://speakerdeck.com/player/".utf8) + id
        case "docswell":
            guard let src = attributes.first(where: { $0.0 == "data-src" })?.1,
                  let (page, _) = allowedURL(src, hosts: ["www.docswell.com": "docswell"], protocolRelative: false) else { return nil }
            return page
        default:
            return nil
        }
    }

    /// `class` (and `id` on scripts: Asciinema's names the player) and `data-` attributes, which
    /// the services' scripts read; none of them runs anything.
    private static func appendKeptAttributes(_ out: inout [UInt8], _ attributes: [(String, [UInt8])], id: Bool) {
        for (key, value) in attributes {
            guard key == "class" || (id && key == "id") || (key.hasPrefix("data-") && key.utf8.count > 5
                && key.utf8.allSatisfy({ $0.isASCIIAlnum || $0 == UInt8(ascii: "-") })) else { continue }
            out.append(0x20)
            out.append(contentsOf: key.utf8)
            out.append(static: "=\"")
            appendAttribute(&out, value)
            out.append(UInt8(ascii: "\""))
        }
    }

    /// The URL (as `https://`) and service of `raw` when it is `https://` (or `//`, for scripts) on
    /// one of `hosts` exactly: no port, user or character reference in the host, nothing that could
    /// end the attribute or hide another scheme.
    static func allowedURL(_ raw: [UInt8], hosts: [String: String], protocolRelative: Bool) -> ([UInt8], String)? {
        var start: Int
        let https: [UInt8] = Array("https://".utf8)
        if raw.count > https.count && zip(raw, https).allSatisfy({ $0.0.lowerASCII == $0.1 }) {
            start = https.count
        } else if protocolRelative && raw.count > 2 && raw[0] == UInt8(ascii: "/") && raw[1] == UInt8(ascii: "/") {
            start = 2
        } else {
            return nil
        }
        var end = start
        while end < raw.count && raw[end] != UInt8(ascii: "/") && raw[end] != UInt8(ascii: "?") && raw[end] != UInt8(ascii: "#") {
            let b = raw[end].lowerASCII
            guard (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || b.isDigit || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") else { return nil }
            end += 1
        }
        let host = String(decoding: raw[start..<end].map { $0.lowerASCII }, as: UTF8.self)
        guard let service = hosts[host] else { return nil }
        for b in raw[end...] {
            switch b {
            case 0...0x20, 0x7F, UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"),
                 UInt8(ascii: "\\"), UInt8(ascii: "`"):
                return nil
            default: continue
            }
        }
        var url = https
        url.append(contentsOf: host.utf8)
        url.append(contentsOf: raw[end...])
        return (url, service)
    }

    /// `560`: digits only, as HTML wants an iframe's width and height (`100%` is the theme's job).
    private static func isDimension(_ value: [UInt8]) -> Bool {
        !value.isEmpty && value.count <= 5 && value.allSatisfy { $0.isDigit }
    }

    /// An attribute value: `"`, `<` and `>` as entities, the rest as written (as the sanitizer does).
    private static func appendAttribute(_ out: inout [UInt8], _ value: [UInt8]) {
        for b in value {
            switch b {
            case UInt8(ascii: "\""): out.append(static: "&quot;")
            case UInt8(ascii: "<"): out.append(static: "&lt;")
            case UInt8(ascii: ">"): out.append(static: "&gt;")
            default: out.append(b)
            }
        }
    }
}

/// What the embeds of one document need across its raw HTML nodes: the option, and the closing tags
/// of the elements an embed wrote whole (an inline `<iframe>` and its `</iframe>` are two nodes).
struct EmbedContext {
    var scripts: Bool
    var openIframes = 0
    var openScripts = 0

    init(scripts: Bool) {
        self.scripts = scripts
    }
}
