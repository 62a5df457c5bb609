import BlogContent
import BlogCore
import Foundation

/// Counts of what an import did with each article.
public struct ImportSummary: Sendable, Equatable, CustomStringConvertible {
    public var created: [String] = []
    public var unchanged: [String] = []
    /// Existing files with different content replaced because of `--force`.
    public var overwritten: [String] = []
    /// Existing files with different content left alone (no `--force`).
    public var skipped: [String] = []
    public var failed: [String] = []

    public init() {}

    public var description: String {
        var text = "\(created.count) created, \(unchanged.count) unchanged, "
        if !overwritten.isEmpty { text += "\(overwritten.count) overwritten, " }
        return text + "\(skipped.count) skipped, \(failed.count) failed"
    }
}

/// An article with the file it goes to.
public struct PlannedFile: Sendable, Equatable {
    public var article: ImportedArticle
    /// The slug after collision suffixes.
    public var slug: String
    /// Path of the file (posts directory + file name).
    public var path: String
    public var contents: String
}

/// Writes imported articles into `content/posts/`: never overwrites a different file unless
/// `force`, reports identical files as unchanged, gives colliding slugs a stable suffix
/// (`-2`, `-3`…, in order of date, id and title), and writes each file atomically
/// (a temporary file in the same directory, then rename).
public struct ImportWriter: Sendable {
    public var postsDirectory: String
    public var force: Bool

    public init(postsDirectory: String, force: Bool = false) {
        self.postsDirectory = postsDirectory
        self.force = force
    }

    /// Assigns file names and slugs. Slugs are URLs (`/posts/<slug>/`), so they must be unique in
    /// the whole site: a slug is taken when another article of this batch has it, or when an
    /// existing post in the folder has it and is not this same article in this same file
    /// (same id, or same date and title).
    public func plan(_ articles: [ImportedArticle]) -> [PlannedFile] {
        let existing = ImportWriter.existingPosts(in: postsDirectory)
        let ordered = articles.sorted { a, b in
            (a.slug, a.date.secondsSinceEpoch, a.id ?? "", a.title, a.source.description)
                < (b.slug, b.date.secondsSinceEpoch, b.id ?? "", b.title, b.source.description)
        }
        var used = Set<String>()
        var planned: [PlannedFile] = []
        for article in ordered {
            var slug = article.slug
            var suffix = 2
            while true {
                let path = (postsDirectory as NSString).appendingPathComponent(article.fileName(slug: slug))
                let takenByExisting = (existing[slug] ?? []).contains { !($0.path == path && $0.isSameArticle(as: article)) }
                if !used.contains(slug), !takenByExisting {
                    used.insert(slug)
                    planned.append(PlannedFile(article: article, slug: slug, path: path, contents: article.fileContents(slug: slug)))
                    break
                }
                slug = "\(article.slug)-\(suffix)"
                suffix += 1
            }
        }
        return planned
    }

    /// The posts already in `directory` and its sub-folders (the build reads every Markdown file
    /// under `content/posts/` as a post), by slug as the content loader derives it. Hidden files
    /// and folders are skipped as the loader skips them; a folder reached twice through links is
    /// read once.
    static func existingPosts(in directory: String) -> [String: [ExistingPost]] {
        var result: [String: [ExistingPost]] = [:]
        var visited = Set<String>()
        var pending = [directory]
        while let folder = pending.popLast() {
            let real = (folder as NSString).resolvingSymlinksInPath
            guard visited.insert(real).inserted,
                  let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = (folder as NSString).appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue { pending.append(path); continue }
                guard name.hasSuffix(".md") || name.hasSuffix(".markdown"),
                      let data = FileManager.default.contents(atPath: path),
                      let post = ExistingPost(path: path, text: String(decoding: data, as: UTF8.self)) else { continue }
                result[post.slug, default: []].append(post)
            }
        }
        return result
    }

    /// Writes the planned files. `progress(done, total)` is called after each file.
    public func write(_ files: [PlannedFile], progress: ((Int, Int) -> Void)? = nil) -> (ImportSummary, [Diagnostic]) {
        var summary = ImportSummary()
        var diagnostics: [Diagnostic] = []
        do {
            try FileManager.default.createDirectory(atPath: postsDirectory, withIntermediateDirectories: true)
        } catch {
            diagnostics.append(.error("cannot create directory: \(error.localizedDescription)", at: SourceLocation(file: postsDirectory)))
            summary.failed = files.map(\.path)
            return (summary, diagnostics)
        }
        for (index, file) in files.enumerated() {
            defer { progress?(index + 1, files.count) }
            let bytes = Data(file.contents.utf8)
            let existing = FileManager.default.contents(atPath: file.path)
            if let existing, existing == bytes {
                summary.unchanged.append(file.path)
                continue
            }
            if existing != nil && !force {
                summary.skipped.append(file.path)
                diagnostics.append(.warning("exists with different content, not overwritten (use --force); imported from \(file.article.source)",
                                            at: SourceLocation(file: file.path)))
                continue
            }
            do {
                try ImportWriter.writeAtomically(bytes, to: file.path)
                if existing == nil { summary.created.append(file.path) } else { summary.overwritten.append(file.path) }
            } catch {
                summary.failed.append(file.path)
                diagnostics.append(.error("cannot write: \(error)", at: SourceLocation(file: file.path)))
            }
        }
        return (summary, diagnostics)
    }

    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes to a temporary file next to `path`, then renames it over `path`.
    public static func writeAtomically(_ data: Data, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (directory as NSString).appendingPathComponent(".\(name).\(ProcessInfo.processInfo.processIdentifier).\(UUID().uuidString.prefix(8)).tmp")
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            throw WriteError(description: "cannot create a temporary file in \(directory)")
        }
        if rename(temporary, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WriteError(description: reason)
        }
    }
}

/// A post already in the folder: its slug and what identifies the article, read with BlogContent's
/// front matter parser.
struct ExistingPost {
    var path: String
    var slug: String
    var title: String?
    var epochSeconds: Int64?
    var id: String?

    init?(path: String, text: String) {
        guard let document = try? SplitDocument.split(text, path: path), let yaml = document.yaml else { return nil }
        var diagnostics: [Diagnostic] = []
        let front = FrontMatter.parse(yaml, firstLine: document.yamlFirstLine, path: path,
                                      zone: TimeZone(identifier: "UTC")!, diagnostics: &diagnostics)
        self.path = path
        self.title = front.title
        self.epochSeconds = front.date?.epochSeconds
        self.id = front.id
        if let slug = front.slug ?? front.id {
            self.slug = slug
        } else if let title = front.title {
            self.slug = ExistingPost.derivedSlug(title: title, fileName: (path as NSString).lastPathComponent)
        } else {
            return nil
        }
    }

    /// The slug the content loader gives a post without `slug:` or `id:` (the same function).
    static func derivedSlug(title: String, fileName: String) -> String {
        Slug.derived(title: title, fileName: fileName)
    }

    func isSameArticle(as article: ImportedArticle) -> Bool {
        if let id, let otherID = article.id { return id == otherID }
        return title == article.title && epochSeconds == article.date.secondsSinceEpoch
    }
}

/// A one-line progress bar on stderr, shown only when stderr is a terminal and there is enough work.
public final class ProgressBar: @unchecked Sendable {
    private let console: Console
    private let label: String
    private let enabled: Bool
    private var lastWidth = -1

    public init(console: Console, label: String, total: Int, threshold: Int = 20) {
        self.console = console
        self.label = label
        self.enabled = console.errorIsTerminal && total >= threshold
    }

    public func update(_ done: Int, _ total: Int) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = done * width / total
        if filled == lastWidth && done != total { return }
        lastWidth = filled
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        console.writeError("\r\(label) [\(bar)] \(done)/\(total)")
        if done == total { console.writeError("\r\u{1B}[K") }
    }
}
