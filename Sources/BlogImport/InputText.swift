import BlogCore
import Foundation

/// The bytes of one input file, checked to be UTF-8, with a way to turn byte offsets into
/// `line:column` (both from 1; columns count Unicode scalars, so a Japanese character is one column).
public struct InputText: Sendable {
    public let path: String
    public let bytes: [UInt8]
    /// The decoded text (a leading byte-order mark removed).
    public let text: String
    /// Byte offset where each line starts.
    private let lineStarts: [Int]

    /// Validates `bytes` as UTF-8. Throws a diagnostic at the first bad sequence.
    public init(path: String, bytes: [UInt8]) throws {
        self.path = path
        var body = bytes
        if body.count >= 3, body[0] == 0xEF, body[1] == 0xBB, body[2] == 0xBF {
            body.removeFirst(3)
        }
        self.bytes = body
        var starts = [0]
        for (index, byte) in body.enumerated() where byte == 0x0A {
            starts.append(index + 1)
        }
        self.lineStarts = starts
        if let bad = InputText.firstInvalidUTF8(body) {
            self.text = ""
            throw Diagnostic.error(
                String(format: "input is not valid UTF-8 (byte 0x%02X at offset %d)", body[bad], bad),
                at: InputText.location(path: path, bytes: body, lineStarts: starts, offset: bad))
        }
        self.text = String(decoding: body, as: UTF8.self)
    }

    /// Reads and validates a file.
    public static func read(path: String) throws -> InputText {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                throw Diagnostic.error(isDirectory.boolValue ? "is a directory, expected a file" : "cannot read file",
                                       at: SourceLocation(file: path))
            }
            throw Diagnostic.error("no such file", at: SourceLocation(file: path))
        }
        return try InputText(path: path, bytes: [UInt8](data))
    }

    /// The location of a byte offset.
    public func location(ofByte offset: Int) -> SourceLocation {
        InputText.location(path: path, bytes: bytes, lineStarts: lineStarts, offset: offset)
    }

    public func location(line: Int, column: Int = 0) -> SourceLocation {
        SourceLocation(file: path, line: line, column: column)
    }

    private static func location(path: String, bytes: [UInt8], lineStarts: [Int], offset: Int) -> SourceLocation {
        let clamped = max(0, min(offset, bytes.count))
        // Binary search for the last line start <= offset.
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= clamped { low = mid } else { high = mid - 1 }
        }
        var column = 1
        var index = lineStarts[low]
        while index < clamped {
            // Count scalars: every byte that is not a continuation byte starts one.
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return SourceLocation(file: path, line: low + 1, column: column)
    }

    /// The offset of the first byte that does not belong to a well-formed UTF-8 sequence
    /// (overlong forms, surrogates and values above U+10FFFF are rejected), or nil.
    public static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        SourceText.firstInvalidUTF8(bytes[...])
    }
}
