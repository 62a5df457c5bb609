import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BlogCore

/// `FileWatcher` by comparing `lstat` results on a timer, on any system and file system.
///
/// Each scan `lstat`s every watched folder and file. A folder's names are read again only when its
/// modification time changed, or is so recent that a name added within the same clock tick could
/// not have changed it yet; a file counts as changed when its size, modification time, inode or type
/// did (a save by rename brings a new inode). The pause between scans is at least `interval` and at
/// least `costFactor` times the CPU time the last scan took (CPU, not wall time: on a busy machine
/// a scan waits without costing), so the watcher keeps to a small share of one core however large
/// the site is.
final class PollingWatcher: WatchBackend, @unchecked Sendable {
    /// What a scan remembers of one path.
    private struct Entry: Equatable {
        var isFolder: Bool
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
        var inode: UInt64
        /// A folder's wanted names (whole paths), when it is a folder.
        var names: [String]?
        /// When a folder's names were read (wall clock, seconds).
        var readAt = 0.0

        static func == (a: Entry, b: Entry) -> Bool {
            a.isFolder == b.isFolder && a.size == b.size && a.seconds == b.seconds && a.nanoseconds == b.nanoseconds
                && a.inode == b.inode
        }
    }

    /// The shortest pause between scans (seconds).
    static let interval = 0.1
    /// The pause is at least this many times the last scan's CPU time.
    static let costFactor = 20.0
    /// A folder whose names were read less than this long (seconds) after its last change is read
    /// again: a name added within the same tick of a coarse file system clock (or a 1 s one) would
    /// not have moved its modification time.
    static let racyWindow = 1.0

    private let scope: WatchScope
    private let debounce: Double
    private let onChange: @Sendable (Set<String>) -> Void
    private let lock = Mutex(())
    private var entries: [String: Entry] = [:]
    private var thread: NativeThread?
    private var wake: WakePipe?
    private var lastScanSeconds = 0.0

    init(scope: WatchScope, debounce: Double, onChange: @escaping @Sendable (Set<String>) -> Void) {
        self.scope = scope
        self.debounce = debounce
        self.onChange = onChange
    }

    func start() {
        lock.withLock { _ in
            guard thread == nil else { return }
            var ignored = Set<String>()
            scanAll(reporting: &ignored)
            let wake = WakePipe()
            self.wake = wake
            thread = NativeThread { [self] in run(wake: wake) }
        }
    }

    func stop() {
        let (thread, wake) = lock.withLock { _ in (self.thread, self.wake) }
        guard let thread, let wake else { return }
        wake.signal()
        thread.join()
        lock.withLock { _ in
            entries.removeAll()
            self.thread = nil
            self.wake = nil
        }
    }

    var watchedFolderCount: Int { lock.withLock { _ in entries.values.reduce(0) { $0 + ($1.isFolder ? 1 : 0) } } }

    private func run(wake: WakePipe) {
        var batch = ChangeBatch(debounce: debounce)
        while true {
            var pause = max(PollingWatcher.interval, lock.withLock { _ in lastScanSeconds } * PollingWatcher.costFactor)
            // A batch waits for quiet: look again after `debounce` rather than a whole pause.
            if !batch.isEmpty { pause = min(pause, max(0, batch.due - monotonicNow())) }
            if wake.wait(seconds: pause) { return }
            var found = Set<String>()
            lock.withLock { _ in scanAll(reporting: &found) }
            let now = monotonicNow()
            batch.add(found, at: now)
            if let paths = batch.take(at: now) { onChange(paths) }
        }
    }

    /// One scan over every root: what changed since the last one goes into `changed`.
    private func scanAll(reporting changed: inout Set<String>) {
        let started = threadCPUTime()
        let now = wallClock()
        for root in scope.roots {
            scan(root, now: now, changed: &changed)
        }
        lastScanSeconds = threadCPUTime() - started
    }

    /// Compares `path` (and, for a folder, what is inside) with the last scan.
    private func scan(_ path: String, now: Double, changed: inout Set<String>) {
        let old = entries[path]
        guard var entry = PollingWatcher.look(path) else {
            if old != nil {
                forget(path)
                changed.insert(path)
            }
            return
        }
        if let old, old.isFolder != entry.isFolder {
            forget(path)
            changed.insert(path)
            return scan(path, now: now, changed: &changed)
        }
        guard entry.isFolder else {
            // Most scans find most files unchanged: no write for them.
            if entry != old {
                changed.insert(path)
                entries[path] = entry
            }
            return
        }
        // A folder: its names when it is new or changed (or was read too soon after a change to tell).
        let stamp = Double(entry.seconds) + Double(entry.nanoseconds) / 1e9
        var names = old?.names ?? []
        entry.readAt = old?.readAt ?? 0
        if old == nil || entry != old || entry.readAt - stamp < PollingWatcher.racyWindow {
            entry.readAt = now
            // Inside a watched folder: only the ignore rule can drop a name.
            names = WatchScope.names(in: path).map { path + "/" + $0 }.filter { !scope.ignore($0) }
            if old == nil {
                // A folder that appeared: it and everything in it are new (at start nothing is reported).
                changed.insert(path)
            } else {
                for gone in Set(old?.names ?? []).subtracting(names) {
                    forget(gone)
                    changed.insert(gone)
                }
            }
        }
        entry.names = names
        entries[path] = entry
        for child in names { scan(child, now: now, changed: &changed) }
    }

    /// Drops `path` and everything remembered under it.
    private func forget(_ path: String) {
        guard let entry = entries.removeValue(forKey: path) else { return }
        for child in entry.names ?? [] { forget(child) }
    }

    private static func look(_ path: String) -> Entry? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let time = info.modificationTime
        return Entry(isFolder: info.st_mode & S_IFMT == S_IFDIR, size: Int64(info.st_size), seconds: Int(time.tv_sec),
                     nanoseconds: Int(time.tv_nsec), inode: UInt64(info.st_ino), names: nil)
    }

    private func threadCPUTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
