import XCTest
import BlogMarkdown
final class ScratchTests: XCTestCase {
    func testScratch() throws {
        guard let path = ProcessInfo.processInfo.environment["SCRATCH_MD"] else { throw XCTSkip("no scratch") }
        let md = try String(contentsOfFile: path, encoding: .utf8)
        let r = MarkdownRenderer().render(md)
        print("=====HTML\n" + r.html + "=====")
        print(r.headings, r.links)
        print("PLAIN[\(r.plainText)]")
        print("CODE[\(r.codeText)]")
    }
}
