@testable import BlogSite
import BlogContent
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// Post HTML goes into feed entries as CDATA, scanned eight bytes at a time; these compare the
/// scanner with the plain definition at every alignment and check the XML parses back to the text.
final class FeedEncodingTests: XCTestCase {
    /// The definition: drop characters XML 1.0 forbids, split `]]>` across two sections.
    static func reference(_ bytes: [UInt8]) -> [UInt8] {
        var kept: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x20 && b != 0x09 && b != 0x0A && b != 0x0D { i += 1; continue }
            if b == 0xEF && i + 2 < bytes.count && bytes[i + 1] == 0xBF && (bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF) { i += 3; continue }
            kept.append(b)
            i += 1
        }
        var out = Array("<![CDATA[".utf8)
        var k = 0
        while k < kept.count {
            if k + 2 < kept.count && kept[k] == 0x5D && kept[k + 1] == 0x5D && kept[k + 2] == 0x3E {
                out += Array("]]]]><![CDATA[".utf8)
                k += 2
                continue
            }
            out.append(kept[k])
            k += 1
        }
        return out + Array("]]>".utf8)
    }

    func encode(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { FeedWriter.appendCDATA($0, to: &out) }
        return out
    }

    func testMatchesDefinitionAtEveryAlignment() {
        let pieces: [[UInt8]] = [Array("]]>".utf8), Array("]]".utf8), Array("]".utf8), Array(">".utf8), [0x01], [0x1F], [0x09], [0x0A], [0x0D],
                                 Array("\u{FFFF}".utf8), Array("\u{FFFE}".utf8), Array("\u{FFFD}".utf8), Array("ï".utf8), Array("漢".utf8),
                                 Array("<p>".utf8), Array("abcdefgh".utf8), Array("&amp;".utf8), [0x7F], [0x20]]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &generator) { bytes += pieces.randomElement(using: &generator)! }
            XCTAssertEqual(encode(bytes), Self.reference(bytes), "\(bytes)")
        }
        for shift in 0..<16 {
            let bytes = Array(repeating: UInt8(ascii: "x"), count: shift) + Array("a]]>b\u{1}c]]]>>".utf8) + Array(repeating: UInt8(ascii: "y"), count: 9)
            XCTAssertEqual(encode(bytes), Self.reference(bytes))
        }
    }

    func testParsesBackToTheText() throws {
        let html = "<p>本文 <span title=\"]]>\">x</span> ]]]]> \u{1}\u{FFFF}end</p>"
        let xml = Array("<c>".utf8) + encode(Array(html.utf8)) + Array("</c>".utf8)
        final class Collector: NSObject, XMLParserDelegate {
            var text = ""
            func parser(_ parser: XMLParser, foundCDATA block: Data) { text += String(decoding: block, as: UTF8.self) }
            func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
        }
        let parser = XMLParser(data: Data(xml))
        let collector = Collector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(collector.text, "<p>本文 <span title=\"]]>\">x</span> ]]]]> end</p>")
    }

    func testRootLinksGetTheBasePathAndOrigin() {
        var config = SiteConfig()
        config.baseURL = "https://user.example/archive/"
        let urls = URLBuilder(config: config)
        let html = "<a href=\"/posts/x/\">x</a><img src=\"/a.png\"><a href=\"//cdn.example/y\">y</a>"
            + "<span data-href=\"/no/\">n</span><a href=\"https://other/\">o</a> =\"/ <a href=\"/\">"
        XCTAssertEqual(String(decoding: urls.rewriteRootLinks(bytes: Array(html.utf8), absolute: false), as: UTF8.self),
                       "<a href=\"/archive/posts/x/\">x</a><img src=\"/archive/a.png\"><a href=\"//cdn.example/y\">y</a>"
                       + "<span data-href=\"/no/\">n</span><a href=\"https://other/\">o</a> =\"/ <a href=\"/archive/\">")
        XCTAssertEqual(String(decoding: urls.rewriteRootLinks(bytes: Array("<a href=\"/p/\">".utf8), absolute: true), as: UTF8.self),
                       "<a href=\"https://user.example/archive/p/\">")
        let untouched = Array("<p>no links ="  .utf8)
        XCTAssertEqual(urls.rewriteRootLinks(bytes: untouched, absolute: true), untouched)
    }

    /// The one-pass link rewrite and CDATA encoding against the two steps it replaces, on text
    /// made of link and CDATA pieces (and characters XML forbids, which take the two-step path),
    /// at every alignment and ending at every point of a piece.
    func testOnePassRewriteMatchesTheTwoSteps() {
        let pieces: [String] = [" href=\"/", " src=\"/", "=\"/", "=\"//", "\"/", "\"", "/", "=", " href=\"", "href=\"/", " src=\"//x",
                                "]]>", "]]", "]", ">", "\n", "\t", "\u{1}", "\u{FFFF}", "\u{FF01}", "漢", "<a", "abcdefgh", " "]
        let origins = ["https://example.com/", "https://user.example/archive/", "http://[::1]:8080/", "http://a]b>/x/", ""]
        var generator = SystemRandomNumberGenerator()
        for origin in origins {
            var config = SiteConfig()
            config.baseURL = origin
            let urls = URLBuilder(config: config)
            func twoSteps(_ bytes: [UInt8]) -> [UInt8] {
                FeedEncodingTests.reference(urls.rewriteRootLinks(bytes: bytes, absolute: true))
            }
            func onePass(_ bytes: [UInt8]) -> [UInt8] {
                var out = Array("x".utf8)
                bytes.withUnsafeBufferPointer { FeedWriter.appendContent($0, urls: urls, to: &out) }
                return Array(out.dropFirst())
            }
            for _ in 0..<2000 {
                var bytes: [UInt8] = []
                for _ in 0..<Int.random(in: 0...20, using: &generator) { bytes += Array(pieces.randomElement(using: &generator)!.utf8) }
                XCTAssertEqual(onePass(bytes), twoSteps(bytes), "\(origin): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
                // Every ending: a piece cut at the end of the buffer.
                for cut in max(0, bytes.count - 10)..<bytes.count {
                    let head = Array(bytes[..<cut])
                    XCTAssertEqual(onePass(head), twoSteps(head), "\(origin): \(String(decoding: head, as: UTF8.self).debugDescription)")
                }
            }
            for shift in 0..<17 {
                let bytes = Array(repeating: UInt8(ascii: "x"), count: shift) + Array("<a href=\"/p/\"> src=\"/i\"]]>=\"/ href=\"//c\"".utf8)
                XCTAssertEqual(onePass(bytes), twoSteps(bytes), "\(origin) shift \(shift)")
            }
        }
    }

    func testOnePassRewriteWritesAbsoluteLinks() {
        var config = SiteConfig()
        config.baseURL = "https://user.example/archive/"
        let urls = URLBuilder(config: config)
        var out: [UInt8] = []
        let html = "<a href=\"/p/\">]]></a><img src=\"/i.png\"><a href=\"//cdn/\"> x=\"/y\" href=\"/"
        // Without a prefix: CDATA only.
        Array(html.utf8).withUnsafeBufferPointer { XCTAssertTrue(FeedWriter.appendCDATA($0, rewritingRootLinksWith: nil, to: &out)) }
        XCTAssertEqual(out, FeedEncodingTests.reference(Array(html.utf8)))
        out = []
        Array(html.utf8).withUnsafeBufferPointer { FeedWriter.appendContent($0, urls: urls, to: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self),
                       "<![CDATA[<a href=\"https://user.example/archive/p/\">]]]]><![CDATA[></a><img src=\"https://user.example/archive/i.png\">"
                       + "<a href=\"//cdn/\"> x=\"/y\" href=\"https://user.example/archive/]]>")
        // A character XML forbids: not in one pass (out left as it was).
        out = Array("k".utf8)
        let bad = Array("<a href=\"/p/\">\u{1}".utf8)
        let done = bad.withUnsafeBufferPointer { source in
            Array("https://e/".utf8).withUnsafeBufferPointer { FeedWriter.appendCDATA(source, rewritingRootLinksWith: $0, to: &out) }
        }
        XCTAssertFalse(done)
        XCTAssertEqual(out, Array("k".utf8))
    }

    /// The XML escaper skips sixteen bytes at a time: against the definition, on random pieces.
    func testXMLEscapingMatchesTheDefinition() {
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "&"): out += Array("&amp;".utf8)
                case UInt8(ascii: "<"): out += Array("&lt;".utf8)
                case UInt8(ascii: ">"): out += Array("&gt;".utf8)
                case UInt8(ascii: "\""): out += Array("&quot;".utf8)
                case UInt8(ascii: "'"): out += Array("&apos;".utf8)
                case 0x09, 0x0A, 0x0D: out.append(b)
                case 0..<0x20: break
                case 0xEF where i + 2 < bytes.count && bytes[i + 1] == 0xBF && (bytes[i + 2] == 0xBE || bytes[i + 2] == 0xBF):
                    i += 2
                default: out.append(b)
                }
                i += 1
            }
            return out
        }
        let pieces: [String] = ["&", "<", ">", "\"", "'", "\t", "\n", "\r", "\u{1}", "\u{1F}", "\u{FFFE}", "\u{FFFF}", "\u{FF01}", "漢字",
                                "%", "(", "=", "?", "!", "#", ";", "abcdefghijklmnop", " ", "\u{7F}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &generator) { bytes += Array(pieces.randomElement(using: &generator)!.utf8) }
            var out: [UInt8] = []
            FeedWriter.appendEscaped(bytes, to: &out)
            XCTAssertEqual(out, reference(bytes), String(decoding: bytes, as: UTF8.self).debugDescription)
        }
    }
}
