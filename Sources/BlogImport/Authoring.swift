import BlogCore
import Foundation

/// `blog new`: creates `content/posts/<date>-<slug>.md` with front matter filled in.
public enum PostCreator {
    /// Creates the post and returns its path. The date is `now` in `timeZone`; the slug is
    /// `slug` (checked: ASCII letters, digits, `-`, `_`) or the one the content loader derives from
    /// the title (`Slug.forTitle`: Japanese stays Japanese), so that `new` and a hand-written file
    /// agree. Fails when the file already exists.
    @discardableResult
    public static func newPost(title: String, tags: [String] = [], slug: String? = nil, draft: Bool = false,
                               postsDirectory: String, now: Date = Date(),
                               timeZone: TimeZone = TimeZone(identifier: "Asia/Tokyo")!) throws -> String {
        let trimmedTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmedTitle.isEmpty else { throw Diagnostic.error("the title is empty") }
        let date = ImportDate(date: now, timeZone: timeZone)
        let finalSlug: String
        if let slug {
            guard Slugs.isValid(slug) else {
                throw Diagnostic.error("invalid slug '\(slug)': use ASCII letters, digits, '-' and '_' (not first)")
            }
            finalSlug = slug
        } else {
            let derived = Slug.forTitle(trimmedTitle)
            finalSlug = derived.isEmpty ? Slugs.fromTitle(trimmedTitle, date: date) : derived
        }
        var cleanTags: [String] = []
        for tag in tags.map({ $0.trimmingCharacters(in: .whitespaces) }) where !tag.isEmpty && !cleanTags.contains(tag) {
            cleanTags.append(tag)
        }
        // Slugs are URLs: unique in the site. A given slug must be free; a derived one gets a suffix.
        let existing = ImportWriter.existingPosts(in: postsDirectory)
        if slug != nil, let other = existing[finalSlug]?.first {
            throw Diagnostic.error("the slug '\(finalSlug)' is already used by \(other.path); choose another --slug")
        }
        var uniqueSlug = finalSlug
        var suffix = 2
        while existing[uniqueSlug] != nil {
            uniqueSlug = "\(finalSlug)-\(suffix)"
            suffix += 1
        }
        let article = ImportedArticle(title: trimmedTitle, date: date, tags: cleanTags, draft: draft, slug: uniqueSlug,
                                      body: "", source: SourceLocation(file: "<new>"))
        // A Japanese slug is up to three bytes a character: the file name keeps its start only, within
        // what every file system takes (with room for the temporary name's suffix); the URL is the slug.
        var stem = uniqueSlug
        while stem.utf8.count > 160 { stem.removeLast() }
        let path = (postsDirectory as NSString).appendingPathComponent(article.fileName(slug: stem))
        if FileManager.default.fileExists(atPath: path) {
            throw Diagnostic.error("already exists; choose another --slug", at: SourceLocation(file: path))
        }
        do {
            try FileManager.default.createDirectory(atPath: postsDirectory, withIntermediateDirectories: true)
            try ImportWriter.writeAtomically(Data(article.fileContents().utf8), to: path)
        } catch {
            throw Diagnostic.error("cannot write: \(error)", at: SourceLocation(file: path))
        }
        return path
    }
}

/// `blog init`: a new site that builds right away.
public enum SiteScaffold {
    /// Creates `blog.yml`, `content/posts/<today>-welcome.md`, `static/`, `.gitignore` and, with
    /// `workflow`, the GitHub Pages workflow using `action` (`PublishingFiles`) in `directory`
    /// (created if missing). Fails, touching nothing, when `directory` exists and is not empty
    /// (hidden entries such as `.git` are allowed). Returns the created paths.
    @discardableResult
    public static func initSite(at directory: String, title: String = "My Blog", now: Date = Date(),
                                timeZone: TimeZone = TimeZone(identifier: "Asia/Tokyo")!, workflow: Bool = true,
                                action: String = PublishingFiles.defaultAction) throws -> [String] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw Diagnostic.error("exists and is not a directory", at: SourceLocation(file: directory))
            }
            let visible = ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }
            if !visible.isEmpty {
                throw Diagnostic.error("directory is not empty (found \(visible.sorted().prefix(3).joined(separator: ", "))); "
                                       + "blog init only creates new sites", at: SourceLocation(file: directory))
            }
        }
        let join = { (parts: [String]) in parts.reduce(directory) { ($0 as NSString).appendingPathComponent($1) } }
        let config = join(["blog.yml"])
        let posts = join(["content", "posts"])
        let staticDirectory = join(["static"])
        var created: [String] = []
        do {
            try manager.createDirectory(atPath: posts, withIntermediateDirectories: true)
            try manager.createDirectory(atPath: staticDirectory, withIntermediateDirectories: true)
            try ImportWriter.writeAtomically(Data(configText(title: title, timeZone: timeZone).utf8), to: config)
            created.append(config)
            let welcome = ImportedArticle(
                title: "ようこそ", date: ImportDate(date: now, timeZone: timeZone), tags: ["blog"], slug: "welcome",
                body: welcomeBody, source: SourceLocation(file: "<init>"))
            let welcomePath = (posts as NSString).appendingPathComponent(welcome.fileName())
            try ImportWriter.writeAtomically(Data(welcome.fileContents().utf8), to: welcomePath)
            created.append(welcomePath)
            created.append(staticDirectory)
            created += try PublishingFiles.write(into: directory, workflow: workflow, action: action)
        } catch let diagnostic as Diagnostic {
            throw diagnostic
        } catch {
            throw Diagnostic.error("cannot create the site: \(error)", at: SourceLocation(file: directory))
        }
        return created
    }

    static func configText(title: String, timeZone: TimeZone) -> String {
        """
        # Settings of this site.
        title: \(FrontMatterWriter.quote(title))
        description: ""
        author: ""
        language: "ja"
        base_url: "http://localhost:8000/"
        timezone: \(FrontMatterWriter.quote(timeZone.identifier))

        """
    }

    static let welcomeBody = """
        ブログへようこそ。この記事は `blog init` が作りました。

        - 新しい記事: `blog new "タイトル" --tags Swift,iOS`
        - Qiita から取り込む: `blog import qiita-api items.json`
        - プレビュー: `blog serve`

        """
}
