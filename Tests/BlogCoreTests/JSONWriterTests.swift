import Foundation
import XCTest
import BlogCore

final class JSONWriterTests: XCTestCase {
    /// The escaping rules spelled out byte by byte (`.lessThan` leaves `>` and `&` alone).
    private func reference(_ text: String, _ escaping: JSONWriter.Escaping = .markup) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for byte in text.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x3E where escaping == .lessThan, 0x26 where escaping == .lessThan: out.append(byte)
            case 0..<0x20, 0x3C, 0x3E, 0x26: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        return out + [0x22]
    }

    func testQuotingEscapesWhatJSONAndHTMLNeed() {
        var out: [UInt8] = []
        JSONWriter.appendQuoted("a\"b\\c\n</script>&\u{1}日本", to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "\"a\\\"b\\\\c\\n\\u003c/script\\u003e\\u0026\\u0001日本\"")
        // Long plain runs too (copied sixteen bytes at a time), and the neighbours of `<` and `>`.
        let pieces = ["", "a", "日本語", "👍", "\"", "\\", "\n", "\r", "\t", "<", ">", "&", "\u{0}", "\u{1F}", "\u{7F}", "/", "'",
                      "abcdefghijklmnop", "漢字かなカナ", "=", "?", ";", "%", "\u{80}", " "]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4_000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for escaping in [JSONWriter.Escaping.markup, .lessThan] {
                var quoted: [UInt8] = []
                JSONWriter.appendQuoted(text, escaping: escaping, to: &quoted)
                XCTAssertEqual(quoted, reference(text, escaping), "\(escaping): \(text)")
                XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(quoted), options: .fragmentsAllowed) as? String, text)
            }
        }
    }

    /// The search index's rule: only `<` of the markup characters, in keys and values alike.
    func testLessThanEscapingLeavesOtherMarkupAlone() {
        var json = JSONWriter(escaping: .lessThan)
        json.beginObject()
        json.field("<a & b>", "</script> & \r\u{1}")
        json.key("n"); json.value(json: "0.25")
        json.endObject()
        XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self), #"{"\u003ca & b>":"\u003c/script> & \r\u0001","n":0.25}"#)
        let bytes = Array("x<y>".utf8)
        var fromBytes = JSONWriter(escaping: .lessThan)
        bytes.withUnsafeBufferPointer { fromBytes.string(utf8: $0) }
        XCTAssertEqual(String(decoding: fromBytes.bytes, as: UTF8.self), #""x\u003cy>""#)
    }

    /// Commas at every depth, through the word of flags and past it (levels beyond 63).
    func testNestingKeepsCommasAtEveryDepth() {
        for depth in [1, 2, 62, 63, 64, 65, 130] {
            var json = JSONWriter(capacity: 16)
            var expected = ""
            func build(_ level: Int) {
                json.beginArray(); expected += level == 1 ? "[" : ",["
                json.int(level); expected += "\(level)"
                if level < depth {
                    build(level + 1)
                    json.beginObject(); expected += ",{"
                    json.field("a", level); json.field("b", "x"); expected += "\"a\":\(level),\"b\":\"x\""
                    json.endObject(); expected += "}"
                }
                json.null(); expected += ",null"
                json.endArray(); expected += "]"
            }
            build(1)
            json.beginObject(); expected += ",{"
            json.endObject(); expected += "}"
            XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self), expected, "depth \(depth)")
        }
    }
}
