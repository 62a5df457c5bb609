import BlogCore
import Foundation
import XCTest

final class CoreTests: XCTestCase {
    func testDiagnosticFormat() {
        XCTAssertEqual(Diagnostic.error("boom", at: SourceLocation(file: "content/a.md", line: 3, column: 7)).description,
                       "content/a.md:3:7: error: boom")
        XCTAssertEqual(Diagnostic.warning("hm", at: SourceLocation(file: "blog.yml", line: 2)).description, "blog.yml:2: warning: hm")
        XCTAssertEqual(Diagnostic.error("plain").description, "error: plain")
    }

    func testSlugKeepsJapanese() {
        XCTAssertEqual(Slug.make("Hello, World!"), "hello-world")
        XCTAssertEqual(Slug.make("SwiftUIで通知を扱う"), "swiftuiで通知を扱う")
        XCTAssertEqual(Slug.make("【Swift】Codable で 日付"), "swift-codable-で-日付")
        XCTAssertEqual(Slug.make("ＡＢＣ　全角"), "abc-全角")
        XCTAssertEqual(Slug.make("!!!"), "")
    }

    func testPercentEncoding() {
        XCTAssertEqual(Slug.percentEncodePath("tags/日本語/"), "tags/%E6%97%A5%E6%9C%AC%E8%AA%9E/")
        XCTAssertEqual(Slug.percentEncodePath("c++ #x"), "c%2B%2B%20%23x")
        // Every ASCII character, alone and inside a safe path, against the definition.
        let safe = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/".utf8))
        for value in 0..<0x80 {
            let text = String(UnicodeScalar(UInt8(value)))
            let encoded = safe.contains(UInt8(value)) ? text : String(format: "%%%02X", value)
            XCTAssertEqual(Slug.percentEncodePath(text), encoded, "\(value)")
            XCTAssertEqual(Slug.percentEncodePath("posts/a" + text + "b/"), "posts/a" + encoded + "b/", "\(value)")
        }
        XCTAssertEqual(Slug.percentEncodePath("é"), "%C3%A9")
    }

    func testEscapeHTML() {
        XCTAssertEqual(escapeHTML("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        XCTAssertEqual(escapeHTML("plain 日本語"), "plain 日本語")
    }

    func testInvalidUTF8IsLocated() {
        let bytes = Array("ok\nab".utf8) + [0xFF] + Array("c".utf8)
        XCTAssertThrowsError(try SourceText.decode(bytes, displayPath: "x.md")) { error in
            XCTAssertEqual((error as? Diagnostic)?.description, "x.md:2:3: error: the file is not valid UTF-8 (byte 0xFF); save it as UTF-8")
        }
        // Overlong encodings and surrogates are invalid too.
        XCTAssertNotNil(SourceText.firstInvalidUTF8([0xC0, 0x80][...]))
        XCTAssertNotNil(SourceText.firstInvalidUTF8([0xED, 0xA0, 0x80][...]))
        XCTAssertNil(SourceText.firstInvalidUTF8(Array("日本語🍣".utf8)[...]))
    }

    func testValidationAgreesWithTheStandardLibrary() throws {
        // Valid text with random corruptions at random places (also inside the 8-byte ASCII runs).
        let pieces = ["a", "abcdefgh", "日本語", "かなカナ漢字", "é", "🍣", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}", "\n"].map { Array($0.utf8) }
        let bad: [[UInt8]] = [[0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
                              [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE3, 0x81], [0xF0, 0x9F, 0x8D]]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...30, using: &generator) { bytes += pieces.randomElement(using: &generator)! }
            if Bool.random(using: &generator) {
                bytes.insert(contentsOf: bad.randomElement(using: &generator)!, at: Int.random(in: 0...bytes.count, using: &generator))
            }
            let first = SourceText.firstInvalidUTF8(bytes[...])
            XCTAssertEqual(first == nil, String(validating: bytes, as: UTF8.self) != nil, "\(bytes)")
            if let first {
                XCTAssertNotNil(String(validating: bytes[..<first], as: UTF8.self), "the bytes before it are valid: \(bytes)")
                XCTAssertThrowsError(try SourceText.decode(bytes, displayPath: "x"))
            } else {
                XCTAssertEqual(Array(try SourceText.decode(bytes, displayPath: "x").utf8), bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes)
            }
            // An offset slice reports indices of the slice.
            let shifted = ([0x41] + bytes)[1...]
            XCTAssertEqual(SourceText.firstInvalidUTF8(shifted), first.map { $0 + 1 })
        }
    }

    func testValidationReportsTheExactFirstBadOffsetAtEveryPosition() throws {
        // Long runs of kana and kanji (the two-characters-a-load path), the three-byte leads that
        // need a range check (E0, ED) inside such runs, ASCII runs of every length around them.
        let texts = ["日本語のテキストです。カタカナと漢字が続きます", "a日本b語cd", "\u{800}日\u{D7FF}本\u{E000}語\u{FFFF}",
                     "abcdefghijklmnop日本語", "日本語abcdefghijklmnop", "é日🍣本ßa語\u{10FFFF}", String(repeating: "漢", count: 40)]
        let bad: [[UInt8]] = [[0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xC2, 0x41], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
                              [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xE3, 0x81], [0xE3, 0x41, 0x81], [0xE3, 0x81, 0x41], [0xE3, 0x81, 0xC0],
                              [0xEF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
                              [0xF5, 0x80, 0x80, 0x80], [0xF0, 0x9F, 0x8D], [0xF0, 0x9F, 0x8D, 0x41], [0xF8], [0xFE], [0xFF]]
        checkFirstInvalidOffsets(texts, bad)
    }

    /// Runs of three-byte characters (checked five a load) with the leads that need a range
    /// check (E0, ED), and other lengths, at every place of such a run.
    func testValidationInLongRunsOfThreeByteCharacters() {
        let texts = [(0..<30).map { k in k % 7 == 3 ? "\u{800}" : k % 11 == 5 ? "\u{D7FF}" : k % 13 == 8 ? "\u{E000}" : "か" }.joined(),
                     "x" + String(repeating: "漢字。", count: 12), "日本語日本語日本語é日本語日本語🍣日本語日本語a日本語日本語日本語日本語"]
        let bad: [[UInt8]] = [[0x80], [0xC2], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xE3, 0x81], [0xE3, 0x41, 0x81],
                              [0xE3, 0x81, 0xC0], [0xF0, 0x9F, 0x8D], [0xFF]]
        checkFirstInvalidOffsets(texts, bad)
    }

    /// Each text is valid; every cut of it, and each bad sequence inserted at or written over
    /// every position, is reported where the reference finds the first bad byte.
    private func checkFirstInvalidOffsets(_ texts: [String], _ bad: [[UInt8]]) {
        for text in texts {
            let valid = Array(text.utf8)
            XCTAssertNil(SourceText.firstInvalidUTF8(valid[...]), text)
            // Every cut of valid text that splits a character is reported at that character.
            for cut in 0...valid.count {
                let prefix = Array(valid[..<cut])
                XCTAssertEqual(SourceText.firstInvalidUTF8(prefix[...]), UTF8ValidationTests.reference(prefix), "\(text) cut at \(cut)")
            }
            for sequence in bad {
                for position in 0...valid.count {
                    var bytes = valid
                    bytes.insert(contentsOf: sequence, at: position)
                    let expected = UTF8ValidationTests.reference(bytes)
                    XCTAssertNotNil(expected)
                    XCTAssertEqual(SourceText.firstInvalidUTF8(bytes[...]), expected, "\(sequence) at \(position) of \(text)")
                    // Overwriting instead of inserting, too (a character's continuation bytes replaced).
                    var overwritten = valid
                    for (k, byte) in sequence.enumerated() where position + k < overwritten.count { overwritten[position + k] = byte }
                    XCTAssertEqual(SourceText.firstInvalidUTF8(overwritten[...]), UTF8ValidationTests.reference(overwritten), "\(sequence) over \(position) of \(text)")
                }
            }
        }
    }

    /// A file whose size fstat does not give (procfs reports 0) is read to its end all the same.
    func testReadBytesOfAFileWithoutASize() throws {
        let bytes = try SourceText.readBytes("/proc/version")
        XCTAssertFalse(bytes.isEmpty)
        XCTAssertEqual(bytes, Array(try Data(contentsOf: URL(fileURLWithPath: "/proc/version"))))
        XCTAssertThrowsError(try SourceText.readBytes("/proc"))
    }

    func testInvalidUTF8LineAndColumnAfterJapanese() {
        let bytes = Array("---\ntitle: 日本語\n---\n漢字かなabc".utf8) + [0xE3, 0x81] + Array("です".utf8)
        XCTAssertThrowsError(try SourceText.decode(bytes, displayPath: "p.md")) { error in
            XCTAssertEqual((error as? Diagnostic)?.description, "p.md:4:8: error: the file is not valid UTF-8 (byte 0xE3); save it as UTF-8")
        }
    }

    /// `readUTF8` gives the bytes of what `read` gives, and the same errors.
    func testReadUTF8MatchesRead() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blog-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files: [[UInt8]] = [[], Array("plain ascii\n".utf8), Array("---\ntitle: 日本語\n---\n本文🍣\n".utf8),
                                [0xEF, 0xBB, 0xBF] + Array("bom 日本\n".utf8), Array("a\r\nb\rc\r\n日本\r\n".utf8),
                                [0xEF, 0xBB, 0xBF] + Array("x\r\ny".utf8), [0xEF, 0xBB], Array(String(repeating: "漢字かなabc", count: 2000).utf8)]
        for (k, bytes) in files.enumerated() {
            let path = folder.appendingPathComponent("f\(k).md").path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            // Both give the bytes, or both the same error (a cut-off byte-order mark is not UTF-8).
            func outcome(_ body: () throws -> [UInt8]) -> String {
                do { return "\(try body())" } catch { return "\(error)" }
            }
            XCTAssertEqual(outcome { try SourceText.readUTF8(path: path, displayPath: "f.md") },
                           outcome { Array(try SourceText.read(path: path, displayPath: "f.md").utf8) }, "file \(k)")
        }
        let bad = folder.appendingPathComponent("bad.md").path
        XCTAssertTrue(FileManager.default.createFile(atPath: bad, contents: Data(Array("ok\n日本".utf8) + [0xE3, 0x81] + Array("x".utf8))))
        XCTAssertThrowsError(try SourceText.readUTF8(path: bad, displayPath: "bad.md")) { error in
            XCTAssertEqual((error as? Diagnostic)?.description, "bad.md:2:3: error: the file is not valid UTF-8 (byte 0xE3); save it as UTF-8")
        }
        XCTAssertThrowsError(try SourceText.readUTF8(path: folder.appendingPathComponent("missing.md").path, displayPath: "missing.md")) { error in
            XCTAssertEqual((error as? Diagnostic)?.description, "missing.md: error: cannot read the file: no such file")
        }
    }

    func testBOMAndCRLF() throws {
        XCTAssertEqual(try SourceText.decode([0xEF, 0xBB, 0xBF] + Array("a\r\nb".utf8), displayPath: "x"), "a\nb")
    }

    func testJSONWriterEscapes() {
        var json = JSONWriter()
        json.beginObject()
        json.field("t", "a\"b\\c\n<img>")
        json.field("n", 3)
        json.field("l", strings: ["x", "日本"])
        json.endObject()
        XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self), #"{"t":"a\"b\\c\n\u003cimg\u003e","n":3,"l":["x","日本"]}"#)
        let parsed = try? JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any]
        XCTAssertEqual(parsed?["t"] as? String, "a\"b\\c\n<img>")
    }
}
