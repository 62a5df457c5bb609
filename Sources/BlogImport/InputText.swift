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
    /// Scalars before every `InputText.stride`-th byte, so that a column is found without walking
    /// a whole line (an API export is one line of megabytes with an item every few hundred bytes).
    private let scalarCheckpoints: [Int]
    static let stride = 256

    /// Validates `bytes` as UTF-8. Throws a diagnostic at the first bad sequence.
    public init(path: String, bytes: [UInt8]) throws {
        self.path = path
        var body = bytes
        if body.count >= 3, body[0] == 0xEF, body[1] == 0xBB, body[2] == 0xBF {
            body.removeFirst(3)
        }
        self.bytes = body
        var starts = [0]
        var checkpoints: [Int] = []
        checkpoints.reserveCapacity(body.count / InputText.stride + 1)
        body.withUnsafeBufferPointer { buffer in
            var scalars = 0
            for index in 0..<buffer.count {
                let byte = buffer[index]
                if index % InputText.stride == 0 { checkpoints.append(scalars) }
                if byte & 0xC0 != 0x80 { scalars += 1 }
                if byte == 0x0A { starts.append(index + 1) }
            }
            if buffer.count % InputText.stride == 0 { checkpoints.append(scalars) } // so that the end has one too
        }
        self.lineStarts = starts
        self.scalarCheckpoints = checkpoints
        if let bad = InputText.firstInvalidUTF8(body) {
            self.text = ""
            throw Diagnostic.error(
                String(format: "input is not valid UTF-8 (byte 0x%02X at offset %d)", body[bad], bad),
                at: InputText.location(path: path, bytes: body, lineStarts: starts, checkpoints: checkpoints, offset: bad))
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
        InputText.location(path: path, bytes: bytes, lineStarts: lineStarts, checkpoints: scalarCheckpoints, offset: offset)
    }

    public func location(line: Int, column: Int = 0) -> SourceLocation {
        SourceLocation(file: path, line: line, column: column)
    }

    private static func location(path: String, bytes: [UInt8], lineStarts: [Int], checkpoints: [Int], offset: Int) -> SourceLocation {
        let clamped = max(0, min(offset, bytes.count))
        // Binary search for the last line start <= offset.
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= clamped { low = mid } else { high = mid - 1 }
        }
        let column = scalars(before: clamped, bytes, checkpoints) - scalars(before: lineStarts[low], bytes, checkpoints) + 1
        return SourceLocation(file: path, line: low + 1, column: column)
    }

    /// Scalars in `bytes[..<offset]`: the checkpoint's count plus at most `stride` bytes counted
    /// (every byte that is not a continuation byte starts one).
    private static func scalars(before offset: Int, _ bytes: [UInt8], _ checkpoints: [Int]) -> Int {
        let slot = offset / stride
        return checkpoints[slot] + countScalars(bytes, from: slot * stride, to: offset)
    }

    private static func countScalars(_ bytes: [UInt8], from start: Int, to end: Int) -> Int {
        var count = 0
        var index = start
        while index < end {
            if bytes[index] & 0xC0 != 0x80 { count += 1 }
            index += 1
        }
        return count
    }

    /// The offset of the first byte that does not belong to a well-formed UTF-8 sequence
    /// (overlong forms, surrogates and values above U+10FFFF are rejected), or nil.
    public static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        SourceText.firstInvalidUTF8(bytes[...])
    }
}
