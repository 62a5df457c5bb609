/// TeX to MathML Core, at build time: what a formula becomes in the page, or why it stays TeX.
public struct MathConversion: Sendable, Equatable {
    /// The `<math>` element, with the TeX kept in its annotation; nil when the formula is not converted.
    public let mathML: String?
    /// Why the formula was not converted (`unsupported TeX command \foo`, `unbalanced braces`, ...).
    public let problem: String?
}

public enum MathRenderer {
    /// Longest formula converted, in TeX tokens (after macro expansion): a bound on time and output.
    public static let maxTokens = 20_000
    /// Deepest group nesting converted: a bound on recursion, safe on a worker thread's stack.
    public static let maxDepth = 64

    /// Converts one formula. Never throws and never traps: a formula it cannot convert comes back
    /// with `problem` set, for the caller to keep as escaped TeX.
    public static func render(tex: String, display: Bool) -> MathConversion {
        guard tex.utf8.count <= maxTokens * 8 else { return MathConversion(mathML: nil, problem: "unsupported TeX: formula too long") }
        let tokens = Lexer.tokens(tex)
        guard tokens.count <= maxTokens else { return MathConversion(mathML: nil, problem: "unsupported TeX: formula too long") }
        let parser = Parser(tokens: tokens, display: display)
        do {
            var body = try parser.parseFormula()
            if let tag = parser.tag { body = tagged(body, tag) }
            var out: [UInt8] = []
            out.reserveCapacity(tex.utf8.count * 12 + 160)
            out += "<math xmlns=\"http://www.w3.org/1998/Math/MathML\" display=\"".utf8
            out += (display ? "block" : "inline").utf8
            out += "\"><semantics>".utf8
            body.write(into: &out)
            out += "<annotation encoding=\"application/x-tex\">".utf8
            escape(tex, into: &out)
            out += "</annotation></semantics></math>".utf8
            return MathConversion(mathML: String(decoding: out, as: UTF8.self), problem: nil)
        } catch let error as MathError {
            return MathConversion(mathML: nil, problem: error.message)
        } catch {
            return MathConversion(mathML: nil, problem: "unsupported TeX: \(error)")
        }
    }

    /// `\tag{…}`: the formula centred with its label at the right, as a one-row table.
    private static func tagged(_ body: MNode, _ label: MNode) -> MNode {
        MNode("mtable", [("width", "100%")], children: [MNode("mtr", children: [
            MNode("mtd", [("width", "50%")]),
            MNode("mtd", children: [body]),
            MNode("mtd", [("width", "50%")]),
            MNode("mtd", children: [label]),
        ])])
    }
}

struct MathError: Error {
    let message: String
    static func unsupported(_ command: String) -> MathError { MathError(message: "unsupported TeX command \\\(command)") }
    static func invalid(_ what: String) -> MathError { MathError(message: "unsupported TeX: \(what)") }
}
