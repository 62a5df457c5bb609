import BlogCLI
import BlogCore
import Foundation
import XCTest

/// `blog build` on posts with math: MathML in the pages, a `file:line` warning for a formula that
/// stays TeX (the build still succeeds), and `markdown.math: keep`.
final class MathBuildTests: SiteFolderTestCase {
    func read(_ path: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    func writeSite(math: String?) throws {
        try write("blog.yml", "title: Math\n" + (math.map { "markdown:\n  math: \($0)\n" } ?? ""))
        try write("content/posts/a.md", """
            ---
            title: A post
            date: 2020-01-01
            ---
            二乗は $x^2$ です。

            ```math
            \\foo{x} + 1
            ```

            $$
            \\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}
            $$

            """)
        try write("content/about.md", "---\ntitle: About\n---\n\n壊れた式 $\\frac{1}{2$ も出る。\n")
    }

    func testFormulasBecomeMathMLAndTheRestWarnsWithItsLine() throws {
        try writeSite(math: nil)
        let result = run(["build", "--output", "out"])
        XCTAssertEqual(result.code, 0, result.err)
        // a block is reported at its first line (the fence)
        XCTAssertTrue(result.err.contains("content/posts/a.md:7:"), result.err)
        XCTAssertTrue(result.err.contains(#"unsupported TeX command \foo"#), result.err)
        XCTAssertTrue(result.err.contains("content/about.md:5"), result.err)
        XCTAssertTrue(result.err.contains("unbalanced braces"), result.err)
        let post = read("out/posts/a-post/index.html")
        XCTAssertTrue(post.contains(#"<span class="math inline"><math xmlns="http://www.w3.org/1998/Math/MathML" display="inline"><semantics><msup><mi>x</mi><mn>2</mn></msup>"#), post)
        XCTAssertTrue(post.contains(#"<div class="math display"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><semantics><mrow><munderover><mo>∑</mo>"#), post)
        // the formula that did not convert is today's output: the TeX, escaped
        XCTAssertTrue(post.contains(#"<div class="math display">\foo{x} + 1</div>"#), post)
        XCTAssertTrue(read("out/about/index.html").contains(#"<span class="math inline">\frac{1}{2</span>"#))
    }

    func testKeepLeavesTheTeX() throws {
        try writeSite(math: "keep")
        let result = run(["build", "--output", "out"])
        XCTAssertEqual(result.code, 0, result.err)
        XCTAssertFalse(result.err.contains("unsupported TeX"), result.err)
        let post = read("out/posts/a-post/index.html")
        XCTAssertFalse(post.contains("<math"), post)
        XCTAssertTrue(post.contains(#"<span class="math inline">x^2</span>"#), post)
    }

    func testAnUnknownMathOptionIsAnError() throws {
        try writeSite(math: "katex")
        let result = run(["build", "--output", "out"])
        XCTAssertNotEqual(result.code, 0)
        XCTAssertTrue(result.err.contains("blog.yml:3"), result.err)
        XCTAssertTrue(result.err.contains("'markdown.math' must be mathml or keep"), result.err)
    }
}
