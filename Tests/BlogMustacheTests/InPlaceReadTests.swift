import XCTest
@testable import BlogMustache

/// The renderer reads values where the context stores them, without retaining them
/// (`MustacheValue.storedUTF8(at:)` and friends): what it reads that way must be exactly what a
/// copy of the value holds, for strings of every length and origin.
final class InPlaceReadTests: XCTestCase {
    /// Strings of 0-64 UTF-8 bytes made in the ways the site makes them: literals, repetition,
    /// decoding, interpolation, concatenation, substrings, with multi-byte characters across the
    /// 15/16-byte line between inline and stored strings.
    static func strings() -> [String] {
        var result: [String] = ["", "a", "fifteen bytes!!", "sixteen bytes!!!", "seventeen bytes!!",
                                "<p class=\"x\">Tom & 'Jerry'</p>", "日本語のタイトル", "日本語のタイトルです"]
        for length in 0...64 {
            let ascii = String(repeating: "x", count: length)
            result.append(ascii)
            result.append(String(decoding: Array(ascii.utf8), as: UTF8.self))
            result.append("\(length)/\(ascii)")
            result.append(ascii + "&")
            result.append(String((ascii + "<tail>").dropFirst(min(length, 3))))
            // A three-byte character ending at every byte position near the boundary.
            result.append(String(repeating: "a", count: length % 20) + "語" + String(repeating: "'", count: length / 20))
        }
        return result
    }

    func testStoredBytesAreTheStringsOwnBytes() {
        for s in Self.strings() {
            let value = MustacheValue.string(s)
            withUnsafePointer(to: value) { address in
                let expected = Array(s.utf8)
                guard let bytes = MustacheValue.storedUTF8(at: address) else {
                    // Only short strings (which may be stored inline) are left to the copy.
                    XCTAssertLessThan(expected.count, MemoryLayout<String>.size, s)
                    return
                }
                XCTAssertGreaterThanOrEqual(bytes.count, MemoryLayout<String>.size, s)
                XCTAssertEqual(Array(bytes), expected, s)
                // The string's own storage, not a copy that would be gone after the call.
                let own = s.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
                XCTAssertEqual(UnsafeRawPointer(bytes.baseAddress), own, s)
            }
        }
        for other: MustacheValue in [nil, true, 12, 1.5, ["a", "b"], ["k": "a string longer than sixteen bytes"]] {
            withUnsafePointer(to: other) { XCTAssertNil(MustacheValue.storedUTF8(at: $0)) }
        }
    }

    func testRenderedStringsMatchAReference() throws {
        let library = try TemplateLibrary([TemplateSource(name: "t", text: "{{x}}|{{{x}}}|{{#list}}[{{.}}]{{/list}}",
                                                          path: "t.mustache")])
        func escaped(_ s: String) -> String {
            var out = ""
            for c in s {
                switch c {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                case "'": out += "&#39;"
                default: out.append(c)
                }
            }
            return out
        }
        let all = Self.strings()
        for (k, s) in all.enumerated() {
            let others = [all[(k + 1) % all.count], all[(k + 7) % all.count]]
            let context: MustacheValue = ["x": .string(s), "list": .array(others.map { .string($0) })]
            let expected = escaped(s) + "|" + s + "|" + others.map { "[" + escaped($0) + "]" }.joined()
            XCTAssertEqual(try library.render("t", context), expected, s)
        }
    }
}
