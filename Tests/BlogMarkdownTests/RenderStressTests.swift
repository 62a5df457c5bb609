import Dispatch
import XCTest
import BlogMarkdown

/// Large documents, huge and small ones alternated, and renders from many threads at once: the
/// output must be what plain cmark or a single-threaded render gives.
final class RenderStressTests: XCTestCase {
    private let plain = MarkdownRenderer(options: MarkdownOptions(hardBreaks: false, unsafeHTML: true, qiitaExtensions: false, highlightCode: false))

    /// A document of every kind of block and inline, `copies` times (one copy makes ~200 nodes).
    private func document(copies: Int, seed: Int) -> String {
        var s = ""
        for i in 0..<copies {
            let n = seed &* 31 &+ i
            s += "# 見出し \(n) *強調* と `code`\n\n"
            s += "段落 \(n) の **太字** と [リンク](https://example.com/\(n) \"題\") と ![画像](/img/\(n).png)\n"
            s += "二行目 <span>html</span> &amp; \\* エスケープ\n\n"
            s += "- 項目 \(n)\n  - 入れ子 *\(n)*\n- [x] 完了\n\n"
            s += "1. 一\n2. 二\n\n"
            s += "> 引用 \(n)\n> > 二重\n\n"
            s += "```swift\nlet x\(n) = \(n)\nprint(x\(n))\n```\n\n"
            s += "    indented \(n)\n\n"
            s += "| a | b |\n|---|:-:|\n| \(n) | **\(n)** |\n\n"
            s += "---\n\n"
        }
        return s
    }

    func testDocumentsFarLargerThanAChunkMatchPlainCmark() {
        // one big code block (a single growing buffer) and a document of ~100,000 nodes
        let bigCode = "```\n" + String(repeating: "let value = \"長い行の繰り返し\"\n", count: 60_000) + "```\n"
        let many = document(copies: 500, seed: 1)
        for markdown in [bigCode, many, document(copies: 1, seed: 2), bigCode + many] {
            XCTAssertEqual(plain.render(markdown).html, MarkdownRenderer.renderPlainCmark(markdown),
                           "document of \(markdown.utf8.count) bytes")
        }
    }

    func testSmallDocumentsAfterAHugeOneAreUnchanged() {
        let qiita = MarkdownRenderer()
        let small = (0..<20).map { document(copies: 1, seed: $0) }
        let before = small.map { qiita.render($0) }
        _ = qiita.render(document(copies: 800, seed: 99)) // grows this thread's kept chunk
        for (markdown, expected) in zip(small, before) {
            let again = qiita.render(markdown)
            XCTAssertEqual(again.html, expected.html)
            XCTAssertEqual(again.plainText, expected.plainText)
            XCTAssertEqual(again.links, expected.links)
            XCTAssertEqual(again.headings, expected.headings)
        }
    }

    func testConcurrentRendersEqualSerialOnes() {
        let qiita = MarkdownRenderer()
        let docs = (0..<64).map { document(copies: 1 + $0 % 7 * 20, seed: $0) }
        let serial = docs.map { qiita.render($0).html }
        final class Results: @unchecked Sendable {
            var html = [[String]](repeating: [String](repeating: "", count: 64), count: 2)
            let lock = NSLock()
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: docs.count * 2) { k in
            let html = qiita.render(docs[k % docs.count]).html
            results.lock.lock()
            results.html[k / docs.count][k % docs.count] = html
            results.lock.unlock()
        }
        XCTAssertEqual(results.html[0], serial)
        XCTAssertEqual(results.html[1], serial)
    }

    /// Twelve threads alive at once (more than the cores), each rendering documents between two barriers.
    func testManyThreadsRenderingAtOnce() {
        let qiita = MarkdownRenderer()
        let threads = 12
        let docs = (0..<threads).map { document(copies: 1 + $0 * 15, seed: $0) }
        let serial = docs.map { qiita.render($0).html }
        final class Results: @unchecked Sendable {
            var html = [String](repeating: "", count: 12)
            let lock = NSLock()
        }
        let results = Results()
        let started = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchGroup()
        for k in 0..<threads {
            done.enter()
            let thread = Thread {
                _ = qiita.render("x")
                started.signal()
                go.wait()
                var html = ""
                for _ in 0..<3 { html = qiita.render(docs[k]).html }
                results.lock.lock()
                results.html[k] = html
                results.lock.unlock()
                done.leave()
            }
            thread.start()
        }
        for _ in 0..<threads { started.wait() }
        for _ in 0..<threads { go.signal() }
        done.wait()
        XCTAssertEqual(results.html, serial)
    }
}
