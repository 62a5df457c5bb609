import XCTest
import BlogMath

/// The converter's contract: MathML for what it knows, a reason for what it does not, escaped
/// text, and bounded work on hostile input.
final class MathRendererTests: XCTestCase {
    func testInlineAndDisplayKeepTheTeXInTheAnnotation() throws {
        let inline = try XCTUnwrap(MathRenderer.render(tex: "a<b & c", display: false).problem)
        XCTAssertTrue(inline.contains("&"), inline)
        let r = MathRenderer.render(tex: "a<b", display: false)
        let html = try XCTUnwrap(r.mathML)
        XCTAssertTrue(html.hasPrefix("<math xmlns=\"http://www.w3.org/1998/Math/MathML\" display=\"inline\"><semantics>"), html)
        XCTAssertTrue(html.contains("<mo>&lt;</mo>"), html)
        XCTAssertTrue(html.hasSuffix("<annotation encoding=\"application/x-tex\">a&lt;b</annotation></semantics></math>"), html)
        XCTAssertTrue(try XCTUnwrap(MathRenderer.render(tex: "x", display: true).mathML).contains("display=\"block\""))
    }

    func testUnknownCommandIsNamed() {
        let r = MathRenderer.render(tex: #"x + \foo{y}"#, display: true)
        XCTAssertNil(r.mathML)
        XCTAssertEqual(r.problem, #"unsupported TeX command \foo"#)
    }

    func testUnbalancedBracesFallBack() {
        for tex in ["{x", "x}", #"\frac{a}{b"#, #"\left( x"#, #"\begin{matrix} a"#] {
            let r = MathRenderer.render(tex: tex, display: true)
            XCTAssertNil(r.mathML, tex)
            XCTAssertNotNil(r.problem, tex)
        }
    }

    func testLinksClassesAndImagesAreRefused() {
        for (tex, command) in [(#"\href{javascript:alert(1)}{x}"#, "href"), (#"\url{javascript:alert(1)}"#, "url"),
                               (#"\htmlClass{evil}{x}"#, "htmlClass"), (#"\includegraphics{http://example.com/x.png}"#, "includegraphics"),
                               (#"\newcommand{\h}{\href} \h{javascript:x}{y}"#, "href")] {
            let r = MathRenderer.render(tex: tex, display: true)
            XCTAssertNil(r.mathML, tex)
            XCTAssertEqual(r.problem, "unsupported TeX command \\\(command)", tex)
        }
    }

    func testTextAndAttributesAreEscaped() throws {
        let html = try XCTUnwrap(MathRenderer.render(tex: #"\text{<script>alert("x")</script> & }"#, display: true).mathML)
        XCTAssertFalse(html.contains("<script"), html)
        XCTAssertTrue(html.contains("<mtext>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;\u{A0}&amp;\u{A0}</mtext>"), html)
        // a colour is a name or #hex, never free text inside an attribute
        XCTAssertNil(MathRenderer.render(tex: #"\color{red" onmouseover="alert(1)}{x}"#, display: true).mathML)
        let colored = try XCTUnwrap(MathRenderer.render(tex: #"\textcolor{#ff0000}{x}"#, display: true).mathML)
        XCTAssertTrue(colored.contains("<mstyle mathcolor=\"#ff0000\"><mi>x</mi></mstyle>"), colored)
    }

    func testDeepNestingIsBoundedAndFast() {
        let start = ContinuousClock.now
        let deep = String(repeating: "{", count: 10_000) + "x" + String(repeating: "}", count: 10_000)
        XCTAssertNil(MathRenderer.render(tex: deep, display: true).mathML)
        let nested = String(repeating: "{", count: 1_000) + "x" + String(repeating: "}", count: 1_000)
        XCTAssertEqual(MathRenderer.render(tex: nested, display: true).problem, "unsupported TeX: formula nested too deeply")
        let fractions = String(repeating: #"\frac{1}{"#, count: 10_000) + "x" + String(repeating: "}", count: 10_000)
        XCTAssertNil(MathRenderer.render(tex: fractions, display: true).mathML)
        let sqrt = String(repeating: #"\sqrt{"#, count: 5_000) + String(repeating: "}", count: 5_000)
        XCTAssertNil(MathRenderer.render(tex: sqrt, display: true).mathML)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
    }

    func testHugeFormulasAndMacroBombsAreBounded() throws {
        let start = ContinuousClock.now
        let megabyte = String(repeating: "x+", count: 512 * 1024)
        XCTAssertEqual(MathRenderer.render(tex: megabyte, display: true).problem, "unsupported TeX: formula too long")
        // below the limit, a long formula converts
        let long = String(repeating: "x+", count: 4_000) + "x"
        XCTAssertNotNil(MathRenderer.render(tex: long, display: true).mathML)
        XCTAssertNotNil(MathRenderer.render(tex: #"\def\a{\a\a}\a"#, display: true).problem)
        XCTAssertNotNil(MathRenderer.render(tex: #"\def\a{xxxxxxxxxx}\def\b{\a\a\a\a\a\a\a\a\a\a}\def\c{\b\b\b\b\b\b\b\b\b\b}\def\d{\c\c\c\c\c\c\c\c\c\c}\d\d\d"#, display: true).problem)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
    }

    func testJapaneseTextStaysText() throws {
        let html = try XCTUnwrap(MathRenderer.render(tex: #"\text{速さ} = \frac{\text{距離}}{\text{時間}}"#, display: true).mathML)
        XCTAssertTrue(html.contains("<mtext>速さ</mtext><mo>=</mo><mfrac><mtext>距離</mtext><mtext>時間</mtext></mfrac>"), html)
    }

    func testNewcommandWithArguments() throws {
        let html = try XCTUnwrap(MathRenderer.render(tex: #"\newcommand{\pair}[2]{\langle #1, #2 \rangle} \pair{a}{b}"#, display: false).mathML)
        XCTAssertTrue(html.contains("<mo stretchy=\"false\">⟨</mo><mi>a</mi><mo separator=\"true\">,</mo><mi>b</mi><mo stretchy=\"false\">⟩</mo>"), html)
    }

    func testTagNumbersTheFormula() throws {
        let html = try XCTUnwrap(MathRenderer.render(tex: #"E = mc^2 \tag{3}"#, display: true).mathML)
        XCTAssertTrue(html.contains("<mtd><mtext>(3)</mtext></mtd>"), html)
    }

    /// Random TeX from pieces the parser treats specially: every input ends as MathML or a
    /// problem, never a trap; what converts is well formed.
    func testRandomInputNeverTraps() {
        let pieces = ["{", "}", "^", "_", "&", "\\\\", "x", "2", "'", " ", "\\frac", "\\sqrt", "[", "]", "\\left(", "\\right)",
                      "\\middle|", "\\begin{pmatrix}", "\\end{pmatrix}", "\\begin{array}{c|l}", "\\end{array}", "\\hline",
                      "\\text{あ}", "\\over", "\\color{red}", "\\def\\a#1{#1#1}", "\\a", "\\newcommand{\\b}[1]{\\b{#1}}",
                      "\\b", "\\sum", "\\limits", "\\mathbb", "\\not", "\\substack", "\\tag", "\\displaystyle",
                      "\\overbrace", "\\xrightarrow", "\\operatorname", "#", "%", "\\", "\\big", "."]
        var state: UInt64 = 0x9E3779B97F4A7C15
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var converted = 0
        for _ in 0..<2_000 {
            var tex = ""
            for _ in 0..<(1 + next(24)) { tex += pieces[next(pieces.count)] }
            let r = MathRenderer.render(tex: tex, display: next(2) == 0)
            XCTAssertTrue((r.mathML == nil) != (r.problem == nil), tex)
            if let html = r.mathML {
                converted += 1
                XCTAssertTrue(html.hasSuffix("</annotation></semantics></math>"), tex)
                XCTAssertEqual(html.components(separatedBy: "<m").count - html.components(separatedBy: "/>").count + 1,
                               html.components(separatedBy: "</m").count, "unbalanced elements for \(tex)")
            }
        }
        XCTAssertGreaterThan(converted, 100)
    }
}
