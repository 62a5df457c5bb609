import BlogCore
import Foundation
@testable import BlogImport
import BlogContent
import XCTest

final class ImportJobTests: XCTestCase {
    private func run(_ source: ImportSource, posts: String, options: ImportOptions = ImportOptions()) -> (ImportOutcome, CapturedOutput) {
        let (console, captured) = Console.capturing()
        let outcome = ImportJob.run(source, options: options, postsDirectory: posts, console: console)
        return (outcome, captured)
    }

    func testAPIImportTwiceIsStable() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        let files = [Fixtures.path("qiita-api/items.json"), Fixtures.path("qiita-api/more.json")]
        let (first, output) = run(.qiitaAPI(files: files), posts: posts)
        XCTAssertTrue(first.succeeded)
        XCTAssertEqual(first.summary.created.count, 4)
        XCTAssertEqual(listFiles(posts), [
            "2020-01-31-aaaaaaaaaaaaaaaaaaaa.md", "2021-05-09-fedcba9876543210fedc.md",
            "2021-05-10-0123456789abcdef0123.md", "2022-02-06-bbbbbbbbbbbbbbbbbbbb.md",
        ])
        XCTAssertTrue(output.errors.contains("warning: duplicate article \"【Swift】Codableで日付を扱う\""), output.errors)
        XCTAssertTrue(output.output.hasSuffix("4 created, 0 unchanged, 0 skipped, 0 failed\n"), output.output)
        let written = try XCTUnwrap(readFile((posts as NSString).appendingPathComponent("2021-05-10-0123456789abcdef0123.md")))
        XCTAssertTrue(written.contains("\n---\n# はじめに\n"), "the first occurrence wins: \(written)")

        let snapshot = listFiles(posts).map { readFile((posts as NSString).appendingPathComponent($0)) }
        let (second, secondOutput) = run(.qiitaAPI(files: files), posts: posts)
        XCTAssertTrue(second.succeeded)
        XCTAssertEqual(second.summary.created, [])
        XCTAssertEqual(second.summary.unchanged.count, 4)
        XCTAssertTrue(secondOutput.output.hasSuffix("0 created, 4 unchanged, 0 skipped, 0 failed\n"), secondOutput.output)
        XCTAssertEqual(listFiles(posts).map { readFile((posts as NSString).appendingPathComponent($0)) }, snapshot)
    }

    func testExistingEditedFileIsSkippedUnlessForce() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        let files = [Fixtures.path("qiita-api/items.json")]
        _ = run(.qiitaAPI(files: files), posts: posts)
        let path = (posts as NSString).appendingPathComponent("2021-05-10-0123456789abcdef0123.md")
        let original = try XCTUnwrap(readFile(path))
        try (original + "edited\n").write(toFile: path, atomically: false, encoding: .utf8)

        let (skipped, output) = run(.qiitaAPI(files: files), posts: posts)
        XCTAssertTrue(skipped.succeeded)
        XCTAssertEqual(skipped.summary.skipped, [path])
        XCTAssertEqual(skipped.summary.unchanged.count, 2)
        XCTAssertEqual(readFile(path), original + "edited\n")
        XCTAssertTrue(output.errors.contains("\(path): warning: exists with different content, not overwritten (use --force)"), output.errors)

        let (forced, _) = run(.qiitaAPI(files: files), posts: posts, options: ImportOptions(force: true))
        XCTAssertEqual(forced.summary.overwritten, [path])
        XCTAssertEqual(readFile(path), original)
        // No temporary files are left behind.
        XCTAssertEqual(listFiles(posts).filter { $0.hasPrefix(".") }, [])
    }

    func testInvalidInputWritesNothing() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        let broken = Fixtures.path("qiita-api/broken.json")
        let (outcome, output) = run(.qiitaAPI(files: [Fixtures.path("qiita-api/items.json"), broken]), posts: posts)
        XCTAssertFalse(outcome.succeeded)
        XCTAssertFalse(FileManager.default.fileExists(atPath: posts))
        XCTAssertTrue(output.errors.contains("\(broken):5:5: error: invalid JSON"), output.errors)
        XCTAssertTrue(output.errors.hasSuffix("error: 1 error in the input; nothing was written\n"), output.errors)
    }

    func testTextDumpImportWithCollisionsAndRerun() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        // Two different articles on the same day whose titles give the same ASCII slug.
        let dump = (site as NSString).appendingPathComponent("dump.txt")
        try """
            - 投稿日:2021-05-10T09:00:00+09:00
            Release notes
            first
            - 投稿日:2021-05-10T18:00:00+09:00
            Release notes!
            second

            """.write(toFile: dump, atomically: false, encoding: .utf8)
        let (outcome, _) = run(.text(files: [Fixtures.path("text/dump.txt"), dump]), posts: posts)
        XCTAssertTrue(outcome.succeeded)
        let names = listFiles(posts)
        XCTAssertTrue(names.contains("2021-05-10-release-notes.md"), "\(names)")
        XCTAssertTrue(names.contains("2021-05-10-release-notes-2.md"), "\(names)")
        XCTAssertEqual(names.count, 6)
        XCTAssertTrue(readFile((posts as NSString).appendingPathComponent("2021-05-10-release-notes.md"))?.contains("\nfirst\n") ?? false)
        XCTAssertTrue(readFile((posts as NSString).appendingPathComponent("2021-05-10-release-notes-2.md"))?.contains("slug: \"release-notes-2\"") ?? false)

        // Importing only the second dump again: its articles are recognised in their files.
        let (again, _) = run(.text(files: [dump]), posts: posts)
        XCTAssertEqual(again.summary.unchanged.count, 2)
        XCTAssertEqual(again.summary.created, [])

        // A different article whose slug collides with a file from an earlier run gets the next suffix.
        let other = (site as NSString).appendingPathComponent("other.txt")
        try "- 投稿日:2021-05-10T20:00:00+09:00\nRelease notes?\nthird\n".write(toFile: other, atomically: false, encoding: .utf8)
        let (third, _) = run(.text(files: [other]), posts: posts)
        XCTAssertEqual(third.summary.created, [(posts as NSString).appendingPathComponent("2021-05-10-release-notes-3.md")])
    }

    func testKnownTagsAndFallbackDateTitle() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        let options = ImportOptions(tagInference: TagInference(knownTags: ["メモ"]),
                                    fallbackDate: ImportDate.parseISO8601("2020-04-01T10:00:00+09:00"), fallbackTitle: "見出しのないメモ")
        let (outcome, _) = run(.text(files: [Fixtures.path("text/noheader.txt")]), posts: posts, options: options)
        XCTAssertTrue(outcome.succeeded)
        let name = try XCTUnwrap(listFiles(posts).first)
        XCTAssertTrue(name.hasPrefix("2020-04-01-"))
        XCTAssertTrue(readFile((posts as NSString).appendingPathComponent(name))?.contains("tags: [\"メモ\"]") ?? false)
    }

    func testQiitaCLIImport() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        let (outcome, _) = run(.qiitaCLI(directory: Fixtures.path("qiita-cli")), posts: posts)
        XCTAssertTrue(outcome.succeeded)
        XCTAssertEqual(outcome.summary.created.count, 3)
        XCTAssertTrue(listFiles(posts).contains("2023-09-20-0123456789abcdef0124.md"))
        XCTAssertTrue(listFiles(posts).contains("2022-12-24-empty-body.md"))
    }

    func testProgressBarOnlyOnTerminal() {
        var written = ""
        let console = Console(output: { _ in }, errors: { written += $0 }, errorIsTerminal: true)
        let bar = ProgressBar(console: console, label: "importing", total: 40)
        for done in 1...40 { bar.update(done, 40) }
        XCTAssertTrue(written.contains("importing [###############               ] 20/40"), written)
        XCTAssertTrue(written.hasSuffix("\r\u{1B}[K"))
        let (quiet, captured) = Console.capturing()
        let hidden = ProgressBar(console: quiet, label: "importing", total: 40)
        for done in 1...40 { hidden.update(done, 40) }
        XCTAssertEqual(captured.errors, "")
    }
}

final class AuthoringTests: XCTestCase {
    func testNewPost() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        let now = Date(timeIntervalSince1970: 1_620_658_800) // 2021-05-10T15:00:00Z = 2021-05-11 00:00 in Tokyo
        let path = try PostCreator.newPost(title: "SwiftUIの \"State\"", tags: ["Swift", " iOS", "Swift"], draft: true,
                                           postsDirectory: posts, now: now)
        let name = (path as NSString).lastPathComponent
        // The slug the build derives from the title of a post without one: Japanese kept.
        XCTAssertEqual(name, "2021-05-11-swiftuiの-state.md")
        let text = try XCTUnwrap(readFile(path))
        XCTAssertTrue(text.hasPrefix("""
            ---
            title: "SwiftUIの \\"State\\""
            date: 2021-05-11T00:00:00+09:00
            tags: ["Swift", "iOS"]
            draft: true
            """), text)
        let explicit = try PostCreator.newPost(title: "Hello", slug: "hello", postsDirectory: posts, now: now,
                                               timeZone: TimeZone(identifier: "UTC")!)
        XCTAssertEqual((explicit as NSString).lastPathComponent, "2021-05-10-hello.md")
        XCTAssertThrowsError(try PostCreator.newPost(title: "Hello", slug: "hello", postsDirectory: posts, now: now,
                                                     timeZone: TimeZone(identifier: "UTC")!))
        XCTAssertThrowsError(try PostCreator.newPost(title: "x", slug: "a/b", postsDirectory: posts))
        XCTAssertThrowsError(try PostCreator.newPost(title: "  ", postsDirectory: posts))
    }

    /// A long Japanese title: the slug is the loader's (80 characters), the file name stays short
    /// enough for file systems' 255-byte limit.
    func testNewPostWithALongJapaneseTitle() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        let title = String(repeating: "長い題名の記事", count: 20)
        let path = try PostCreator.newPost(title: title, postsDirectory: posts, now: Date(timeIntervalSince1970: 1_620_658_800))
        let name = (path as NSString).lastPathComponent
        XCTAssertLessThanOrEqual(name.utf8.count, 200, name)
        XCTAssertTrue(name.hasPrefix("2021-05-11-長い題名の記事長い"), name)
        let text = try XCTUnwrap(readFile(path))
        XCTAssertTrue(text.contains("slug: \"\(String(title.prefix(80)))\"\n"), text)
    }

    func testInitSite() throws {
        let parent = try makeTemporaryDirectory(self)
        let site = (parent as NSString).appendingPathComponent("mysite")
        let created = try SiteScaffold.initSite(at: site, now: Date(timeIntervalSince1970: 1_620_605_700))
        // blog.yml, the welcome post, static/, .gitignore and the Pages workflow.
        XCTAssertEqual(created.count, 5)
        XCTAssertEqual(listFiles(site), [".github", ".gitignore", "blog.yml", "content", "static"])
        XCTAssertEqual(readFile((site as NSString).appendingPathComponent(".gitignore")), PublishingFiles.gitignore)
        let workflow = readFile((site as NSString).appendingPathComponent(".github/workflows/pages.yml")) ?? ""
        XCTAssertTrue(workflow.contains("uses: \(PublishingFiles.defaultAction)\n"), workflow)
        XCTAssertTrue(workflow.contains("uses: actions/deploy-pages@v4"), workflow)
        XCTAssertEqual(listFiles((site as NSString).appendingPathComponent("content/posts")), ["2021-05-10-welcome.md"])
        XCTAssertTrue(readFile((site as NSString).appendingPathComponent("blog.yml"))?.contains("timezone: \"Asia/Tokyo\"") ?? false)
        // A second init into the now non-empty directory fails and changes nothing.
        XCTAssertThrowsError(try SiteScaffold.initSite(at: site))
        XCTAssertEqual(listFiles((site as NSString).appendingPathComponent("content/posts")), ["2021-05-10-welcome.md"])
    }

    func testInitSiteWithoutWorkflowKeepsAnExistingGitignore() throws {
        let site = (try makeTemporaryDirectory(self) as NSString).appendingPathComponent("mysite")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try "mine\n".write(toFile: (site as NSString).appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
        let created = try SiteScaffold.initSite(at: site, workflow: false, action: "me/fork@main")
        XCTAssertEqual(created.count, 3)
        XCTAssertEqual(listFiles(site), [".gitignore", "blog.yml", "content", "static"])
        XCTAssertEqual(readFile((site as NSString).appendingPathComponent(".gitignore")), "mine\n")
        XCTAssertTrue(PublishingFiles.pagesWorkflow(action: "me/fork@main").contains("uses: me/fork@main\n"))
    }
}

final class SiteWideSlugTests: XCTestCase {
    /// Slugs are URLs: two articles on different days with the same title slug still get distinct slugs,
    /// and everything imported loads with BlogContent's loader without errors.
    func testSlugsAreUniqueAcrossDaysAndFilesLoad() throws {
        let site = try makeTemporaryDirectory(self)
        let posts = (site as NSString).appendingPathComponent("content/posts")
        let dump = (site as NSString).appendingPathComponent("dump.txt")
        try """
            - 投稿日:2021-05-10T09:00:00+09:00
            Weekly notes
            one
            - 投稿日:2021-05-17T09:00:00+09:00
            Weekly notes
            two

            """.write(toFile: dump, atomically: false, encoding: .utf8)
        let (console, _) = Console.capturing()
        let files = [Fixtures.path("text/dump.txt"), dump]
        XCTAssertTrue(ImportJob.run(.text(files: files), options: ImportOptions(), postsDirectory: posts, console: console).succeeded)
        XCTAssertTrue(ImportJob.run(.qiitaAPI(files: [Fixtures.path("qiita-api/items.json"), Fixtures.path("qiita-api/more.json")]),
                                    options: ImportOptions(), postsDirectory: posts, console: console).succeeded)
        XCTAssertTrue(ImportJob.run(.qiitaCLI(directory: Fixtures.path("qiita-cli")), options: ImportOptions(),
                                    postsDirectory: posts, console: console).succeeded)
        XCTAssertTrue(listFiles(posts).contains("2021-05-10-weekly-notes.md"))
        XCTAssertTrue(listFiles(posts).contains("2021-05-17-weekly-notes-2.md"))
        let newPath = try PostCreator.newPost(title: "Weekly notes", postsDirectory: posts)
        XCTAssertTrue(newPath.hasSuffix("-weekly-notes-3.md"), newPath)
        XCTAssertThrowsError(try PostCreator.newPost(title: "Other", slug: "weekly-notes", postsDirectory: posts))

        let content = try ContentLoader(siteDirectory: URL(fileURLWithPath: site), config: SiteConfig()).load()
        XCTAssertEqual(content.posts.count, listFiles(posts).count)
        XCTAssertEqual(Set(content.posts.map(\.slug)).count, content.posts.count, "slugs are unique")
        let api = try XCTUnwrap(content.posts.first { $0.slug == "0123456789abcdef0123" })
        XCTAssertEqual(api.title, "【Swift】Codableで日付を扱う")
        XCTAssertEqual(api.tags, ["Swift", "iOS"])
        XCTAssertEqual(api.date.iso8601, "2021-05-10T09:15:00+09:00")
        XCTAssertEqual(api.updated?.iso8601, "2021-06-01T12:00:00+09:00")
        XCTAssertTrue(content.posts.contains { $0.title == #"[iOS] "Dark mode" / ダークモード: メモ \ 2"# && $0.draft })
        // The text dump's rendered page keeps every line, markup characters included.
        let dark = try XCTUnwrap(content.posts.first { $0.title == "[iOS] ダークモード対応のメモ" })
        XCTAssertTrue(dark.content.html.contains("&lt;div&gt;HTMLでもない&lt;/div&gt; &amp;amp; `code` $x$ ~~strike~~ | table |"), dark.content.html)
    }
}
