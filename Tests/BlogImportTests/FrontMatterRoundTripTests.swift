import BlogContent
import BlogCore
@testable import BlogImport
import BlogYAML
import Foundation
import XCTest

/// Every kind of code point a title or tag can carry must come back unchanged when the written
/// front matter is read by libyaml (through BlogYAML and BlogContent's front matter reader).
final class FrontMatterRoundTripTests: XCTestCase {
    /// Scalars by class; each class is also tried as one whole string.
    static let classes: [(name: String, scalars: [UInt32])] = [
        ("C0 controls", Array(0x00...0x1F)),
        ("DEL and C1 controls", Array(0x7F...0x9F)),
        ("Latin-1", Array(0xA0...0xFF)),
        ("line and paragraph separators", [0x2028, 0x2029]),
        ("bidi controls", [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]),
        ("zero widths and BOM", [0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF]),
        ("BMP noncharacters", Array(0xFDD0...0xFDEF) + [0xFFFE, 0xFFFF]),
        ("plane-end noncharacters", (1...16).flatMap { plane in [UInt32(plane) << 16 | 0xFFFE, UInt32(plane) << 16 | 0xFFFF] }),
        ("private use", [0xE000, 0xF8FF, 0xF0000, 0x10FFFD]),
        ("specials", [0xFFF9, 0xFFFA, 0xFFFB, 0xFFFC, 0xFFFD]),
        ("astral planes", [0x1F600, 0x1F468, 0x20BB7, 0x2A6D6, 0x30000, 0xE0001, 0xE0041, 0xE007F, 0xE0100]),
        ("combining marks alone", [0x0301, 0x0308, 0x3099, 0x309A, 0xFE0F]),
        ("wide spaces and CJK", [0x3000, 0x3042, 0x65E5, 0x672C, 0xFF01, 0xFF5E]),
        ("YAML indicators", Array("\"\\'#:-?[]{},&*!|>%@`".unicodeScalars.map(\.value))),
    ]

    /// The scalar values of `text` (String equality would treat canonically equal texts as equal).
    private func values(_ text: String?) -> [UInt32]? { text.map { $0.unicodeScalars.map(\.value) } }

    func testQuotedScalarsRoundTripThroughLibyaml() throws {
        for (name, scalars) in Self.classes {
            var cases = scalars.map { [$0] }
            cases.append(scalars)
            cases.append([0x61] + scalars + [0x62])
            for values in cases {
                let text = String(String.UnicodeScalarView(values.compactMap(Unicode.Scalar.init)))
                let yaml = "title: \(FrontMatterWriter.quote(text))\ntags: [\(FrontMatterWriter.quote(text))]\n"
                let parsed: YAMLValue
                do { parsed = try YAML.parse(yaml) } catch {
                    XCTFail("\(name) \(values.map { String($0, radix: 16) }): libyaml refused \(yaml.debugDescription): \(error)")
                    continue
                }
                XCTAssertEqual(self.values(parsed["title"]?.scalar), values, "\(name): \(yaml.debugDescription)")
                XCTAssertEqual(self.values(parsed["tags"]?.sequence?.first?.scalar), values, "\(name): \(yaml.debugDescription)")
            }
        }
    }

    /// `blog new` with a title holding a BOM (and every other class) writes a file the site reads back.
    func testNewPostWithEveryClassInTheTitle() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        for (index, (name, scalars)) in Self.classes.enumerated() {
            // newPost trims surrounding whitespace, so the class sits between letters
            let title = "t" + String(String.UnicodeScalarView(scalars.compactMap(Unicode.Scalar.init))) + "t"
            // Tags are at most 50 characters: the class goes into as many tags as that takes.
            let tags = stride(from: 0, to: scalars.count, by: 40).map { start in
                "t" + String(String.UnicodeScalarView(scalars[start..<min(scalars.count, start + 40)].compactMap(Unicode.Scalar.init))) + "t"
            }
            let path = try PostCreator.newPost(title: title, tags: tags, slug: "post-\(index)", postsDirectory: posts,
                                               now: Date(timeIntervalSince1970: 1_620_605_700))
            let text = try XCTUnwrap(readFile(path))
            let document = try SplitDocument.split(text, path: path)
            var diagnostics: [Diagnostic] = []
            let front = FrontMatter.parse(try XCTUnwrap(document.yaml), firstLine: document.yamlFirstLine, path: path,
                                          zone: TimeZone(identifier: "UTC")!, diagnostics: &diagnostics)
            XCTAssertEqual(diagnostics.filter { $0.severity == .error }.map(\.message), [], name)
            XCTAssertEqual(values(front.title), values(title), name)
            XCTAssertEqual(front.tags.map { values($0) }, tags.map { values($0) }, name)
        }
    }
}
