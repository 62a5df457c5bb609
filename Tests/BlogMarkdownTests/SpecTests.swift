import XCTest
import TestSupport
import BlogMarkdown

/// CommonMark 0.30 spec examples: with the dialect off, our pipeline must equal plain cmark.
final class SpecTests: XCTestCase {
    struct Example { var markdown: String; var line: Int }

    static func loadExamples() throws -> [Example] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let specURL = root.deletingLastPathComponent().appendingPathComponent("shared/spec/commonmark/spec-0.30.txt")
        guard let text = try? String(contentsOf: specURL, encoding: .utf8) else {
            throw specMissing("CommonMark spec not found at \(specURL.path)")
        }
        let fence = String(repeating: "`", count: 32)
        var examples: [Example] = []
        var current: [String]?
        var startLine = 0
        var inMarkdown = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line == fence + " example" { current = []; inMarkdown = true; startLine = index + 1; continue }
            guard current != nil else { continue }
            if line == fence {
                examples.append(Example(markdown: current!.joined().replacingOccurrences(of: "→", with: "\t"), line: startLine))
                current = nil
                continue
            }
            if line == "." { inMarkdown = false; continue }
            if inMarkdown { current!.append(line + "\n") }
        }
        return examples
    }

    func testSpecExamplesMatchPlainCmark() throws {
        let examples = try Self.loadExamples()
        XCTAssertGreaterThan(examples.count, 600)
        let renderer = MarkdownRenderer(options: MarkdownOptions(hardBreaks: false, unsafeHTML: true, qiitaExtensions: false, highlightCode: false))
        var failures = 0
        for example in examples {
            let expected = MarkdownRenderer.renderPlainCmark(example.markdown)
            let actual = renderer.render(example.markdown).html
            if actual != expected {
                failures += 1
                XCTFail("spec example at line \(example.line) differs:\n\(example.markdown)\nexpected: \(expected)\nactual: \(actual)")
            }
        }
        print("CommonMark spec: ran \(examples.count) examples, \(failures) differed from plain cmark")
    }

    /// The dialect must not crash on any spec example either (and stays valid UTF-8).
    func testSpecExamplesWithDialect() throws {
        let examples = try Self.loadExamples()
        let renderer = MarkdownRenderer()
        for example in examples {
            let result = renderer.render(example.markdown)
            XCTAssertNotNil(result.html.utf8.count)
        }
    }
}

