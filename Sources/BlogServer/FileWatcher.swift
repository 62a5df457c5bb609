#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BlogCore

/// Watches files and folders, recursively (folders created later are followed), and reports
/// changed paths in debounced batches on its own thread.
///
/// Two ways to watch, with the same reports: inotify on Linux (`InotifyWatcher`), and everywhere
/// a watcher that compares `lstat` results on a timer (`PollingWatcher`), which `blog serve --poll`
/// selects and which is the only one where inotify is missing (macOS, or a build with
/// `-D BLOG_PORTABLE`). Reported paths are the watched root joined with the relative path
/// (`root/posts/a.md`); a deleted or moved folder is reported as the folder's path. Editors that
/// save by writing a temporary file and renaming it over the original are reported under the
/// original's name.
public final class FileWatcher: @unchecked Sendable {
    /// How changes are noticed.
    public enum Method: String, Sendable, CaseIterable {
        /// The system's notifications (inotify) where there are any, else polling.
        case native
        /// `lstat` on every watched file and folder at an interval: works on any file system.
        case polling
    }

    public let roots: [String]
    public let debounce: Double
    public let method: Method
    private let backend: any WatchBackend

    /// - Parameters:
    ///   - paths: folders (watched recursively) or single files (other names in their folder are
    ///     ignored). A path that does not exist yet is picked up when it appears.
    ///   - debounce: quiet time (seconds) after the last change before the batch is reported; a
    ///     steady stream of changes is still reported at least every 20 × debounce (min 1 s).
    ///   - method: `.native` (the default) or `.polling`.
    ///   - ignore: given a path, true to drop it (default: dotfiles and editor backup/swap files).
    ///   - onChange: called on the watcher's thread, one batch at a time.
    public init(paths: [String], debounce: Double = 0.05, method: Method = .native,
                ignore: @escaping @Sendable (String) -> Bool = FileWatcher.isEditorNoise,
                onChange: @escaping @Sendable (Set<String>) -> Void) {
        let scope = WatchScope(roots: paths.map(WatchScope.normalize), ignore: ignore)
        self.roots = scope.roots
        self.debounce = max(0.001, debounce)
        self.method = method
        #if os(Linux) && !BLOG_PORTABLE
        if method == .native {
            backend = InotifyWatcher(scope: scope, debounce: self.debounce, onChange: onChange)
            return
        }
        #endif
        backend = PollingWatcher(scope: scope, debounce: self.debounce, onChange: onChange)
    }

    deinit { stop() }

    /// Dotfiles and dot-folders, `file~`, `#file#`, vim's `.swp`/`.swx` and its `4913` probe file.
    @Sendable public static func isEditorNoise(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasPrefix(".") || name.hasSuffix("~") || name.hasSuffix(".swp") || name.hasSuffix(".swx")
            || (name.hasPrefix("#") && name.hasSuffix("#")) || name == "4913"
    }

    /// Starts watching (what exists now is the baseline: it is not reported).
    public func start() throws { try backend.start() }

    /// Stops the thread (a batch being reported finishes first). Nothing is reported after it.
    public func stop() { backend.stop() }

    /// Number of folders currently watched (for tests and diagnostics).
    public var watchedFolderCount: Int { backend.watchedFolderCount }
}

/// What a watcher does; `FileWatcher` picks one.
protocol WatchBackend: AnyObject, Sendable {
    func start() throws
    func stop()
    var watchedFolderCount: Int { get }
}

/// The roots and the filter both watchers share.
struct WatchScope: Sendable {
    let roots: [String]
    let ignore: @Sendable (String) -> Bool

    /// Inside a root (or a root itself) and not ignored.
    func isWanted(_ path: String) -> Bool {
        guard roots.contains(where: { path == $0 || path.hasPrefix($0 == "/" ? "/" : $0 + "/") }) else { return false }
        return !ignore(path)
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFDIR
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func normalize(_ path: String) -> String {
        var text = path
        while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
        if text.isEmpty { return "." }
        return text
    }

    /// The names in a folder other than `.` and `..` (empty when it cannot be read).
    static func names(in folder: String) -> [String] {
        guard let handle = opendir(folder) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// Collects changed paths and decides when a batch is due: `debounce` after the last change, or
/// 20 × debounce (at least 1 s) after the first of a steady stream.
struct ChangeBatch {
    let debounce: Double
    private(set) var paths = Set<String>()
    private var first = 0.0
    private var last = 0.0

    init(debounce: Double) { self.debounce = debounce }

    var isEmpty: Bool { paths.isEmpty }

    mutating func add(_ changed: Set<String>, at now: Double) {
        guard !changed.isEmpty else { return }
        if paths.isEmpty { first = now }
        last = now
        paths.formUnion(changed)
    }

    /// When the batch is due (meaningless while empty).
    var due: Double { min(last + debounce, first + max(1.0, debounce * 20)) }

    /// The batch, emptied, when it is due at `now`.
    mutating func take(at now: Double) -> Set<String>? {
        guard !paths.isEmpty, now >= due else { return nil }
        defer { paths.removeAll() }
        return paths
    }
}
