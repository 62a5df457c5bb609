import BlogContent
import BlogCore
import BlogSite
import Foundation
import XCTest

final class BuildTests: XCTestCase {
    func testBasicFixtureSite() throws {
        let site = try build(try Fixtures.copy("basic"))
        let paths = Set(site.paths)
        for expected in ["index.html", "page/2/index.html", "posts/hello/index.html", "posts/second/index.html",
                         "posts/0123456789abcdef0123/index.html", "about/index.html", "tags/index.html",
                         "tags/swift/index.html", "tags/swift/page/2/index.html", "tags/ios/index.html", "tags/日本語/index.html",
                         "archive/index.html", "archive/2020/index.html", "archive/2020/02/index.html", "archive/2021/01/index.html",
                         "404.html", "search/index.html", "tags.json", "posts.json", "feed.xml", "tags/swift/feed.xml",
                         "sitemap.xml", "robots.txt", ".nojekyll", "CNAME", "img/dot.gif"] {
            XCTAssertTrue(paths.contains(expected), "missing \(expected)")
        }
        XCTAssertFalse(paths.contains("page/3/index.html"))
        XCTAssertFalse(site.paths.contains { $0.contains("draft") || $0.contains("future") }, "drafts and future posts are left out")
        XCTAssertEqual(site.model.posts.map(\.slug), ["0123456789abcdef0123", "second", "hello"], "newest first")
        XCTAssertTrue(site.paths.contains { $0.hasPrefix("assets/css/main.") && $0.hasSuffix(".css") }, "hashed stylesheet")

        let hello = try XCTUnwrap(site.text("posts/hello/index.html"))
        XCTAssertTrue(hello.contains("Hello &lt;World&gt; &amp; &quot;friends&quot;"), "titles are escaped")
        XCTAssertFalse(hello.contains("<World>"))
        XCTAssertTrue(hello.contains("<html lang=\"ja\""))
        XCTAssertTrue(hello.contains("2020年2月6日"))
        XCTAssertTrue(hello.contains("Line one<br />"), "newlines are line breaks")
        XCTAssertTrue(hello.contains("href=\"/tags/swift/\""))
    }

    func testTagsAreCaseInsensitiveWithMostCommonSpelling() throws {
        let site = try build(try Fixtures.copy("basic"))
        let swift = try XCTUnwrap(site.model.tags.first { $0.slug == "swift" })
        XCTAssertEqual(swift.name, "Swift", "two of three posts spell it Swift")
        XCTAssertEqual(swift.postIndices.count, 3)
        let json = try JSONSerialization.jsonObject(with: Data(site.text("tags.json")!.utf8)) as! [String: Any]
        let tags = json["tags"] as! [[String: Any]]
        XCTAssertEqual(tags.first?["name"] as? String, "Swift")
        XCTAssertEqual(tags.first?["count"] as? Int, 3)
        XCTAssertEqual(tags.first?["posts"] as? [String], ["0123456789abcdef0123", "second", "hello"])
        let japanese = tags.first { $0["name"] as? String == "日本語" }
        XCTAssertEqual(japanese?["url"] as? String, "/tags/%E6%97%A5%E6%9C%AC%E8%AA%9E/")
        let posts = (try JSONSerialization.jsonObject(with: Data(site.text("posts.json")!.utf8)) as! [String: Any])["posts"] as! [[String: Any]]
        XCTAssertEqual(posts.map { $0["url"] as! String }, ["/posts/0123456789abcdef0123/", "/posts/second/", "/posts/hello/"])
        XCTAssertEqual(posts[1]["updated"] as? String, "2020-03-05T12:00:00+09:00")
        XCTAssertEqual(posts[2]["summary"] as? String, "The first post.")
    }

    func testDraftsAndFutureWhenAsked() throws {
        let site = try build(try Fixtures.copy("basic"), drafts: true, future: true)
        XCTAssertEqual(site.model.posts.count, 5)
        XCTAssertTrue(site.paths.contains("posts/draft-post/index.html"))
        XCTAssertTrue(site.paths.contains("posts/from-the-future/index.html"))
    }

    func testDeterministic() throws {
        let source = try Fixtures.copy("basic")
        let first = try build(source)
        let second = try build(source)
        XCTAssertEqual(first.paths, second.paths)
        for (a, b) in zip(first.files, second.files) {
            XCTAssertEqual(a.bytes, b.bytes, "\(a.path) differs between two builds")
        }
    }

    func testStreamingBuildGivesTheSameFiles() throws {
        // With the default theme, `blog build` makes each post's page as soon as that post's body
        // is rendered (the "posts" phase), before the other posts' bodies, and keeps the HTML only
        // of the posts a feed lists (with `feed_limit: 1`, not every post).
        for (drafts, feedLimit) in [(false, 20), (true, 20), (false, 1)] {
            let source = try Fixtures.copy("basic")
            let config = source.appendingPathComponent("blog.yml")
            try (String(contentsOf: config, encoding: .utf8) + "feed_limit: \(feedLimit)\n").write(to: config, atomically: true, encoding: .utf8)
            let inMemory = try build(source, drafts: drafts)
            var streamed: [OutputFile] = []
            var batches = 0
            let site = try SiteBuilder.build(BuildOptions(siteDirectory: source, includeDrafts: drafts, now: Fixtures.now), console: nil) { files in
                streamed += files
                batches += 1
            }
            XCTAssertEqual(site.files.count, 0, "a streaming build keeps no files")
            XCTAssertGreaterThan(batches, 1)
            XCTAssertTrue(site.timings.map(\.phase).contains("posts"))
            streamed.sort { $0.path < $1.path }
            XCTAssertEqual(streamed.map(\.path), inMemory.paths)
            for (a, b) in zip(streamed, inMemory.files) {
                XCTAssertEqual(a.bytes, b.bytes, "\(a.path), drafts: \(drafts), feed_limit: \(feedLimit)")
            }
        }
    }

    /// A site of `count` posts (p0 the oldest), with `extra` files beside them; the posts in
    /// `updated` have an `updated` date.
    private func manyPosts(_ count: Int, updated: Set<Int> = [], extra: [String: String] = [:]) throws -> URL {
        var files = extra
        for n in 0..<count {
            let day = Date(timeIntervalSince1970: 1_600_000_000 + Double(n) * 86_400)
            let date = ISO8601DateFormatter().string(from: day)
            let tags = n % 7 == 0 ? "[Swift, iOS]" : n % 3 == 0 ? "[Swift]" : "[Go]"
            let update = updated.contains(n) ? "updated: \(ISO8601DateFormatter().string(from: day.addingTimeInterval(3_600)))\n" : ""
            files["content/posts/p\(n).md"] = "---\ntitle: Post \(n)\ndate: \(date)\n\(update)tags: \(tags)\n---\n## Part \(n)\n\nText of post \(n) with `code`.\n\n```swift\nlet n = \(n)\n```\n"
        }
        return try Fixtures.site(files)
    }

    func testStreamingBuildOfManyChunksGivesTheSameFilesWithPostPagesInOrder() throws {
        // 300 posts: the posts phase hands pages on 128 at a time while the workers go on with
        // the next ones; the pages must be the in-memory build's, and handed on in the posts'
        // order (newest first), each once.
        let source = try manyPosts(300)
        let inMemory = try build(source)
        var streamed: [OutputFile] = []
        let site = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil) { streamed += $0 }
        XCTAssertEqual(site.files.count, 0)
        let postPages = streamed.map(\.path).filter { $0.hasPrefix("posts/post-") }
        XCTAssertEqual(postPages, (0..<300).reversed().map { "posts/post-\($0)/index.html" }, "post pages newest first, each once")
        streamed.sort { $0.path < $1.path }
        XCTAssertEqual(streamed.map(\.path), inMemory.paths)
        for (a, b) in zip(streamed, inMemory.files) {
            XCTAssertEqual(a.bytes, b.bytes, a.path)
        }
    }

    func testStreamingBuildWritesEachFeedOnceItsPostsAreMade() throws {
        // 300 posts, newest first in chunks of 128 (p299…p172, p171…p44, p43…p0): the main feed
        // and the Swift and Go feeds (their newest 20 posts among the first 128) go to the writer
        // with the first chunk; iOS (every 7th post: its 20th newest is p161) with the second.
        // Each feed is handed on once, with the bytes of the in-memory build.
        let source = try manyPosts(300)
        let inMemory = try build(source)
        var batches: [[String]] = []
        var streamed: [OutputFile] = []
        _ = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil) { files in
            batches.append(files.map(\.path))
            streamed += files
        }
        func batch(of path: String) -> Int? { batches.firstIndex { $0.contains(path) } }
        let firstChunk = try XCTUnwrap(batch(of: "posts/post-172/index.html"))
        let secondChunk = try XCTUnwrap(batch(of: "posts/post-44/index.html"))
        let lastChunk = try XCTUnwrap(batch(of: "posts/post-0/index.html"))
        XCTAssertLessThan(firstChunk, secondChunk)
        XCTAssertLessThan(secondChunk, lastChunk)
        for feed in ["feed.xml", "tags/swift/feed.xml", "tags/go/feed.xml"] {
            let at = try XCTUnwrap(batch(of: feed), feed)
            XCTAssertTrue(at > firstChunk && at < secondChunk, "\(feed) in batch \(at), the first chunk's pages in \(firstChunk)")
        }
        let ios = try XCTUnwrap(batch(of: "tags/ios/feed.xml"))
        XCTAssertTrue(ios > secondChunk && ios < lastChunk, "iOS feed in batch \(ios)")
        let feeds = streamed.map(\.path).filter { $0.hasSuffix("feed.xml") }
        XCTAssertEqual(feeds.count, Set(feeds).count, "each feed once")
        streamed.sort { $0.path < $1.path }
        XCTAssertEqual(streamed.map(\.path), inMemory.paths)
        for (a, b) in zip(streamed, inMemory.files) {
            XCTAssertEqual(a.bytes, b.bytes, a.path)
        }
    }

    func testStreamingBuildOfASiteWithoutPostsWritesItsFeed() throws {
        let source = try Fixtures.site([
            "blog.yml": "title: Empty\nbase_url: https://example.com/\n",
            "content/about.md": "---\ntitle: About\n---\nNo posts yet.\n",
        ])
        let inMemory = try build(source)
        var streamed: [OutputFile] = []
        _ = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil) { streamed += $0 }
        let feed = try XCTUnwrap(streamed.first { $0.path == "feed.xml" })
        XCTAssertTrue(String(decoding: feed.bytes, as: UTF8.self).contains("<title>Empty</title>"))
        streamed.sort { $0.path < $1.path }
        XCTAssertEqual(streamed.map(\.path), inMemory.paths)
        for (a, b) in zip(streamed, inMemory.files) {
            XCTAssertEqual(a.bytes, b.bytes, a.path)
        }
    }

    func testStreamingBuildWhosePostsComeOutOfTheSearchOrderGivesTheSameFiles() throws {
        // Posts of the same date: the site orders them by file name, the search index by id, and
        // these ids run against the file names, so the posts phase hands the index each post
        // before the ones that precede it there, which it must hold until those have come.
        var extra: [String: String] = [:]
        for n in 0..<300 {
            let id = String(format: "id%03d", 299 - n)
            extra["content/posts/same\(String(format: "%03d", n)).md"] =
                "---\ntitle: Same \(n)\ndate: 2020-09-01T12:00:00+09:00\nid: \(id)\ntags: [Same\(n % 3)]\n---\nWords of post \(n), 記事\(n).\n"
        }
        let source = try manyPosts(20, extra: extra)
        let inMemory = try build(source)
        var streamed: [OutputFile] = []
        _ = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil) { streamed += $0 }
        // A post's id is its slug too: same000.md is posts/id299/.
        let postPages = streamed.map(\.path).filter { $0.hasPrefix("posts/id") }
        XCTAssertEqual(postPages.first, "posts/id299/index.html", "the site's order: by file name")
        XCTAssertEqual(postPages.last, "posts/id000/index.html", "the site's order: by file name")
        streamed.sort { $0.path < $1.path }
        XCTAssertEqual(streamed.map(\.path), inMemory.paths)
        XCTAssertGreaterThan(streamed.filter { $0.path.hasPrefix("search/") }.count, 2)
        for (a, b) in zip(streamed, inMemory.files) {
            XCTAssertEqual(a.bytes, b.bytes, a.path)
        }
    }

    func testTemplateErrorInALatePostStopsTheStreamingBuildWithItsLocation() throws {
        // Only updated posts reach the partial that nests itself without end: p10, in the third
        // chunk of 128 posts (newest first: p299…p172, p171…p44, p43…p0). The build must fail
        // with the partial's location, once, after handing on the pages of the two chunks
        // before and of none after.
        let source = try manyPosts(300, updated: [10], extra: [
            "blog.yml": "theme: mine\n",
            "themes/mine/templates/post.mustache": "<p>{{post.title}}</p>\n{{#post.has_updated}}{{> partials/deep}}{{/post.has_updated}}\n",
            "themes/mine/templates/partials/deep.mustache": "{{#post}}x{{> partials/deep}}{{/post}}",
        ])
        var handed: [String] = []
        let messages = errors {
            _ = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil) { handed += $0.map(\.path) }
        }
        XCTAssertEqual(messages, ["themes/mine/templates/partials/deep.mustache:1:11: error: templates nested more than 200 levels deep (recursive partial or block?)"])
        XCTAssertEqual(handed.filter { $0.hasPrefix("posts/") }, (44..<300).reversed().map { "posts/post-\($0)/index.html" })
    }

    func testTemplateErrorInAListPageStopsTheStreamingBuildWithItsLocation() throws {
        // The tag pages come after the posts, 128 pages at a time, and reach a partial that
        // nests itself without end: one error, and no page of the failing batch handed on.
        let source = try manyPosts(300, extra: [
            "layouts/tag.mustache": "<h1>{{tag.name}}</h1>\n{{> partials/deep}}\n",
            "layouts/partials/deep.mustache": "{{#tag}}x{{> partials/deep}}{{/tag}}",
        ])
        var handed: [String] = []
        let messages = errors {
            _ = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil) { handed += $0.map(\.path) }
        }
        XCTAssertEqual(messages.count, 1, messages.joined(separator: "\n"))
        XCTAssertTrue(messages.first?.hasPrefix("layouts/partials/deep.mustache:1:") == true, messages.joined())
        XCTAssertTrue(messages.first?.hasSuffix("error: templates nested more than 200 levels deep (recursive partial or block?)") == true, messages.joined())
        XCTAssertFalse(handed.contains { $0.hasPrefix("tags/") && $0.hasSuffix(".html") }, "a failing page was handed on")
        XCTAssertEqual(handed.filter { $0.hasPrefix("posts/post-") }.count, 300, "every post page came before")
    }

    func testStreamingBuildWithRelatedSummariesInThePostTemplateGivesTheSameFiles() throws {
        // A post template that shows the related posts' summaries and reading times, which come
        // from those posts' bodies: `blog build` cannot make a post's page as soon as its own body
        // is rendered, so it renders every body first, and the pages say what they say in memory.
        let source = try Fixtures.copy("basic")
        let layouts = source.appendingPathComponent("layouts")
        try FileManager.default.createDirectory(at: layouts, withIntermediateDirectories: true)
        try Data("{{#post.related}}<p>{{title}}: {{summary}} ({{reading_minutes}})</p>\n{{/post.related}}".utf8)
            .write(to: layouts.appendingPathComponent("post.mustache"))
        let inMemory = try build(source)
        var streamed: [OutputFile] = []
        let site = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil) { streamed += $0 }
        XCTAssertFalse(site.timings.map(\.phase).contains("posts"), "every body first, then the pages")
        streamed.sort { $0.path < $1.path }
        XCTAssertEqual(streamed.map(\.path), inMemory.paths)
        for (a, b) in zip(streamed, inMemory.files) {
            XCTAssertEqual(a.bytes, b.bytes, a.path)
        }
        let hello = String(decoding: try XCTUnwrap(streamed.first { $0.path == "posts/hello/index.html" }).bytes, as: UTF8.self)
        XCTAssertTrue(hello.contains("<p>二番目の記事: 本文です。"), "the related post's summary: \(hello)")
    }

    func testStreamingBuildReportsPhasesMadeBesideThePages() throws {
        let site = try SiteBuilder.build(BuildOptions(siteDirectory: try Fixtures.copy("basic"), now: Fixtures.now), console: nil) { _ in }
        let phases = site.timings.map(\.phase)
        XCTAssertEqual(phases, ["config", "theme", "content", "assemble", "posts", "lists", "+feeds", "+indexes", "+sitemap", "search", "static"])
        XCTAssertTrue(site.timings.allSatisfy { $0.seconds >= 0 })
    }

    func testInMemoryBuildReportsItsStepsInRunOrder() throws {
        let site = try SiteBuilder.build(BuildOptions(siteDirectory: try Fixtures.copy("basic"), now: Fixtures.now), console: nil)
        XCTAssertEqual(site.timings.map(\.phase), ["config", "theme", "content", "assemble", "posts", "lists", "feeds", "indexes", "sitemap", "search", "static"])
    }

    /// A sink of the caller's, as `blog build` passes its output folder's transaction.
    final class CountingSink: BuildSink {
        var files: [OutputFile] = []
        var batches = 0
        func write(_ files: [OutputFile]) throws {
            self.files += files
            batches += 1
        }
    }

    func testBuildIntoACallersSinkStreamsTheInMemoryBuildsFiles() throws {
        let source = try Fixtures.copy("basic")
        let inMemory = try build(source)
        let sink = CountingSink()
        let site = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil, into: sink)
        XCTAssertEqual(site.files.count, 0, "a streaming build keeps no files")
        XCTAssertGreaterThan(sink.batches, 1)
        let streamed = sink.files.sorted { $0.path < $1.path }
        XCTAssertEqual(streamed.map(\.path), inMemory.paths)
        for (a, b) in zip(streamed, inMemory.files) { XCTAssertEqual(a.bytes, b.bytes, a.path) }
    }

    struct SinkFailure: Error, Equatable { let batch: Int }

    func testStreamingBuildStopsAtTheSinksError() throws {
        // The feeds and indexes are being made on another thread when the sink fails: the build must
        // throw the sink's error (not hang, not go on handing files over).
        for failing in [1, 2, 3] {
            var calls = 0
            XCTAssertThrowsError(try SiteBuilder.build(BuildOptions(siteDirectory: try Fixtures.copy("basic"), now: Fixtures.now), console: nil) { _ in
                calls += 1
                if calls == failing { throw SinkFailure(batch: calls) }
            }) { error in
                XCTAssertEqual(error as? SinkFailure, SinkFailure(batch: failing))
            }
            XCTAssertEqual(calls, failing, "no batch after the failing one")
        }
    }

    func testStaticFileAtAGeneratedPathIsAnError() throws {
        for generated in ["feed.xml", "posts/hello/index.html", "search/meta.json", "sitemap.xml"] {
            let source = try Fixtures.copy("basic")
            let file = source.appendingPathComponent("static/" + generated)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: file)
            let expected = "static/\(generated) has the same path as a generated file; rename it"
            XCTAssertTrue(errors(of: { _ = try build(source) }).contains { $0.contains(expected) }, "in memory: \(generated)")
            XCTAssertTrue(errors(of: { _ = try SiteBuilder.build(BuildOptions(siteDirectory: source, now: Fixtures.now), console: nil) { _ in } })
                .contains { $0.contains(expected) }, "streaming: \(generated)")
        }
    }

    func testBasePathEverywhere() throws {
        let site = try build(try Fixtures.copy("basic"), baseURL: "https://user.github.io/archive")
        let home = try XCTUnwrap(site.text("index.html"))
        XCTAssertTrue(home.contains("href=\"/archive/posts/"))
        XCTAssertFalse(home.contains("href=\"/posts/"), "every internal link carries the base path")
        XCTAssertTrue(home.contains("/archive/assets/css/main."))
        let hello = try XCTUnwrap(site.text("posts/hello/index.html"))
        XCTAssertTrue(hello.contains("href=\"/archive/posts/second/\""), "root-relative links in Markdown get the base path")
        XCTAssertTrue(site.text("sitemap.xml")!.contains("<loc>https://user.github.io/archive/posts/hello/</loc>"))
        XCTAssertTrue(site.text("robots.txt")!.contains("Sitemap: https://user.github.io/archive/sitemap.xml"))
        XCTAssertTrue(site.text("feed.xml")!.contains("href=\"https://user.github.io/archive/feed.xml\""))
    }
}

final class BadInputTests: XCTestCase {
    func testEveryErrorIsListedWithFileAndLine() throws {
        let site = try Fixtures.site([
            "content/posts/a.md": "---\ntitle: A\ndate: 2020-02-30\n---\nbody\n",
            "content/posts/b.md": "---\ndate: 2020-01-01\n---\nno title\n",
            "content/posts/c.md": "---\ntitle: [broken\ndate: 2020-01-01\n---\n",
            "content/posts/d.md": "no front matter\n",
            "content/posts/e.md": "---\ntitle: E\n---\nno date\n",
        ])
        try Data([0x2D, 0x2D, 0x2D, 0x0A, 0x74, 0x3A, 0xFF, 0x0A]).write(to: site.appendingPathComponent("content/posts/f.md"))
        let messages = errors { _ = try build(site) }
        XCTAssertEqual(messages.count, 6, messages.joined(separator: "\n"))
        XCTAssertTrue(messages.contains("content/posts/a.md:3:7: error: invalid date in 'date': day 30 is out of range in '2020-02-30' (use ISO 8601, e.g. 2020-02-06T10:00:00+09:00)"), messages.joined(separator: "\n"))
        XCTAssertTrue(messages.contains("content/posts/b.md:1:1: error: missing 'title' in the front matter"), messages.joined(separator: "\n"))
        XCTAssertTrue(messages.contains { $0.hasPrefix("content/posts/c.md:") && $0.contains("invalid front matter") }, messages.joined(separator: "\n"))
        XCTAssertTrue(messages.contains { $0.hasPrefix("content/posts/d.md:1:1: error: missing front matter") })
        XCTAssertTrue(messages.contains { $0.hasPrefix("content/posts/e.md:1:1: error: missing 'date'") })
        XCTAssertTrue(messages.contains("content/posts/f.md:2:3: error: the file is not valid UTF-8 (byte 0xFF); save it as UTF-8"), messages.joined(separator: "\n"))
    }

    func testBlankTitlesAreMissingTitles() throws {
        // spaces, a tab and the ideographic space (U+3000) are blank; a title of one letter is not
        let site = try Fixtures.site([
            "content/posts/a.md": "---\ntitle: \"  \"\ndate: 2020-01-01\n---\nbody\n",
            "content/posts/b.md": "---\ntitle: \"\\t\u{3000}\"\ndate: 2020-01-01\n---\nbody\n",
            "content/posts/c.md": "---\ntitle: \"\u{3000}あ\"\ndate: 2020-01-01\n---\nbody\n",
        ])
        let messages = errors { _ = try build(site) }
        XCTAssertEqual(messages.sorted(), ["content/posts/a.md:2:1: error: missing 'title' in the front matter",
                                           "content/posts/b.md:2:1: error: missing 'title' in the front matter"])
    }

    func testDuplicateURLNamesBothFiles() throws {
        let site = try Fixtures.site([
            "content/posts/a.md": "---\ntitle: Same\ndate: 2020-01-01\nslug: same\n---\n",
            "content/posts/b.md": "---\ntitle: Other\ndate: 2020-01-02\nslug: same\n---\n",
        ])
        let messages = errors { _ = try build(site) }
        XCTAssertEqual(messages, ["content/posts/b.md:4: error: two posts have the URL /posts/same/: content/posts/a.md and content/posts/b.md (set a different 'slug' in one of them)"])
    }

    func testMissingAndBrokenTemplates() throws {
        let site = try Fixtures.site([
            "blog.yml": "theme: mine\n",
            "themes/mine/templates/post.mustache": "<p>\n{{#post}}{{title}}\n",
            "content/posts/a.md": "---\ntitle: A\ndate: 2020-01-01\n---\n",
        ])
        let messages = errors { _ = try build(site) }
        XCTAssertEqual(messages.count, 1)
        XCTAssertTrue(messages[0].hasPrefix("themes/mine/templates/post.mustache:2:1: error:"), messages.joined())
        XCTAssertTrue(messages[0].contains("post"), messages.joined())

        let missing = try Fixtures.site(["blog.yml": "theme: nowhere\n"])
        XCTAssertEqual(errors { _ = try build(missing) }.first?.hasPrefix("blog.yml: error: theme 'nowhere' not found"), true)
    }

    func testUnknownConfigKeyIsAWarningWithLine() throws {
        let site = try Fixtures.site(["blog.yml": "title: x\nfoo: 1\n"])
        let (console, captured) = Console.capturing()
        _ = try SiteBuilder.build(BuildOptions(siteDirectory: site, now: Fixtures.now), console: console)
        XCTAssertTrue(captured.errors.contains("blog.yml:2:1: warning: unknown key 'foo'"), captured.errors)
    }
}

final class ThemeOverrideTests: XCTestCase {
    func testLayoutsOverrideOneTemplate() throws {
        let site = try Fixtures.site([
            "layouts/404.mustache": "custom 404 for {{site.title}}",
            "blog.yml": "title: T&T\n",
        ])
        let built = try build(site)
        XCTAssertEqual(built.text("404.html"), "custom 404 for T&amp;T")
        XCTAssertTrue(built.text("index.html")!.contains("<html"), "other templates still come from the default theme")
    }
}
