import BlogCore
import DefaultTheme
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a build was made from, so that `blog build` can tell that nothing changed since the last
/// build and stop in milliseconds instead of building the same site again (like `make`).
///
/// The inputs are every file under blog.yml, content/, static/, themes/ and layouts/ (path, size,
/// modification time, inode), the build options, blog's version and its built-in theme. The last
/// build's output must also be as it was left (every listed file with the same size, time and
/// inode), and no post left out for being in the future may have become due since.
public struct BuildStamp: Sendable, Equatable {
    public var inputs: String
    /// When the earliest future post becomes due (seconds since 1970), if any was left out.
    public var due: Int64?

    public init(inputs: String, due: Int64? = nil) {
        self.inputs = inputs
        self.due = due
    }

    /// The fingerprint of the inputs of a build with these options.
    public static func inputs(for options: BuildOptions) -> String {
        var hash = FNV1a64()
        hash.add("blog \(BlogVersion.current)\n")
        hash.add("drafts=\(options.includeDrafts) future=\(options.includeFuture) base=\(options.baseURL ?? "-") hashed=\(options.hashAssetNames) outside-links=\(options.allowOutsideLinks)\n")
        hash.add(String(defaultThemeHash, radix: 16))
        let root = options.siteDirectory.standardizedFileURL.path
        for name in ["blog.yml", "content", "static", "themes", "layouts"] {
            walk(root + "/" + name, relative: name, into: &hash)
        }
        return String(hash.value, radix: 16)
    }

    static let defaultThemeHash: UInt64 = {
        var hash = FNV1a64()
        for path in DefaultTheme.files.keys.sorted() {
            hash.add(path)
            hash.add(DefaultTheme.files[path]!)
        }
        return hash.value
    }()

    static func walk(_ path: String, relative: String, into hash: inout FNV1a64) {
        if let info = lstatAll([path])[0] { walk(path, relative: relative, info: info, into: &hash) }
    }

    private static func walk(_ path: String, relative: String, info: FileInfo, into hash: inout FNV1a64) {
        // the fields as raw integers (string interpolation per file cost more than the lstat)
        hash.add(relative)
        addInput(info, to: &hash)
        guard (info.mode & S_IFMT) == S_IFDIR, let directory = opendir(path) else { return }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        // Every build walks content/ first (a name for every post), before anything
        // else can start: the names are sorted on their bytes where that is String's order, and
        // looked up relative to the open folder instead of by a path made for each.
        names = ByteOrder.sorted(names)
        let infos = lstatAll(names, relativeTo: dirfd(directory))
        for (name, info) in zip(names, infos) {
            guard let info else { continue }
            if (info.mode & S_IFMT) == S_IFDIR {
                walk(path + "/" + name, relative: relative + "/" + name, info: info, into: &hash)
            } else {
                // What the call above hashes for an entry that is not a folder, without the paths.
                hash.add(relative)
                hash.add(UInt8(ascii: "/"))
                hash.add(name)
                addInput(info, to: &hash)
            }
        }
    }

    /// lstat(2) of every path (nil where it fails), on all cores when there are many, since those
    /// of a large folder of posts, or of a build's output, are most of a no-change rebuild's time.
    struct FileInfo: Sendable {
        var size: Int64
        var seconds: Int64
        var nanoseconds: Int64
        var inode: Int64
        var mode: mode_t

        init(_ info: stat) {
            size = Int64(info.st_size)
            seconds = Int64(info.modificationTime.tv_sec)
            nanoseconds = Int64(info.modificationTime.tv_nsec)
            inode = Int64(bitPattern: UInt64(info.st_ino))
            mode = info.st_mode
        }
    }

    /// `directory`: a folder's descriptor that relative `paths` start from (the kernel then walks
    /// only the part below it).
    static func lstatAll(_ paths: [String], relativeTo directory: Int32 = AT_FDCWD) -> [FileInfo?] {
        WorkShare.map(count: paths.count) { index in
            var info = stat()
            guard fstatat(directory, paths[index], &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            return FileInfo(info)
        }
    }

    /// The fingerprint of the files a build left in the output folder. `known`: what the writer
    /// learnt from the descriptors of the files it wrote (`fstat` before `close`; renaming a file
    /// keeps its size, time and inode), so that only the others are looked up by path: a path
    /// walk fewer for every file written.
    static func outputs(root: String, paths: [String], known: [String: FileInfo] = [:]) -> String {
        var hash = FNV1a64()
        var infos = [FileInfo?](repeating: nil, count: paths.count)
        var unknown: [Int] = []
        for (index, path) in paths.enumerated() {
            if let info = known[path] { infos[index] = info } else { unknown.append(index) }
        }
        if !unknown.isEmpty {
            let looked = OutputWriter.withFolder(root) { folder, prefix in lstatAll(unknown.map { prefix + paths[$0] }, relativeTo: folder) }
            for (index, info) in zip(unknown, looked) { infos[index] = info }
        }
        for (path, info) in zip(paths, infos) {
            hash.add(path)
            addOutput(info, to: &hash)
        }
        return String(hash.value, radix: 16)
    }

    /// What an input's entry hashes after its path.
    private static func addInput(_ info: FileInfo, to hash: inout FNV1a64) {
        hash.add(0)
        hash.add(raw: info.size, info.seconds, info.nanoseconds, info.inode, Int64(info.mode))
    }

    /// What an output's entry hashes after its path (the same in both `outputs` functions).
    private static func addOutput(_ info: FileInfo?, to hash: inout FNV1a64) {
        hash.add(0)
        if let info {
            hash.add(raw: info.size, info.seconds, info.nanoseconds, info.inode, 1)
        } else {
            hash.add(raw: -1, -1, -1, -1, 0)
        }
    }

    /// `outputs(root:paths:)` of the files a manifest lists, on its bytes: the up-to-date check
    /// looks up every output file, and a `String` per path (with a second one for the path below
    /// the folder) would cost more than the lookups.
    static func outputs(root: String, manifest: OutputWriter.Manifest) -> String {
        let lines = manifest.paths
        let infos: [FileInfo?] = OutputWriter.withFolder(root) { folder, prefix in
            let head = Array(prefix.utf8)
            return manifest.bytes.withUnsafeBufferPointer { bytes in
                WorkShare.map(count: lines.count) { index in
                    let line = lines[index]
                    let length = head.count + line.count
                    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { path -> FileInfo? in
                        let raw = UnsafeMutableRawPointer(path.baseAddress!)
                        if !head.isEmpty { head.withUnsafeBytes { raw.copyMemory(from: $0.baseAddress!, byteCount: head.count) } }
                        (raw + head.count).copyMemory(from: bytes.baseAddress! + line.lowerBound, byteCount: line.count)
                        path[length] = 0
                        var info = stat()
                        guard fstatat(folder, path.baseAddress!, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
                        return FileInfo(info)
                    }
                }
            }
        }
        var hash = FNV1a64()
        manifest.bytes.withUnsafeBufferPointer { bytes in
            for (line, info) in zip(lines, infos) {
                hash.add(UnsafeBufferPointer(rebasing: bytes[line]))
                addOutput(info, to: &hash)
            }
        }
        return String(hash.value, radix: 16)
    }
}

extension FNV1a64 {
    /// A file's five stat fields as raw integers (string interpolation per file cost more than the lstat).
    fileprivate mutating func add(raw a: Int64, _ b: Int64, _ c: Int64, _ d: Int64, _ e: Int64) {
        add(raw: a); add(raw: b); add(raw: c); add(raw: d); add(raw: e)
    }
}
