import BlogMath
import Foundation

/// `blog-bench math CORPUS.tex`: the TeX-to-MathML converter's throughput on a file of formulas
/// (one a line, `%` lines skipped), each converted as display math; the median of --passes runs.
func benchMath(_ args: Arguments) {
    guard let text = try? String(contentsOf: args.site, encoding: .utf8) else { fail("cannot read \(args.site.path)") }
    let formulas = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("%") }
    guard !formulas.isEmpty else { fail("no formulas in \(args.site.path)") }
    var converted = 0
    var outputBytes = 0
    for tex in formulas {
        let r = MathRenderer.render(tex: tex, display: true)
        if let html = r.mathML { converted += 1; outputBytes += html.utf8.count }
    }
    // enough rounds that one pass takes a measurable time
    let rounds = max(1, 20_000 / formulas.count)
    var sink = 0
    let seconds = medianTime(passes: args.passes) {
        for _ in 0..<rounds { for tex in formulas { sink &+= MathRenderer.render(tex: tex, display: true).mathML?.utf8.count ?? 0 } }
    }
    let total = Double(rounds * formulas.count)
    let inputBytes = formulas.reduce(0) { $0 + $1.utf8.count }
    say(String(format: "math: %d formulas (%d converted) x %d rounds: %.0f formulas/s, %.2f MB/s of TeX, %.1f µs each",
               formulas.count, converted, rounds, total / seconds, Double(inputBytes * rounds) / seconds / 1e6, seconds / total * 1e6))
    emit(.object([
        ("benchmark", .string("math")), ("formulas", .number(Double(formulas.count))), ("converted", .number(Double(converted))),
        ("formulas_per_second", .number((total / seconds).rounded())), ("output_bytes", .number(Double(outputBytes))),
        ("sink", .number(Double(sink & 1))),
    ]))
}
