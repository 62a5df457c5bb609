import BlogMarkdown
import Foundation
import XCTest

/// Opt-in timing of `render` against plain cmark on a generated corpus:
/// `python3 scripts/gen_corpus.py /tmp/mdcorpus --posts 1000`, then
/// `BLOG_MD_BENCH=/tmp/mdcorpus swift test -c release --filter CorpusBenchTests`.
/// Skipped unless BLOG_MD_BENCH is set; it reports the ratio and never fails on timing.
final class CorpusBenchTests: XCTestCase {
    func testRenderAgainstPlainCmark() throws {
        guard let dir = ProcessInfo.processInfo.environment["BLOG_MD_BENCH"] else {
            throw XCTSkip("set BLOG_MD_BENCH to a generated corpus folder to time rendering")
        }
        let posts = URL(fileURLWithPath: dir).appendingPathComponent("content/posts")
        let names = try FileManager.default.contentsOfDirectory(atPath: posts.path).filter { $0.hasSuffix(".md") }.sorted()
        var bodies: [String] = []
        for name in names {
            let text = try String(contentsOf: posts.appendingPathComponent(name), encoding: .utf8)
            if text.hasPrefix("---\n"), let end = text.range(of: "\n---\n", range: text.index(text.startIndex, offsetBy: 4)..<text.endIndex) {
                bodies.append(String(text[end.upperBound...]))
            } else {
                bodies.append(text)
            }
        }
        XCTAssertFalse(bodies.isEmpty, "no posts under \(posts.path)")
        let renderer = MarkdownRenderer()
        var sink = 0
        func best(_ body: () -> Void) -> Double {
            var result = Double.infinity
            for _ in 0..<5 {
                let start = DispatchTime.now().uptimeNanoseconds
                body()
                result = min(result, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            return result
        }
        let plain = best { for b in bodies { sink &+= MarkdownRenderer.renderPlainCmark(b, unsafe: false, hardBreaks: true).utf8.count } }
        let full = best { for b in bodies { sink &+= renderer.render(b).html.utf8.count } }
        print(String(format: "corpus: %d posts; plain cmark %.1f ms, render %.1f ms (%.0f µs/post), ratio %.2f (sink %d)",
                     bodies.count, plain * 1000, full * 1000, full / Double(bodies.count) * 1e6, full / plain, sink))
    }
}
