/// TeX tokens: control sequences, characters and the category-code specials, with comments dropped.
enum Token: Equatable {
    case command(String)
    case char(Unicode.Scalar)
    case space
    case open
    case close
    case sup
    case sub
    case align
    case param(Int)
}

enum Lexer {
    static func tokens(_ source: String) -> [Token] {
        let scalars = Array(source.unicodeScalars)
        var out: [Token] = []
        out.reserveCapacity(scalars.count)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            switch c {
            case "\\":
                i += 1
                guard i < scalars.count else { out.append(.command("")); break }
                if isLetter(scalars[i]) {
                    var name = ""
                    while i < scalars.count, isLetter(scalars[i]) { name.unicodeScalars.append(scalars[i]); i += 1 }
                    // a starred name (`\operatorname*`, `\align*` is an environment name, not this)
                    if i < scalars.count, scalars[i] == "*", name == "operatorname" || name == "tag" { name += "*"; i += 1 }
                    out.append(.command(name))
                    // spaces after a control word are not tokens
                    while i < scalars.count, isSpace(scalars[i]) { i += 1 }
                    continue
                }
                out.append(.command(String(scalars[i])))
                i += 1
                continue
            case "{": out.append(.open)
            case "}": out.append(.close)
            case "^": out.append(.sup)
            case "_": out.append(.sub)
            case "&": out.append(.align)
            case "#":
                if i + 1 < scalars.count, let digit = scalars[i + 1].properties.numericType != nil ? Int(String(scalars[i + 1])) : nil {
                    out.append(.param(digit))
                    i += 2
                    continue
                }
                out.append(.char(c))
            case "%":
                while i < scalars.count, scalars[i] != "\n" { i += 1 }
                continue
            default:
                if isSpace(c) {
                    if out.last != .space { out.append(.space) }
                } else {
                    out.append(.char(c))
                }
            }
            i += 1
        }
        return out
    }

    static func isLetter(_ c: Unicode.Scalar) -> Bool {
        (c >= "a" && c <= "z") || (c >= "A" && c <= "Z")
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r"
    }
}
