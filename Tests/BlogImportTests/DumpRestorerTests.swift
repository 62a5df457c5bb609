import BlogCore
import BlogImport
import BlogMarkdown
import Foundation
import XCTest

/// The rules that give text dumps their structure back, one test each, through `DumpRestorer`
/// and `TextDumpImporter`; then the hand-written fixtures (Fixtures/dumps/NN-name.md, flattened
/// into NN-name.txt by scripts/dump-fixtures.py) and the lossless property on all of them.
final class DumpRestorerTests: XCTestCase {
    private func restore(_ text: String) -> String {
        DumpRestorer.restore(lines: text.components(separatedBy: "\n")).markdown
    }

    // MARK: inline code

    func testInlineCodeSpansAreJoinedBackIntoTheSentence() {
        XCTAssertEqual(restore("2では\nUISearchToken\nが公開しているrepresentedObject\nプロパティに値を入れます。"),
                       "2では`UISearchToken`が公開している`representedObject`プロパティに値を入れます。\n")
        // A span with spaces needs a line that cannot start a sentence after it.
        XCTAssertEqual(restore("デプロイは\nfirebase deploy --only functions\nです。"), "デプロイは`firebase deploy --only functions`です。\n")
        // A span that starts a sentence keeps the line break before it.
        XCTAssertEqual(restore("準備ができました。\nviewDidLoad\nで呼びます。"), "準備ができました。\n`viewDidLoad`で呼びます。\n")
    }

    func testLineBreaksThatAreNotSpansStay() {
        // A sentence's end, a run with spaces before a line that may start a sentence, a list.
        let text = "Xcode 15を使います。\nこれは次の行です。\n詳しくはApple Developer\nサイトを見てください。\n- SwiftUI\n- UIKit"
        XCTAssertEqual(restore(text), "Xcode 15を使います。\nこれは次の行です。\n詳しくはApple Developer\nサイトを見てください。\n\n- SwiftUI\n- UIKit\n")
        XCTAssertFalse(restore("参考: https://example.com/a\nを見てください。").contains("`"))
    }

    // MARK: code blocks

    func testCodeBlockIsCutOutOfTheProseAndFenced() {
        let line = "検索欄にはsearchTextFieldからアクセスできます。var searchBar = UISearchBar() "
            + "searchBar.searchTextField.backgroundColor = .systemOrangeこのように設定すると色が変わります。"
        XCTAssertEqual(restore(line), """
            検索欄にはsearchTextFieldからアクセスできます。

            ```swift
            var searchBar = UISearchBar()
            searchBar.searchTextField.backgroundColor = .systemOrange
            ```

            このように設定すると色が変わります。

            """)
    }

    func testGluedFileNameBecomesTheFenceLabel() {
        let markdown = restore("次のように書きます。AppDelegate.swiftimport UIKit @main class AppDelegate: UIResponder { var window: UIWindow? }以上です。")
        XCTAssertTrue(markdown.contains("```swift:AppDelegate.swift\nimport UIKit\n@main\nclass AppDelegate: UIResponder {\n    var window: UIWindow?\n}\n```"), markdown)
        let js = restore("関数です。index.jsconst functions = require('firebase-functions') exports.hello = functions.https.onRequest((req, res) => { res.send('hi') })以上。")
        XCTAssertTrue(js.contains("```javascript:index.js\nconst functions = require('firebase-functions')\nexports.hello"), js)
        let podfile = restore("Podfileです。Podfileplatform :ios, '14.0' target 'App' do use_frameworks! pod 'Alamofire' end保存します。")
        XCTAssertTrue(podfile.contains("```ruby:Podfile\nplatform :ios, '14.0'\ntarget 'App' do\n  use_frameworks!\n  pod 'Alamofire'\nend\n```"), podfile)
    }

    func testSwiftLinesAndIndentationAreRestored() {
        let code = "class ViewController: UIViewController { @IBOutlet weak var label: UILabel! override func viewDidLoad() { "
            + "super.viewDidLoad() // ラベルの初期設定 label.text = \"こんにちは\" switch mode { case .light: label.textColor = .black "
            + "default: label.textColor = .white } items.forEach { [weak self] item in self?.add(item) } } }"
        XCTAssertEqual(restore("例です。" + code + "以上です。"), """
            例です。

            ```swift
            class ViewController: UIViewController {
                @IBOutlet weak var label: UILabel!
                override func viewDidLoad() {
                    super.viewDidLoad()
                    // ラベルの初期設定
                    label.text = "こんにちは"
                    switch mode {
                    case .light:
                        label.textColor = .black
                    default:
                        label.textColor = .white
                    }
                    items.forEach { [weak self] item in
                        self?.add(item)
                    }
                }
            }
            ```

            以上です。

            """)
    }

    func testProseGluedToTheEndOfABlockIsCutOff() {
        XCTAssertEqual(restore("例です。let a = f(1) print(a)0.3秒待ちます。"), "例です。\n\n```swift\nlet a = f(1)\nprint(a)\n```\n\n0\\.3秒待ちます。\n")
        // A heading named after the file that labels the block glued to it.
        let markdown = restore("書きます。PodfilePodfileplatform :ios, '14.0' pod 'A'以上。")
        XCTAssertTrue(markdown.hasPrefix("書きます。\n\n## Podfile\n\n```ruby:Podfile\nplatform :ios, '14.0'\npod 'A'\n```"), markdown)
    }

    func testLanguageIsInferred() {
        func languages(_ text: String) -> [String] { DumpRestorer.restore(lines: [text]).codeLanguages }
        XCTAssertEqual(languages("実行します。$ pod install $ open App.xcworkspaceこれで完了。"), ["bash"])
        XCTAssertEqual(languages("入れます。npm install -g firebase-tools firebase login終わり。"), ["bash"])
        XCTAssertEqual(languages("形式です。{ \"id\": 1, \"name\": \"a\" }以上。"), ["json"])
        XCTAssertEqual(languages("書きます。fun main() { val name = \"a\" println(name) }以上。"), ["kotlin"])
        XCTAssertEqual(languages("書きます。const button = document.querySelector('#b'); button.addEventListener('click', () => { console.log('x'); });以上。"), ["javascript"])
        XCTAssertEqual(languages("書きます。guard let url = URL(string: text) else { return } let request = URLRequest(url: url)以上。"), ["swift"])
        XCTAssertEqual(languages("呼びます。@implementation ViewController - (void)viewDidLoad { [super viewDidLoad]; } @end以上。"), ["objective-c"])
        XCTAssertEqual(languages("設定です。.github/workflows/ci.ymlname: CI on: push jobs: build: runs-on: ubuntu-latest以上。"), ["yaml"])
        // English words in prose are not code.
        XCTAssertEqual(languages("Swift 5.9 (Xcode 15) で動作確認しました。"), [])
    }

    // MARK: headings

    func testGluedHeadingsNeedStrongEvidence() {
        XCTAssertEqual(restore("まとめて記載したいと思います。各クラスの概要\n本文です。"),
                       "まとめて記載したいと思います。\n\n## 各クラスの概要\n\n本文です。\n")
        XCTAssertEqual(restore("終わりです。トークンを追加する\n本文です。"), "終わりです。\n\n## トークンを追加する\n\n本文です。\n")
        // A sentence that lost its `。` before a code block, a particle ending, a long tail: no heading.
        XCTAssertFalse(restore("準備します。次のように書きますlet x = foo(a) bar(x)以上。").contains("#"))
        XCTAssertFalse(restore("準備します。詳しくはこちら\n本文").contains("#"))
        XCTAssertFalse(restore("準備します。この節ではビューコントローラーの生成から破棄までのライフサイクル全体\n本文").contains("#"))
    }

    // MARK: importer

    func testBareHeaderAtEndIsSkippedWithAWarning() {
        let path = Fixtures.path("dumps/08-duplicate-edit.txt")
        let result = TextDumpImporter().importFile(path)
        XCTAssertFalse(result.hasErrors)
        XCTAssertEqual(result.articles.count, 1)
        XCTAssertTrue(result.diagnostics.contains { $0.description == "\(path):11: warning: article header has no title and no body; skipped" },
                      "\(result.diagnostics)")
    }

    func testNearDuplicatesAreImportedOnceWithTheirDifferences() throws {
        let first = Fixtures.path("dumps/07-duplicate.txt"), second = Fixtures.path("dumps/08-duplicate-edit.txt")
        let result = TextDumpImporter().importFiles([first, second])
        XCTAssertEqual(result.articles.map(\.title), ["配列の重複を取り除く処理"])
        XCTAssertTrue(result.articles[0].tags.contains("Swift"), "\(result.articles[0].tags)")
        let warning = try XCTUnwrap(result.diagnostics.first { $0.description.contains("near-duplicate") }).description
        XCTAssertTrue(warning.hasPrefix("\(second):1: warning: near-duplicate article \"配列の重複を取り除く処理\""), warning)
        XCTAssertTrue(warning.contains("\(first):1"), warning)
        XCTAssertTrue(warning.contains("\n  - 順序を保ちたい場合はfilter\n  + 順序を保ちたいときはfilter\n  + Swift 5.9ではパラメータパックも使えます。"), warning)
        let both = TextDumpImporter(keepDuplicates: true).importFiles([first, second])
        XCTAssertEqual(both.articles.map(\.title), ["配列の重複を取り除く処理", "配列の重複を取り除く処理 : Swift"])
        // Articles that share a date and a title but not their bodies are not near-duplicates.
        let source = try InputText(path: "d.txt", bytes: Array("- 投稿日:2021-05-10T09:15:00+09:00\nT\na\nb\nc\nd\ne\n- 投稿日:2021-05-10T09:15:00+09:00\nT : iOS\nv\nw\nx\ny\nz\n".utf8))
        XCTAssertEqual(TextDumpImporter().importText(source).articles.count, 2)
    }

    func testTagsComeFromTheBodyToo() throws {
        let result = TextDumpImporter().importFile(Fixtures.path("dumps/02-firebase-setup.txt"))
        let tags = try XCTUnwrap(result.articles.first).tags
        XCTAssertEqual(Array(tags.prefix(2)), ["Firebase", "CocoaPods"])
        XCTAssertTrue(tags.contains("Swift") && tags.contains("UIKit"), "\(tags)")
        XCTAssertLessThanOrEqual(tags.count, 5)
        let plain = try InputText(path: "d.txt", bytes: Array("- 投稿日:2021-05-10T09:15:00+09:00\n日記\n今日は晴れ。\n".utf8))
        XCTAssertEqual(TextDumpImporter().importText(plain).articles.first?.tags, ["memo"])
    }

    func testVerbatimKeepsEveryLine() throws {
        let path = Fixtures.path("dumps/01-search-token.txt")
        let body = try XCTUnwrap(TextDumpImporter(verbatim: true).importFile(path).articles.first).body
        let lines = try XCTUnwrap(readFile(path)).components(separatedBy: "\n").dropFirst(2).filter { !$0.isEmpty }
        XCTAssertEqual(body, PlainTextMarkdown.markdown(lines: Array(lines)))
        XCTAssertFalse(body.contains("```"))
    }

    // MARK: fixtures

    private var fixtureNames: [String] {
        listFiles(Fixtures.path("dumps")).filter { $0.hasSuffix(".txt") }
    }

    /// Every character of the dump is on the page: the rendered text without whitespace (and without
    /// the headings' `#` anchors) is the dump body without whitespace.
    func testNothingIsLostOnAnyFixture() throws {
        var checked = 0
        for name in fixtureNames + ["../text/dump.txt"] {
            let path = Fixtures.path("dumps/" + name)
            let dumpLines = try XCTUnwrap(readFile(path)).components(separatedBy: "\n")
            let result = TextDumpImporter(keepDuplicates: true).importFile(path)
            for article in result.articles {
                let start = article.source.line + 1  // the body starts after the title line
                var end = dumpLines.count
                for index in start..<dumpLines.count where dumpLines[index].hasPrefix(TextDumpImporter.headerPrefix) { end = index; break }
                // A list item's `- ` is the dump's picture of a bullet: the post keeps it as list syntax.
                let body = dumpLines[start..<end].map { PlainTextMarkdown.listItemContent($0) ?? $0 }
                let dump = String(body.joined().unicodeScalars.filter { !$0.properties.isWhitespace })
                var html = MarkdownRenderer().render(article.body).html
                html = html.replacingOccurrences(of: "<a [^>]*aria-hidden=\"true\">#</a>", with: "", options: .regularExpression)
                let text = String(renderedLines(html).joined().unicodeScalars.filter { !$0.properties.isWhitespace })
                XCTAssertEqual(text, dump, "\(name): \(article.title)")
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 12)
    }

    /// Against the hand-written Markdown: every inline code span and every code line is restored,
    /// and no heading appears that the article does not have.
    func testFixturesAgainstHandWrittenMarkdown() throws {
        let spanPattern = try NSRegularExpression(pattern: "(`+)(.+?)\\1")
        func spans(_ lines: [String]) -> [String] {
            lines.flatMap { line in
                spanPattern.matches(in: line, range: NSRange(line.startIndex..., in: line)).map { String(line[Range($0.range(at: 2), in: line)!]) }
            }
        }
        func parts(_ markdown: String) -> (prose: [String], headings: [String], code: [String]) {
            var prose: [String] = [], headings: [String] = [], code: [String] = []
            var inFence = false
            for line in markdown.components(separatedBy: "\n") {
                if line.hasPrefix("```") { inFence.toggle(); continue }
                if inFence { code.append(line.replacingOccurrences(of: " ", with: "")) }
                else if line.hasPrefix("#") { headings.append(line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)) }
                else { prose.append(line) }
            }
            return (prose, headings, code.filter { !$0.isEmpty })
        }
        for name in fixtureNames {
            let markdownPath = Fixtures.path("dumps/" + name.dropLast(4) + ".md")
            guard let expectedText = readFile(markdownPath) else { continue }
            let expected = parts(expectedText.components(separatedBy: "\n").dropFirst(3).joined(separator: "\n"))
            let article = try XCTUnwrap(TextDumpImporter().importFile(Fixtures.path("dumps/" + name)).articles.first)
            let got = parts(article.body)
            XCTAssertEqual(spans(got.prose).sorted(), spans(expected.prose).sorted(), name)
            XCTAssertTrue(Set(got.headings).isSubset(of: Set(expected.headings)), "\(name): \(got.headings)")
            let fenced = got.code.joined()
            for line in expected.code { XCTAssertTrue(fenced.contains(line), "\(name): \(line) not in a fence") }
        }
    }
}

/// The lossless property on generated dumps: lines mixing Japanese prose, identifiers, code
/// symbols and Markdown characters, rendered by the real renderer, give back every character.
final class DumpRestorerPropertyTests: XCTestCase {
    func testRandomDumpsLoseNothing() {
        let pieces = ["では", "を使います。", "が公開している", "、", "。", "各クラスの概要", "設定する", "UISearchToken", "representedObject",
                      "let x = foo(1)", " ", " ", "{", "}", "(", ")", ";", ".", "=", "\"文字列\"", "'a'", "// コメント", "# 見出し", "$ ",
                      "pod install", "import UIKit", "`", "``", "*", "**", "_", "[", "]", "<", ">", "&", "|", "~~", "$x$", ":", "- ",
                      "https://example.com/a?b=1", "#fff", "@objc", "AppDelegate.swift", "Podfile", "1. ", "<br>", "\\", "!", "ー"]
        var generator = SplitMix(seed: 0x5EED)
        var fenced = 0, spans = 0, headings = 0
        for round in 0..<200 {
            var lines: [String] = []
            for _ in 0..<Int(generator.next() % 6 + 1) {
                var line = ""
                for _ in 0..<Int(generator.next() % 14) { line += pieces[Int(generator.next() % UInt64(pieces.count))] }
                lines.append(line)
            }
            let markdown = DumpRestorer.restore(lines: lines).markdown
            if markdown.contains("\n```") { fenced += 1 }
            if markdown.range(of: "[^`\\\\]`[^`]", options: .regularExpression) != nil { spans += 1 }
            if markdown.contains("\n## ") || markdown.hasPrefix("## ") { headings += 1 }
            var html = MarkdownRenderer().render(markdown).html
            html = html.replacingOccurrences(of: "<a [^>]*aria-hidden=\"true\">#</a>", with: "", options: .regularExpression)
            let text = String(renderedLines(html).joined().unicodeScalars.filter { !$0.properties.isWhitespace })
            let dump = String(lines.map { PlainTextMarkdown.listItemContent($0) ?? $0 }.joined()
                .unicodeScalars.filter { !$0.properties.isWhitespace })
            XCTAssertEqual(text, dump, "round \(round): \(lines.debugDescription)\n\(markdown)")
            if text != dump { return }
        }
        // The generated dumps exercise every rule, not only the escaping.
        XCTAssertGreaterThan(fenced, 10)
        XCTAssertGreaterThan(spans, 10)
        XCTAssertGreaterThan(headings, 3)
    }
}

/// A small deterministic generator, so a failure repeats.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
