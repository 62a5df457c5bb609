/// Text on its way to a terminal, with control characters shown instead of obeyed: file names and
/// YAML values reach messages, and an ESC or BEL in them would otherwise move the cursor, retitle
/// the window or ring the bell. ESC is shown as `\e`, every other control as `\u{7}` (its hex).
public enum TerminalText {
    /// `text` with C0 controls, DEL, C1 controls and bidi overrides escaped, tabs kept; line
    /// feeds kept when `keepingNewlines` (a message of several lines), escaped otherwise.
    public static func escaped(_ text: String, keepingNewlines: Bool = true) -> String {
        guard text.utf8.contains(where: { needsLook($0) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value == 0x09 || (keepingNewlines && value == 0x0A) {
                out.unicodeScalars.append(scalar)
            } else if value == 0x1B {
                out += "\\e"
            } else if isControl(value) {
                out += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// True for the scalars `escaped` may rewrite (line feed and tab included).
    public static func isControl(_ value: UInt32) -> Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// A byte that starts or is one of those scalars: C0, DEL, the lead byte of C1 (0xC2) and of
    /// the bidi overrides (0xE2); the slow path then decides.
    @inline(__always) private static func needsLook(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xE2
    }
}
