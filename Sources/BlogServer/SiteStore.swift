import Synchronization
import BlogCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One complete, good build of the site, held in memory.
/// `files` maps site-relative paths (no leading slash, `/` separators) to bytes:
/// `"index.html"`, `"posts/x/index.html"`, `"assets/css/main.3f2a9c1b.css"`, `"404.html"`.
public struct SiteSnapshot: Sendable {
    public var files: [String: [UInt8]]
    /// Stamped by `SiteStore.publish` (1, 2, 3, …); 0 means "nothing built yet".
    public var generation: Int
    /// From the builder, when it knows them: exactly the paths (added, removed or with other
    /// bytes) that differ from the snapshot it made before, which is the published one.
    /// `PreviewSession` passes them to `publish`, which then need not compare every file; a stored
    /// snapshot has none.
    public var changedPaths: Set<String>?

    public init(files: [String: [UInt8]] = [:], generation: Int = 0, changedPaths: Set<String>? = nil) {
        self.files = files
        self.generation = generation
        self.changedPaths = changedPaths
    }

    public static let empty = SiteSnapshot()
}

/// What a `SiteStore` tells its observers, in the order it happened.
public enum SiteStoreEvent: Sendable, Equatable {
    /// A new snapshot is in place (already visible to readers). Paths are site-relative and sorted.
    case published(generation: Int, changedPaths: [String])
    /// The current build error lines changed (`[]` means the build is good again).
    case errorsChanged([String])
}

/// Thread-safe holder of the last good snapshot and the current build errors.
/// Observers are called synchronously, one event at a time, on the thread that changed the store,
/// after the change is visible to readers. An observer must not call back into `publish`/`setErrors`.
public final class SiteStore: @unchecked Sendable {
    private let stateLock = Mutex(())
    private let changeLock = Mutex(()) // serialises publish/setErrors so observers see events in order
    private var current: SiteSnapshot
    private var currentErrors: [String] = []
    private var observers: [Int: @Sendable (SiteStoreEvent) -> Void] = [:]
    private var nextObserverID = 1

    public init(snapshot: SiteSnapshot = .empty) {
        self.current = snapshot
    }

    /// The last good snapshot.
    public var snapshot: SiteSnapshot { stateLock.withLock { _ in current } }
    /// The current build error lines (`file:line: message`), empty when the last build succeeded.
    public var errors: [String] { stateLock.withLock { _ in currentErrors } }
    public var generation: Int { stateLock.withLock { _ in current.generation } }

    /// Replaces the snapshot, stamping it with the next generation number, then tells observers.
    /// When `changedPaths` is nil the store computes them by comparing old and new bytes.
    /// Returns the changed paths (sorted); an empty result still bumps the generation but observers
    /// are told only when something changed.
    @discardableResult
    public func publish(_ snapshot: SiteSnapshot, changedPaths: Set<String>? = nil) -> [String] {
        changeLock.withLock { _ in
            let old = stateLock.withLock { _ in current }
            var next = snapshot
            next.generation = old.generation + 1
            next.changedPaths = nil
            let changed = (changedPaths.map(Array.init) ?? SiteStore.diff(old.files, next.files)).sorted()
            stateLock.withLock { _ in current = next }
            if !changed.isEmpty {
                notify(.published(generation: next.generation, changedPaths: changed))
            }
            return changed
        }
    }

    /// Sets the current error lines; observers hear about it only when they differ from before.
    public func setErrors(_ lines: [String]) {
        changeLock.withLock { _ in
            let changed: Bool = stateLock.withLock { _ in
                if currentErrors == lines { return false }
                currentErrors = lines
                return true
            }
            if changed { notify(.errorsChanged(lines)) }
        }
    }

    /// Registers an observer; keep the token to remove it.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable (SiteStoreEvent) -> Void) -> Int {
        stateLock.withLock { _ in
            let id = nextObserverID
            nextObserverID += 1
            observers[id] = observer
            return id
        }
    }

    public func removeObserver(_ token: Int) {
        _ = stateLock.withLock { _ in observers.removeValue(forKey: token) }
    }

    private func notify(_ event: SiteStoreEvent) {
        let list = stateLock.withLock { _ in observers.sorted { $0.key < $1.key }.map(\.value) }
        for observer in list { observer(event) }
    }

    /// Paths added, removed or whose bytes differ.
    static func diff(_ old: [String: [UInt8]], _ new: [String: [UInt8]]) -> [String] {
        var changed: [String] = []
        for (path, bytes) in new {
            guard let before = old[path] else { changed.append(path); continue }
            if !sameBytes(before, bytes) { changed.append(path) }
        }
        for path in old.keys where new[path] == nil { changed.append(path) }
        return changed
    }

    private static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        if a.count != b.count { return false }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in
                // Outputs an incremental rebuild reused share their storage: no need to read them.
                a.isEmpty || pa.baseAddress == pb.baseAddress || memcmp(pa.baseAddress!, pb.baseAddress!, a.count) == 0
            }
        }
    }
}
