import Synchronization
import BlogCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file system's share of a build: makes the folders and files of an already built site again
/// in NEW_DIR (same tree, same sizes, zero bytes), the way blog's writer does: the folders parents
/// first on one thread, then the files on all cores (`openat`, `write`, `close`). No Markdown, no
/// templates: what this takes is the floor under `blog build`'s render phase on that file system.
func benchFiles(_ args: Arguments) {
    let source = args.site.path
    let target = URL(fileURLWithPath: args.extra[0]).standardizedFileURL.path
    var directories: [String] = []
    var files: [(path: String, size: Int)] = []
    guard let walker = FileManager.default.enumerator(atPath: source) else { fail("cannot read \(source)") }
    while let relative = walker.nextObject() as? String {
        var info = stat()
        guard lstat(source + "/" + relative, &info) == 0 else { fail("cannot stat \(relative) in \(source)") }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: directories.append(relative)
        case S_IFREG: files.append((relative, Int(info.st_size)))
        default: break
        }
    }
    guard !files.isEmpty else { fail("\(source) holds no files: give a built site") }
    directories.sort { $0.utf8.count < $1.utf8.count }
    guard mkdir(target, 0o755) == 0 else { fail("cannot create \(target): \(String(cString: strerror(errno)))") }
    let zeros = [UInt8](repeating: 0, count: files.map(\.size).max() ?? 0)
    func usage() -> (user: Double, system: Double) {
        var r = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &r)
        #else
        getrusage(RUSAGE_SELF, &r)
        #endif
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return (s(r.ru_utime), s(r.ru_stime))
    }
    let root = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else { fail("cannot open \(target)") }
    defer { close(root) }
    let cpu0 = usage(), start = monotonicSeconds()
    for directory in directories where mkdirat(root, directory, 0o755) != 0 {
        fail("cannot create \(directory): \(String(cString: strerror(errno)))")
    }
    let foldersDone = monotonicSeconds()
    let failures = Mutex(())
    var failed = 0
    zeros.withUnsafeBytes { buffer in
        WorkShare.each(count: files.count, batch: 8) { index in
            let file = files[index]
            let fd = openat(root, file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            var ok = fd >= 0
            var offset = 0
            while ok && offset < file.size {
                let count = write(fd, buffer.baseAddress! + offset, file.size - offset)
                if count <= 0 { ok = false } else { offset += count }
            }
            if fd >= 0 && close(fd) != 0 { ok = false }
            if !ok { failures.withLock { _ in failed += 1 } }
        }
    }
    let end = monotonicSeconds(), cpu1 = usage()
    if failed > 0 { fail("\(failed) files could not be written under \(target)") }
    let bytes = files.reduce(0) { $0 + $1.size }
    say(String(format: "files: %d folders in %.3f s (one thread), %d files (%.1f MB) in %.3f s (%d cores); %.3f s in all, CPU %.2f s user + %.2f s system",
               directories.count, foldersDone - start, files.count, Double(bytes) / 1e6, end - foldersDone,
               ProcessInfo.processInfo.activeProcessorCount, end - start, cpu1.user - cpu0.user, cpu1.system - cpu0.system))
    emit(.object([
        ("bench", .string("files")), ("folders", .int(directories.count)), ("files", .int(files.count)), ("bytes", .int(bytes)),
        ("folders_s", .number(foldersDone - start)), ("files_s", .number(end - foldersDone)), ("wall_s", .number(end - start)),
        ("user_s", .number(cpu1.user - cpu0.user)), ("sys_s", .number(cpu1.system - cpu0.system)),
    ]))
}
