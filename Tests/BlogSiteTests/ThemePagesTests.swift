import BlogSite
import Foundation
import XCTest

/// The default theme's pages as a reader, a crawler and a social network see them: titles, social
/// cards, structured data, the menu, lists and the search page, through built HTML.
final class ThemePagesTests: XCTestCase {
    static let config = """
        title: 理論の庭
        description: iOS の記録
        base_url: https://example.com/blog/
        language: ja
        author: 山田
        posts_per_page: 2
        image: /img/site.png
        menu:
          - label: 記事
            url: /posts/
          - label: このブログについて
            page: about.md
          - label: GitHub
            url: https://github.com/example
        params:
          twitter: yamada_ios
          show_badge: true
        """

    static func files(config: String = ThemePagesTests.config) -> [String: String] {
        [
            "blog.yml": config,
            "content/about.md": "---\ntitle: このブログについて\n---\n自己紹介です。\n",
            "content/posts/a.md": "---\nslug: a\ntitle: 一つ目 </script><b>\ndate: 2024-01-05\ntags: [Swift, iOS]\nimage: img/card.png\n---\n本文です。\n",
            "content/posts/b.md": "---\nslug: b\ntitle: 二つ目\ndate: 2024-02-05\ntags: [Swift]\n---\n図です。\n\n![図](../shot.png?a=1&b=2)\n",
            "content/posts/c.md": "---\nslug: c\ntitle: 三つ目\ndate: 2024-03-05\ntags: [Swift]\ncover: https://cdn.example.org/c.jpg\nqiita_url: https://qiita.com/yamada/items/abc123\nlikes_count: 42\n---\n本文。\n",
            "content/posts/d.md": "---\nslug: d\ntitle: 四つ目\ndate: 2024-03-20\ntags: [Swift]\n---\n## 見出しの文\n\n段落の文です。\n",
            "content/posts/e.md": "---\nslug: e\ntitle: 下書きの記事\ndate: 2024-04-01\ndraft: true\n---\nまだです。\n",
        ]
    }

    func html(_ site: BuiltSite, _ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try XCTUnwrap(site.text(path), "no \(path) in \(site.paths.filter { $0.hasSuffix(".html") })", file: file, line: line)
    }

    /// The text of the first element `<tag …>` … `</tag>` containing `marker` in its start tag.
    func title(_ page: String) -> String? {
        guard let start = page.range(of: "<title>"), let end = page.range(of: "</title>", range: start.upperBound..<page.endIndex) else { return nil }
        return String(page[start.upperBound..<end.lowerBound])
    }

    func meta(_ page: String, _ name: String) -> String? {
        for marker in ["property=\"\(name)\" content=\"", "name=\"\(name)\" content=\""] {
            if let range = page.range(of: marker) {
                let rest = page[range.upperBound...]
                return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
            }
        }
        return nil
    }

    func jsonLD(_ page: String) throws -> [String: Any] {
        let open = "<script type=\"application/ld+json\">"
        let start = try XCTUnwrap(page.range(of: open), "no JSON-LD")
        let end = try XCTUnwrap(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let json = String(page[start.upperBound..<end.lowerBound])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    func testTitlesFollowOneRule() throws {
        let site = try build(try Fixtures.site(Self.files()))
        XCTAssertEqual(title(try html(site, "index.html")), "理論の庭")
        XCTAssertEqual(title(try html(site, "page/2/index.html")), "2ページ目 | 理論の庭")
        XCTAssertEqual(title(try html(site, "tags/swift/index.html")), "Swift | 理論の庭")
        XCTAssertEqual(title(try html(site, "tags/swift/page/2/index.html")), "Swift（2ページ目） | 理論の庭")
        XCTAssertEqual(title(try html(site, "posts/b/index.html")), "二つ目 | 理論の庭")
        XCTAssertEqual(title(try html(site, "about/index.html")), "このブログについて | 理論の庭")
        XCTAssertEqual(title(try html(site, "search/index.html")), "検索 | 理論の庭")
        XCTAssertEqual(title(try html(site, "404.html")), "ページが見つかりません | 理論の庭")
        XCTAssertEqual(title(try html(site, "archive/2024/index.html")), "2024年 | 理論の庭")
        XCTAssertEqual(title(try html(site, "posts/page/2/index.html")), "すべての記事（2ページ目） | 理論の庭")
        let english = try build(try Fixtures.site(Self.files(config: Self.config.replacingOccurrences(of: "language: ja", with: "language: en"))))
        XCTAssertEqual(title(try html(english, "page/2/index.html")), "Page 2 | 理論の庭")
        XCTAssertEqual(title(try html(english, "tags/swift/page/2/index.html")), "Swift (page 2) | 理論の庭")
    }

    func testSearchPageSaysNothingMatchedAndSitsInTheContainer() throws {
        let site = try build(try Fixtures.site(Self.files()))
        let page = try html(site, "search/index.html")
        let main = try XCTUnwrap(page.range(of: "<main")).upperBound
        let container = try XCTUnwrap(page.range(of: "<div class=\"container\">", range: main..<page.endIndex))
        let section = try XCTUnwrap(page.range(of: "<section class=\"search\""))
        XCTAssertLessThan(container.lowerBound, section.lowerBound)
        XCTAssertTrue(page.contains("data-text-none=\"一致する記事はありませんでした。\""), page)
        XCTAssertFalse(page.contains("data-text-none=\"まだ記事がありません。\""))
        XCTAssertTrue(page.contains("<button class=\"search-submit\" type=\"submit\">"))
        // Colours only through main.css's custom properties, so dark mode and the toggle apply.
        let cssPath = try XCTUnwrap(site.paths.first { $0.hasPrefix("assets/css/search.") && $0.hasSuffix(".css") })
        let css = try html(site, cssPath)
        XCTAssertNil(css.range(of: "#[0-9a-fA-F]{3,8}\\b", options: .regularExpression), "a hard-coded colour in search.css")
        XCTAssertNil(css.range(of: "rgba?\\(", options: .regularExpression))
        XCTAssertTrue(css.contains("var(--border)"))
    }

    func testSocialCardsAndStructuredData() throws {
        let site = try build(try Fixtures.site(Self.files()))
        XCTAssertTrue(site.warnings.isEmpty, "\(site.warnings)")
        // Front matter `image` (relative: from the site root), `cover`, the first image, blog.yml's.
        let a = try html(site, "posts/a/index.html")
        XCTAssertEqual(meta(a, "og:image"), "https://example.com/blog/img/card.png")
        XCTAssertEqual(meta(a, "twitter:card"), "summary_large_image")
        XCTAssertEqual(meta(try html(site, "posts/c/index.html"), "og:image"), "https://cdn.example.org/c.jpg")
        XCTAssertEqual(meta(try html(site, "posts/b/index.html"), "og:image"), "https://example.com/blog/posts/shot.png?a=1&amp;b=2")
        XCTAssertEqual(meta(try html(site, "posts/d/index.html"), "og:image"), "https://example.com/blog/img/site.png")
        XCTAssertEqual(meta(try html(site, "tags/index.html"), "og:image"), "https://example.com/blog/img/site.png")
        XCTAssertEqual(meta(a, "og:locale"), "ja_JP")
        XCTAssertEqual(meta(a, "article:published_time"), "2024-01-05T00:00:00+09:00")
        XCTAssertNotNil(meta(a, "article:modified_time"))
        XCTAssertTrue(a.contains("<meta property=\"article:tag\" content=\"iOS\">"))

        // The title holds `</script>`: the JSON-LD must not end there.
        XCTAssertFalse(a.contains("一つ目 </script>"))
        XCTAssertTrue(a.contains("\\u003c/script\\u003e"))
        let posting = try jsonLD(a)
        XCTAssertEqual(posting["@type"] as? String, "BlogPosting")
        XCTAssertEqual(posting["headline"] as? String, "一つ目 </script><b>")
        XCTAssertEqual(posting["datePublished"] as? String, "2024-01-05T00:00:00+09:00")
        XCTAssertNotNil(posting["dateModified"])
        XCTAssertEqual(posting["image"] as? String, "https://example.com/blog/img/card.png")
        XCTAssertEqual(posting["keywords"] as? [String], ["Swift", "iOS"])
        XCTAssertEqual((posting["author"] as? [String: Any])?["name"] as? String, "山田")

        let home = try html(site, "index.html")
        let website = try jsonLD(home)
        XCTAssertEqual(website["@type"] as? String, "WebSite")
        XCTAssertEqual(website["url"] as? String, "https://example.com/blog/")
        let action = try XCTUnwrap(website["potentialAction"] as? [String: Any])
        XCTAssertEqual(action["@type"] as? String, "SearchAction")
        XCTAssertEqual(action["target"] as? String, "https://example.com/blog/search/?q={search_term_string}")
        XCTAssertFalse(try html(site, "page/2/index.html").contains("application/ld+json"))

        // Search engines: the search and 404 pages only are left out.
        for path in ["search/index.html", "404.html"] { XCTAssertTrue(try html(site, path).contains("<meta name=\"robots\" content=\"noindex\">"), path) }
        for path in ["index.html", "posts/a/index.html", "tags/index.html"] { XCTAssertFalse(try html(site, path).contains("noindex"), path) }

        // Without a site image a page has no card picture and a plain summary card.
        let bare = try build(try Fixtures.site(Self.files(config: "title: T\nlanguage: en\n")))
        let tags = try html(bare, "tags/index.html")
        XCTAssertNil(meta(tags, "og:image"))
        XCTAssertEqual(meta(tags, "twitter:card"), "summary")
        XCTAssertEqual(meta(tags, "og:locale"), "en_US")
    }

    func testFaviconFromTheThemeUnlessTheSiteHasOne() throws {
        let site = try build(try Fixtures.site(Self.files()))
        let icon = try XCTUnwrap(site.paths.first { $0.hasPrefix("assets/favicon.") && $0.hasSuffix(".svg") })
        XCTAssertTrue(try html(site, icon).hasPrefix("<svg"))
        for path in site.paths where path.hasSuffix(".html") {
            XCTAssertTrue(try html(site, path).contains("<link rel=\"icon\" href=\"/blog/\(icon)\" type=\"image/svg+xml\">"), path)
        }
        var files = Self.files()
        files["static/favicon.ico"] = "ico"
        let own = try build(try Fixtures.site(files))
        for path in own.paths where path.hasSuffix(".html") {
            XCTAssertTrue(try html(own, path).contains("<link rel=\"icon\" href=\"/blog/favicon.ico\" type=\"image/x-icon\">"), path)
        }
    }

    func testMenuParamsDraftsAndQiitaLinks() throws {
        var files = Self.files()
        files["layouts/partials/footer.mustache"] = "<footer>{{#site.params.show_badge}}@{{site.params.twitter}}{{/site.params.show_badge}}</footer>\n"
        let site = try build(try Fixtures.site(files), drafts: true)
        XCTAssertTrue(site.warnings.isEmpty, "\(site.warnings)")
        let about = try html(site, "about/index.html")
        let nav = try XCTUnwrap(about.range(of: "<nav class=\"site-nav\"").map { String(about[$0.lowerBound...].prefix(600)) })
        let posts = try XCTUnwrap(nav.range(of: ">記事</a>")), me = try XCTUnwrap(nav.range(of: ">このブログについて</a>"))
        let github = try XCTUnwrap(nav.range(of: "<a href=\"https://github.com/example\">GitHub</a>"))
        XCTAssertTrue(posts.lowerBound < me.lowerBound && me.lowerBound < github.lowerBound, nav)
        XCTAssertTrue(nav.contains("<a href=\"/blog/about/\" aria-current=\"page\">このブログについて</a>"), nav)
        XCTAssertTrue(nav.contains("<a href=\"/blog/posts/\">記事</a>"), nav)
        XCTAssertFalse(nav.contains(">タグ<"), "the menu replaces the theme's links")
        XCTAssertTrue(try html(site, "posts/index.html").contains("<a href=\"/blog/posts/\" aria-current=\"page\">記事</a>"))
        XCTAssertTrue(try html(site, "posts/c/index.html").contains("<a href=\"/blog/posts/\" aria-current=\"true\">記事</a>"))
        XCTAssertTrue(about.contains("<footer>@yamada_ios</footer>"))

        let draft = try html(site, "posts/e/index.html")
        XCTAssertTrue(draft.contains("<p class=\"draft-badge\">下書き</p>"))
        XCTAssertTrue(try html(site, "index.html").contains("下書きの記事</a> <span class=\"draft-badge\">下書き</span>"))
        XCTAssertFalse(try html(site, "posts/d/index.html").contains("draft-badge"))

        let qiita = try html(site, "posts/c/index.html")
        XCTAssertTrue(qiita.contains("<a class=\"qiita-link\" href=\"https://qiita.com/yamada/items/abc123\">Qiitaで見る</a>"))
        XCTAssertTrue(qiita.contains("いいね 42"))
        XCTAssertFalse(try html(site, "posts/d/index.html").contains("Qiitaで見る"))

        // Without `menu` the theme's own links, marked on their pages.
        let plain = try build(try Fixtures.site(Self.files(config: "title: T\n")))
        XCTAssertTrue(try html(plain, "tags/index.html").contains("<a href=\"/tags/\" aria-current=\"page\">タグ</a>"))
        XCTAssertTrue(try html(plain, "tags/swift/index.html").contains("<a href=\"/tags/\" aria-current=\"true\">タグ</a>"))
        XCTAssertTrue(try html(plain, "index.html").contains("<a href=\"/tags/\">タグ</a>"))
    }

    func testBadMenuAndParamsAreErrorsWithTheirPlace() throws {
        let menu = try Fixtures.site(["blog.yml": "title: T\nmenu:\n  - label: X\n"])
        XCTAssertEqual(errors { _ = try build(menu) }.first?.contains("blog.yml:3:5"), true, "\(errors { _ = try build(menu) })")
        let params = try Fixtures.site(["blog.yml": "title: T\nparams: 3\n"])
        XCTAssertTrue(errors { _ = try build(params) }.contains { $0.contains("blog.yml:2:9") && $0.contains("params") })
        let likes = try Fixtures.site(["content/posts/x.md": "---\ntitle: X\ndate: 2024-01-01\nlikes_count: many\n---\nx\n"])
        XCTAssertTrue(errors { _ = try build(likes) }.contains { $0.contains("x.md:4:14") && $0.contains("likes_count") })
    }

    func testListsOfEveryPostAndTheArchive() throws {
        let site = try build(try Fixtures.site(Self.files()))
        let first = try html(site, "posts/index.html")
        let second = try html(site, "posts/page/2/index.html")
        XCTAssertTrue(first.contains(">四つ目</a>") && first.contains(">三つ目</a>"))
        XCTAssertTrue(second.contains(">二つ目</a>") && second.contains(">一つ目 &lt;/script&gt;&lt;b&gt;</a>"))
        XCTAssertTrue(first.contains("href=\"/blog/posts/page/2/\" rel=\"next\""))
        XCTAssertFalse(first.contains("下書き"), "drafts stay out without --drafts")
        let archive = try html(site, "archive/index.html")
        for title in ["四つ目", "三つ目", "二つ目"] { XCTAssertTrue(archive.contains(">\(title)</a>"), title) }
        let month = try html(site, "archive/2024/03/index.html")
        XCTAssertTrue(month.contains(">四つ目</a>") && month.contains(">三つ目</a>") && !month.contains(">二つ目</a>"))
        XCTAssertTrue(try html(site, "archive/2024/index.html").contains(">二つ目</a>"))
    }

    func testEveryPageLoadsTheThemeScriptAndTheToggle() throws {
        let site = try build(try Fixtures.site(Self.files()))
        let script = try XCTUnwrap(site.paths.first { $0.hasPrefix("assets/js/theme.") })
        let js = try html(site, script)
        XCTAssertTrue(js.contains("localStorage") && js.contains("aria-live") && js.contains("prefers-color-scheme"))
        for path in site.paths where path.hasSuffix(".html") {
            let page = try html(site, path)
            XCTAssertTrue(page.contains("<script src=\"/blog/\(script)\" defer></script>"), path)
            XCTAssertTrue(page.contains("id=\"blog-theme-toggle\""), path)
            XCTAssertTrue(page.contains("data-text-copied=\"コピーしました\""), path)
        }
        XCTAssertFalse(try html(site, "index.html").contains("data-line-numbers"))
        let numbered = try build(try Fixtures.site(Self.files(config: "title: T\nparams:\n  line_numbers: true\n")))
        XCTAssertTrue(try html(numbered, "index.html").contains(" data-line-numbers>"))
    }

    func testLineNumbersOnRequestFromTheFence() throws {
        let post = "---\ntitle: t\ndate: 2024-01-01\nslug: t\n---\n```swift:App.swift {linenos}\nlet a = 1\n```\n\n```swift:B.swift\nlet b = 2\n```\n"
        let site = try build(try Fixtures.site(["content/posts/t.md": post]))
        let page = try html(site, "posts/t/index.html")
        XCTAssertTrue(page.contains("<div class=\"code-frame linenos\" data-lang=\"swift\"><div class=\"code-lang\">App.swift</div>"), page)
        XCTAssertTrue(page.contains("<div class=\"code-frame\" data-lang=\"swift\"><div class=\"code-lang\">B.swift</div>"), page)
        XCTAssertFalse(page.contains("{linenos}"))
    }

    func testSummariesComeFromParagraphsOnly() throws {
        let body = "## 見出しの文\n\n| 表A | 表B |\n|---|---|\n| 表1 | 表2 |\n\n```swift\nlet code = 1\n```\n\n最初の段落 &amp; <b>太字</b>[^1]です。\n\n- 項目\n\n次の段落です。\n\n[^1]: 脚注の文。\n"
        let site = try build(try Fixtures.site(["content/posts/s.md": "---\ntitle: S\ndate: 2024-01-01\nslug: s\n---\n" + body]))
        let page = try html(site, "posts/s/index.html")
        let summary = try XCTUnwrap(meta(page, "og:description"))
        XCTAssertTrue(summary.hasPrefix("最初の段落 &amp; 太字です。"), summary)
        XCTAssertTrue(summary.contains("次の段落です。"), summary)
        for noise in ["見出し", "表A", "表1", "code", "脚注", "項目"] { XCTAssertFalse(summary.contains(noise), "\(noise) in \(summary)") }
        XCTAssertTrue(try html(site, "index.html").contains("<p class=\"post-item-summary\">最初の段落"))
    }
}
