import BlogCore
import Foundation
import BlogImport
import XCTest

final class ImageLinksTests: XCTestCase {
    func testFindsMarkdownAndHTMLImagesOutsideFencedCode() {
        let body = """
        ![alt [with] brackets](https://h/a.png "title") and ![](<https://h/b.png>)
        <IMG alt="x" src='https://h/c.png'> <img src=https://h/d.png>
        [![linked](https://h/e.png)](https://h/page)
        ~~~
        ![code](https://h/f.png)
        ```
        ![still code](https://h/g.png)
        ~~~~
        ````swift
        ![code](https://h/h.png)
        ````
        a link [to a picture](https://h/i.png) and `![in a span]` text, <a href="https://h/k.png">k</a>
        ![after](https://h/j.png) [text] (https://h/not-a-link.png)

        """
        XCTAssertEqual(ImageLinks.references(in: body).map(\.url),
                       ["https://h/a.png", "https://h/b.png", "https://h/c.png", "https://h/d.png", "https://h/e.png", "https://h/page",
                        "https://h/i.png", "https://h/k.png", "https://h/j.png"])
    }

    func testRewriteReplacesOnlyTheURLsGiven() {
        let body = "日本語 ![図](https://h/a.png \"t\")\n<img width=1 src=\"https://h/b.png\">\n![x](https://h/a.png)\n"
        let references = ImageLinks.references(in: body)
        let rewritten = ImageLinks.rewrite(body, references: references, replacements: ["https://h/a.png": "/images/qiita/x/a.png"])
        XCTAssertEqual(rewritten, "日本語 ![図](/images/qiita/x/a.png \"t\")\n<img width=1 src=\"https://h/b.png\">\n![x](/images/qiita/x/a.png)\n")
    }

    func testHostsMatchQiitaUploadHostsAndConfiguredOnes() {
        let hosts = ImageHosts(extra: ["images.example.com", "127.0.0.1:8080", "cdn.example.org/uploads"])
        let yes = [
            "https://qiita-image-store.s3.ap-northeast-1.amazonaws.com/0/12345/abc.png",
            "https://qiita-image-store.s3.amazonaws.com/0/1/x.jpeg",
            "https://qiita-user-contents.imgix.net/https%3A%2F%2Fqiita-image-store.s3.amazonaws.com%2F0%2F1%2Fx.png?ixlib=rb-4.0.0",
            "https://s3-ap-northeast-1.amazonaws.com/qiita-image-store/0/1/x.png",
            "https://IMAGES.example.com/a.gif", "http://127.0.0.1:8080/a.png", "https://cdn.example.org/uploads/a.png",
        ]
        let no = [
            "https://example.com/a.png", "https://s3-ap-northeast-1.amazonaws.com/other-bucket/x.png",
            "http://127.0.0.1:9090/a.png", "https://cdn.example.org/other/a.png", "ftp://images.example.com/a.png",
        ]
        for url in yes { XCTAssertTrue(hosts.contains(URL(string: url)!), url) }
        for url in no { XCTAssertFalse(hosts.contains(URL(string: url)!), url) }
    }

    /// An image already in static/ is used without any request (the hosts here do not exist), and an
    /// imgix URL is named after the upload it wraps.
    func testExistingImagesAreReusedWithoutDownloading() throws {
        let site = try makeTemporaryDirectory(self)
        let staticDirectory = (site as NSString).appendingPathComponent("static")
        let folder = (staticDirectory as NSString).appendingPathComponent("images/qiita/0123456789abcdef0123")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: (folder as NSString).appendingPathComponent("5f0e-uuid.png"), contents: Data([1])))
        let imgix = "https://qiita-user-contents.imgix.net/https%3A%2F%2Fqiita-image-store.s3.amazonaws.com%2F0%2F1%2F5f0e-uuid.png?ixlib=rb&s=1"
        let article = ImportedArticle(title: "T", date: ImportDate(secondsSinceEpoch: 0, offsetSeconds: 0), tags: [],
                                      slug: "0123456789abcdef0123", id: "0123456789abcdef0123",
                                      body: "![x](\(imgix))\n", source: SourceLocation(file: "items.json"))
        let (console, output) = Console.capturing()
        let fetcher = ImageFetcher(options: ImageImportOptions(staticDirectory: staticDirectory))
        let result = fetcher.localize([article], console: console)
        XCTAssertEqual(result.articles[0].body, "![x](/images/qiita/0123456789abcdef0123/5f0e-uuid.png)\n")
        XCTAssertEqual(result.summary, ImageSummary(downloaded: 0, present: 1, failed: 0))
        XCTAssertEqual(output.errors, "")
        XCTAssertTrue(result.staged.commit().isEmpty)
    }
}
