#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Colour for messages on a terminal: the severity of a diagnostic in red (error), yellow (warning)
/// or cyan (note), its `file:line:col` in bold. Plain text everywhere else, so that pipes, logs
/// and CI output never see escape codes.
public struct ConsoleStyle: Sendable, Equatable {
    public var colored: Bool

    public init(colored: Bool) {
        self.colored = colored
    }

    public static let plain = ConsoleStyle(colored: false)

    /// Colour only when `fd` is a terminal, `NO_COLOR` is unset or empty (https://no-color.org)
    /// and `TERM` is not `dumb`.
    public static func detect(fd: Int32, environment: [String: String]) -> ConsoleStyle {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .plain }
        if environment["TERM"] == "dumb" { return .plain }
        return ConsoleStyle(colored: isatty(fd) != 0)
    }

    /// The process environment without Foundation (BlogCore does not import it).
    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        for name in ["NO_COLOR", "TERM"] {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }

    static let reset = "\u{1B}[0m"
    static let bold = "\u{1B}[1m"

    static func color(of severity: Diagnostic.Severity) -> String {
        switch severity {
        case .error: return "\u{1B}[1;31m"
        case .warning: return "\u{1B}[1;33m"
        case .note: return "\u{1B}[1;36m"
        }
    }

    /// `line` as printed for a diagnostic (`path:line:col: error: message`, or `error: message`),
    /// with the location bold and the severity coloured. The text itself is not changed, so
    /// whatever escaping made `line` safe stays in force.
    public func diagnostic(_ line: String, severity: Diagnostic.Severity) -> String {
        guard colored else { return line }
        let label = severity.rawValue + ":"
        if line.hasPrefix(label) {
            return Self.color(of: severity) + label + Self.reset + line.dropFirst(label.count)
        }
        guard let marker = line.range(of: ": " + label) else { return line }
        let location = line[..<marker.lowerBound]
        let rest = line[marker.upperBound...]
        return Self.bold + location + Self.reset + ": " + Self.color(of: severity) + label + Self.reset + rest
    }

    /// A path in a message, in bold.
    public func path(_ text: String) -> String {
        colored ? Self.bold + text + Self.reset : text
    }
}
