import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reading user files as text: strict UTF-8 with the place of the first bad byte,
/// a leading byte-order mark dropped and CRLF line ends folded to LF.
public enum SourceText {
    public static func read(_ url: URL, displayPath: String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try readBytes(url.path)
        } catch {
            throw Diagnostic.error("cannot read the file: \(reason(error))", at: SourceLocation(file: displayPath))
        }
        return try decode(bytes, displayPath: displayPath)
    }

    /// A file's bytes, read straight into an array (no `Data` in between).
    public static func readBytes(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw POSIXError(.EISDIR) }
        let size = max(Int(info.st_size), 0)
        var filled = 0
        // Read the size fstat gave straight into the array; then read on until end of file
        // (a file that grew, or one that reports no size).
        var bytes = try [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while filled < size {
                let count = Glibc.read(fd, buffer.baseAddress! + filled, size - filled)
                if count < 0 {
                    if errno == EINTR { continue }
                    initialized = filled
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                if count == 0 { break }
                filled += count
            }
            initialized = filled
        }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    public static func decode(_ bytes: [UInt8], displayPath: String) throws -> String {
        var start = 0
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { start = 3 }
        let body = bytes[start...]
        let hasCR = body.withUnsafeBufferPointer { $0.baseAddress.map { memchr($0, 0x0D, body.count) != nil } ?? false }
        // The standard library validates quickly; the slow scan below only runs to place an error.
        guard var text = String(validating: body, as: UTF8.self) else {
            let bad = firstInvalidUTF8(body) ?? body.startIndex
            var line = 1
            var column = 1
            for byte in body[body.startIndex..<bad] {
                if byte == 0x0A {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            throw Diagnostic.error(String(format: "the file is not valid UTF-8 (byte 0x%02X); save it as UTF-8", body[bad]),
                                   at: SourceLocation(file: displayPath, line: line, column: column))
        }
        if hasCR {
            text = text.replacingOccurrences(of: "\r\n", with: "\n")
        }
        return text
    }

    /// Index of the first byte that starts an invalid UTF-8 sequence, or nil.
    public static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var minimum: UInt32
            var scalar: UInt32
            switch b {
            case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(b & 0x1F)
            case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(b & 0x0F)
            case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(b & 0x07)
            default: return i
            }
            guard i + length <= end else { return i }
            for k in 1..<length {
                let c = bytes[i + k]
                guard c & 0xC0 == 0x80 else { return i }
                scalar = scalar << 6 | UInt32(c & 0x3F)
            }
            if scalar < minimum || scalar > 0x10FFFF || (scalar >= 0xD800 && scalar <= 0xDFFF) { return i }
            i += length
        }
        return nil
    }

    static func reason(_ error: Error) -> String {
        if let posix = error as? POSIXError {
            switch posix.code {
            case .EACCES: return "permission denied"
            case .ENOENT: return "no such file"
            default: return String(cString: strerror(posix.code.rawValue))
            }
        }
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSCocoaErrorDomain {
            switch nsError.code {
            case NSFileReadNoPermissionError: return "permission denied"
            case NSFileReadNoSuchFileError: return "no such file"
            default: break
            }
        }
        return nsError.localizedDescription
    }
}
