import BlogCore
import Foundation
import Synchronization

/// How `--images` brings an article's pictures home.
public struct ImageImportOptions: Sendable {
    /// The site's `static/` folder; images go to `static/images/qiita/<article-id>/<name>`.
    public var staticDirectory: String
    public var hosts: ImageHosts
    /// Largest accepted image, in bytes.
    public var maxBytes: Int
    /// Downloads at once.
    public var concurrency: Int
    public var timeout: Int
    public var attempts: Int
    public var backoff: TimeInterval

    public init(staticDirectory: String, hosts: ImageHosts = ImageHosts(), maxBytes: Int = 20 * 1024 * 1024,
                concurrency: Int = 4, timeout: Int = 30, attempts: Int = 3, backoff: TimeInterval = 0.5) {
        self.staticDirectory = staticDirectory
        self.hosts = hosts
        self.maxBytes = maxBytes
        self.concurrency = concurrency
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff
    }
}

/// Counts for the summary line.
public struct ImageSummary: Sendable, Equatable, CustomStringConvertible {
    public var downloaded = 0
    public var present = 0
    public var failed = 0

    public init(downloaded: Int = 0, present: Int = 0, failed: Int = 0) {
        self.downloaded = downloaded
        self.present = present
        self.failed = failed
    }

    public var description: String {
        "images: \(downloaded) downloaded, \(present) already present, \(failed) kept remote"
    }
}

/// Downloaded images waiting in a hidden folder of `static/` until the import is committed, so an
/// import that stops writes no image.
public struct StagedImages: Sendable {
    var staging: String?
    /// (file in staging, final path)
    var files: [(String, String)] = []

    /// Moves every file into place (a file already there is kept) and removes the staging folder.
    public func commit() -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for (staged, final) in files where !FileManager.default.fileExists(atPath: final) {
            do {
                try StagingLock.write {
                    try FileManager.default.createDirectory(atPath: (final as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    if rename(staged, final) != 0 { throw ImportWriter.WriteError(description: String(cString: strerror(errno))) }
                }
            } catch {
                diagnostics.append(.error("cannot write the image: \(error)", at: SourceLocation(file: final)))
            }
        }
        discard()
        return diagnostics
    }

    /// Removes the staging folder and what is in it.
    public func discard() {
        if let staging { try? FileManager.default.removeItem(atPath: staging) }
    }
}

/// Writes into staging (and from it into place) and an interrupt's clean-up exclude each other, so
/// that a download finishing during the clean-up cannot leave a file behind.
public enum StagingLock {
    /// Whether the clean-up has run (then every write is refused).
    private static let closed = Mutex(false)

    struct Closed: Error, CustomStringConvertible {
        var description: String { "interrupted" }
    }

    static func write(_ body: () throws -> Void) throws {
        try closed.withLock { closed in
            guard !closed else { throw Closed() }
            try body()
        }
    }

    /// Removes this process's staging folders and refuses every later write; for a signal handler
    /// about to end the process.
    public static func closeAndRemove(in staticDirectory: String) {
        closed.withLock { closed in
            closed = true
            ImageFetcher.removeStaging(in: staticDirectory, ofProcess: getpid())
        }
    }
}

/// Finds the images an article references on the image hosts, downloads the missing ones (a few
/// at a time, checked to be an image under the size limit) and points the Markdown at the local
/// copies. An image that cannot be fetched keeps its URL, with a warning naming article and URL.
public struct ImageFetcher: Sendable {
    public var options: ImageImportOptions

    public init(options: ImageImportOptions) {
        self.options = options
    }

    static let extensions: [String: String] = [
        "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp",
        "image/svg+xml": "svg", "image/avif": "avif", "image/bmp": "bmp", "image/x-icon": "ico",
    ]
    static let knownExtensions: Set<String> = ["png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp", "ico"]

    struct Job {
        var article: Int
        var url: String
        /// Relative to `static/`, without an extension when `needsExtension`.
        var path: String
        var needsExtension: Bool
    }

    enum Outcome {
        case downloaded(staged: String, path: String)
        case failed(String)
    }

    public func localize(_ articles: [ImportedArticle], console: Console) -> (articles: [ImportedArticle], staged: StagedImages, summary: ImageSummary, diagnostics: [Diagnostic]) {
        ImageFetcher.removeStaging(in: options.staticDirectory, ofProcess: nil)
        var articles = articles
        var summary = ImageSummary()
        var jobs: [Job] = []
        var references: [[ImageLinks.Reference]] = []
        var replacements: [[String: String]] = Array(repeating: [:], count: articles.count)
        for (index, article) in articles.enumerated() {
            let found = ImageLinks.references(in: article.body).filter { URL(string: $0.url).map(options.hosts.contains) ?? false }
            references.append(found)
            let folder = "images/qiita/" + ImageFetcher.safeName(article.id ?? article.slug, fallback: "article")
            var names: [String: String] = [:]
            for url in found.map(\.url) where replacements[index][url] == nil && !jobs.contains(where: { $0.article == index && $0.url == url }) {
                var name = ImageFetcher.fileName(url)
                if let other = names[name], other != url {
                    let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
                    name = stem + "-" + String(fnv1a64(url.utf8) & 0xffff_ffff, radix: 16) + (ext.isEmpty ? "" : "." + ext)
                }
                names[name] = url
                let path = folder + "/" + name
                let needsExtension = !ImageFetcher.knownExtensions.contains((name as NSString).pathExtension.lowercased())
                if let existing = existingFile(path, needsExtension: needsExtension) {
                    replacements[index][url] = "/" + existing
                    summary.present += 1
                } else {
                    jobs.append(Job(article: index, url: url, path: path, needsExtension: needsExtension))
                }
            }
        }
        var staged = StagedImages()
        var diagnostics: [Diagnostic] = []
        if !jobs.isEmpty {
            let staging = (options.staticDirectory as NSString).appendingPathComponent("\(ImageFetcher.stagingPrefix)\(getpid())-\(UUID().uuidString.prefix(8))")
            staged.staging = staging
            console.printError("downloading \(jobs.count) image\(jobs.count == 1 ? "" : "s")")
            let outcomes = download(jobs, into: staging)
            for (job, outcome) in zip(jobs, outcomes) {
                switch outcome {
                case .downloaded(let file, let path):
                    staged.files.append((file, (options.staticDirectory as NSString).appendingPathComponent(path)))
                    replacements[job.article][job.url] = "/" + path
                    summary.downloaded += 1
                case .failed(let reason):
                    let article = articles[job.article]
                    diagnostics.append(.warning("article \"\(article.title)\": image \(job.url) not downloaded: \(reason); the article keeps its URL",
                                                at: article.source))
                    summary.failed += 1
                }
            }
        }
        for index in articles.indices where !replacements[index].isEmpty {
            articles[index].body = ImageLinks.rewrite(articles[index].body, references: references[index], replacements: replacements[index])
        }
        return (articles, staged, summary, diagnostics)
    }

    static let stagingPrefix = ".blog-import-"

    /// Removes the staging folders of process `pid` (on an interrupt), or with nil those of
    /// imports that were killed (their process is gone).
    public static func removeStaging(in staticDirectory: String, ofProcess pid: Int32?) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: staticDirectory) else { return }
        for name in names where name.hasPrefix(stagingPrefix) {
            guard let owner = Int32(name.dropFirst(stagingPrefix.count).prefix { $0 != "-" }) else { continue }
            let remove = pid.map { $0 == owner } ?? (kill(owner, 0) != 0 && errno == ESRCH)
            if remove { try? FileManager.default.removeItem(atPath: (staticDirectory as NSString).appendingPathComponent(name)) }
        }
    }

    /// The path (relative to `static/`) of an image already downloaded by an earlier run.
    func existingFile(_ path: String, needsExtension: Bool) -> String? {
        let candidates = needsExtension ? ImageFetcher.knownExtensions.sorted().map { path + "." + $0 } : [path]
        return candidates.first { FileManager.default.fileExists(atPath: (options.staticDirectory as NSString).appendingPathComponent($0)) }
    }

    /// The shared state of the download threads: the next job and the outcomes so far.
    private final class Queue: Sendable {
        private struct State {
            var next = 0
            var outcomes: [Outcome?]
        }
        private let state: Mutex<State>

        init(count: Int) { state = Mutex(State(outcomes: Array(repeating: nil, count: count))) }

        func take() -> Int? {
            state.withLock { state in
                guard state.next < state.outcomes.count else { return nil }
                state.next += 1
                return state.next - 1
            }
        }

        func finish(_ index: Int, _ outcome: Outcome) { state.withLock { $0.outcomes[index] = outcome } }

        var outcomes: [Outcome?] { state.withLock { $0.outcomes } }
    }

    /// Runs the jobs on `concurrency` threads; the outcomes come back in the jobs' order.
    func download(_ jobs: [Job], into staging: String) -> [Outcome] {
        let session = HTTPSession(timeout: options.timeout, userAgent: "blog (static site generator; import images)")
        let queue = Queue(count: jobs.count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(options.concurrency, jobs.count)) {
            group.enter()
            // Threads of their own: each blocks on its request, which would starve a small global pool.
            let thread = Thread {
                while let index = queue.take() {
                    queue.finish(index, fetch(jobs[index], session: session, staging: staging))
                }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        return queue.outcomes.map { $0 ?? .failed("not attempted") }
    }

    func fetch(_ job: Job, session: HTTPSession, staging: String) -> Outcome {
        guard let url = URL(string: job.url) else { return .failed("not a valid URL") }
        switch session.getRetrying(url, attempts: options.attempts, backoff: options.backoff, limit: options.maxBytes, requireImage: true) {
        case .failure(let failure):
            return .failed(failure.description)
        case .success(let response):
            guard response.status == 200 else { return .failed("HTTP \(response.status)") }
            var path = job.path
            if job.needsExtension {
                path += "." + (ImageFetcher.extensions[HTTPSession.mediaType(response.header("Content-Type"))] ?? "img")
            }
            let file = (staging as NSString).appendingPathComponent(path)
            do {
                try StagingLock.write {
                    try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try response.body.write(to: URL(fileURLWithPath: file))
                }
            } catch {
                return .failed("cannot save it: \(error.localizedDescription)")
            }
            return .downloaded(staged: file, path: path)
        }
    }

    /// The file name an image URL is saved under: the last path segment (an imgix URL wraps the
    /// original URL percent-encoded, so it is decoded first), reduced to safe characters.
    static func fileName(_ url: String) -> String {
        var path = URL(string: url).map { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? $0.path } ?? url
        path = path.removingPercentEncoding ?? path
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        return safeName(last, fallback: "image")
    }

    /// Letters, digits, `.`, `_` and `-` only; no leading dot; at most 120 characters.
    static func safeName(_ name: String, fallback: String) -> String {
        var result = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        })
        while result.hasPrefix(".") { result.removeFirst() }
        if result.count > 120 { result = String(result.suffix(120)) }
        return result.isEmpty ? fallback : result
    }
}
