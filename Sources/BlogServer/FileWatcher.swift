#if canImport(Glibc)
import Glibc
#endif
import BlogCore

/// Watches files and folders with inotify, recursively (folders created later are followed), and
/// reports changed paths in debounced batches on its own thread.
///
/// Handles editors that save by writing a temporary file and renaming it over the original
/// (`IN_MOVED_TO`), plain writes (`IN_CLOSE_WRITE`, `IN_MODIFY`), creation, deletion, moves away,
/// and `touch` (`IN_ATTRIB`). Reported paths are the watched root joined with the relative path
/// (`root/posts/a.md`); a deleted or moved folder is reported as the folder's path. If the kernel's
/// event queue overflows, the roots themselves are reported ("rescan everything").
public final class FileWatcher: @unchecked Sendable {
    public let roots: [String]
    public let debounce: Double
    private let ignore: @Sendable (String) -> Bool
    private let onChange: @Sendable (Set<String>) -> Void

    private let lock = Mutex()
    private var inotifyFD: Int32 = -1
    private var watches: [Int32: String] = [:]   // watch descriptor -> directory path
    private var watchedDirs: [String: Int32] = [:]
    private var thread: NativeThread?
    private var wake: WakePipe?

    private static let dirMask: UInt32 = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM
        | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF) | UInt32(IN_ONLYDIR) | UInt32(IN_EXCL_UNLINK)

    /// - Parameters:
    ///   - paths: folders (watched recursively) or single files (their folder is watched, other names
    ///     in it are ignored). A path that does not exist yet is picked up when it appears in its
    ///     (existing) parent folder.
    ///   - debounce: quiet time (seconds) after the last event before the batch is reported; a
    ///     steady stream of events is still reported at least every 20 × debounce (min 1 s).
    ///   - ignore: given a path, true to drop it (default: dotfiles and editor backup/swap files).
    ///   - onChange: called on the watcher's thread, one batch at a time.
    public init(paths: [String], debounce: Double = 0.05,
                ignore: @escaping @Sendable (String) -> Bool = FileWatcher.isEditorNoise,
                onChange: @escaping @Sendable (Set<String>) -> Void) {
        self.roots = paths.map(FileWatcher.normalize)
        self.debounce = max(0.001, debounce)
        self.ignore = ignore
        self.onChange = onChange
    }

    deinit { stop() }

    /// Dotfiles and dot-folders, `file~`, `#file#`, vim's `.swp`/`.swx` and its `4913` probe file.
    @Sendable public static func isEditorNoise(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasPrefix(".") || name.hasSuffix("~") || name.hasSuffix(".swp") || name.hasSuffix(".swx")
            || (name.hasPrefix("#") && name.hasSuffix("#")) || name == "4913"
    }

    /// Installs the watches and starts the thread.
    public func start() throws {
        try lock.withLock {
            guard thread == nil else { return }
            let fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
            guard fd >= 0 else { throw ServerError("cannot watch files (inotify_init1): \(errnoText())") }
            inotifyFD = fd
            for root in roots {
                if isDirectory(root) {
                    _ = addRecursive(root, collect: nil)
                } else {
                    let parent = FileWatcher.parent(of: root)
                    if isDirectory(parent) { addWatch(parent) }
                }
            }
            let wake = WakePipe()
            self.wake = wake
            thread = NativeThread { [self] in run(fd: fd, wake: wake) }
        }
    }

    /// Stops the thread (a batch being reported finishes first) and removes all watches.
    public func stop() {
        let (thread, wake) = lock.withLock { (self.thread, self.wake) }
        guard let thread, let wake else { return }
        wake.signal()
        thread.join()
        lock.withLock {
            close(inotifyFD)
            inotifyFD = -1
            watches.removeAll()
            watchedDirs.removeAll()
            self.thread = nil
            self.wake = nil
        }
    }

    /// Number of folders currently watched (for tests and diagnostics).
    public var watchedFolderCount: Int { lock.withLock { watches.count } }

    // MARK: - internals

    private func run(fd: Int32, wake: WakePipe) {
        var pending = Set<String>()
        var firstEvent = 0.0
        var lastEvent = 0.0
        let maxDelay = max(1.0, debounce * 20)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var timeout: Int32 = -1
            if !pending.isEmpty {
                let now = monotonicNow()
                let due = min(lastEvent + debounce, firstEvent + maxDelay)
                timeout = Int32(max(0, (due - now) * 1000).rounded(.up))
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeout)
            if fds[1].revents != 0 { return }
            if ready > 0 && fds[0].revents != 0 {
                let count = read(fd, &buffer, buffer.count)
                if count > 0 {
                    let before = pending.count
                    lock.withLock { parse(buffer, count: count, into: &pending) }
                    let now = monotonicNow()
                    if before == 0 && !pending.isEmpty { firstEvent = now }
                    lastEvent = now
                }
                continue
            }
            if !pending.isEmpty {
                let now = monotonicNow()
                if now >= lastEvent + debounce || now >= firstEvent + maxDelay {
                    let batch = pending
                    pending.removeAll()
                    onChange(batch)
                }
            }
        }
    }

    /// Parses a buffer of `struct inotify_event` records (16-byte header + padded name).
    private func parse(_ buffer: [UInt8], count: Int, into pending: inout Set<String>) {
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset + 16 <= count {
                let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                var name = ""
                if length > 0 {
                    let bytes = raw[(offset + 16)..<min(count, offset + 16 + length)]
                    let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
                    name = String(decoding: raw[(offset + 16)..<end], as: UTF8.self)
                }
                offset += 16 + length
                handle(wd: wd, mask: mask, name: name, into: &pending)
            }
        }
    }

    private func handle(wd: Int32, mask: UInt32, name: String, into pending: inout Set<String>) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            pending.formUnion(roots)
            return
        }
        guard let dir = watches[wd] else { return }
        if mask & UInt32(IN_IGNORED) != 0 {
            watches.removeValue(forKey: wd)
            if watchedDirs[dir] == wd { watchedDirs.removeValue(forKey: dir) }
            return
        }
        if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0 {
            if isWanted(dir) { pending.insert(dir) }
            return
        }
        guard !name.isEmpty else { return }
        let path = dir + "/" + name
        guard isWanted(path) else { return }
        let isDir = mask & UInt32(IN_ISDIR) != 0
        if isDir && mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 {
            // A new folder: watch it and report what is already inside (it may have filled up
            // before our watch existed).
            pending.insert(path)
            _ = addRecursive(path, collect: &pending)
            return
        }
        if isDir && mask & UInt32(IN_ATTRIB) != 0 { return }
        pending.insert(path)
    }

    /// Inside a root (or a root itself) and not ignored.
    private func isWanted(_ path: String) -> Bool {
        guard roots.contains(where: { path == $0 || path.hasPrefix($0 == "/" ? "/" : $0 + "/") }) else { return false }
        return !ignore(path)
    }

    private func addWatch(_ dir: String) {
        guard watchedDirs[dir] == nil else { return }
        let wd = inotify_add_watch(inotifyFD, dir, FileWatcher.dirMask)
        guard wd >= 0 else { return }
        watches[wd] = dir
        watchedDirs[dir] = wd
    }

    @discardableResult
    private func addRecursive(_ dir: String, collect: UnsafeMutablePointer<Set<String>>?) -> Int {
        var stack = [dir]
        var added = 0
        while let current = stack.popLast() {
            addWatch(current)
            added += 1
            guard let handle = opendir(current) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let path = current + "/" + name
                if ignore(path) { continue }
                if isDirectory(path) {
                    stack.append(path)
                } else {
                    collect?.pointee.insert(path)
                }
            }
        }
        return added
    }

    private func addRecursive(_ dir: String, collect pending: inout Set<String>) -> Int {
        withUnsafeMutablePointer(to: &pending) { addRecursive(dir, collect: $0) }
    }

    private func isDirectory(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func normalize(_ path: String) -> String {
        var text = path
        while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
        if text.isEmpty { return "." }
        return text
    }
}
