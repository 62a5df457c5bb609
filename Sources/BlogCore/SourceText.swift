import Foundation
#if canImport(Glibc)
import Glibc
#endif

#if canImport(Glibc)
// Not in the Glibc module (its header wants _GNU_SOURCE).
@_silgen_name("preadv2")
private func glibcPreadv2(_ fd: Int32, _ iov: UnsafePointer<iovec>, _ count: Int32, _ offset: Int, _ flags: Int32) -> Int
/// RWF_NOWAIT (linux/fs.h): fail with EAGAIN rather than wait for the disk.
private let readWithoutWaiting: Int32 = 8
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
    /// `uncached` is called when the file's start was not in the page cache (the first read is
    /// then asked not to wait, which costs nothing when it is: see `ReadAhead`).
    public static func readBytes(_ path: String, uncached: (() -> Void)? = nil) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw POSIXError(.EISDIR) }
        let size = max(Int(info.st_size), 0)
        var filled = 0
        var atEnd = false
        // Ask for one byte more than fstat gave, straight into the array: a read that stops at
        // `size` was short, so the file ended there and no read just for end of file is needed
        // (one syscall a file fewer, and no 4 KB buffer zeroed). A file that grew gives the extra
        // byte and is read on to its end; one that shrank is read until a read returns 0.
        var bytes = try [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, initialized in
            defer { initialized = filled }
            var probe = uncached != nil
            while filled <= size {
                var count: Int
                if probe {
                    probe = false
                    // Offset -1: from the file's position, which moves on, as read(2) does.
                    var part = iovec(iov_base: UnsafeMutableRawPointer(buffer.baseAddress!), iov_len: size + 1)
                    count = glibcPreadv2(fd, &part, 1, -1, readWithoutWaiting)
                    if count < 0 {
                        // EAGAIN: not in memory (the kernel has started reading it). Anything
                        // else (a kernel or file system without the flag): no answer. Either
                        // way, a plain read follows.
                        if errno == EAGAIN { uncached!() }
                        continue
                    }
                } else {
                    count = Glibc.read(fd, buffer.baseAddress! + filled, size + 1 - filled)
                }
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
                    let count = Glibc.read(fd, chunk.baseAddress!, chunk.count)
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
    /// costs about an instruction a byte) for callers that work on the bytes.
    public static func readUTF8(path: String, displayPath: String, uncached: (() -> Void)? = nil) throws -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try readBytes(path, uncached: uncached)
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
    static func stringFromValidUTF8(_ buffer: UnsafeBufferPointer<UInt8>) -> String? {
        guard buffer.count > 0 else { return "" }
        return String(copying: unsafe UTF8Span(unchecked: unsafe Span(_unsafeElements: buffer)))
    }

    /// Index of the first byte that starts an invalid UTF-8 sequence, or nil. Overlong forms,
    /// surrogates and code points above U+10FFFF are invalid, as for the standard library.
    public static func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { firstInvalidUTF8($0) }.map { bytes.startIndex + $0 }
    }

    /// Offset of the first byte that starts an invalid UTF-8 sequence in `buffer`, or nil.
    ///
    /// The hot cases get word-sized checks: ASCII eight bytes at a time (a mixed word skips its
    /// leading ASCII bytes at once), and runs of three-byte characters whose lead byte allows every
    /// continuation byte (E1–EC, EE, EF: nearly all kana and kanji) two characters per 8-byte load.
    /// Everything else, and every byte such a check does not accept, goes through the exact
    /// per-sequence check, so the offset reported is the same as a plain scalar-by-scalar check's.
    public static func firstInvalidUTF8(_ buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let p = buffer.baseAddress else { return nil }
        let n = buffer.count
        let raw = UnsafeRawPointer(p)
        // Bit k set: a lead byte 0xEk is followed by any two continuation bytes (not E0, not ED).
        let openLeads: UInt64 = 0xDFFE
        let patternMask = threeByteMask, pattern = threeBytePattern
        let e0 = SIMD16<UInt8>(repeating: 0xE0), ed = SIMD16<UInt8>(repeating: 0xED)
        var i = 0
        // Offsets are below `n`, so the sums here cannot overflow (wrapping operators: no checks).
        while i < n {
            if i &+ 8 <= n {
                let high = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080
                if high == 0 {
                    i &+= 8
                    continue
                }
                i &+= high.trailingZeroBitCount &>> 3
                // Runs of kana and kanji (and their punctuation) five characters a load, while
                // every lead allows any continuation bytes (not E0, not ED; a continuation byte is
                // neither). A load that stops early still passes the characters before its first
                // bad byte; the checks below take it from there.
                while i &+ 16 <= n {
                    let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                    let good = ((v & patternMask) .== pattern) .& (v .!= e0) .& (v .!= ed)
                    // The lanes as two words, 0xFF where a byte passes (byte 15 always counts as passing).
                    let lanes = unsafeBitCast(good, to: (UInt64, UInt64).self)
                    let high = lanes.1 | 0xFF00_0000_0000_0000
                    if lanes.0 & high == UInt64.max {
                        i &+= 15
                        continue
                    }
                    let firstBad = lanes.0 != UInt64.max ? (~lanes.0).trailingZeroBitCount &>> 3 : 8 &+ (~high).trailingZeroBitCount &>> 3
                    i &+= firstBad / 3 &* 3
                    break
                }
                // Two three-byte characters a load: bytes 0 and 3 are 1110xxxx, the others 10xxxxxx.
                while i + 8 <= n {
                    let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    guard w & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0,
                          (openLeads &>> (w & 0x0F)) & (openLeads &>> ((w &>> 24) & 0x0F)) & 1 != 0 else { break }
                    i += 6
                }
                // One more, or the first that is not.
                if i + 4 <= n {
                    let w = raw.loadUnaligned(fromByteOffset: i, as: UInt32.self)
                    if w & 0xC0_C0F0 == 0x80_80E0 && (openLeads &>> UInt64(w & 0x0F)) & 1 != 0 {
                        i += 3
                        continue
                    }
                }
                if i >= n { break }
            }
            let b = p[i]
            if b < 0x80 {
                i += 1
                continue
            }
            if b < 0xC2 { return i }
            if b < 0xE0 {
                guard i + 1 < n, p[i + 1] & 0xC0 == 0x80 else { return i }
                i += 2
                continue
            }
            if b < 0xF0 {
                guard i + 2 < n else { return i }
                let c1 = p[i + 1]
                guard c1 & 0xC0 == 0x80, p[i + 2] & 0xC0 == 0x80,
                      !(b == 0xE0 && c1 < 0xA0), !(b == 0xED && c1 > 0x9F) else { return i }
                i += 3
                continue
            }
            guard b < 0xF5, i + 3 < n else { return i }
            let c1 = p[i + 1]
            guard c1 & 0xC0 == 0x80, p[i + 2] & 0xC0 == 0x80, p[i + 3] & 0xC0 == 0x80,
                  !(b == 0xF0 && c1 < 0x90), !(b == 0xF4 && c1 > 0x8F) else { return i }
            i += 4
        }
        return nil
    }

    // Five three-byte characters in a 16-byte load: bytes 0, 3, 6, 9 and 12 are 1110xxxx, the
    // other bytes up to 14 are 10xxxxxx; byte 15 is left for the next load. (Stored once: as
    // literals in the function they were built lane by lane on every call.)
    private static let threeByteMask: SIMD16<UInt8> = [0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0]
    private static let threeBytePattern: SIMD16<UInt8> = [0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0]

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
