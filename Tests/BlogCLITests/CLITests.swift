import BlogCLI
import BlogCore
import Foundation
import XCTest

/// The command line, end to end, through `runBlog` (the same function `main.swift` calls).
final class CLITests: SiteFolderTestCase {
    func read(_ path: String) -> String? {
        try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    func testHelpAndVersion() {
        let help = run(["--help"])
        XCTAssertEqual(help.code, 0)
        XCTAssertTrue(help.out.contains("USAGE: blog <subcommand>"))
        XCTAssertTrue(help.out.contains("SUBCOMMANDS:"))
        for command in allCommands {
            XCTAssertTrue(help.out.contains("  \(command.name) "), "blog --help lists \(command.name)")
            let own = run([command.name, "--help"])
            XCTAssertEqual(own.code, 0, command.name)
            XCTAssertTrue(own.out.hasPrefix("OVERVIEW: "), command.name)
            XCTAssertTrue(own.out.contains("USAGE: blog \(command.name)"), command.name)
            XCTAssertTrue(own.out.contains("-h, --help"), command.name)
        }
        XCTAssertTrue(run(["build", "--help"]).out.contains("--base-url <url>"))
        XCTAssertEqual(run(["--version"]).out, "blog 0.1.0\n")
    }

    func testUsageErrorsExit64() {
        let unknown = run(["biuld"])
        XCTAssertEqual(unknown.code, 64)
        XCTAssertTrue(unknown.err.contains("unknown command 'biuld'"))
        let option = run(["build", "--outptu", "x"])
        XCTAssertEqual(option.code, 64)
        XCTAssertEqual(option.err, "error: unknown option '--outptu' (did you mean --output?)\nRun 'blog build --help' for usage.\n")
        XCTAssertEqual(run(["build", "--output"]).code, 64)
        XCTAssertEqual(run(["build", "extra"]).code, 64)
        XCTAssertEqual(run([]).code, 64)
    }

    func testBuildWritesTheSiteAndReports() throws {
        try write("blog.yml", "title: CLI\n")
        try write("content/posts/a.md", "---\ntitle: A post\ndate: 2020-01-01\ntags: [x]\n---\nHello\n")
        let result = run(["build", "--output", "out"])
        XCTAssertEqual(result.code, 0, result.err)
        XCTAssertTrue(result.out.hasPrefix("Built 1 post, 0 pages, 1 tag into "), result.out)
        XCTAssertNotNil(read("out/posts/a-post/index.html"))
        XCTAssertNotNil(read("out/.blog-manifest"))
        let again = run(["build", "--output", "out"])
        XCTAssertTrue(again.out.hasPrefix("Up to date: nothing changed since the last build"), again.out)
        let forced = run(["build", "--output", "out", "--force"])
        XCTAssertTrue(forced.out.contains(" 0 written, "), "a forced build rewrites nothing: \(forced.out)")
        // Any change to the inputs, or to the options, builds again.
        try write("content/posts/a.md", "---\ntitle: A post\ndate: 2020-01-01\ntags: [x]\n---\nHello again\n")
        XCTAssertTrue(run(["build", "--output", "out"]).out.hasPrefix("Built "))
        XCTAssertEqual(read("out/posts/a-post/index.html")?.contains("Hello again"), true)
        XCTAssertTrue(run(["build", "--output", "out", "--drafts"]).out.hasPrefix("Built "))
        XCTAssertTrue(run(["build", "--output", "out", "--drafts"]).out.hasPrefix("Up to date"))
        try write("static/new.txt", "n")
        XCTAssertTrue(run(["build", "--output", "out", "--drafts"]).out.hasPrefix("Built "))
        // A hand-edited output file is put back.
        try write("out/posts/a-post/index.html", "tampered")
        XCTAssertTrue(run(["build", "--output", "out", "--drafts"]).out.hasPrefix("Built "))
        XCTAssertNotEqual(read("out/posts/a-post/index.html"), "tampered")
    }

    func testTimingsListEveryPhaseWithItsCPU() throws {
        try write("blog.yml", "title: CLI\n")
        try write("content/posts/a.md", "---\ntitle: A post\ndate: 2020-01-01\ntags: [x]\n---\nHello\n")
        let result = run(["build", "--output", "out", "--quiet", "--timings"])
        XCTAssertEqual(result.code, 0, result.err)
        XCTAssertEqual(result.out, "", "--quiet prints nothing on standard output")
        let lines = result.err.split(separator: "\n").map(String.init)
        let phases = lines.map { $0.split(separator: " ").first.map(String.init) ?? "" }
        XCTAssertEqual(phases, ["config", "theme", "content", "assemble", "posts", "lists", "+feeds", "+indexes", "+sitemap", "search", "static", "commit"], result.err)
        let timed = try NSRegularExpression(pattern: #"^  \S+ +[0-9]+\.[0-9] ms( +[0-9]+\.[0-9] ms CPU( +[0-9]+\.[0-9]{2} cores)?)?$"#)
        for line in lines {
            XCTAssertNotNil(timed.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
            // A phase that ran beside another has no CPU time of its own; every other phase has one.
            XCTAssertEqual(line.contains(" ms CPU"), !line.hasPrefix("  +"), line)
        }
    }

    func testBrokenContentLeavesThePreviousOutputUntouched() throws {
        try write("content/posts/a.md", "---\ntitle: A\ndate: 2020-01-01\n---\nfirst version\n")
        XCTAssertEqual(run(["build"]).code, 0)
        let before = read("public/posts/a/index.html")
        XCTAssertNotNil(before)
        try write("content/posts/a.md", "---\ntitle: A\ndate: 2020-01-01\n---\nsecond version\n")
        try write("content/posts/b.md", "---\ntitle: B\ndate: not-a-date\n---\n")
        let failed = run(["build"])
        XCTAssertEqual(failed.code, 1)
        XCTAssertTrue(failed.err.hasPrefix("content/posts/b.md:3:7: error: invalid date in 'date'"), failed.err)
        XCTAssertEqual(read("public/posts/a/index.html"), before, "the previous public/ is untouched")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.contains("blog-staging") }
        XCTAssertEqual(leftovers, [])
    }

    func testRefusesDangerousOutputFolders() throws {
        try write("content/posts/a.md", "---\ntitle: A\ndate: 2020-01-01\n---\n")
        try write("docs/important.txt", "keep me")
        let foreign = run(["build", "--output", "docs"])
        XCTAssertEqual(foreign.code, 1)
        XCTAssertTrue(foreign.err.contains("not written by blog"), foreign.err)
        XCTAssertEqual(read("docs/important.txt"), "keep me")
        XCTAssertEqual(run(["build", "--output", "."]).code, 1)
        XCTAssertEqual(run(["build", "--output", ".."]).code, 1)
    }

    func testNotASite() {
        let result = run(["build"])
        XCTAssertEqual(result.code, 1)
        XCTAssertTrue(result.err.contains("this is not a blog site"), result.err)
    }

    func testCheckFindsBrokenLinksWithSourceLines() throws {
        try write("content/posts/a.md", "---\ntitle: A\ndate: 2020-01-01\n---\nfine [b](/posts/b/)\n\n[missing](/posts/nope/) and [bad anchor](/posts/b/#nowhere)\n")
        try write("content/posts/b.md", "---\ntitle: B\ndate: 2020-01-02\n---\n## Part\n\n[ok anchor](#part)\n")
        let result = run(["check"])
        XCTAssertEqual(result.code, 1, result.err)
        let lines = result.err.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, result.err)
        XCTAssertTrue(lines.contains("content/posts/a.md:7: error: broken link '/posts/nope/' on /posts/a/index.html: no such page or file"), result.err)
        XCTAssertTrue(lines.contains("content/posts/a.md:7: error: broken link '/posts/b/#nowhere' on /posts/a/index.html: no element with id 'nowhere' on /posts/b/index.html"), result.err)
        try write("content/posts/a.md", "---\ntitle: A\ndate: 2020-01-01\n---\nfine [b](/posts/b/#part)\n")
        XCTAssertEqual(run(["check"]).code, 0)
    }

    func testThemeNewCopiesTheDefaultTheme() throws {
        try write("content/posts/a.md", "---\ntitle: A\ndate: 2020-01-01\n---\n")
        let result = run(["theme", "new", "mine"])
        XCTAssertEqual(result.code, 0, result.err)
        XCTAssertNotNil(read("themes/mine/templates/post.mustache"))
        XCTAssertEqual(read("themes/mine/theme.yml")?.hasPrefix("name: mine"), true)
        XCTAssertEqual(run(["theme", "new", "mine"]).code, 1, "never overwrites")
        let list = run(["theme", "list"])
        XCTAssertTrue(list.out.contains("mine 0.1.0 (themes/mine): Based on the blog default theme"), list.out)
        // The copy builds, and a change to it shows.
        try write("blog.yml", "theme: mine\n")
        try write("themes/mine/templates/404.mustache", "mine 404")
        XCTAssertEqual(run(["build"]).code, 0)
        XCTAssertEqual(read("public/404.html"), "mine 404")
    }
}
