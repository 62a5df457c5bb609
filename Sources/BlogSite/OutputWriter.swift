import BlogCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a built site to disk without ever leaving a half-written output folder or losing a file
/// blog did not write:
/// - the site is written into a staging folder beside the output, then swapped in with renames;
/// - a file whose bytes did not change is hard-linked from the previous build (same inode, same
///   modification time, so rsync and CDNs see no change);
/// - files a previous build wrote (listed in its manifest) and this build does not are dropped;
/// - anything else found in the output folder (a `.git`, a `CNAME` put there by hand) is carried over;
/// - an output folder that is the source folder or contains it is refused, and so is a non-empty
///   folder without blog's manifest.
public struct OutputWriter {
    public static let manifestName = ".blog-manifest"
    static let manifestHeader = "# blog build manifest v1: files written by `blog build`. Do not edit."

    public var output: URL
    public var source: URL

    public init(output: URL, source: URL) {
        self.output = output.standardizedFileURL
        self.source = source.standardizedFileURL
    }

    public struct Summary: Sendable, Equatable {
        public var written = 0
        public var unchanged = 0
        public var removed = 0
        public var preserved = 0

        public init(written: Int = 0, unchanged: Int = 0, removed: Int = 0, preserved: Int = 0) {
            self.written = written
            self.unchanged = unchanged
            self.removed = removed
            self.preserved = preserved
        }
    }

    static func realPath(_ url: URL) -> String {
        // Resolve what exists; keep the missing tail as written.
        var existing = url
        var tail: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path) && existing.path != "/" {
            tail.insert(existing.lastPathComponent, at: 0)
            existing = existing.deletingLastPathComponent()
        }
        var resolved = existing.resolvingSymlinksInPath().path
        for part in tail { resolved = (resolved as NSString).appendingPathComponent(part) }
        return resolved
    }

    /// Checks the output folder before anything is built, so a refusal costs nothing.
    public func validate() throws {
        let outputPath = OutputWriter.realPath(output)
        let sourcePath = OutputWriter.realPath(source)
        let location = SourceLocation(file: output.path)
        if outputPath == "/" || outputPath == NSHomeDirectory() {
            throw Diagnostic.error("refusing to write the site into \(outputPath)", at: location)
        }
        if outputPath == sourcePath || sourcePath.hasPrefix(outputPath + "/") {
            throw Diagnostic.error("the output folder must not be the source folder or contain it; choose another --output", at: location)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw Diagnostic.error("the output path exists and is not a folder", at: location)
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
            if !entries.isEmpty && !entries.contains(OutputWriter.manifestName) {
                throw Diagnostic.error("the output folder is not empty and was not written by blog (no \(OutputWriter.manifestName)); refusing to touch it. Empty it or choose another --output", at: location)
            }
        }
    }

    func readManifest() -> Set<String> {
        guard let text = try? String(contentsOfFile: output.appendingPathComponent(OutputWriter.manifestName).path, encoding: .utf8) else { return [] }
        var paths = Set<String>()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            paths.insert(String(line))
        }
        return paths
    }

    /// Writes `files` (paths relative to the output folder) and returns what changed.
    @discardableResult
    public func write(_ files: [OutputFile]) throws -> Summary {
        try validate()
        let fm = FileManager.default
        let parent = output.deletingLastPathComponent()
        let name = output.lastPathComponent
        let pid = getpid()
        let staging = parent.appendingPathComponent(".\(name).blog-staging-\(pid)")
        let retired = parent.appendingPathComponent(".\(name).blog-old-\(pid)")
        let location = SourceLocation(file: output.path)
        do {
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw Diagnostic.error("cannot create the folder \(parent.path): \(error.localizedDescription)", at: location)
        }
        if fm.fileExists(atPath: staging.path) { try? fm.removeItem(at: staging) }
        let hadOutput = fm.fileExists(atPath: output.path)
        let oldManifest = hadOutput ? readManifest() : []
        var summary = Summary()
        var newPaths = Set<String>()
        for file in files {
            guard OutputWriter.isSafeRelativePath(file.path) else {
                throw Diagnostic.error("refusing to write outside the output folder: \(file.path)", at: location)
            }
            newPaths.insert(file.path)
        }

        // Files in the old output that blog did not write: carried over, never overwritten.
        var foreign: [String] = []
        if hadOutput {
            for relative in OutputWriter.walk(output) where relative != OutputWriter.manifestName && !oldManifest.contains(relative) {
                if newPaths.contains(relative) {
                    throw Diagnostic.error("\(relative) in the output folder was not written by blog and this build would replace it; move it to static/ or delete it", at: location)
                }
                foreign.append(relative)
            }
        }

        do {
            try fm.createDirectory(at: staging, withIntermediateDirectories: true)
            // Directories first, then the files on all cores.
            var directories = Set<String>()
            for path in newPaths.union(foreign) {
                let directory = (path as NSString).deletingLastPathComponent
                if !directory.isEmpty { directories.insert(directory) }
            }
            // Sorted, so parents come before children; plain mkdir(2) keeps this cheap for thousands of folders.
            var made = Set<String>()
            for directory in directories.sorted() {
                var partial = ""
                for component in directory.split(separator: "/") {
                    partial += partial.isEmpty ? String(component) : "/" + component
                    if made.insert(partial).inserted {
                        let path = staging.path + "/" + partial
                        if mkdir(path, 0o755) != 0 && errno != EEXIST {
                            throw Diagnostic.error("cannot create \(partial): \(String(cString: strerror(errno)))", at: location)
                        }
                    }
                }
            }
            var outcomes = [Int8](repeating: 0, count: files.count)
            var failure: String?
            let lock = Mutex()
            let oldRoot = output.path
            let newRoot = staging.path
            outcomes.withUnsafeMutableBufferPointer { buffer in
                let out = buffer
                DispatchQueue.concurrentPerform(iterations: files.count) { index in
                    let file = files[index]
                    let oldPath = oldRoot + "/" + file.path
                    let newPath = newRoot + "/" + file.path
                    if oldManifest.contains(file.path) && OutputWriter.sameBytes(atPath: oldPath, file.bytes) && link(oldPath, newPath) == 0 {
                        out[index] = 1
                        return
                    }
                    if !OutputWriter.writeBytes(file.bytes, toPath: newPath) {
                        let reason = String(cString: strerror(errno))
                        lock.withLock { failure = failure ?? "cannot write \(file.path): \(reason)" }
                    }
                }
            }
            if let failure { throw Diagnostic.error(failure, at: location) }
            summary.unchanged = outcomes.filter { $0 == 1 }.count
            summary.written = files.count - summary.unchanged
            for relative in foreign {
                let from = output.appendingPathComponent(relative).path
                let to = staging.appendingPathComponent(relative).path
                if !OutputWriter.carryOver(from: from, to: to) {
                    throw Diagnostic.error("cannot keep \(relative) from the old output folder: \(String(cString: strerror(errno)))", at: location)
                }
            }
            summary.preserved = foreign.count
            summary.removed = oldManifest.subtracting(newPaths).count
            let manifest = ([OutputWriter.manifestHeader] + newPaths.sorted()).joined(separator: "\n") + "\n"
            guard OutputWriter.writeBytes(Array(manifest.utf8), toPath: staging.appendingPathComponent(OutputWriter.manifestName).path) else {
                throw Diagnostic.error("cannot write the manifest: \(String(cString: strerror(errno)))", at: location)
            }
        } catch {
            try? fm.removeItem(at: staging)
            throw error
        }

        // Swap: the old folder steps aside, the new one takes its name.
        if hadOutput {
            guard rename(output.path, retired.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? fm.removeItem(at: staging)
                throw Diagnostic.error("cannot replace the output folder: \(reason)", at: location)
            }
        }
        guard rename(staging.path, output.path) == 0 else {
            let reason = String(cString: strerror(errno))
            if hadOutput { _ = rename(retired.path, output.path) }
            try? fm.removeItem(at: staging)
            throw Diagnostic.error("cannot move the new site into place: \(reason)", at: location)
        }
        if hadOutput {
            // Everything in the retired folder is either listed in its manifest or was carried over
            // (hard-linked) into the new folder; remove exactly those, then the empty folders.
            let accounted = oldManifest.union(foreign).union([OutputWriter.manifestName])
            var leftovers = false
            for relative in OutputWriter.walk(retired) {
                if accounted.contains(relative) {
                    unlink(retired.path + "/" + relative)
                } else {
                    leftovers = true
                }
            }
            if !leftovers {
                OutputWriter.removeEmptyDirectories(retired)
            }
        }
        return summary
    }

    static func isSafeRelativePath(_ path: String) -> Bool {
        if path.isEmpty || path.hasPrefix("/") || path.contains("\0") { return false }
        return !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == ".." || $0 == "." || $0.isEmpty }
    }

    /// Regular files and symbolic links below a folder (relative paths, dotfiles included).
    static func walk(_ root: URL) -> [String] {
        var result: [String] = []
        func visit(_ path: String, _ prefix: String) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names.sorted() {
                let child = path + "/" + name
                var info = stat()
                guard lstat(child, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    visit(child, prefix + name + "/")
                } else {
                    result.append(prefix + name)
                }
            }
        }
        visit(root.path, "")
        return result
    }

    static func removeEmptyDirectories(_ root: URL) {
        func visit(_ path: String) {
            if let names = try? FileManager.default.contentsOfDirectory(atPath: path) {
                for name in names {
                    var info = stat()
                    let child = path + "/" + name
                    if lstat(child, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { visit(child) }
                }
            }
            rmdir(path)
        }
        visit(root.path)
    }

    static func carryOver(from: String, to: String) -> Bool {
        var info = stat()
        guard lstat(from, &info) == 0 else { return false }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink(from, &buffer, buffer.count - 1)
            guard count >= 0 else { return false }
            buffer[count] = 0
            return symlink(buffer, to) == 0
        }
        if link(from, to) == 0 { return true }
        return (try? FileManager.default.copyItem(atPath: from, toPath: to)) != nil
    }

    static func sameBytes(atPath path: String, _ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == bytes.count else { return false }
        if bytes.isEmpty { return true }
        var existing = [UInt8](repeating: 0, count: bytes.count)
        var offset = 0
        while offset < bytes.count {
            let count = existing.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if count <= 0 { return false }
            offset += count
        }
        return existing == bytes
    }

    static func writeBytes(_ bytes: [UInt8], toPath path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return false }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if count <= 0 {
                close(fd)
                return false
            }
            offset += count
        }
        return close(fd) == 0
    }
}
