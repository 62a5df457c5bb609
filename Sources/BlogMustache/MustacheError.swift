import BlogCore

/// A template problem, found while parsing, validating or rendering.
///
/// `description` reads `path:line:column: error: message`; lines and columns count from 1,
/// columns in Unicode scalars. A line of 0 means "no position" and is left out.
public struct MustacheError: Error, CustomStringConvertible, Equatable, Sendable {
    public var location: SourceLocation
    public var message: String

    public init(at location: SourceLocation, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): error: \(message)" }
}

/// The name, path and text of one template, shared by everything parsed from it so errors
/// can be placed. Immutable.
final class SourceInfo: Sendable {
    let name: String
    let path: String
    let bytes: [UInt8]

    init(name: String, path: String, bytes: [UInt8]) {
        self.name = name
        self.path = path
        self.bytes = bytes
    }

    /// 1-based line and column (in Unicode scalars) of a byte offset.
    func position(of offset: Int) -> (line: Int, column: Int) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < end {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        var column = 1
        var j = lineStart
        while j < end {
            if bytes[j] & 0xC0 != 0x80 { column += 1 }
            j += 1
        }
        return (line, column)
    }

    func error(at offset: Int, _ message: String) -> MustacheError {
        let (line, column) = position(of: offset)
        return MustacheError(at: SourceLocation(file: path, line: line, column: column), message: message)
    }
}
