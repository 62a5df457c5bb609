import XCTest
@testable import BlogMustache

/// The renderer reads values where the context stores them, without retaining them
/// (`MustacheValue.utf8InPlace(at:)` and friends): what it reads that way must be exactly what a
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

    func testInPlaceBytesAreTheStringsBytes() {
        for s in Self.strings() {
            let value = MustacheValue.string(s)
            withUnsafePointer(to: value) { address in
                let expected = Array(s.utf8)
                guard let text = MustacheValue.utf8InPlace(at: address) else { return XCTFail("not read: \(s)") }
                XCTAssertEqual(text.count, expected.count, s)
                if let stored = text.stored {
                    XCTAssertGreaterThanOrEqual(stored.count, MemoryLayout<String>.size, s)
                    XCTAssertEqual(Array(stored), expected, s)
                    // The string's own storage, not a copy that would be gone after the call.
                    let own = s.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
                    XCTAssertEqual(UnsafeRawPointer(stored.baseAddress), own, s)
                } else {
                    // Only short strings (which may be stored inline) come as words.
                    XCTAssertLessThan(expected.count, MemoryLayout<String>.size, s)
                    var words = (text.short.0.littleEndian, text.short.1.littleEndian)
                    let bytes = withUnsafeBytes(of: &words) { Array($0) }
                    XCTAssertEqual(Array(bytes[..<expected.count]), expected, s)
                    XCTAssertEqual(bytes[expected.count...].filter { $0 != 0 }, [], s)
                }
            }
        }
        for other: MustacheValue in [nil, true, 12, 1.5, ["a", "b"], ["k": "a string longer than sixteen bytes"]] {
            withUnsafePointer(to: other) { XCTAssertNil(MustacheValue.utf8InPlace(at: $0)) }
        }
    }

    /// Every length 0-15, at every offset of a buffer whose neighbouring bytes are not zero.
    func testShortLoadsStayInsideTheBytes() {
        let memory = (0..<48).map { UInt8(truncatingIfNeeded: 0xA1 &+ $0 &* 29) }
        memory.withUnsafeBufferPointer { all in
            for n in 0..<16 {
                for offset in 0...(48 - n) {
                    let bytes = UnsafeBufferPointer(rebasing: all[offset..<(offset + n)])
                    var words = MustacheValue.loadShort(bytes)
                    words = (words.0.littleEndian, words.1.littleEndian)
                    let got = withUnsafeBytes(of: &words) { Array($0) }
                    XCTAssertEqual(Array(got[..<n]), Array(bytes), "n \(n) offset \(offset)")
                    XCTAssertEqual(got[n...].filter { $0 != 0 }, [], "n \(n) offset \(offset)")
                }
            }
        }
    }

    func testRenderedStringsMatchAReference() throws {
        let library = try TemplateLibrary([TemplateSource(name: "t", text: "{{x}}|{{{x}}}|{{#list}}[{{.}}]{{/list}}",
                                                          path: "t.mustache")])
        func escaped(_ s: String) -> String { referenceHTMLEscape(s) }
        let all = Self.strings()
        for (k, s) in all.enumerated() {
            let others = [all[(k + 1) % all.count], all[(k + 7) % all.count]]
            let context: MustacheValue = ["x": .string(s), "list": .array(others.map { .string($0) })]
            let expected = escaped(s) + "|" + s + "|" + others.map { "[" + escaped($0) + "]" }.joined()
            XCTAssertEqual(try library.render("t", context), expected, s)
        }
    }
}

/// The renderer keeps its indentation in a window of one buffer (`Renderer.indentBuffer`),
/// extended by standalone partials, cleared by partials inside a line and restored after each:
/// random trees of partials must render as a plain model of the spec's rule says (every line of
/// a standalone partial gets the indentation of its tag, added to the indentation around it).
final class IndentationTests: XCTestCase {
    private enum Line {
        case text(String)
        case standalone(indent: String, partial: Int)
        case inline(partial: Int)
    }

    private struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// What template `index` renders to with `indent` before each of its lines.
    private static func expected(_ templates: [[Line]], _ index: Int, indent: String) -> String {
        var out = ""
        for line in templates[index] {
            switch line {
            case .text(let text): out += indent + text + "\n"
            case .standalone(let more, let partial): out += expected(templates, partial, indent: indent + more)
            case .inline(let partial): out += indent + "<" + expected(templates, partial, indent: "") + ">\n"
            }
        }
        return out
    }

    func testNestedPartialIndentationMatchesTheModel() throws {
        let indents = ["", " ", "  ", "\t", "    ", String(repeating: " ", count: 40)]
        var random = Generator(state: 11)
        for round in 0..<200 {
            let count = 2 + random.next(6)
            var templates: [[Line]] = []
            for index in 0..<count {
                var lines: [Line] = []
                for k in 0..<(1 + random.next(4)) {
                    let choice = index + 1 < count ? random.next(4) : 0
                    let partial = index + 1 + random.next(max(1, count - index - 1))
                    switch choice {
                    case 1: lines.append(.standalone(indent: indents[random.next(indents.count)], partial: partial))
                    case 2: lines.append(.inline(partial: partial))
                    default: lines.append(.text("t\(index).\(k) & <x>"))
                    }
                }
                templates.append(lines)
            }
            let sources = templates.enumerated().map { index, lines in
                let text = lines.map { line -> String in
                    switch line {
                    case .text(let text): return text + "\n"
                    case .standalone(let indent, let partial): return indent + "{{> p\(partial)}}\n"
                    case .inline(let partial): return "<{{> p\(partial)}}>\n"
                    }
                }.joined()
                return TemplateSource(name: "p\(index)", text: text, path: "p\(index).mustache")
            }
            let library = try TemplateLibrary(sources)
            XCTAssertEqual(try library.render("p0", [:]), Self.expected(templates, 0, indent: ""), "round \(round)")
        }
    }
}

/// The context stack lives in memory of the renderer's own (`Renderer.frames`), grown past its
/// first 16 frames: names must still resolve in every frame below, before and after growth, and
/// list items must be pushed one at a time.
final class ContextStackTests: XCTestCase {
    func testLookupsFallBackThroughADeepStack() throws {
        let depth = 40
        var value: MustacheValue = ["items": [["k": "i0"], ["k": "i1"], ["other": "o"]]]
        for level in stride(from: depth - 1, through: 0, by: -1) {
            value = .object(["k\(level)": .string("v\(level)"), "a\(level + 1)": value])
        }
        let all = (0..<depth).map { "{{k\($0)}}" }.joined(separator: ",")
        var text = all + "|"
        for level in 1...depth { text += "{{#a\(level)}}" + (level % 7 == 0 ? all : "") + "." }
        text += all + "{{#items}}[{{k}}]{{/items}}"
        for level in stride(from: depth, through: 1, by: -1) { text += "{{k\(level - 1)}}{{/a\(level)}}" }
        // In `level` sections, the frames hold k0...k(level) (there is no k40).
        func shown(_ level: Int) -> String { (0..<depth).map { $0 <= level ? "v\($0)" : "" }.joined(separator: ",") }
        var expected = shown(0) + "|"
        for level in 1...depth { expected += (level % 7 == 0 ? shown(level) : "") + "." }
        // The third item has no `k`, and no frame below holds one.
        expected += shown(depth) + "[i0][i1][]"
        for level in stride(from: depth, through: 1, by: -1) { expected += "v\(level - 1)" }
        let context = value
        let library = try TemplateLibrary([TemplateSource(name: "t", text: text, path: "t.mustache")])
        XCTAssertEqual(try library.render("t", context), expected)
        guard let lane = library.claimLane() else { return XCTFail("no lane") }
        for _ in 0..<2 {
            XCTAssertEqual(String(decoding: try library.renderBytes("t", context, capacity: 64, lane: lane), as: UTF8.self), expected)
        }
    }
}

/// `Renderer.needsNoEntity` lets 16-32-byte strings skip `appendEscaped`: it must never say so
/// for a string holding one of the five characters, at any position, and should for clean ones.
final class NeedsNoEntityTests: XCTestCase {
    func testCleanStringsAndEveryPositionOfEachCharacter() {
        for n in 16...40 {
            let clean = (0..<n).map { UInt8(ascii: "a") &+ UInt8($0 % 26) }
            clean.withUnsafeBufferPointer { XCTAssertEqual(Renderer.needsNoEntity($0), n <= 32, "clean \(n)") }
            for special in Array("&<>\"'=?;%".utf8) {
                for position in 0..<n {
                    var bytes = clean
                    bytes[position] = special
                    bytes.withUnsafeBufferPointer { buffer in
                        // Bytes next to the five in ASCII (`=`, `?`, `;`, `%`) need no entity either.
                        let needsEntity = Array("&<>\"'".utf8).contains(special)
                        XCTAssertEqual(Renderer.needsNoEntity(buffer), !needsEntity && n <= 32, "n \(n), \(special) at \(position)")
                    }
                }
            }
        }
    }
}
