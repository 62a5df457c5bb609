import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes: results to `output`, messages to `errors`.
/// Passed explicitly so that library code never touches global output state.
public final class Console: @unchecked Sendable {
    private let outputSink: (String) -> Void
    private let errorSink: (String) -> Void
    private let lock = Mutex(())
    public let errorIsTerminal: Bool
    /// How diagnostics on the error stream are coloured (plain unless it is a terminal).
    public let errorStyle: ConsoleStyle

    public init(output: @escaping (String) -> Void, errors: @escaping (String) -> Void, errorIsTerminal: Bool = false,
                errorStyle: ConsoleStyle = .plain) {
        self.outputSink = output
        self.errorSink = errors
        self.errorIsTerminal = errorIsTerminal
        self.errorStyle = errorStyle
    }

    /// The process's stdout and stderr.
    public static func standard() -> Console {
        Console(
            output: { text in fputs(text, stdout); fflush(stdout) },
            errors: { text in fputs(text, stderr) },
            errorIsTerminal: isatty(2) != 0,
            errorStyle: ConsoleStyle.detect(fd: 2, environment: ConsoleStyle.processEnvironment())
        )
    }

    /// Collects everything in memory (for tests).
    public static func capturing() -> (Console, CapturedOutput) {
        let captured = CapturedOutput()
        let console = Console(output: { captured.append(out: $0) }, errors: { captured.append(err: $0) })
        return (console, captured)
    }

    /// Every message passes here or through `printError`, where control characters from file
    /// names and YAML values are shown escaped (`TerminalText`) instead of reaching the terminal.
    public func print(_ text: String) {
        let line = TerminalText.escaped(text) + "\n"
        lock.withLock { _ in outputSink(line) }
    }

    public func printError(_ text: String) {
        let line = TerminalText.escaped(text) + "\n"
        lock.withLock { _ in errorSink(line) }
    }

    /// Writes raw text to the error stream without a newline: only for blog's own terminal
    /// control (the progress bar's carriage return and line clearing), never for input text.
    public func writeError(_ text: String) {
        lock.withLock { _ in errorSink(text) }
    }

    /// One line per diagnostic: a line feed in a file name or value is escaped too, so that it
    /// cannot forge a line of its own.
    public func report(_ diagnostic: Diagnostic) {
        printDiagnosticLine(diagnostic.description, severity: diagnostic.severity)
    }

    /// A diagnostic's text, escaped first and then coloured, so that the colour's own escape
    /// sequences are the only ones that reach the terminal.
    public func printDiagnosticLine(_ text: String, severity: Diagnostic.Severity, indent: String = "") {
        let line = indent + errorStyle.diagnostic(TerminalText.escaped(text, keepingNewlines: false), severity: severity) + "\n"
        lock.withLock { _ in errorSink(line) }
    }
}

public final class CapturedOutput: @unchecked Sendable {
    private let lock = Mutex(())
    private var outText = ""
    private var errText = ""

    public init() {}

    public var output: String { lock.withLock { _ in outText } }
    public var errors: String { lock.withLock { _ in errText } }

    func append(out text: String) { lock.withLock { _ in outText += text } }
    func append(err text: String) { lock.withLock { _ in errText += text } }
}
