import Synchronization
import BlogCore

/// The serve loop's glue: file changes → rebuild → publish → live-reload event.
/// On a failed rebuild the last good snapshot stays published and the error lines go to the store
/// (browsers show them in an overlay); the next good build clears them and reloads.
public final class PreviewSession: @unchecked Sendable {
    public typealias Rebuild = (Set<String>) throws -> SiteSnapshot

    public let store: SiteStore
    private let rebuildSite: Rebuild
    private let formatError: (Error) -> [String]
    private let console: Console?
    private let buildLock = Mutex(())
    private var watcher: FileWatcher?
    private let watchRoots: [String]
    private let debounce: Double
    private let watchMethod: FileWatcher.Method

    /// - Parameters:
    ///   - roots: folders/files to watch (content, templates, static files, `blog.yml`, …).
    ///   - rebuild: builds the whole site (or the part affected by the given changed paths) and
    ///     returns the complete new snapshot; throws on content errors. When the snapshot's
    ///     `changedPaths` is set, the store takes it instead of comparing every file.
    ///   - formatError: turns a thrown error into overlay lines (`file:line: message`).
    ///   - console: receives one line per rebuild ("rebuilt in 42 ms, 3 files changed") and errors.
    ///   - watchMethod: how file changes are noticed (`FileWatcher.Method`).
    public init(watching roots: [String], store: SiteStore, debounce: Double = 0.02,
                watchMethod: FileWatcher.Method = .native, console: Console? = nil,
                formatError: @escaping (Error) -> [String] = PreviewSession.errorLines,
                rebuild: @escaping Rebuild) {
        self.watchRoots = roots
        self.store = store
        self.debounce = debounce
        self.watchMethod = watchMethod
        self.console = console
        self.formatError = formatError
        self.rebuildSite = rebuild
    }

    deinit { stop() }

    /// Default error formatter: one line per `Diagnostic` (of a `DiagnosticList`), else the error text.
    public static func errorLines(_ error: Error) -> [String] {
        if let list = error as? DiagnosticList { return list.diagnostics.map(\.description) }
        if let diagnostic = error as? Diagnostic { return [diagnostic.description] }
        let text = String(describing: error)
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Optionally builds once (with an empty change set), then starts watching.
    public func start(initialBuild: Bool = true) throws {
        if initialBuild { rebuild(changedPaths: []) }
        let watcher = FileWatcher(paths: watchRoots, debounce: debounce, method: watchMethod) { [weak self] changed in
            self?.rebuild(changedPaths: changed)
        }
        try watcher.start()
        buildLock.withLock { _ in self.watcher = watcher }
    }

    public func stop() {
        let watcher = buildLock.withLock { _ -> FileWatcher? in
            defer { self.watcher = nil }
            return self.watcher
        }
        watcher?.stop()
    }

    /// Runs one rebuild now (serialised with the watcher's). Returns true when it succeeded.
    /// On success the errors are cleared first (`ok` event), then the snapshot is published (`reload`
    /// event, only if some file's bytes changed). On failure the snapshot is kept and the errors are set.
    @discardableResult
    public func rebuild(changedPaths: Set<String>) -> Bool {
        buildLock.withLock { _ in
            let started = monotonicNow()
            do {
                let snapshot = try rebuildSite(changedPaths)
                store.setErrors([])
                let changed = store.publish(snapshot, changedPaths: snapshot.changedPaths)
                let ms = Int(((monotonicNow() - started) * 1000).rounded())
                if store.generation == 1 {
                    console?.printError("built in \(ms) ms (\(Wording.count(snapshot.files.count, "output file")))")
                } else if !changedPaths.isEmpty {
                    console?.printError("rebuilt in \(ms) ms (\(Wording.count(changed.count, "output file")) changed)")
                }
                return true
            } catch {
                var lines = formatError(error)
                if lines.isEmpty { lines = ["build failed"] }
                // The terminal first, then the browsers: whoever sees the overlay can also find it in the terminal.
                console?.printError("build failed; still serving the last good version:")
                if let console {
                    for line in lines { console.printDiagnosticLine(line, severity: .error, indent: "  ") }
                }
                store.setErrors(lines)
                return false
            }
        }
    }
}
