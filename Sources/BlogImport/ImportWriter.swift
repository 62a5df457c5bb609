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

    /// Assigns file names. A name is taken when another article of this batch has it, or when a
    /// file exists there that holds a different article (other id, or other date and title).
    public func plan(_ articles: [ImportedArticle]) -> [PlannedFile] {
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
                let name = article.fileName(slug: slug)
                let path = (postsDirectory as NSString).appendingPathComponent(name)
                if !used.contains(name), !ImportWriter.holdsOtherArticle(path: path, than: article) {
                    used.insert(name)
                    planned.append(PlannedFile(article: article, slug: slug, path: path, contents: article.fileContents(slug: slug)))
                    break
                }
                slug = "\(article.slug)-\(suffix)"
                suffix += 1
            }
        }
        return planned
    }

    /// True when `path` exists and its front matter names a different article.
    static func holdsOtherArticle(path: String, than article: ImportedArticle) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        let identity = ExistingPostIdentity(text: String(decoding: data, as: UTF8.self))
        if let existingID = identity.id, let id = article.id { return existingID != id }
        guard let title = identity.title, let date = identity.date else { return false }
        return title != article.title || date.secondsSinceEpoch != article.date.secondsSinceEpoch
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

/// `title`, `date` and `id` of an existing post, read from front matter lines as we write them
/// (`key: value` at the start of a line, double-quoted or plain); enough to tell articles apart.
struct ExistingPostIdentity {
    var title: String?
    var date: ImportDate?
    var id: String?

    init(text: String) {
        guard let (lines, _, _) = SimpleFrontMatter.split(text) else { return }
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon]
            let raw = String(line[line.index(after: colon)...])
            guard key == "title" || key == "date" || key == "id",
                  let value = try? SimpleFrontMatter.parseValue(raw, line: 0, column: 0),
                  case let .scalar(text, _) = value else { continue }
            switch key {
            case "title": title = text
            case "date": date = ImportDate.parseISO8601(text)
            default: id = text
            }
        }
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
