import Foundation
import XCTest
import BlogMustache
import BlogCore

/// Builds a library from `name: text` pairs (path = "<name>.mustache") and renders `main`.
private func render(_ templates: KeyValuePairs<String, String>, _ context: MustacheValue = [:],
                    main: String? = nil, strict: Bool = true) throws -> String {
    let sources = templates.map { TemplateSource(name: $0.key, text: $0.value, path: "\($0.key).mustache") }
    let library = try TemplateLibrary(sources, strictPartials: strict)
    return try library.render(main ?? templates.first!.key, context)
}

/// The error `body` throws, failing the test when it throws none or another kind.
private func mustacheError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> MustacheError? {
    do {
        try body()
        XCTFail("expected a MustacheError", file: file, line: line)
    } catch let error as MustacheError {
        return error
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
    return nil
}

final class EscapingTests: XCTestCase {
    func testDoubleMustacheEscapesFiveCharacters() throws {
        let out = try render(["t": "{{x}}"], ["x": "<a href=\"u\">'Tom' & Jerry</a>"])
        XCTAssertEqual(out, "&lt;a href=&quot;u&quot;&gt;&#39;Tom&#39; &amp; Jerry&lt;/a&gt;")
    }

    func testTripleAndAmpersandDoNotEscape() throws {
        let out = try render(["t": "{{{x}}}|{{& x}}"], ["x": "<b>'&'</b>"])
        XCTAssertEqual(out, "<b>'&'</b>|<b>'&'</b>")
    }

    func testMultibyteTextPassesThrough() throws {
        let out = try render(["t": "日本語 {{x}} 終わり"], ["x": "「引用」<tag>"])
        XCTAssertEqual(out, "日本語 「引用」&lt;tag&gt; 終わり")
    }

    func testLambdaResultIsEscapedForDoubleMustache() throws {
        let ctx: MustacheValue = ["q": .lambda(MustacheLambda { "it's" })]
        XCTAssertEqual(try render(["t": "{{q}} {{{q}}}"], ctx), "it&#39;s it's")
    }
}

extension EscapingTests {
    /// The escaper skips eight bytes at a time: every special character at every offset of
    /// strings of 0-24 bytes, next to ASCII, multi-byte UTF-8 and the bytes next to the special
    /// ones (0x21, 0x23, 0x25, 0x28, 0x3B, 0x3D, 0x3F), against a byte-by-byte reference.
    func testEscapingMatchesAReferenceAtEveryOffset() throws {
        let library = try TemplateLibrary([TemplateSource(name: "t", text: "{{x}}|{{{x}}}", path: "t.mustache")])
        func reference(_ s: String) -> String { referenceHTMLEscape(s) }
        let fillers: [String] = ["a", "日", "!", "#", "%", "(", ";", "=", "?", "\u{7F}", "é"]
        for special in ["&", "<", ">", "\"", "'", "="] {
            for filler in fillers {
                for length in 0...24 {
                    for position in 0...length {
                        var s = String(repeating: filler, count: position) + special
                        s += String(repeating: filler, count: length - position)
                        XCTAssertEqual(try library.render("t", ["x": .string(s)]), reference(s) + "|" + s, s)
                    }
                }
            }
        }
        let long = String(repeating: "日本語のテキスト", count: 40) + "<&>" + String(repeating: "x", count: 31) + "'"
        XCTAssertEqual(try library.render("t", ["x": .string(long)]), reference(long) + "|" + long)
        // Several special and near-special characters (the 16-byte test's false matches `=` and
        // `?` among them) at random places in strings of 0-63 characters, across the vector and tail
        // paths.
        let alphabet: [Character] = ["&", "<", ">", "\"", "'", "=", "?", "a", "z", "日", "%", ";", "\u{7F}"]
        var state: UInt64 = 3
        for _ in 0..<3000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            var s = ""
            for _ in 0..<Int(state >> 58) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                s.append(alphabet[Int((state >> 33) % UInt64(alphabet.count))])
            }
            XCTAssertEqual(try library.render("t", ["x": .string(s)]), reference(s) + "|" + s, s)
        }
    }
}

final class ValueTests: XCTestCase {
    func testNumbersInterpolate() throws {
        let ctx: MustacheValue = ["i": 85, "d": 1.21, "w": 2.0, "n": -3, "big": .double(1e20)]
        XCTAssertEqual(try render(["t": "{{i}} {{d}} {{w}} {{n}} {{big}}"], ctx), "85 1.21 2 -3 1e+20")
    }

    func testBoolsAndNullInterpolate() throws {
        let ctx: MustacheValue = ["t": true, "f": false, "z": nil]
        XCTAssertEqual(try render(["x": "[{{t}}|{{f}}|{{z}}|{{missing}}]"], ctx), "[true|false||]")
    }

    func testTruthiness() throws {
        let template = "{{#v}}T{{/v}}{{^v}}F{{/v}}"
        let cases: [(MustacheValue, String)] = [
            (.null, "F"), (false, "F"), (true, "T"), ([], "F"), ([1], "T"), ("", "F"), ("x", "T"),
            (0, "T"), (0.0, "T"), ([:], "T"),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(try render(["t": template], ["v": value]), expected, "\(value)")
        }
    }

    func testLiteralsBuildNestedValues() throws {
        let ctx: MustacheValue = [
            "site": ["title": "My \"blog\"", "base_path": "/archive/"],
            "posts": [["title": "A", "tags": ["x", "y"]], ["title": "B", "tags": []]],
        ]
        let out = try render(["t": "{{site.title}}:{{#posts}}[{{title}}{{#tags}} {{.}}{{/tags}}]{{/posts}}{{site.base_path}}tags/"], ctx)
        XCTAssertEqual(out, "My &quot;blog&quot;:[A x y][B]/archive/tags/")
        XCTAssertEqual(ctx["site"]?["title"]?.interpolationText, "My \"blog\"")
    }

    func testStringInterpolationLiteral() throws {
        let n = 5
        let v: MustacheValue = "\(n)分で読めます"
        XCTAssertEqual(try render(["t": "{{v}}"], ["v": v]), "5分で読めます")
    }

    func testMergeAddsNewMembersAndOverridesExistingOnes() throws {
        var object: MustacheObject = ["a": "1", "b": "2"]
        object.merge(["b": "B", "c": "3"])
        XCTAssertEqual(object.members.map(\.key), ["a", "b", "c"])
        XCTAssertEqual(object.members.map(\.value.interpolationText), ["1", "B", "3"])
        XCTAssertEqual(try render(["t": "{{a}}{{b}}{{c}}"], .object(object)), "1B3")
        object.merge([:])
        XCTAssertEqual(object.count, 3)
    }

    func testDottedNamesDoNotFallBackThroughTheStack() throws {
        let ctx: MustacheValue = ["a": ["b": [:]], "b": ["c": "ERROR"]]
        XCTAssertEqual(try render(["t": "{{#a}}[{{b.c}}]{{/a}}"], ctx), "[]")
    }
}

final class LambdaTests: XCTestCase {
    func testRenderedLambdaGetsRenderedSection() throws {
        let ctx: MustacheValue = [
            "base": "/blog/",
            "asset": .lambda(MustacheLambda(rendered: { path in "/assets/" + path.replacingOccurrences(of: ".css", with: ".3f2a.css") })),
        ]
        XCTAssertEqual(try render(["t": "<link href=\"{{#asset}}css/{{base}}main.css{{/asset}}\">"], ctx),
                       "<link href=\"/assets/css//blog/main.3f2a.css\">")
    }

    func testSectionLambdaGetsRawTextAndResultIsRendered() throws {
        let ctx: MustacheValue = [
            "name": "<Ann>",
            "wrap": .lambda(MustacheLambda(section: { raw in "<b>" + raw + "</b>" })),
        ]
        XCTAssertEqual(try render(["t": "{{#wrap}}Hi {{name}}{{/wrap}}"], ctx), "<b>Hi &lt;Ann&gt;</b>")
    }

    func testLambdaResultMayUsePartials() throws {
        let ctx: MustacheValue = ["l": .lambda(MustacheLambda { "{{>p}}" }), "x": "X"]
        XCTAssertEqual(try render(["t": "{{{l}}}", "p": "<{{x}}>"], ctx), "<X>")
    }

    func testLambdaResultWithMissingPartialIsAnError() throws {
        let ctx: MustacheValue = ["l": .lambda(MustacheLambda { "{{>nope}}" })]
        let error = mustacheError { _ = try render(["t": "a\n {{l}}"], ctx) }
        XCTAssertEqual(error?.message, "partial 'nope' not found")
        XCTAssertEqual(error?.location.file, "t.mustache:2:2 (lambda result)")
    }
}

final class ErrorTests: XCTestCase {
    func testUnclosedSectionNamesPathLineAndColumn() {
        let text = String(repeating: "<p>line</p>\n", count: 11) + "    {{#tags}}<li>{{name}}</li>\n"
        let error = mustacheError {
            _ = try TemplateLibrary([TemplateSource(name: "post", text: text, path: "themes/x/templates/post.mustache")])
        }
        XCTAssertEqual(error?.description, "themes/x/templates/post.mustache:12:5: error: unclosed section 'tags'")
        XCTAssertEqual(error, MustacheError(at: SourceLocation(file: "themes/x/templates/post.mustache", line: 12, column: 5),
                                            message: "unclosed section 'tags'"))
    }

    func testColumnsCountCharactersNotBytes() {
        let error = mustacheError { _ = try render(["t": "ok\n日本語{{#x}}"]) }
        XCTAssertEqual(error?.location.line, 2)
        XCTAssertEqual(error?.location.column, 4)
    }

    func testMismatchedClosingTag() {
        let error = mustacheError { _ = try render(["t": "{{#a}}\n  {{#b}}x{{/a}}"]) }
        XCTAssertEqual(error?.description, "t.mustache:2:10: error: closing tag 'a' does not match open section 'b' (opened at 2:3)")
    }

    func testUnexpectedClosingTag() {
        let error = mustacheError { _ = try render(["t": "x {{/a}}"]) }
        XCTAssertEqual(error?.description, "t.mustache:1:3: error: unexpected closing tag 'a' (no section is open)")
    }

    func testUnclosedTag() {
        let error = mustacheError { _ = try render(["t": "a\nb {{name"]) }
        XCTAssertEqual(error?.description, "t.mustache:2:3: error: unclosed tag (missing '}}')")
    }

    func testUnclosedTagWithCustomDelimiters() {
        let error = mustacheError { _ = try render(["t": "{{=<% %>=}}\n<% name"]) }
        XCTAssertEqual(error?.description, "t.mustache:2:1: error: unclosed tag (missing '%>')")
    }

    func testBadTags() {
        XCTAssertEqual(mustacheError { _ = try render(["t": "{{ }}"]) }?.message, "empty tag")
        XCTAssertEqual(mustacheError { _ = try render(["t": "{{a b}}"]) }?.message, "invalid name 'a b' (names cannot contain spaces)")
        XCTAssertEqual(mustacheError { _ = try render(["t": "{{a..b}}"]) }?.message, "invalid dotted name 'a..b'")
        XCTAssertEqual(mustacheError { _ = try render(["t": "{{=<%=}}"]) }?.message, "invalid set-delimiters tag: expected two delimiters separated by whitespace")
    }

    func testUnclosedParentAndBlock() {
        XCTAssertEqual(mustacheError { _ = try render(["t": "{{<base}}{{$main}}x{{/main}}", "base": ""]) }?.description,
                       "t.mustache:1:1: error: unclosed parent 'base'")
        XCTAssertEqual(mustacheError { _ = try render(["t": "a\n{{$main}}x"]) }?.description,
                       "t.mustache:2:1: error: unclosed block 'main'")
    }

    func testMissingPartialIsAnErrorWhenStrict() {
        let error = mustacheError { _ = try render(["t": "<head>\n  {{> partials/head}}\n"]) }
        XCTAssertEqual(error?.description, "t.mustache:2:3: error: partial 'partials/head' not found")
    }

    func testMissingParentIsAnErrorWhenStrict() {
        let error = mustacheError { _ = try render(["t": "{{<base}}{{$main}}x{{/main}}{{/base}}"]) }
        XCTAssertEqual(error?.description, "t.mustache:1:1: error: parent template 'base' not found")
    }

    func testMissingPartialRendersNothingWhenNotStrict() throws {
        XCTAssertEqual(try render(["t": "[{{>nope}}]"], strict: false), "[]")
    }

    func testMissingDynamicPartialIsARenderError() {
        let error = mustacheError { _ = try render(["t": "x\n{{>*kind}}", "a": "A"], ["kind": "b"]) }
        XCTAssertEqual(error?.description, "t.mustache:2:1: error: partial 'b' not found")
    }

    func testUnknownTemplateName() {
        XCTAssertEqual(mustacheError { _ = try render(["t": "x"], main: "post") }?.description,
                       "post: error: no template named 'post'")
    }

    func testRecursionIsStopped() {
        let error = mustacheError { _ = try render(["t": "{{>t}}"]) }
        XCTAssertEqual(error?.message, "templates nested more than 200 levels deep (recursive partial or block?)")
    }

    func testDuplicateNames() {
        let error = mustacheError {
            _ = try TemplateLibrary([TemplateSource(name: "a", text: "", path: "one/a.mustache"),
                                     TemplateSource(name: "a", text: "", path: "two/a.mustache")])
        }
        XCTAssertEqual(error?.description, "two/a.mustache: error: duplicate template name 'a' (also one/a.mustache)")
    }

    func testDiagnoseReportsEveryProblem() {
        let errors = TemplateLibrary.diagnose([
            TemplateSource(name: "a", text: "{{#x}}", path: "a.mustache"),
            TemplateSource(name: "b", text: "{{>a}}\n{{>c}}\n{{<d}}{{/d}}", path: "b.mustache"),
        ])
        XCTAssertEqual(errors.map(\.description), [
            "a.mustache:1:1: error: unclosed section 'x'",
            "b.mustache:2:1: error: partial 'c' not found",
            "b.mustache:3:1: error: parent template 'd' not found",
        ])
    }
}

final class PartialTests: XCTestCase {
    func testStandalonePartialIsIndented() throws {
        let out = try render(["t": "<ul>\n  {{> item}}\n</ul>\n", "item": "<li>\n  {{x}}\n</li>\n"], ["x": "a\nb"])
        XCTAssertEqual(out, "<ul>\n  <li>\n    a\nb\n  </li>\n</ul>\n")
    }

    func testPartialSeesTheContextStack() throws {
        let ctx: MustacheValue = ["site": ["title": "S"], "posts": [["title": "A"], ["title": "B"]]]
        let out = try render(["t": "{{#posts}}{{> partials/post-item}}{{/posts}}",
                              "partials/post-item": "<{{title}}/{{site.title}}>"], ctx)
        XCTAssertEqual(out, "<A/S><B/S>")
    }

    func testDynamicNames() throws {
        let ctx: MustacheValue = ["items": [["kind": "text", "v": "hi"], ["kind": "image", "v": "a.png"], ["v": "skip"]]]
        let out = try render(["t": "{{#items}}{{>*kind}}{{/items}}", "text": "<p>{{v}}</p>", "image": "<img src=\"{{v}}\">"], ctx)
        XCTAssertEqual(out, "<p>hi</p><img src=\"a.png\">")
    }

    func testDynamicParent() throws {
        let ctx: MustacheValue = ["layout": "wide"]
        let out = try render(["t": "{{<*layout}}{{$main}}M{{/main}}{{/*layout}}", "wide": "[wide {{$main}}{{/main}}]"], ctx)
        XCTAssertEqual(out, "[wide M]")
    }
}

final class InheritanceTests: XCTestCase {
    static let base = """
        <!doctype html>
        <html lang="{{site.language}}">
        <head>
          <title>{{$title}}{{site.title}}{{/title}}</title>
          {{> partials/head}}
          {{$head_extra}}{{/head_extra}}
        </head>
        <body>
          <main>
            {{$main}}
            <p>default</p>
            {{/main}}
          </main>
          {{$scripts}}{{/scripts}}
        </body>
        </html>

        """

    static let post = """
        {{< base}}
        {{$title}}{{page.title}} - {{site.title}}{{/title}}
        {{$main}}
        <article>
          <h1>{{post.title}}</h1>
          {{{post.content}}}
        </article>
        {{/main}}
        {{/ base}}

        """

    static let head = "<meta charset=\"utf-8\">\n<link rel=\"alternate\" href=\"{{site.feed_url}}\">\n"

    static var library: TemplateLibrary {
        get throws {
            try TemplateLibrary([
                TemplateSource(name: "base", text: base, path: "templates/base.mustache"),
                TemplateSource(name: "post", text: post, path: "templates/post.mustache"),
                TemplateSource(name: "home", text: "{{<base}}{{/base}}", path: "templates/home.mustache"),
                TemplateSource(name: "partials/head", text: head, path: "templates/partials/head.mustache"),
            ])
        }
    }

    static func context(_ i: Int) -> MustacheValue {
        [
            "site": ["title": "Blog & Co", "language": "ja", "feed_url": "/feed.xml"],
            "page": ["title": "Post \(i)"],
            "post": ["title": "Title <\(i)>", "content": "<p>body \(i)</p>"],
        ]
    }

    func testPageOverridesBlocksOfBase() throws {
        let out = try Self.library.render("post", Self.context(7))
        XCTAssertEqual(out, """
            <!doctype html>
            <html lang="ja">
            <head>
              <title>Post 7 - Blog &amp; Co</title>
              <meta charset="utf-8">
              <link rel="alternate" href="/feed.xml">
              \n</head>
            <body>
              <main>
                <article>
                  <h1>Title &lt;7&gt;</h1>
                  <p>body 7</p>
                </article>
              </main>
              \n</body>
            </html>

            """)
    }

    func testDefaultsWhenNotOverridden() throws {
        let out = try Self.library.render("home", Self.context(1))
        XCTAssertTrue(out.contains("<title>Blog &amp; Co</title>"), out)
        XCTAssertTrue(out.contains("<body>\n  <main>\n    <p>default</p>\n  </main>\n"), out)
    }

    func testBlocksResolveInTheParentsContext() throws {
        let out = try render(["t": "{{<list}}{{$item}}<{{name}}>{{/item}}{{/list}}",
                              "list": "{{#items}}{{$item}}{{/item}}{{/items}}"],
                             ["items": [["name": "a"], ["name": "b"]]])
        XCTAssertEqual(out, "<a><b>")
    }

    func testOutermostOverrideWins() throws {
        let out = try render(["page": "{{<mid}}{{$a}}page{{/a}}{{/mid}}",
                              "mid": "{{<base}}{{$a}}mid{{/a}}{{$b}}mid-b{{/b}}{{/base}}",
                              "base": "{{$a}}base{{/a}},{{$b}}base-b{{/b}},{{$c}}base-c{{/c}}"])
        XCTAssertEqual(out, "page,mid-b,base-c")
    }
}

final class ConcurrencyTests: XCTestCase {
    func testConcurrentRendersMatchSequentialOnes() throws {
        let library = try InheritanceTests.library
        let count = 64
        let expected = try (0..<count).map { try library.render($0 % 2 == 0 ? "post" : "home", InheritanceTests.context($0)) }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var values: [String?]
            var errors: [String] = []
            init(_ n: Int) { values = Array(repeating: nil, count: n) }
        }
        let results = Results(count * 4)
        DispatchQueue.concurrentPerform(iterations: count * 4) { i in
            let n = i % count
            do {
                let out = try library.render(n % 2 == 0 ? "post" : "home", InheritanceTests.context(n))
                results.lock.lock(); results.values[i] = out; results.lock.unlock()
            } catch {
                results.lock.lock(); results.errors.append("\(error)"); results.lock.unlock()
            }
        }
        XCTAssertEqual(results.errors, [])
        for i in 0..<(count * 4) {
            XCTAssertEqual(results.values[i], expected[i % count], "render \(i)")
        }
    }

    func testRenderBytesAppendsToTheBuffer() throws {
        let library = try TemplateLibrary([TemplateSource(name: "t", text: "<{{x}}>", path: "t")])
        var buffer = Array("head:".utf8)
        try library.renderBytes("t", ["x": "é"], into: &buffer)
        try library.renderBytes("t", ["x": 2], into: &buffer)
        XCTAssertEqual(String(decoding: buffer, as: UTF8.self), "head:<é><2>")
        XCTAssertTrue(library.has("t"))
        XCTAssertFalse(library.has("u"))
    }
}

final class PerformanceTests: XCTestCase {
    /// A typical list page: base layout, partials, 20 posts with tags. Prints the rate; fails only
    /// if rendering is pathologically slow (the bound holds even for debug builds on a busy machine).
    func testTypicalPageRenderRate() throws {
        let item = """
            <article class="post-item">
              <h2><a href="{{url}}">{{title}}</a></h2>
              <time datetime="{{date_iso}}">{{date_display}}</time>
              <p>{{summary}}</p>
              <ul class="tags">{{#tags}}<li><a href="{{url}}">{{name}}</a></li>{{/tags}}</ul>
            </article>

            """
        let home = """
            {{<base}}
            {{$main}}
            {{#posts}}
            {{> partials/post-item}}
            {{/posts}}
            {{^posts}}<p>{{lang.no_posts}}</p>{{/posts}}
            {{/main}}
            {{/base}}

            """
        let library = try TemplateLibrary([
            TemplateSource(name: "base", text: InheritanceTests.base, path: "base"),
            TemplateSource(name: "home", text: home, path: "home"),
            TemplateSource(name: "partials/head", text: InheritanceTests.head, path: "head"),
            TemplateSource(name: "partials/post-item", text: item, path: "item"),
        ])
        let posts: [MustacheValue] = (0..<20).map { i in
            [
                "url": "/posts/\(i)/", "title": "Post number \(i) & more", "date_iso": "2020-02-06T00:00:00Z",
                "date_display": "2020年2月6日", "summary": "Summary text for post \(i) with <html> chars",
                "tags": [["name": "swift", "url": "/tags/swift/"], ["name": "mustache", "url": "/tags/mustache/"]],
            ]
        }
        let ctx: MustacheValue = ["site": ["title": "Blog", "language": "ja", "feed_url": "/feed.xml"],
                                  "posts": .array(posts), "lang": ["no_posts": "none"]]
        var buffer: [UInt8] = []
        try library.renderBytes("home", ctx, into: &buffer)
        let size = buffer.count
        XCTAssertTrue(String(decoding: buffer, as: UTF8.self).contains("Post number 19 &amp; more"))
        // Thread CPU time, so other processes on a busy machine do not count.
        func cpuSeconds() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        }
        let start = cpuSeconds()
        var renders = 0
        while cpuSeconds() - start < 0.3 {
            buffer.removeAll(keepingCapacity: true)
            try library.renderBytes("home", ctx, into: &buffer)
            renders += 1
        }
        let rate = Double(renders) / (cpuSeconds() - start)
        print("mustache: \(Int(rate)) renders per CPU second of a \(size)-byte list page")
        XCTAssertGreaterThan(rate, 100)
    }
}

/// `renderBytes(_:_:capacity:)` writes into the page array's own storage while the page fits,
/// and finishes in a growing buffer when it does not: the bytes must not depend on the capacity.
final class RenderBytesTests: XCTestCase {
    private func library() throws -> TemplateLibrary {
        try TemplateLibrary([
            TemplateSource(name: "page", text: "<h1>{{title}}</h1>\n{{#items}}  {{> item}}\n{{/items}}{{{raw}}}|{{#wrap}}in {{title}}{{/wrap}}",
                           path: "page.mustache"),
            TemplateSource(name: "item", text: "<li>{{name}} &amp; {{n}}</li>", path: "item.mustache"),
        ])
    }

    private var context: MustacheValue {
        [
            "title": "A <b> & 'c'",
            "items": .array((0..<300).map { ["name": .string("item \($0) \"q\""), "n": .int($0)] }),
            "raw": .string(String(repeating: "é<>", count: 500)),
            "wrap": .lambda(MustacheLambda(rendered: { "[\($0)]" })),
        ]
    }

    func testOutputDoesNotDependOnCapacity() throws {
        let library = try library()
        let expected = Array(try library.render("page", context).utf8)
        XCTAssertGreaterThan(expected.count, 10_000)
        for capacity in [0, 1, 64, 100, 4096, expected.count - 1, expected.count, expected.count + 1, 1 << 20] {
            let bytes = try library.renderBytes("page", context, capacity: capacity)
            XCTAssertEqual(bytes, expected, "capacity \(capacity)")
        }
    }

    func testRenderBytesIntoAppendsToWhatIsThere() throws {
        let library = try library()
        let expected = Array(try library.render("page", context).utf8)
        var buffer = Array("prefix:".utf8)
        try library.renderBytes("page", context, into: &buffer)
        XCTAssertEqual(buffer, Array("prefix:".utf8) + expected)
        var empty: [UInt8] = []
        empty.reserveCapacity(10)
        try library.renderBytes("page", context, into: &empty)
        XCTAssertEqual(empty, expected)
    }

    func testErrorsStillThrow() throws {
        let library = try TemplateLibrary([TemplateSource(name: "r", text: "x{{> r}}", path: "r.mustache")])
        XCTAssertNotNil(mustacheError { _ = try library.renderBytes("r", [:], capacity: 16) })
        XCTAssertNotNil(mustacheError { _ = try library.renderBytes("missing", [:], capacity: 16) })
    }

    /// Values read in place by address: a lambda that renders a section pushing frames (the stack
    /// may move) and dotted names into nested objects, in one template.
    func testNestedLookupsAndLambdasAroundStackGrowth() throws {
        var deep: MustacheValue = ["leaf": "bottom"]
        for _ in 0..<40 { deep = ["d": deep, "leaf": "x"] }
        let text = "{{#a}}{{#b}}{{#c}}{{x.y.z}}{{/c}}{{/b}}{{/a}}|{{lam}}|" + String(repeating: "{{#d}}", count: 40)
            + "{{leaf}}" + String(repeating: "{{/d}}", count: 40)
        let out = try render(["t": text], [
            "a": ["b": ["c": ["x": ["y": ["z": "<z>"]]]]],
            "lam": .lambda(MustacheLambda { "{{#a}}{{#b}}{{c.x.y.z}}{{/b}}{{/a}}" }),
            "d": deep.member("d") ?? nil,
        ])
        XCTAssertEqual(out, "&lt;z&gt;|&amp;lt;z&amp;gt;|bottom")
    }
}

final class UnsharedValueTests: XCTestCase {
    /// The address of a string's UTF-8 storage (nil for one without contiguous storage).
    private func storage(_ value: MustacheValue?) -> UnsafeRawPointer? {
        guard case .string(let s)? = value else { return nil }
        return s.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    func testAnUnsharedCopyRendersTheSameAndSharesNoStrings() throws {
        let long = String(repeating: "共有しない文字列 & <tag> ", count: 8)
        let original: MustacheValue = [
            "title": .string(long), "n": 3, "ratio": 1.5, "flag": true, "none": nil,
            "items": [["name": .string(long + "1")], ["name": "短い"]],
            "shout": .lambda(MustacheLambda(rendered: { $0.uppercased() })),
        ]
        let copy = original.unshared()
        let template = "{{title}}|{{{title}}}|{{n}}|{{ratio}}|{{#flag}}yes{{/flag}}{{^none}}none{{/none}}|{{#items}}[{{name}}]{{/items}}|{{#shout}}abc{{/shout}}"
        XCTAssertEqual(try render(["t": template], copy), try render(["t": template], original))
        XCTAssertEqual(try render(["t": "{{#shout}}abc{{/shout}}"], copy), "ABC")
        // Long strings, at the top and inside lists of objects, are in buffers of their own.
        XCTAssertNotNil(storage(original.member("title")))
        XCTAssertNotEqual(storage(copy.member("title")), storage(original.member("title")))
        guard case .array(let before)? = original.member("items"), case .array(let after)? = copy.member("items") else {
            return XCTFail("items is not a list")
        }
        XCTAssertNotEqual(storage(after[0].member("name")), storage(before[0].member("name")))
    }
}

private extension MustacheValue {
    func member(_ key: String) -> MustacheValue? { self[key] }
}

/// Renders with lookup hints (`RenderLane`) must match renders without: the same templates over
/// contexts whose objects hold the same names at different indices, or not at all, so that
/// every hint is in turn right, stale, out of range and pointing at another name.
final class LookupHintTests: XCTestCase {
    private struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    private static let names = ["a", "b", "title", "url", "site", "lang", "page", "item", "x", "long_name_past_fifteen_bytes"]

    /// An object with a random subset of `names`, in random order, nested to `depth`.
    private static func object(_ random: inout Generator, depth: Int) -> MustacheValue {
        var object = MustacheObject()
        var keys = names
        for k in stride(from: keys.count - 1, to: 0, by: -1) { keys.swapAt(k, random.next(k + 1)) }
        for key in keys.prefix(random.next(keys.count + 1)) {
            switch random.next(depth > 0 ? 5 : 3) {
            case 0: object[key] = .string("\(key)-\(random.next(100))<&>")
            case 1: object[key] = .int(random.next(1000))
            case 2: object[key] = .bool(random.next(2) == 0)
            case 3: object[key] = Self.object(&random, depth: depth - 1)
            default: object[key] = .array((0..<random.next(4)).map { _ in Self.object(&random, depth: depth - 1) })
            }
        }
        return .object(object)
    }

    func testHintedLookupsMatchPlainLookups() throws {
        let text = """
        {{a}}|{{site.title}}|{{lang.x}}|{{page.item.url}}|{{long_name_past_fifteen_bytes}}|{{b.a.title}}
        {{#item}}[{{a}}/{{title}}/{{site.url}}/{{page.a}}/{{long_name_past_fifteen_bytes.x}}]{{/item}}
        {{#page}}{{#lang}}({{x}}.{{title}}.{{site.title}}){{/lang}}{{^b}}no b{{/b}}{{/page}}
        {{#site.item}}<{{url}}{{#item}}:{{title}}:{{a.b}}{{/item}}>{{/site.item}}
        """
        let library = try TemplateLibrary([TemplateSource(name: "t", text: text, path: "t.mustache")])
        guard let lane = library.claimLane() else { return XCTFail("no lane") }
        var random = Generator(state: 42)
        var differentPages = Set<[UInt8]>()
        for _ in 0..<400 {
            let context = Self.object(&random, depth: 3)
            let plain = try library.renderBytes("t", context, capacity: 64)
            // Twice: the second render reads the hints the first one stored.
            XCTAssertEqual(try library.renderBytes("t", context, capacity: 64, lane: lane), plain)
            XCTAssertEqual(try library.renderBytes("t", context, capacity: 64, lane: lane), plain)
            differentPages.insert(plain)
        }
        XCTAssertGreaterThan(differentPages.count, 100)
    }

    func testLanesAreExclusiveAndComeBack() throws {
        let library = try TemplateLibrary([TemplateSource(name: "t", text: "{{a}}", path: "t.mustache")])
        var held = (0..<8).compactMap { _ in library.claimLane() }
        XCTAssertEqual(held.count, 8)
        XCTAssertNil(library.claimLane())
        held.removeLast()
        XCTAssertNotNil(library.claimLane())
    }
}

/// `MustacheKey` (a name hashed once) must set and read members exactly as the name does.
final class MustacheKeyTests: XCTestCase {
    private static func describe(_ object: MustacheObject) -> String {
        object.members.map { "\($0.key)=\($0.value.interpolationText)" }.joined(separator: ",")
    }

    func testKeyedSetsMatchNamedSets() throws {
        let names = ["a", "b", "title", "url", "", "日本語", "long_name_past_fifteen_bytes", "x.y"]
        let keys = names.map { MustacheKey($0) }
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<300 {
            var named = MustacheObject(), keyed = MustacheObject(), appended = MustacheObject()
            for step in 0..<next(12) {
                let k = next(names.count)
                let value: MustacheValue? = next(5) == 0 ? nil : .string("v\(step)")
                named[names[k]] = value
                keyed[keys[k]] = value
                // `append(new:)` for names the object does not hold, the rest through the name.
                if let value, appended[names[k]] == nil {
                    appended.append(new: keys[k], value)
                } else {
                    appended[names[k]] = value
                }
                XCTAssertEqual(Self.describe(keyed), Self.describe(named))
                XCTAssertEqual(Self.describe(appended), Self.describe(named))
                for (name, key) in zip(names, keys) {
                    XCTAssertEqual(keyed[key]?.interpolationText, named[name]?.interpolationText)
                }
            }
        }
    }
}

/// Partial and parent tags of a library's templates point at their templates (`linkTargets`);
/// the same text a lambda returns is parsed at render time and looks the names up. Both must
/// render the same, through sections, blocks, block arguments and nested parents.
final class LinkedPartialTests: XCTestCase {
    func testLinkedTagsMatchLookedUpTags() throws {
        let body = """
        [{{> p1}}|{{#items}}{{> p2}}{{/items}}|{{< base}}{{$ slot}}in {{> p1}} {{< inner}}{{$ x}}{{> p3}}{{/ x}}{{/ inner}}{{/ slot}}{{/ base}}]
          {{> p2}}
        """
        let sources = [
            TemplateSource(name: "main", text: body, path: "main.mustache"),
            TemplateSource(name: "p1", text: "one({{v}})", path: "p1.mustache"),
            TemplateSource(name: "p2", text: "two({{v}}{{> p1}})\n", path: "p2.mustache"),
            TemplateSource(name: "p3", text: "three", path: "p3.mustache"),
            TemplateSource(name: "base", text: "<{{$ slot}}default{{/ slot}}>", path: "base.mustache"),
            TemplateSource(name: "inner", text: "({{$ x}}none{{/ x}}){{> p1}}", path: "inner.mustache"),
            TemplateSource(name: "viaLambda", text: "{{{lambda}}}", path: "viaLambda.mustache"),
        ]
        let library = try TemplateLibrary(sources)
        let context: MustacheValue = [
            "v": "V", "items": [["v": "a"], ["v": "b"]],
            "lambda": .lambda(MustacheLambda { body }),
        ]
        let linked = try library.render("main", context)
        XCTAssertEqual(try library.render("viaLambda", context), linked)
        XCTAssertTrue(linked.contains("two(aone(a))"), linked)
        XCTAssertTrue(linked.contains("(three)one(V)"), linked)
    }
}

/// HTML escaping as the Mustache spec defines it, character by character: the reference the
/// renderer's fast escapers are checked against.
func referenceHTMLEscape(_ s: String) -> String {
    var out = ""
    for c in s {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.append(c)
        }
    }
    return out
}

final class NamesReadTests: XCTestCase {
    private func library(_ templates: KeyValuePairs<String, String>, strict: Bool = true) throws -> TemplateLibrary {
        try TemplateLibrary(templates.map { TemplateSource(name: $0.key, text: $0.value, path: "\($0.key).mustache") }, strictPartials: strict)
    }

    func testNamesOfTheTemplateAndOfEverythingItReaches() throws {
        let lib = try library([
            "page": "{{< layout}}{{$ body}}{{#post.related}}{{title}}{{> item}}{{/post.related}}{{/ body}}{{/ layout}}",
            "layout": "<title>{{site.title}}</title>{{$ body}}{{^empty}}default{{/empty}}{{/ body}}{{{raw}}}{{.}}",
            "item": "{{#tags}}{{name}}{{/tags}}{{&summary}}",
            "unrelated": "{{secret}}",
        ])
        let names = try XCTUnwrap(lib.namesRead(by: "page"))
        XCTAssertEqual(names, [["post", "related"], ["title"], ["site", "title"], ["empty"], ["raw"], ["tags"], ["name"], ["summary"]])
        XCTAssertEqual(lib.namesRead(by: "item"), [["tags"], ["name"], ["summary"]])
    }

    func testUnknownWhenATemplateIsNamedAtRenderTimeOrMissing() throws {
        XCTAssertNil(try library(["page": "{{>*which}}", "a": "{{x}}"]).namesRead(by: "page"))
        XCTAssertNil(try library(["page": "{{> gone}}"], strict: false).namesRead(by: "page"))
        XCTAssertNil(try library(["page": "{{x}}"]).namesRead(by: "none"))
        // A template that includes itself is walked once.
        XCTAssertEqual(try library(["list": "{{#children}}{{name}}{{> list}}{{/children}}"]).namesRead(by: "list"), [["children"], ["name"]])
    }
}
