import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if arch(x86_64) && canImport(_Builtin_intrinsics)
import _Builtin_intrinsics.intel
#endif

/// Reading user files as text: strict UTF-8 with the place of the first bad byte,
/// a leading byte-order mark dropped and CRLF line ends folded to LF.
public enum SourceText {
    public static func read(_ url: URL, displayPath: String) throws -> String {
        try read(path: url.path, displayPath: displayPath)
    }

    /// `read(_:displayPath:)` for a file system path.
    public static func read(path: String, displayPath: String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try readBytes(path)
        } catch {
            throw Diagnostic.error("cannot read the file: \(reason(error))", at: SourceLocation(file: displayPath))
        }
        return try decode(bytes, displayPath: displayPath)
    }

    /// A file's bytes, read straight into an array (no `Data` in between).
    /// Only regular files are read (a FIFO would wait for a writer, a device never ends), and
    /// none larger than `maxBytes`: both are `Refusal`s.
    public static func readBytes(_ path: String, maxBytes: Int = Int.max) throws -> [UInt8] {
        // Non-blocking, so that opening a FIFO does not wait; cleared again for a regular file.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw POSIXError(.EISDIR) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw Refusal(message: "not a regular file (\(SiteFiles.kindName(info.st_mode))); only regular files are read")
        }
        guard Int(info.st_size) <= maxBytes else {
            throw Refusal(message: "the file is \(Int(info.st_size)) bytes (\(String(format: "%.1f", Double(info.st_size) / 1_048_576)) MB), over the limit of \(maxBytes >> 20) MB a file (raise limits.max_file_mb in blog.yml to allow it)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let size = max(Int(info.st_size), 0)
        var filled = 0
        var atEnd = false
        // Ask for one byte more than fstat gave, straight into the array: a read that stops at
        // `size` was short, so the file ended there and no read just for end of file is needed
        // (one syscall a file fewer, and no 4 KB buffer zeroed). A file that grew gives the extra
        // byte and is read on to its end; one that shrank is read until a read returns 0.
        var bytes = try [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, initialized in
            defer { initialized = filled }
            while filled <= size {
                let count = systemRead(fd, buffer.baseAddress! + filled, size + 1 - filled)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                if count == 0 {
                    atEnd = true
                    break
                }
                filled += count
                if filled == size {
                    atEnd = true
                    break
                }
            }
        }
        if !atEnd {
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { chunk in
                while true {
                    let count = systemRead(fd, chunk.baseAddress!, chunk.count)
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                    }
                    if count == 0 { break }
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[..<count]))
                }
            }
        }
        return bytes
    }

    /// `read(path:displayPath:)` as bytes: the file's UTF-8, checked like `read`, with the
    /// byte-order mark dropped and CRLF folded, and no String made (copying a file into a String
    /// costs a pass over every byte) for callers that work on the bytes.
    public static func readUTF8(path: String, displayPath: String, maxBytes: Int = Int.max) throws -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try readBytes(path, maxBytes: maxBytes)
        } catch {
            throw Diagnostic.error("cannot read the file: \(reason(error))", at: SourceLocation(file: displayPath))
        }
        let (start, hasCR) = try check(bytes, displayPath: displayPath)
        if hasCR { return Array(try decode(bytes, displayPath: displayPath).utf8) }
        return start == 0 ? bytes : Array(bytes[start...])
    }

    public static func decode(_ bytes: [UInt8], displayPath: String) throws -> String {
        let (start, hasCR) = try check(bytes, displayPath: displayPath)
        // Checked above, so the String is made without the standard library validating again.
        var text = bytes[start...].withUnsafeBufferPointer({ SourceText.stringFromValidUTF8($0) }) ?? ""
        if hasCR {
            text = text.replacingOccurrences(of: "\r\n", with: "\n")
        }
        return text
    }

    /// Where the text starts (after a byte-order mark) and whether it has a CR; throws the place
    /// of the first bad byte when the bytes are not valid UTF-8.
    static func check(_ bytes: [UInt8], displayPath: String) throws -> (start: Int, hasCR: Bool) {
        var start = 0
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { start = 3 }
        let body = bytes[start...]
        let hasCR = body.withUnsafeBufferPointer { $0.baseAddress.map { memchr($0, 0x0D, body.count) != nil } ?? false }
        if hasCR && body.withUnsafeBufferPointer({ $0.baseAddress.map { memchr($0, 0x0A, body.count) == nil } ?? false }) {
            // Every line ends in CR alone: read as one line, the front matter would seem missing.
            throw Diagnostic.error("the file has old Mac line endings (CR only); save it with LF line endings",
                                   at: SourceLocation(file: displayPath, line: 1, column: 1))
        }
        let firstBad = firstInvalidUTF8(body)
        guard firstBad == nil else {
            let bad = firstBad ?? body.startIndex
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
        return (start, hasCR)
    }

    /// A String from bytes already known to be valid UTF-8 (nil only for an empty buffer's base).
    @inline(__always)
    public static func stringFromValidUTF8(_ buffer: UnsafeBufferPointer<UInt8>) -> String? {
        guard buffer.count > 0 else { return "" }
        #if !BLOG_PORTABLE
        if #available(macOS 26, iOS 26, *) {
            return String(copying: unsafe UTF8Span(unchecked: unsafe Span(_unsafeElements: buffer)))
        }
        #endif
        // Without UTF8Span (before macOS 26): the standard library validates the bytes once more.
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Index of the first byte that starts an invalid UTF-8 sequence, or nil. Overlong forms,
    /// surrogates and code points above U+10FFFF are invalid, as for the standard library.
    public static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { firstInvalidUTF8($0) }.map { bytes.startIndex + $0 }
    }

    /// Offset of the first byte that starts an invalid UTF-8 sequence in `buffer`, or nil.
    ///
    /// The hot cases get 16-byte checks: ASCII sixteen bytes a load (a mixed load skips its leading
    /// ASCII bytes at once), and runs of three-byte characters whose lead byte allows every
    /// continuation byte (E1–EC, EE, EF: nearly all kana and kanji) five characters a load.
    /// Everything else, and every byte such a check does not accept, goes through the exact
    /// per-sequence check (`checkSequence`), so the offset reported is the same as a plain
    /// scalar-by-scalar check's.
    ///
    /// Posts mix the two kinds in short runs, so the switches between them are most of the cost:
    /// a run of kana that ends goes straight back to the ASCII check at the byte that stopped it,
    /// and the lanes of a check are read as one bit mask (`signBits`) rather than two words.
    public static func firstInvalidUTF8(_ buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let p = buffer.baseAddress else { return nil }
        let n = buffer.count
        let raw = UnsafeRawPointer(p)
        let patternMask = threeByteMask, pattern = threeBytePattern
        let e0 = SIMD16<UInt8>(repeating: 0xE0), ed = SIMD16<UInt8>(repeating: 0xED)
        var i = 0
        // Every load is of 16 bytes at i with i + 16 <= n (in bounds); offsets are below `n`, so
        // the sums cannot overflow (wrapping operators: no checks).
        outer: while i &+ 16 <= n {
            let high = signBits(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))
            if high == 0 {
                i &+= 16
                continue
            }
            i &+= high.trailingZeroBitCount
            // Runs of kana and kanji (and their punctuation) five characters a load, while every
            // lead allows any continuation bytes (not E0, not ED; a continuation byte is neither).
            // A load that stops early still passes the characters before its first bad byte.
            while i &+ 16 <= n {
                let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                let good = ((v & patternMask) .== pattern) .& (v .!= e0) .& (v .!= ed)
                // Bit k set where byte k passes (byte 15 always counts as passing).
                let passed = signBits(unsafeBitCast(good, to: SIMD16<UInt8>.self)) | 0x8000
                if passed == 0xFFFF {
                    i &+= 15
                    continue
                }
                // The whole characters before the first byte that failed (k / 3 = k · 171 >> 9 for k < 16).
                let done = (((~passed).trailingZeroBitCount &* 171) &>> 9) &* 3
                if done != 0 {
                    i &+= done
                    continue outer
                }
                // The character at i is something else: the exact check, then the ASCII check again.
                if !checkSequence(p, n, &i) { return i }
                continue outer
            }
            break
        }
        // The last bytes (fewer than 16 from i).
        while i < n {
            if !checkSequence(p, n, &i) { return i }
        }
        return nil
    }

    /// Checks the UTF-8 sequence that starts at p[i] (i < n): true and i moved past it when it is
    /// valid, false (i unchanged) when not. Overlong forms, surrogates and code points above
    /// U+10FFFF are invalid.
    @inline(__always)
    static func checkSequence(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) -> Bool {
        let b = p[i]
        if b < 0x80 {
            i &+= 1
            return true
        }
        if b < 0xC2 { return false }
        if b < 0xE0 {
            guard i &+ 1 < n, p[i &+ 1] & 0xC0 == 0x80 else { return false }
            i &+= 2
            return true
        }
        if b < 0xF0 {
            guard i &+ 2 < n else { return false }
            let c1 = p[i &+ 1]
            guard c1 & 0xC0 == 0x80, p[i &+ 2] & 0xC0 == 0x80,
                  !(b == 0xE0 && c1 < 0xA0), !(b == 0xED && c1 > 0x9F) else { return false }
            i &+= 3
            return true
        }
        guard b < 0xF5, i &+ 3 < n else { return false }
        let c1 = p[i &+ 1]
        guard c1 & 0xC0 == 0x80, p[i &+ 2] & 0xC0 == 0x80, p[i &+ 3] & 0xC0 == 0x80,
              !(b == 0xF0 && c1 < 0x90), !(b == 0xF4 && c1 > 0x8F) else { return false }
        i &+= 4
        return true
    }

    /// Bit k set when byte k of v has its top bit set (pmovmskb on x86-64). Elsewhere the two
    /// halves' top bits are gathered by a multiplication: slower, but the same answer. The
    /// standard library's SIMD types have no such operation, and reading the lanes as two words
    /// costs more on every load.
    @inline(__always)
    static func signBits(_ v: SIMD16<UInt8>) -> Int {
        #if arch(x86_64) && canImport(_Builtin_intrinsics)
        return Int(truncatingIfNeeded: _mm_movemask_epi8(unsafeBitCast(v, to: __m128i.self)))
        #else
        return portableSignBits(v)
        #endif
    }

    /// `signBits` without the x86-64 instruction: x & 0x80…80 has bit 8k + 7 for byte k, and the
    /// multiplication by 0x0002040810204081 moves bit 8k + 7 to bit 56 + k, with no carries (each
    /// bit of the product's top byte comes from one term).
    @inline(__always)
    static func portableSignBits(_ v: SIMD16<UInt8>) -> Int {
        let w = unsafeBitCast(v, to: (UInt64, UInt64).self)
        let gather: UInt64 = 0x0002_0408_1020_4081
        let low = ((w.0 & 0x8080_8080_8080_8080) &* gather) &>> 56, high = ((w.1 & 0x8080_8080_8080_8080) &* gather) &>> 56
        return Int(truncatingIfNeeded: low | high &<< 8)
    }

    // Five three-byte characters in a 16-byte load: bytes 0, 3, 6, 9 and 12 are 1110xxxx, the
    // other bytes up to 14 are 10xxxxxx; byte 15 is left for the next load. (Stored once: as
    // literals in the function they were built lane by lane on every call.)
    private static let threeByteMask: SIMD16<UInt8> = [0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0]
    private static let threeBytePattern: SIMD16<UInt8> = [0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0]

    /// Why a file was not read, when the system did not refuse it.
    public struct Refusal: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public static func reason(_ error: Error) -> String {
        if let refusal = error as? Refusal { return refusal.message }
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
