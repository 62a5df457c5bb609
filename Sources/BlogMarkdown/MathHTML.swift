import BlogMath

/// What a formula becomes in the page (`markdown.math` in blog.yml).
public enum MathOutput: String, Sendable, Hashable, CaseIterable {
    /// MathML Core written at build time: typeset by the browser, no script.
    case mathml
    /// The TeX kept, escaped, in `<span class="math …">` / `<div class="math display">`, for a
    /// theme that brings its own renderer.
    case keep
}

/// A formula left as TeX because the converter could not handle it.
public struct MathProblem: Sendable, Hashable {
    /// The line of the Markdown text the formula is on (its paragraph's first line for inline math).
    public var line: Int
    /// `unsupported TeX command \foo`, `unsupported TeX: unbalanced braces`, ...
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
}

/// The one place math HTML is written: `$…$`, `$$…$$` and ```` ```math ```` all come here.
enum MathHTML {
    /// The HTML of one formula: its wrapper (`<span class="math inline|display">` or, for a block,
    /// `<div class="math display">`) around MathML, or around the escaped TeX when the option is
    /// `keep` or the formula does not convert (then `problem` is set).
    static func html<C: Collection>(tex: C, display: Bool, block: Bool, output: MathOutput,
                                    problem: inout String?) -> [UInt8] where C.Element == UInt8 {
        var html = Array((block ? "<div class=\"math display\">" : display ? "<span class=\"math display\">" : "<span class=\"math inline\">").utf8)
        let close = block ? "</div>" : "</span>"
        if output == .mathml {
            let result = MathRenderer.render(tex: String(decoding: tex, as: UTF8.self), display: display || block)
            if let mathML = result.mathML {
                html += mathML.utf8
                html += close.utf8
                return html
            }
            problem = result.problem
        }
        appendEscaped(&html, tex)
        html += close.utf8
        return html
    }
}
