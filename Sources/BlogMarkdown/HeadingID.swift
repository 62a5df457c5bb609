/// Heading ids the way Qiita (and GitHub) make them: lowercase, letters / marks / numbers of any
/// script kept (so Japanese stays), `-` and `_` kept, each space becomes `-`, everything else dropped.
public enum HeadingID {
    public static func make(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.lowercased().unicodeScalars {
            switch scalar {
            case " ", "\t", "\n": out.append("-")
            case "-", "_": out.append(scalar)
            default:
                switch scalar.properties.generalCategory {
                case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                     .nonspacingMark, .spacingMark, .enclosingMark,
                     .decimalNumber, .letterNumber, .otherNumber, .connectorPunctuation:
                    out.append(scalar)
                default: break
                }
            }
        }
        return String(out)
    }
}
