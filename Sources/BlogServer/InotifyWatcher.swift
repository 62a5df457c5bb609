import Synchronization
#if os(Linux) && !BLOG_PORTABLE
import Glibc
import BlogCore

/// `FileWatcher` with inotify: a watch on every folder, events read on the watcher's thread.
///
/// Handles editors that save by writing a temporary file and renaming it over the original
/// (`IN_MOVED_TO`), plain writes (`IN_CLOSE_WRITE`, `IN_MODIFY`), creation, deletion, moves away,
/// and `touch` (`IN_ATTRIB`). If the kernel's event queue overflows, the roots themselves are
/// reported ("rescan everything").
final class InotifyWatcher: WatchBackend, @unchecked Sendable {
    private let scope: WatchScope
    private let debounce: Double
    private let onChange: @Sendable (Set<String>) -> Void

    private let lock = Mutex(())
    private var inotifyFD: Int32 = -1
    private var watches: [Int32: String] = [:]   // watch descriptor -> directory path
    private var watchedDirs: [String: Int32] = [:]
    private var thread: NativeThread?
    private var wake: WakePipe?

    private static let dirMask: UInt32 = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM
        | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF) | UInt32(IN_ONLYDIR) | UInt32(IN_EXCL_UNLINK)

    init(scope: WatchScope, debounce: Double, onChange: @escaping @Sendable (Set<String>) -> Void) {
        self.scope = scope
        self.debounce = debounce
        self.onChange = onChange
    }

    func start() throws {
        try lock.withLock { _ in
            guard thread == nil else { return }
            let fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
            guard fd >= 0 else { throw ServerError("cannot watch files (inotify_init1): \(errnoText())") }
            inotifyFD = fd
            for root in scope.roots {
                if WatchScope.isDirectory(root) {
                    _ = addRecursive(root, collect: nil)
                } else {
                    let parent = WatchScope.parent(of: root)
                    if WatchScope.isDirectory(parent) { addWatch(parent) }
                }
            }
            let wake = WakePipe()
            self.wake = wake
            thread = NativeThread { [self] in run(fd: fd, wake: wake) }
        }
    }

    func stop() {
        let (thread, wake) = lock.withLock { _ in (self.thread, self.wake) }
        guard let thread, let wake else { return }
        wake.signal()
        thread.join()
        lock.withLock { _ in
            close(inotifyFD)
            inotifyFD = -1
            watches.removeAll()
            watchedDirs.removeAll()
            self.thread = nil
            self.wake = nil
        }
    }

    var watchedFolderCount: Int { lock.withLock { _ in watches.count } }

    private func run(fd: Int32, wake: WakePipe) {
        var batch = ChangeBatch(debounce: debounce)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var timeout: Int32 = -1
            if !batch.isEmpty {
                timeout = Int32(max(0, (batch.due - monotonicNow()) * 1000).rounded(.up))
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, timeout)
            if fds[1].revents != 0 { return }
            if ready > 0 && fds[0].revents != 0 {
                let count = read(fd, &buffer, buffer.count)
                if count > 0 {
                    var found = Set<String>()
                    lock.withLock { _ in parse(buffer, count: count, into: &found) }
                    batch.add(found, at: monotonicNow())
                }
                continue
            }
            if let paths = batch.take(at: monotonicNow()) { onChange(paths) }
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
            pending.formUnion(scope.roots)
            return
        }
        guard let dir = watches[wd] else { return }
        if mask & UInt32(IN_IGNORED) != 0 {
            watches.removeValue(forKey: wd)
            if watchedDirs[dir] == wd { watchedDirs.removeValue(forKey: dir) }
            return
        }
        if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0 {
            if scope.isWanted(dir) { pending.insert(dir) }
            return
        }
        guard !name.isEmpty else { return }
        let path = dir + "/" + name
        guard scope.isWanted(path) else { return }
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

    private func addWatch(_ dir: String) {
        guard watchedDirs[dir] == nil else { return }
        let wd = inotify_add_watch(inotifyFD, dir, InotifyWatcher.dirMask)
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
            for name in WatchScope.names(in: current) {
                let path = current + "/" + name
                if scope.ignore(path) { continue }
                if WatchScope.isDirectory(path) {
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
}
#endif
