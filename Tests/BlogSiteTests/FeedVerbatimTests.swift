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
