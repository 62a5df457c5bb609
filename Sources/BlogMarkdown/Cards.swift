import CCmark

/// A URL alone in a top-level paragraph becomes a card, from what the URL says (no network): a YouTube
/// video the embed, a tweet a card naming the service, any other page a card naming its host.
extension Transformer {
    func buildCards() {
        for link in cardLinks {
            // only a paragraph of its own at the top (or in a note): lists of references and
            // footnotes keep their links
            guard let paragraph = cmark_node_parent(link), kind(paragraph) == CMARK_NODE_PARAGRAPH,
                  cmark_node_first_child(paragraph) == link, cmark_node_last_child(paragraph) == link,
                  let container = cmark_node_parent(paragraph),
                  kind(container) == CMARK_NODE_DOCUMENT || kind(container) == CMARK_NODE_CUSTOM_BLOCK else { continue }
            let url = Array(cBytesView(cmark_node_get_url(link)))
            guard let parts = Cards.parse(url) else { continue }
            if let video = Cards.youtubeID(parts) {
                var html: [UInt8] = []
                html.append(static: "<div class=\"embed-card\"><iframe class=\"embed embed-youtube\" src=\"https://www.youtube-nocookie.com/embed/")
                html.append(contentsOf: video)
                html.append(static: "\" width=\"560\" height=\"315\" loading=\"lazy\" allowfullscreen referrerpolicy=\"strict-origin-when-cross-origin\"></iframe></div>")
                // the link leaves the tree: `blog check` still sees it
                links.append(MarkdownLink(destination: String(decoding: url, as: UTF8.self), line: Int(originalLine(line(of: link)))))
                replace(link, with: makeCustom(block: false, enter: html, exit: []))
            } else {
                var enter: [UInt8] = []
                let tweet = Cards.isTweet(parts)
                enter.append(static: "<span class=\"link-card-")
                if tweet {
                    enter.append(static: "service\">X (Twitter)")
                } else {
                    enter.append(static: "host\">")
                    appendEscaped(&enter, parts.host)
                }
                enter.append(static: "</span><span class=\"link-card-url\">")
                let label = makeCustom(block: false, enter: enter, exit: Array("</span>".utf8))
                moveChildren(from: link, to: label)
                append(link, label)
                let card = makeCustom(block: false, enter: Array((tweet ? "<div class=\"link-card link-card-twitter\">" : "<div class=\"link-card\">").utf8),
                                      exit: Array("</div>".utf8))
                cmark_node_insert_before(link, card)
                append(card, link)
            }
            // the card is a block of its own: no <p> around it
            setFlag(paragraph, Transformer.unwrappedParagraphFlag)
            unwrappedParagraphs = true
        }
    }
}

enum Cards {
    struct Parts {
        var host: [UInt8]
        var path: [UInt8]
        var query: [UInt8]
    }

    /// Host (lowercased), path and query of an `http(s)` URL.
    static func parse(_ url: [UInt8]) -> Parts? {
        let prefix = url.withUnsafeBufferPointer { Transformer.httpPrefixLength($0) }
        guard prefix > 0 else { return nil }
        var end = prefix
        while end < url.count && url[end] != UInt8(ascii: "/") && url[end] != UInt8(ascii: "?") && url[end] != UInt8(ascii: "#") { end += 1 }
        let host = url[prefix..<end].map { $0.lowerASCII }
        guard !host.isEmpty else { return nil }
        var pathEnd = end
        while pathEnd < url.count && url[pathEnd] != UInt8(ascii: "?") && url[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        var queryEnd = pathEnd
        while queryEnd < url.count && url[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
        let query = pathEnd < queryEnd ? Array(url[(pathEnd + 1)..<queryEnd]) : []
        return Parts(host: host, path: Array(url[end..<pathEnd]), query: query)
    }

    /// The video id of `youtube.com/watch?v=…`, `youtu.be/…` and `youtube.com/shorts/…`.
    static func youtubeID(_ p: Parts) -> [UInt8]? {
        let host = String(decoding: p.host, as: UTF8.self)
        var id: ArraySlice<UInt8>?
        switch host {
        case "youtu.be":
            id = p.path.dropFirst()
        case "youtube.com", "www.youtube.com", "m.youtube.com":
            if p.path.elementsEqual("/watch".utf8) {
                for pair in p.query.split(separator: UInt8(ascii: "&")) where pair.starts(with: "v=".utf8) {
                    id = pair.dropFirst(2)
                    break
                }
            } else if p.path.starts(with: "/shorts/".utf8) || p.path.starts(with: "/embed/".utf8) {
                id = p.path.drop(while: { $0 == UInt8(ascii: "/") }).drop(while: { $0 != UInt8(ascii: "/") }).dropFirst()
            }
        default:
            return nil
        }
        guard let id, id.count == 11,
              id.allSatisfy({ $0.isASCIIAlnum || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else { return nil }
        return Array(id)
    }

    /// `twitter.com/<user>/status/<digits>` or the same on `x.com`.
    static func isTweet(_ p: Parts) -> Bool {
        switch String(decoding: p.host, as: UTF8.self) {
        case "twitter.com", "www.twitter.com", "mobile.twitter.com", "x.com", "www.x.com": break
        default: return false
        }
        let segments = p.path.split(separator: UInt8(ascii: "/"))
        return segments.count >= 3 && segments[1].elementsEqual("status".utf8) && segments[2].allSatisfy { $0.isDigit }
    }
}
