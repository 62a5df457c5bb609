import BlogContent
import BlogCore
import BlogSite
import Foundation
import XCTest

/// What `blog serve` does all day: many small edits in a row to existing posts. Each rebuild reuses
/// the previous one's state (patched search index, cached posts.json objects, sitemap, the list of
/// loaded files) and must still give exactly the files of a fresh build.
final class ServeEditSequenceTests: XCTestCase {
    func testManyEditsInARowMatchFreshBuilds() throws {
        let site = try Fixtures.copy("basic")
        let builder = IncrementalBuilder(options: BuildOptions(siteDirectory: site, now: Fixtures.now))
        _ = try builder.rebuild()
        _ = try builder.rebuild(changed: [])
        let hello = "content/posts/2020-02-06-hello.md"
        let second = "content/posts/2020-03-01-second.md"
        func write(_ path: String, _ text: String) throws {
            try text.write(to: site.appendingPathComponent(path), atomically: false, encoding: .utf8)
        }
        func read(_ path: String) throws -> String { try String(contentsOf: site.appendingPathComponent(path), encoding: .utf8) }
        func check(_ path: String, _ step: String) throws {
            let result = try builder.rebuild(changed: [site.appendingPathComponent(path).path])
            try assertMatchesFreshBuild(result, site, step)
        }
        let original = try read(hello)
        for i in 0..<3 {
            try write(hello, try read(hello) + "\n追記 \(i): ベンチマークの編集です。 appendedWord\(i)\n")
            try check(hello, "append \(i)")
        }
        try write(hello, original.replacingOccurrences(of: "Line one", with: "挿入された行 insertedLine\nLine one"))
        try check(hello, "insert in the middle")
        try write(hello, original.replacingOccurrences(of: "tags: [Swift, iOS]", with: "tags: [Swift, NewTag]"))
        try check(hello, "tags")
        try write(hello, original.replacingOccurrences(of: "title: Hello <World>", with: "title: Renamed <World>"))
        try check(hello, "title")
        // A new date that keeps the order (the sitemap's lastmod changes), then one that moves the post.
        try write(hello, original.replacingOccurrences(of: "date: 2020-02-06T10:00:00+09:00", with: "date: 2020-02-07T10:00:00+09:00"))
        try check(hello, "date, same order")
        try write(hello, original.replacingOccurrences(of: "date: 2020-02-06T10:00:00+09:00", with: "date: 2020-04-01T10:00:00+09:00"))
        try check(hello, "date")
        try write(second, try read(second) + "\nもう一つの記事の追記\n")
        try check(second, "another post")
        try write(hello, original)
        try check(hello, "back to the original")
    }
}
