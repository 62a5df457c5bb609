import XCTest
import BlogMarkdown

/// Every embed service: its iframe (or script) passes, and lookalikes do not — a wrong host, a host
/// that only starts or ends like it, `http:`, a `javascript:` src, an `onload` attribute, a
/// `srcdoc`. Through the public renderer with the default options (sanitized, scripts off).
final class EmbedTests: XCTestCase {
    static let iframes: [(service: String, url: String)] = [
        ("youtube", "https://www.youtube.com/embed/dQw4w9WgXcQ"),
        ("youtube", "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"),
        ("vimeo", "https://player.vimeo.com/video/76979871"),
        ("google", "https://docs.google.com/presentation/d/e/2PACX/embed"),
        ("google", "https://drive.google.com/file/d/1AbC/preview"),
        ("slideshare", "https://www.slideshare.net/slideshow/embed_code/key/abc"),
        ("speakerdeck", "https://speakerdeck.com/player/0123456789abcdef"),
        ("figma", "https://www.figma.com/embed?embed_host=share"),
        ("docswell", "https://www.docswell.com/slide/ABCDEF/embed"),
        ("stackblitz", "https://stackblitz.com/edit/angular?embed=1"),
        ("codepen", "https://codepen.io/alice/embed/abcde"),
        ("asciinema", "https://asciinema.org/a/14/iframe"),
        ("twitter", "https://platform.twitter.com/embed/Tweet.html?id=1"),
    ]

    func render(_ markdown: String, _ options: MarkdownOptions = MarkdownOptions()) -> String {
        MarkdownRenderer(options: options).render(markdown).html
    }

    func testEveryIframeServicePassesWithTheFixedAttributes() {
        for (service, url) in Self.iframes {
            let html = render("埋め込み：\n\n<iframe src=\"\(url)\" width=\"560\" height=\"315\" frameborder=\"0\" allow=\"autoplay\"></iframe>\n\n以上。")
            XCTAssertTrue(html.contains("<iframe class=\"embed embed-\(service)\" src=\"\(url)\" width=\"560\" height=\"315\" loading=\"lazy\" allowfullscreen referrerpolicy=\"strict-origin-when-cross-origin\"></iframe>"),
                          "\(url): \(html)")
            XCTAssertFalse(html.contains("frameborder") || html.contains("allow=\""), html)
            XCTAssertFalse(html.contains("&lt;/iframe"), "the closing tag is written once: \(html)")
        }
    }

    func testLookalikesOfEveryIframeServiceDoNotPass() {
        for (_, url) in Self.iframes {
            let host = url.dropFirst("https://".count).prefix { $0 != "/" }
            let path = url.dropFirst("https://".count + host.count)
            let lookalikes = [
                "https://\(host).evil.example\(path)",
                "https://evil-\(host)\(path)",
                "https://\(host)@evil.example\(path)",
                "https://\(host):444\(path)",
                "http://\(host)\(path)",
                "//\(host)\(path)",
                "javascript:alert(1)//\(host)\(path)",
                "&#106;avascript:alert(1)",
                "https&#58;//\(host)\(path)",
            ]
            for fake in lookalikes {
                let html = render("本文\n\n<iframe src=\"\(fake)\"></iframe>\n")
                XCTAssertFalse(html.contains("<iframe"), "\(fake) passed: \(html)")
            }
            // allowed host, hostile attributes: the iframe passes without them
            let html = render("<iframe src=\"\(url)\" onload=\"alert(1)\" srcdoc=\"<script>alert(2)</script>\" style=\"position:fixed\" sandbox=\"\"></iframe>\n")
            XCTAssertTrue(html.contains("<iframe class=\"embed"), html)
            for banned in ["onload", "srcdoc", "alert", "style=", "sandbox"] {
                XCTAssertFalse(html.contains(banned), "\(banned) kept: \(html)")
            }
        }
        let noSource = render("<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>\n")
        XCTAssertFalse(noSource.contains("<iframe") || noSource.contains("<script"), noSource)
    }

    static let scripts: [(service: String, tag: String, fallback: String?)] = [
        ("twitter", "<script async src=\"https://platform.twitter.com/widgets.js\" charset=\"utf-8\"></script>", nil),
        ("codepen", "<script async src=\"https://cpwebassets.codepen.io/assets/embed/ei.js\"></script>", nil),
        ("speakerdeck", "<script async class=\"speakerdeck-embed\" data-id=\"0123abcd\" src=\"//speakerdeck.com/assets/embed.js\"></script>",
         "https://speakerdeck.com/player/0123abcd"),
        ("docswell", "<script async class=\"docswell-embed\" src=\"https://bcdn.docswell.com/assets/libs/docswell-embed/docswell-embed.min.js\" data-src=\"https://www.docswell.com/slide/ABC/embed\"></script>",
         "https://www.docswell.com/slide/ABC/embed"),
        ("asciinema", "<script id=\"asciicast-14\" src=\"https://asciinema.org/a/14.js\" async></script>", "https://asciinema.org/a/14"),
        ("gist", "<script src=\"https://gist.github.com/alice/0123abcd.js\"></script>", "https://gist.github.com/alice/0123abcd"),
    ]

    func testScriptsAreDroppedByDefaultAndKeptWhenAsked() {
        let withScripts = MarkdownOptions(embedScripts: true)
        for (service, tag, fallback) in Self.scripts {
            let off = render("スクリプト：\n\n\(tag)\n\n以上。")
            XCTAssertFalse(off.contains("<script") || off.contains("&lt;script") || off.contains("&lt;/script"), "\(service): \(off)")
            if let fallback { XCTAssertTrue(off.contains("href=\"\(fallback)\""), "\(service): \(off)") }
            let on = render("スクリプト：\n\n\(tag)\n\n以上。", withScripts)
            XCTAssertTrue(on.contains("<script async src=\"https://"), "\(service): \(on)")
            XCTAssertEqual(on.components(separatedBy: "<script").count - 1, 1, on)
            XCTAssertEqual(on.components(separatedBy: "</script>").count - 1, 1, on)
            XCTAssertFalse(on.contains("charset") || on.contains("&lt;"), on)
        }
    }

    func testLookalikeScriptsStayEscapedEvenWithScriptsOn() {
        let withScripts = MarkdownOptions(embedScripts: true)
        for src in ["https://evil.example/widgets.js", "http://platform.twitter.com/widgets.js",
                    "https://platform.twitter.com.evil.example/widgets.js", "https://gist.github.com@evil.example/x.js",
                    "javascript:alert(1)", "&#106;avascript:alert(1)", "data:text/javascript,alert(1)"] {
            let html = render("<script src=\"\(src)\"></script>\n", withScripts)
            XCTAssertFalse(html.contains("<script"), "\(src): \(html)")
        }
        let inline = render("<script>alert(1)</script>\n", withScripts)
        XCTAssertFalse(inline.contains("<script"), inline)
        // an allowed script with a handler: the handler is dropped
        let handler = render("<script src=\"https://platform.twitter.com/widgets.js\" onload=\"alert(1)\"></script>\n", withScripts)
        XCTAssertTrue(handler.contains("<script async src=\"https://platform.twitter.com/widgets.js\"></script>"), handler)
        XCTAssertFalse(handler.contains("onload"), handler)
    }

    func testTweetFallbackKeepsItsTextAndLinks() {
        let tweet = "<blockquote class=\"twitter-tweet\" onmouseover=\"x()\"><p lang=\"ja\" dir=\"ltr\">こんにちは <a href=\"https://t.co/x\">https://t.co/x</a></p>&mdash; Alice (@alice) <a href=\"https://twitter.com/alice/status/1\">2024年1月1日</a></blockquote>"
        let html = render(tweet + "\n")
        XCTAssertTrue(html.hasPrefix("<blockquote class=\"twitter-tweet\"><p>こんにちは <a href=\"https://t.co/x\">https://t.co/x</a></p>"), html)
        XCTAssertTrue(html.contains("<a href=\"https://twitter.com/alice/status/1\">2024年1月1日</a></blockquote>"), html)
        XCTAssertFalse(html.contains("onmouseover"), html)
    }

    func testUnsafeModeLeavesRawHTMLAlone() {
        let raw = "<iframe src=\"https://example.com/x\" data-a=\"b\"></iframe>\n"
        XCTAssertEqual(render(raw, MarkdownOptions(unsafeHTML: true)), raw)
    }
}
