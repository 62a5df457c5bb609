import XCTest
import BlogMath

/// blog's MathML against KaTeX's for every formula of `Fixtures/corpus.tex`, after the
/// normalisation documented in `MathMLNormalizer`. KaTeX's output is stored in
/// `Fixtures/katex.mathml` by `scripts/katex-golden.js`, so this test needs no Node.
final class KaTeXComparisonTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Formulas whose rendering differs from KaTeX's on purpose, with the reason; the test fails
    /// when one of these starts to agree (remove it) or another one stops agreeing.
    static let knownDifferences: [String: String] = [
        #"\mathop{\sum}_{i}"#: "TeX puts a \\mathop's limits below it in display style (munder); KaTeX's MathML writes them as scripts (msub)",
        #"a \coloneqq b"#: "blog writes ≔ as an operator (mo); KaTeX writes an identifier (mi) inside an mo",
    ]

    static func corpus() throws -> [(tex: String, katex: String)] {
        let tex = try String(contentsOf: fixtures.appendingPathComponent("corpus.tex"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("%") }
        let golden = try String(contentsOf: fixtures.appendingPathComponent("katex.mathml"), encoding: .utf8)
            .split(separator: "\n").dropFirst()
        guard tex.count == golden.count else { throw XCTSkip("katex.mathml is stale: run scripts/katex-golden.js") }
        return zip(tex, golden).map { (String($0), String($1)) }
    }

    func testCorpusIsEquivalentToKaTeX() throws {
        let corpus = try Self.corpus()
        XCTAssertGreaterThanOrEqual(corpus.count, 300)
        var equivalent = 0
        var differing: [(String, String)] = []
        var fallback: [(String, String)] = []
        for (tex, katex) in corpus {
            let result = MathRenderer.render(tex: tex, display: true)
            guard let mathML = result.mathML else {
                fallback.append((tex, result.problem ?? "?"))
                continue
            }
            guard let mine = MathMLNormalizer.canonical(mathML) else {
                differing.append((tex, "blog's MathML is not well formed"))
                continue
            }
            let theirs = MathMLNormalizer.canonical(katex) ?? ""
            if mine == theirs {
                equivalent += 1
            } else {
                differing.append((tex, Self.firstDifference(mine, theirs)))
            }
        }
        let total = Double(corpus.count)
        func share(_ n: Int) -> String { String(format: "%d (%.1f %%)", n, Double(n) * 100 / total) }
        print("KaTeX comparison: \(corpus.count) formulas, equivalent \(share(equivalent)), differing \(share(differing.count)), fallback \(share(fallback.count))")
        for (tex, how) in differing { print("  differs: \(tex)\n    \(how)") }
        for (tex, why) in fallback { print("  falls back: \(tex)\n    \(why)") }
        let unexpected = (differing + fallback).filter { Self.knownDifferences[$0.0] == nil }.map(\.0)
        XCTAssertEqual(unexpected, [], "formulas that differ from KaTeX without a known reason")
        let fixed = Set(Self.knownDifferences.keys).subtracting((differing + fallback).map(\.0))
        XCTAssertEqual(fixed, [], "formulas listed as different that now agree with KaTeX")
    }

    static func firstDifference(_ a: String, _ b: String) -> String {
        let x = Array(a), y = Array(b)
        var i = 0
        while i < x.count, i < y.count, x[i] == y[i] { i += 1 }
        let start = max(0, i - 40)
        return "blog: …\(String(x[start..<min(x.count, i + 80)]))\n    katex: …\(String(y[start..<min(y.count, i + 80)]))"
    }
}
