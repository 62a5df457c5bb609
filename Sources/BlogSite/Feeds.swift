import BlogCore
import BlogContent
import Foundation
import Synchronization

/// Whether the XML escaper must look at `byte`: markup characters, C0 controls, and 0xEF
/// (U+FFFE/U+FFFF). A comparison, not a table: a global table is initialised lazily, and every
/// read of it in the byte loop went through `swift_once`.
@inline(__always)
private func isXMLSpecial(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27 || byte == 0xEF
}

/// Atom feeds, the sitemap and robots.txt.
struct FeedWriter {
    let model: SiteModel
    let urls: URLBuilder
    /// The posts found to go into a feed as they are (`isVerbatimCDATA`), kept across calls of
    /// `feeds`: the feeds are built in batches, and a post listed in several batches was scanned
    /// in each. Writers made one
    /// after another for the same posts (`FeedSchedule`) share one.
    private let verbatimPosts: PostFlags

    init(model: SiteModel, urls: URLBuilder, verbatimPosts: PostFlags = PostFlags()) {
        self.model = model
        self.urls = urls
        self.verbatimPosts = verbatimPosts
    }

    /// A flag per post index, set once known; safe to share between threads.
    final class PostFlags: Sendable {
        private let flags = Mutex([Int: Bool]())

        var snapshot: [Int: Bool] { flags.withLock { $0 } }

        func record(_ found: [(index: Int, flag: Bool)]) {
            flags.withLock { flags in for (index, flag) in found { flags[index] = flag } }
        }
    }

    func xmlEscape(_ text: String) -> String {
        var out: [UInt8] = []
        FeedWriter.appendEscaped(text.utf8, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// XML-escapes UTF-8 bytes: `& < > " '` become entities; characters XML 1.0 forbids
    /// (C0 controls other than tab and line ends, U+FFFE, U+FFFF) are dropped.
    /// Runs of bytes that need nothing are copied in one go.
    static func appendEscaped<C: Collection>(_ bytes: C, to out: inout [UInt8]) where C.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { appendEscaped($0, to: &out) }
        if done == nil { appendEscaped(Array(bytes), to: &out) }
    }

    static func appendEscaped(_ bytes: [UInt8], to out: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { appendEscaped($0, to: &out) }
    }

    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + bytes.count + bytes.count / 8)
        let count = bytes.count
        var runStart = 0
        var i = 0
        // Sixteen bytes at a time past plain text, with vector compares (exact: the same bytes
        // as isXMLSpecial; a summary is a few hundred bytes, mostly plain).
        let below = SIMD16<UInt8>(repeating: 0x20), ones = SIMD16<UInt8>(repeating: 1), twos = SIMD16<UInt8>(repeating: 2)
        let apostrophe = SIMD16<UInt8>(repeating: 0x27), greater = SIMD16<UInt8>(repeating: 0x3E)
        let quote = SIMD16<UInt8>(repeating: 0x22), ef = SIMD16<UInt8>(repeating: 0xEF)
        let raw = UnsafeRawPointer(bytes.baseAddress)
        while i < count {
            // Skip plain bytes quickly.
            if let raw {
                while i + 16 <= count {
                    let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                    let look = (v .< below) .| ((v | ones) .== apostrophe) .| ((v | twos) .== greater) .| (v .== quote) .| (v .== ef)
                    let lanes = unsafeBitCast(look, to: (UInt64, UInt64).self)
                    if lanes.0 | lanes.1 != 0 { break }
                    i += 16
                }
            }
            while i < count && !isXMLSpecial(bytes[i]) { i += 1 }
            if i >= count { break }
            let byte = bytes[i]
            let replacement: StaticString?
            var skip = 1
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&apos;"
            case 0x09, 0x0A, 0x0D:
                i += 1
                continue
            case 0..<0x20: replacement = ""
            case 0xEF where i + 2 < count && bytes[i + 1] == 0xBF && (bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF):
                // U+FFFE and U+FFFF.
                replacement = ""
                skip = 3
            default:
                i += 1
                continue
            }
            if i > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            if let replacement, replacement.utf8CodeUnitCount > 0 {
                out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            }
            i += skip
            runStart = i
        }
        if count > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
    }

    /// Appends UTF-8 bytes as one CDATA section: the HTML of a post goes into its feed entry as it
    /// is, instead of being escaped entity by entity (which made the escaped copy larger than the
    /// HTML and cost most of the feeds' time). A `]]>` inside is split across two sections;
    /// characters XML 1.0 forbids (C0 controls other than tab and line ends, U+FFFE, U+FFFF) are dropped.
    static func appendCDATA(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if appendCDATA(bytes, rewritingRootLinksWith: nil, to: &out) { return }
        // Rare: drop what XML forbids first (the rest may then form a `]]>`), and encode that.
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var k = 0
        while k < bytes.count {
            let skip = isForbiddenInXML(bytes, at: k)
            if skip > 0 { k += skip } else { kept.append(bytes[k]); k += 1 }
        }
        let done = kept.withUnsafeBufferPointer { appendCDATA($0, rewritingRootLinksWith: nil, to: &out) }
        assert(done, "CDATA of bytes without forbidden characters")
    }

    /// The HTML of a post as the CDATA of a feed entry, its root-relative links made absolute:
    /// in one pass when that gives the same bytes, else rewritten first and then encoded.
    static func appendContent(_ html: UnsafeBufferPointer<UInt8>, urls: URLBuilder, to out: inout [UInt8]) {
        let prefix = urls.rootLinkPrefix(absolute: true)
        let done = prefix.withUnsafeBufferPointer { prefix in
            appendCDATA(html, rewritingRootLinksWith: prefix.elementsEqual("/".utf8) ? nil : prefix, to: &out)
        }
        if !done { urls.withRootLinksRewritten(html, absolute: true) { appendCDATA($0, to: &out) } }
    }

    /// `appendCDATA` of `bytes` after `URLBuilder.withRootLinksRewritten` with `prefix` (nil: no
    /// rewrite), in one pass and without the rewritten copy: the scan looks for `"/` as well as
    /// for what CDATA must handle. Returns false, with `out` unchanged, when the two steps would
    /// not give the same bytes this way: `bytes` holds a character XML forbids (dropping it may
    /// join a `]]>`), or `prefix` holds `]`, `>` or a byte outside printable ASCII. The caller
    /// then takes the two steps.
    static func appendCDATA(_ bytes: UnsafeBufferPointer<UInt8>, rewritingRootLinksWith prefix: UnsafeBufferPointer<UInt8>?,
                            to out: inout [UInt8]) -> Bool {
        if let prefix {
            for byte in prefix where byte < 0x20 || byte > 0x7E || byte == 0x5D || byte == 0x3E { return false }
        }
        let rewrite = prefix != nil
        let start = out.count
        out.reserveCapacity(out.count + bytes.count + 64)
        out.append(contentsOf: "<![CDATA[".utf8)
        let count = bytes.count
        var runStart = 0
        /// Handles the byte at `p`; false: a character XML forbids.
        @inline(__always)
        func visit(_ p: Int) -> Bool {
            let byte = bytes[p]
            if byte == 0x22 {
                // `="/` after ` href` or ` src`, not `//`: as in URLBuilder.withRootLinksRewritten.
                guard rewrite, p >= 1, p + 1 < count, bytes[p + 1] == UInt8(ascii: "/"), bytes[p - 1] == UInt8(ascii: "=") else { return true }
                if URLBuilder.startsRootLink(bytes, equalsAt: p - 1), let prefix {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<(p + 1)]))
                    out.append(contentsOf: prefix)
                    runStart = p + 2
                }
                return true
            }
            if byte == 0x5D {
                if p + 2 < count && bytes[p + 1] == 0x5D && bytes[p + 2] == 0x3E {
                    // `]]` ends this section, `>` starts the next one.
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<(p + 2)]))
                    out.append(contentsOf: "]]><![CDATA[".utf8)
                    runStart = p + 2
                }
                return true
            }
            return isForbiddenInXML(bytes, at: p) == 0
        }
        var i = 0
        if let raw = UnsafeRawPointer(bytes.baseAddress) {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            /// Visits the byte at `at + k` for each `k` whose byte in `marks` has its high bit set;
            /// false: a character XML forbids.
            func visitMarks(_ marks: UInt64, at: Int) -> Bool {
                var marks = marks
                while marks != 0 {
                    guard visit(at + marks.trailingZeroBitCount >> 3) else { return false }
                    marks &= marks &- 1
                }
                return true
            }
            /// Visits each byte of the eight at `at` that needs a look (`at + 9 <= count`: the
            /// second word, one byte on, is for the `/` after a `"`); false: a character XML forbids.
            func visitWord(at: Int) -> Bool {
                let word = raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                // The high bit of each byte that matches, exactly.
                func zeros(_ x: UInt64) -> UInt64 { ~(((x & ~highs) &+ ~highs) | x) & highs }
                let below20 = ~(((word & ~highs) &+ (ones &* 0x60)) | word) & highs
                let allowed = zeros(word ^ (ones &* 0x09)) | zeros(word ^ (ones &* 0x0A)) | zeros(word ^ (ones &* 0x0D))
                var marks = below20 & ~allowed | zeros(word ^ (ones &* 0x5D)) | zeros(word ^ (ones &* 0xEF))
                if rewrite {
                    let next = raw.loadUnaligned(fromByteOffset: at + 1, as: UInt64.self)
                    marks |= zeros(word ^ (ones &* 0x22)) & zeros(next ^ (ones &* 0x2F))
                }
                return visitMarks(marks, at: at)
            }
            // Sixteen bytes at a time, with vector compares (a line end or tab is not a control
            // that needs a look; a carriage return counts as one here, and `visit` lets it through).
            let below = SIMD16<UInt8>(repeating: 0x20), bracket = SIMD16<UInt8>(repeating: 0x5D), ef = SIMD16<UInt8>(repeating: 0xEF)
            let quote = SIMD16<UInt8>(repeating: 0x22), slash = SIMD16<UInt8>(repeating: 0x2F)
            let lineEnd = SIMD16<UInt8>(repeating: 0x0A), tab = SIMD16<UInt8>(repeating: 0x09)
            while i + 17 <= count {
                let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                var look = (v .< below) .& (v .!= lineEnd) .& (v .!= tab) .| (v .== bracket) .| (v .== ef)
                if rewrite {
                    let n = raw.loadUnaligned(fromByteOffset: i + 1, as: SIMD16<UInt8>.self)
                    look = look .| ((v .== quote) .& (n .== slash))
                }
                // The lanes as two words (0xFF where a byte needs a look; `any` was not inlined
                // here and reduced lane by lane). The vector test is exact: the marks are visited
                // as they are (a carriage return among them is let through by `visit`).
                let lanes = unsafeBitCast(look, to: (UInt64, UInt64).self)
                if lanes.0 | lanes.1 != 0 {
                    guard visitMarks(lanes.0 & highs, at: i), visitMarks(lanes.1 & highs, at: i + 8) else {
                        out.removeLast(out.count - start)
                        return false
                    }
                }
                i += 16
            }
            while i + 9 <= count {
                guard visitWord(at: i) else {
                    out.removeLast(out.count - start)
                    return false
                }
                i += 8
            }
        }
        while i < count {
            let byte = bytes[i]
            if byte < 0x20 || byte == 0x5D || byte == 0xEF || byte == 0x22 {
                guard visit(i) else {
                    out.removeLast(out.count - start)
                    return false
                }
            }
            i += 1
        }
        if count > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
        out.append(contentsOf: "]]>".utf8)
        return true
    }

    /// How many bytes at `i` form a character XML 1.0 forbids (C0 controls other than tab and
    /// line ends, U+FFFE, U+FFFF), or 0.
    @inline(__always)
    static func isForbiddenInXML(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let byte = bytes[i]
        if byte < 0x20 { return byte == 0x09 || byte == 0x0A || byte == 0x0D ? 0 : 1 }
        if byte == 0xEF && i + 2 < bytes.count && bytes[i + 1] == 0xBF && (bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF) { return 3 }
        return 0
    }

    /// Whether `appendContent` would write `bytes` as they are, in one `<![CDATA[`…`]]>`: they
    /// hold no `]]>`, no character XML forbids and, with `rewrite`, no root-relative link (as
    /// `URLBuilder.withRootLinksRewritten` finds them). Then a feed entry copies the post's HTML
    /// straight into each feed instead of holding an encoded copy of it (few posts need more).
    /// Exact: false only where the encoding differs from the bytes.
    static func isVerbatimCDATA(_ bytes: UnsafeBufferPointer<UInt8>, rewritingRootLinks rewrite: Bool) -> Bool {
        let count = bytes.count
        /// Whether the byte at `p` makes the CDATA differ from the bytes.
        @inline(__always)
        func breaks(_ p: Int) -> Bool {
            switch bytes[p] {
            case 0x5D: return p + 2 < count && bytes[p + 1] == 0x5D && bytes[p + 2] == 0x3E
            case 0x22:
                return rewrite && p >= 1 && p + 1 < count && bytes[p + 1] == UInt8(ascii: "/") && bytes[p - 1] == UInt8(ascii: "=")
                    && URLBuilder.startsRootLink(bytes, equalsAt: p - 1)
            default: return isForbiddenInXML(bytes, at: p) != 0
            }
        }
        /// Whether `breaks` for the byte at `at + k`, for any `k` whose byte in `marks` has its high bit set.
        func breaksAtMarks(_ marks: UInt64, at: Int) -> Bool {
            var marks = marks
            while marks != 0 {
                if breaks(at + marks.trailingZeroBitCount >> 3) { return true }
                marks &= marks &- 1
            }
            return false
        }
        var i = 0
        if let raw = UnsafeRawPointer(bytes.baseAddress) {
            // A superset of the bytes where `breaks` can be true, sixteen at a time, each with
            // the byte after it (`n`): controls but line feeds (a tab or carriage return is let
            // through by `breaks`), `]`, 0xEF 0xBF and (rewriting) `"/`. The marks are rare in
            // HTML, so the vector part is kept short.
            let below = SIMD16<UInt8>(repeating: 0x20), lineEnd = SIMD16<UInt8>(repeating: 0x0A)
            let bracket = SIMD16<UInt8>(repeating: 0x5D), ef = SIMD16<UInt8>(repeating: 0xEF), bf = SIMD16<UInt8>(repeating: 0xBF)
            let quote = SIMD16<UInt8>(repeating: 0x22), slash = SIMD16<UInt8>(repeating: 0x2F)
            let highs: UInt64 = 0x8080_8080_8080_8080
            @inline(__always)
            func marks(at offset: Int) -> SIMDMask<SIMD16<Int8>> {
                let v = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
                let n = raw.loadUnaligned(fromByteOffset: offset + 1, as: SIMD16<UInt8>.self)
                var look = (v .< below) .& (v .!= lineEnd) .| (v .== bracket) .| ((v .== ef) .& (n .== bf))
                if rewrite { look = look .| ((v .== quote) .& (n .== slash)) }
                return look
            }
            /// Whether `breaks` at a marked byte of the sixteen at `offset`.
            func breaksAtLanes(_ look: SIMDMask<SIMD16<Int8>>, at offset: Int) -> Bool {
                let lanes = unsafeBitCast(look, to: (UInt64, UInt64).self)
                return breaksAtMarks(lanes.0 & highs, at: offset) || breaksAtMarks(lanes.1 & highs, at: offset + 8)
            }
            // Thirty-two bytes a round, with one test of both halves (`i + 33 <= count` keeps the
            // load of the byte after each in bounds).
            while i + 33 <= count {
                let first = marks(at: i), second = marks(at: i + 16)
                let lanes = unsafeBitCast(first .| second, to: (UInt64, UInt64).self)
                if lanes.0 | lanes.1 != 0 && (breaksAtLanes(first, at: i) || breaksAtLanes(second, at: i + 16)) { return false }
                i += 32
            }
            // The last whole blocks (`i + 17 <= count`: the byte after the block is read too).
            while i + 17 <= count {
                if breaksAtLanes(marks(at: i), at: i) { return false }
                i += 16
            }
        }
        while i < count {
            if breaks(i) { return false }
            i += 1
        }
        return true
    }

    /// The largest post HTML a feed entry carries; a longer post's entry has its summary only.
    static let largestEntryContent = 1 << 20

    /// A post's `<entry>`, the same in every feed that lists it.
    struct PreparedEntry {
        /// From `  <entry>` to `<content type="html">`.
        var head: [UInt8]
        /// The content's CDATA; nil when it is `html` as it is, in one section, which is then
        /// copied from the post into each feed (no copy of it is held here).
        var content: [UInt8]?
        var html: String
        /// What ends the entry: `tail`, or `summaryTail` for an entry without its content.
        var end: StaticString = PreparedEntry.tail
        static let tail: StaticString = "</content>\n  </entry>\n"
        static let summaryTail: StaticString = "  </entry>\n"
        static let open: StaticString = "<![CDATA["
        static let close: StaticString = "]]>"

        /// The entry's size in bytes.
        var count: Int {
            head.count + (content?.count ?? PreparedEntry.open.utf8CodeUnitCount + html.utf8.count + PreparedEntry.close.utf8CodeUnitCount)
                + end.utf8CodeUnitCount
        }

        func append(to out: inout [UInt8]) {
            func text(_ string: StaticString) {
                out.append(contentsOf: UnsafeBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
            }
            out.append(contentsOf: head)
            if let content {
                out.append(contentsOf: content)
            } else {
                text(PreparedEntry.open)
                var html = html
                html.withUTF8 { out.append(contentsOf: $0) }
                text(PreparedEntry.close)
            }
            text(end)
        }
    }

    /// The `<entry>` of one post, as bytes.
    func entry(_ index: Int) -> [UInt8] {
        let prepared = prepare(index)
        var out: [UInt8] = []
        out.reserveCapacity(prepared.count)
        prepared.append(to: &out)
        return out
    }

    /// The `<entry>` of one post, the same in every feed that lists it.
    /// The `<category>` line of a tag in an entry.
    func category(_ tagIndex: Int) -> [UInt8] {
        let tag = model.tags[tagIndex]
        var out = Array("    <category term=\"".utf8)
        FeedWriter.appendEscaped(tag.name.utf8, to: &out)
        out.append(contentsOf: "\" scheme=\"".utf8)
        FeedWriter.appendEscaped(urls.absolute(urls.tag(tag.slug)).utf8, to: &out)
        out.append(contentsOf: "\"/>\n".utf8)
        return out
    }

    /// `verbatim`: whether the post's HTML goes in as it is, when already known (nil: found here).
    /// `categories`: the `<category>` lines by tag index, made once for the entries of a batch
    /// (an empty one is made here), so that a tag's name is escaped and its URL built once a
    /// batch rather than for every entry it is on.
    func prepare(_ index: Int, verbatim known: Bool? = nil, categories: [[UInt8]]? = nil) -> PreparedEntry {
        let post = model.posts[index]
        let link = urls.absolute(urls.post(post.slug))
        var out: [UInt8] = []
        out.reserveCapacity(post.summary.utf8.count + post.summary.utf8.count / 4 + 1024)
        // Fixed text as static bytes, since interpolated Strings are dear for every entry.
        func text(_ string: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
        }
        func escaped(_ string: String) { FeedWriter.appendEscaped(string.utf8, to: &out) }
        text("  <entry>\n    <title>"); escaped(post.title)
        text("</title>\n    <id>"); escaped(link)
        text("</id>\n    <link rel=\"alternate\" type=\"text/html\" href=\""); escaped(link)
        text("\"/>\n    <published>"); out.append(contentsOf: post.date.iso8601.utf8)
        text("</published>\n    <updated>"); out.append(contentsOf: (post.updated ?? post.date).iso8601.utf8)
        text("</updated>\n")
        for tagIndex in model.postTags[index] {
            if let categories, !categories[tagIndex].isEmpty {
                out.append(contentsOf: categories[tagIndex])
            } else {
                out.append(contentsOf: category(tagIndex))
            }
        }
        text("    <summary>"); escaped(post.summary)
        var html = post.content.html
        if html.utf8.count > FeedWriter.largestEntryContent {
            // Each feed that lists the post would hold a copy (the main feed and one per tag):
            // a very long post is in its feeds by its summary and link.
            text("</summary>\n")
            return PreparedEntry(head: out, content: [], html: "", end: PreparedEntry.summaryTail)
        }
        text("</summary>\n    <content type=\"html\">")
        let content: [UInt8]? = html.withUTF8 { bytes in
            if known ?? FeedWriter.isVerbatimCDATA(bytes, rewritingRootLinks: !urls.rootLinkPrefix(absolute: true).elementsEqual("/".utf8)) {
                return nil
            }
            var content: [UInt8] = []
            content.reserveCapacity(bytes.count + bytes.count / 4 + 64)
            FeedWriter.appendContent(bytes, urls: urls, to: &content)
            return content
        }
        return PreparedEntry(head: out, content: content, html: html)
    }

    /// An Atom 1.0 feed of the newest posts among `indices` (already newest first); `entries`
    /// holds the prepared `<entry>` of each post listed.
    func atom(title: String, selfPath: String, alternatePath: String, indices: [Int], entries: [Int: PreparedEntry]) -> [UInt8] {
        let config = model.config
        let listed = Array(indices.prefix(config.feedLimit))
        let updated = listed.map { model.posts[$0].updated ?? model.posts[$0].date }.max() ?? PostDate(epochSeconds: 0, offsetSeconds: 0)
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
        let closing: StaticString = "</feed>\n"
        let listedEntries = listed.map { entries[$0] ?? prepare($0) }
        var out: [UInt8] = []
        // Exactly the feed's size, in one allocation (regrowth copied it about four times).
        out.reserveCapacity(listedEntries.reduce(xml.utf8.count + closing.utf8CodeUnitCount) { $0 + $1.count })
        out.append(contentsOf: xml.utf8)
        for entry in listedEntries { entry.append(to: &out) }
        out.append(contentsOf: UnsafeBufferPointer(start: closing.utf8Start, count: closing.utf8CodeUnitCount))
        return out
    }

    /// A feed to write: the main one (`tag` nil) or a tag's.
    struct Request {
        var key: String
        var tag: TagInfo?
    }

    /// The posts a feed lists: the newest `feedLimit` of the site's (`tag` nil) or of a tag's.
    static func listed(_ tag: TagInfo?, in model: SiteModel) -> ArraySlice<Int> {
        (tag?.postIndices ?? Array(model.posts.indices)).prefix(model.config.feedLimit)
    }

    /// Every feed of the site: the main one, then each tag's, in the model's tag order.
    static func requests(_ model: SiteModel) -> [Request] {
        [Request(key: "feed:", tag: nil)] + model.tags.map { Request(key: "feed:" + $0.key, tag: $0) }
    }

    /// Builds the requested feeds on all cores; each post's entry is prepared once and shared.
    func feeds(_ requests: [Request]) -> [OutputFile] {
        let limit = model.config.feedLimit
        var needed = Set<Int>()
        for request in requests {
            needed.formUnion(FeedWriter.listed(request.tag, in: model))
        }
        let order = needed.sorted()
        let known = verbatimPosts.snapshot
        var categories = [[UInt8]](repeating: [], count: model.tags.count)
        for index in order {
            for tagIndex in model.postTags[index] where categories[tagIndex].isEmpty { categories[tagIndex] = category(tagIndex) }
        }
        let prepared = WorkShare.map(count: order.count) {
            prepare(order[$0], verbatim: known[order[$0]], categories: categories)
        }
        var entries: [Int: PreparedEntry] = [:]
        entries.reserveCapacity(order.count)
        for (n, index) in order.enumerated() { entries[index] = prepared[n] }
        verbatimPosts.record(order.indices.compactMap { n in known[order[n]] == nil ? (order[n], prepared[n].content == nil) : nil })
        return WorkShare.map(count: requests.count, batch: 4) { n -> OutputFile in
            guard let tag = requests[n].tag else {
                return OutputFile(path: "feed.xml", bytes: atom(title: model.config.title, selfPath: urls.path("feed.xml"),
                                                                alternatePath: urls.path(""), indices: Array(model.posts.indices.prefix(limit)), entries: entries))
            }
            let base = urls.tag(tag.slug)
            return OutputFile(path: "tags/\(tag.slug)/feed.xml",
                              bytes: atom(title: "\(model.config.title): \(tag.name)", selfPath: base + "feed.xml",
                                          alternatePath: base, indices: tag.postIndices, entries: entries))
        }
    }

    /// `sitemap.xml` for the HTML pages; a sitemap index with parts once there are more than 50,000 URLs.
    func sitemap(pagePaths: [(path: String, lastmod: String?)]) -> [OutputFile] {
        let limit = 50_000
        // Into bytes directly, since a String grown by interpolation, with an escaped copy of each
        // URL made as a String first, is dear for every URL of the sitemap.
        func urlset(_ items: ArraySlice<(path: String, lastmod: String?)>) -> [UInt8] {
            var xml: [UInt8] = []
            xml.reserveCapacity(128 + items.count * 96)
            func text(_ string: StaticString) {
                xml.append(contentsOf: UnsafeBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
            }
            text("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
            for item in items {
                text("  <url><loc>")
                FeedWriter.appendEscaped(urls.absolute(item.path).utf8, to: &xml)
                text("</loc>")
                if let lastmod = item.lastmod {
                    text("<lastmod>")
                    xml.append(contentsOf: lastmod.utf8)
                    text("</lastmod>")
                }
                text("</url>\n")
            }
            text("</urlset>\n")
            return xml
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

/// When a build that makes the posts' pages newest first (`blog build`'s posts phase) can write
/// each feed: as soon as the last post it lists has its HTML. Each post's HTML is needed until
/// every feed listing it is written, so a post's HTML is held from its page to its last feed
/// rather than to the end of the posts, so that far fewer posts' HTML is held at once than the
/// feeds list in all.
struct FeedSchedule {
    let requests: [FeedWriter.Request]
    private let listed: [ArraySlice<Int>]
    /// Request indices by the last post each lists (the newest first).
    private let byLast: [Int]
    private var next = 0
    /// Per post: how many feeds not yet taken list it.
    private var uses: [Int32]

    init(_ model: SiteModel) {
        requests = FeedWriter.requests(model)
        listed = requests.map { FeedWriter.listed($0.tag, in: model) }
        let listed = listed
        byLast = listed.indices.sorted { (listed[$0].last ?? -1, $0) < (listed[$1].last ?? -1, $1) }
        uses = [Int32](repeating: 0, count: model.posts.count)
        for slice in listed { for index in slice { uses[index] += 1 } }
    }

    /// Whether a feed not yet taken lists post `index` (its HTML is still needed).
    func needsHTML(_ index: Int) -> Bool { uses[index] > 0 }

    /// The feeds whose posts are all among the first `count` posts, not taken before, in the
    /// order of `requests`; with the posts no feed left needs once these are written.
    mutating func take(postsDone count: Int) -> (requests: [FeedWriter.Request], done: [Int]) {
        var due: [Int] = []
        while next < byLast.count, (listed[byLast[next]].last ?? -1) < count {
            due.append(byLast[next])
            next += 1
        }
        due.sort()
        var done: [Int] = []
        for request in due {
            for index in listed[request] {
                uses[index] -= 1
                if uses[index] == 0 { done.append(index) }
            }
        }
        return (due.map { requests[$0] }, done)
    }

    /// The feeds not taken yet, in the order of `requests`.
    var remaining: [FeedWriter.Request] { byLast[next...].sorted().map { requests[$0] } }
}
