import Synchronization
import BlogCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The output writer's file-system steps: folders, writes and comparisons on bytes, one file at a time.
extension OutputWriter {
    /// `a/b/c` → `a/b`; `a` → ``. Found on the UTF-8 bytes (`/` never occurs inside a multi-byte
    /// character; `lastIndex(of:)` on the String walked characters).
    static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(path[..<slash])
    }

    /// Creates the folders of `paths` under `root` with mkdir(2), parents first; `made` remembers
    /// the folders already there, so batches do not ask twice.
    /// (It runs on the writer's one thread for every batch, so it works on UTF-8 lengths: `String.count`
    /// walks characters, and was most of its cost. A folder goes into `made` as it is first met:
    /// a set of the batch's folders beside it, then merged in, hashed every path three times.)
    /// The folders that did not exist before are appended to `created`, parents first.
    static func makeDirectories(for paths: some Sequence<String>, under root: String, made: inout Set<String>, created: inout [String],
                                location: SourceLocation) throws {
        var directories: [String] = []
        for path in paths {
            var directory = parent(of: path)
            while !directory.isEmpty && made.insert(directory).inserted {
                directories.append(directory)
                directory = parent(of: directory)
            }
        }
        // A folder's parent is shorter in bytes, so this order makes parents first.
        directories.sort { $0.utf8.count < $1.utf8.count }
        try withFolder(root) { folder, prefix in
            for directory in directories {
                if mkdirat(folder, prefix + directory, 0o755) == 0 {
                    created.append(directory)
                } else if errno != EEXIST {
                    throw Diagnostic.error("cannot create \(directory): \(String(cString: strerror(errno)))", at: location)
                }
            }
        }
    }

    /// Writes files under `root` (each at its path + `suffix`) on all cores.
    /// Returns what `fstat` said of each file once written, for the build stamp (nil where it
    /// could not tell).
    @discardableResult
    static func writeAll(_ files: [OutputFile], root: String, suffix: String, location: SourceLocation) throws -> [BuildStamp.FileInfo?] {
        var failure: String?
        let lock = Mutex(())
        let infos: [BuildStamp.FileInfo?] = withFolder(root) { folder, prefix in
            WorkShare.map(count: files.count, batch: 8) { index in
                let file = files[index]
                let result = OutputWriter.writeFile(file.bytes, toPath: prefix + file.path + suffix, relativeTo: folder)
                if !result.written {
                    let reason = String(cString: strerror(errno))
                    lock.withLock { _ in failure = failure ?? "cannot write \(file.path): \(reason)" }
                }
                return result.info
            }
        }
        if let failure { throw Diagnostic.error(failure, at: location) }
        return infos
    }

    /// A path relative to the output folder with no empty, `.` or `..` component and no NUL byte.
    /// One pass over the UTF-8 bytes: the main thread checks every output's path before handing a
    /// batch to the writer, and splitting into substrings (plus Foundation's `contains`) cost as much
    /// as writing the batch's folders.
    static func isSafeRelativePath(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            if bytes.isEmpty { return false }
            var componentStart = 0
            var dots = 0 // the component so far is only dots: how many (-1: something else)
            for index in 0...bytes.count {
                let byte: UInt8 = index < bytes.count ? bytes[index] : UInt8(ascii: "/")
                switch byte {
                case 0:
                    return false
                case UInt8(ascii: "/"):
                    let length = index - componentStart
                    if length == 0 || (dots == length && length <= 2) { return false }
                    componentStart = index + 1
                    dots = 0
                case UInt8(ascii: "."):
                    if dots >= 0 { dots += 1 }
                default:
                    dots = -1
                }
            }
            return true
        }
    }

    /// Whether the file at `path` (relative to `directory`; not a symbolic link) holds exactly
    /// `bytes`. Read in 64 KB pieces into one buffer and compared with `memcmp`, stopping at the
    /// first difference, because a rebuild compares every output with what is there and a buffer
    /// of the file's size per file, compared with `Array`'s `==`, is a visible share of it.
    static func sameBytes(atPath path: String, _ bytes: [UInt8], relativeTo directory: Int32 = AT_FDCWD) -> Bool {
        let fd = openat(directory, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == bytes.count else { return false }
        if bytes.isEmpty { return true }
        return bytes.withUnsafeBytes { expected in
            withUnsafeTemporaryAllocation(byteCount: min(bytes.count, 1 << 16), alignment: 16) { buffer in
                var offset = 0
                while offset < expected.count {
                    let count = systemRead(fd, buffer.baseAddress!, min(buffer.count, expected.count - offset))
                    if count <= 0 { return false }
                    if memcmp(buffer.baseAddress!, expected.baseAddress! + offset, count) != 0 { return false }
                    offset += count
                }
                return true
            }
        }
    }

    /// Runs `body` with a descriptor of the folder `root` and the prefix that makes a path below
    /// it usable with the `…at` calls: "" with the folder open, `root/` (and `AT_FDCWD`) when it
    /// cannot be opened. Thousands of files are created under one folder, and a path relative to
    /// it spares the kernel the walk down to it for each of them.
    static func withFolder<R>(_ root: String, _ body: (Int32, String) throws -> R) rethrows -> R {
        let folder = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return try body(AT_FDCWD, root + "/") }
        defer { close(folder) }
        return try body(folder, "")
    }

    /// Appends `bytes` to the file at `path` (which must exist).
    static func appendBytes(_ bytes: [UInt8], toPath path: String) -> Bool {
        if bytes.isEmpty { return true }
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { return false }
        let count = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress!, bytes.count) }
        return close(fd) == 0 && count == bytes.count
    }

    static func writeBytes(_ bytes: [UInt8], toPath path: String, relativeTo directory: Int32 = AT_FDCWD) -> Bool {
        writeFile(bytes, toPath: path, relativeTo: directory).written
    }

    /// Writes the file (`written` false on failure, with `errno` set) and returns what `fstat`
    /// says of it after the last write: its size, time and inode, taken from the descriptor at
    /// hand rather than by walking the path again later.
    static func writeFile(_ bytes: [UInt8], toPath path: String, relativeTo directory: Int32 = AT_FDCWD) -> (written: Bool, info: BuildStamp.FileInfo?) {
        let fd = openat(directory, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return (false, nil) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if count <= 0 {
                close(fd)
                return (false, nil)
            }
            offset += count
        }
        var info = stat()
        // fstat failing on a descriptor just written is not expected; the stamp then looks the
        // file up by path.
        let known = fstat(fd, &info) == 0
        guard close(fd) == 0 else { return (false, nil) }
        return (true, known ? BuildStamp.FileInfo(info) : nil)
    }
}
