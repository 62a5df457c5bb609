@testable import BlogSite
import BlogContent
import XCTest

/// `FeedWriter.isVerbatimCDATA` decides when a feed entry copies the post's HTML as it is instead
/// of encoding it: it must say true exactly when the encoding (the two plain steps: root links
/// rewritten, then `FeedEncodingTests.reference`) is the bytes in one CDATA section.
final class FeedVerbatimTests: XCTestCase {
    static func referenceIsVerbatim(_ bytes: [UInt8], urls: URLBuilder?) -> Bool {
        let rewritten = urls.map { $0.rewriteRootLinks(bytes: bytes, absolute: true) } ?? bytes
        return FeedEncodingTests.reference(rewritten) == Array("<![CDATA[".utf8) + bytes + Array("]]>".utf8)
    }

    func check(_ bytes: [UInt8], urls: URLBuilder?, _ message: @autoclosure () -> String = "") {
        let fast = bytes.withUnsafeBufferPointer { FeedWriter.isVerbatimCDATA($0, rewritingRootLinks: urls != nil) }
        XCTAssertEqual(fast, Self.referenceIsVerbatim(bytes, urls: urls),
                       "\(urls == nil ? "no rewrite" : "rewrite") \(message()) \(String(decoding: bytes, as: UTF8.self).debugDescription)")
    }

    func testMatchesTheEncodingOnRandomPieces() {
        var config = SiteConfig()
        config.baseURL = "https://example.com/"
        let urls = URLBuilder(config: config)
        // Pieces that need work, pieces that look like them, and plain text (ASCII, Japanese,
        // other 0xEF characters: U+FF01, U+FFE5, U+FFBF).
        let pieces: [String] = ["]]>", "]]", "]", ">", "] ]>", " href=\"/", " src=\"/", "=\"/", "=\"//", "\"/", "\"", "/", "=",
                                " href=\"", " data-href=\"/", "\u{1}", "\u{1F}", "\u{0}", "\t", "\n", "\r", "\u{7F}", "\u{FFFF}", "\u{FFFE}",
                                "\u{FFFD}", "\u{FF01}", "\u{FFE5}", "\u{FFBF}", "はじめに", "漢", "<p>", "abcdefghijklmnop", " ", "&amp;"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...30, using: &generator) { bytes += Array(pieces.randomElement(using: &generator)!.utf8) }
            check(bytes, urls: urls)
            check(bytes, urls: nil)
            // Every ending: a piece cut at the end of the buffer.
            for cut in max(0, bytes.count - 6)..<bytes.count {
                check(Array(bytes[..<cut]), urls: urls)
                check(Array(bytes[..<cut]), urls: nil)
            }
        }
    }

    /// Each thing that needs work at every offset across the 16-byte blocks (and the byte after a
    /// block, which the scan reads ahead), in plain and Japanese text.
    func testEveryOffsetAndLength() {
        var config = SiteConfig()
        config.baseURL = "https://example.com/"
        let urls = URLBuilder(config: config)
        let needles: [String] = ["]]>", " href=\"/p", " src=\"/", "\u{1}", "\u{FFFF}", "\u{FFFE}", "\u{FFE5}", "]]", "\"/", "\r\t\n", ""]
        for filler in ["x", "あ"] {
            for needle in needles {
                for offset in 0..<40 {
                    var bytes = Array(String(repeating: filler, count: offset).utf8) + Array(needle.utf8)
                    for extra in 0..<20 {
                        check(bytes, urls: urls, "offset \(offset) extra \(extra)")
                        check(bytes, urls: nil, "offset \(offset) extra \(extra)")
                        bytes.append(UInt8(ascii: "y"))
                    }
                }
            }
        }
        check([], urls: urls)
        check([], urls: nil)
    }
}

/// The prepared entries (a head, the post's HTML by reference or its encoded CDATA, tag lines
/// made once per batch, verbatim flags kept across batches) against an entry written out in
/// full, and feeds built in batches of one against one batch of all.
final class FeedEntryTests: XCTestCase {
    func testPreparedEntriesMatchTheEntryWrittenInFull() throws {
        for baseURL in [nil, "https://example.com/blog/"] {
            let site = try build(try Fixtures.copy("basic"), drafts: true, future: true, baseURL: baseURL)
            let model = site.model
            let urls = URLBuilder(config: model.config)
            let writer = FeedWriter(model: model, urls: urls)
            var sawVerbatim = false, sawEncoded = false
            for index in model.posts.indices {
                let post = model.posts[index]
                let link = writer.xmlEscape(urls.absolute(urls.post(post.slug)))
                var expected = "  <entry>\n    <title>\(writer.xmlEscape(post.title))</title>\n    <id>\(link)</id>\n"
                expected += "    <link rel=\"alternate\" type=\"text/html\" href=\"\(link)\"/>\n"
                expected += "    <published>\(post.date.iso8601)</published>\n    <updated>\((post.updated ?? post.date).iso8601)</updated>\n"
                for tagIndex in model.postTags[index] {
                    let tag = model.tags[tagIndex]
                    expected += "    <category term=\"\(writer.xmlEscape(tag.name))\" scheme=\"\(writer.xmlEscape(urls.absolute(urls.tag(tag.slug))))\"/>\n"
                }
                expected += "    <summary>\(writer.xmlEscape(post.summary))</summary>\n    <content type=\"html\">"
                expected += String(decoding: FeedEncodingTests.reference(urls.rewriteRootLinks(bytes: Array(post.content.html.utf8), absolute: true)),
                                   as: UTF8.self)
                expected += "</content>\n  </entry>\n"
                XCTAssertEqual(String(decoding: writer.entry(index), as: UTF8.self), expected, post.slug)
                let categories = model.tags.indices.map { writer.category($0) }
                let prepared = writer.prepare(index, categories: categories)
                if prepared.content == nil { sawVerbatim = true } else { sawEncoded = true }
                var bytes: [UInt8] = []
                prepared.append(to: &bytes)
                XCTAssertEqual(String(decoding: bytes, as: UTF8.self), expected, post.slug)
                XCTAssertEqual(prepared.count, bytes.count, post.slug)
            }
            // The fixture has both kinds (a post with a root link, posts without).
            XCTAssertTrue(sawVerbatim)
            XCTAssertTrue(sawEncoded)
            var requests = [FeedWriter.Request(key: "feed:", tag: nil)]
            for tag in model.tags { requests.append(.init(key: "feed:" + tag.key, tag: tag)) }
            let together = FeedWriter(model: model, urls: urls).feeds(requests)
            let batched = FeedWriter(model: model, urls: urls)
            let oneByOne = requests.flatMap { batched.feeds([$0]) }
            XCTAssertEqual(together.map(\.path), oneByOne.map(\.path))
            for (a, b) in zip(together, oneByOne) {
                XCTAssertEqual(String(decoding: a.bytes, as: UTF8.self), String(decoding: b.bytes, as: UTF8.self), a.path)
                XCTAssertEqual(site.files.first { $0.path == a.path }?.bytes, a.bytes, a.path)
            }
        }
    }
}
