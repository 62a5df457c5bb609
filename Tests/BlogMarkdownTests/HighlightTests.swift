import XCTest
import BlogMarkdown

final class HighlightTests: XCTestCase {
    /// Removes `<span class="hl-…">` / `</span>` and unescapes the four entities we produce.
    static func strip(_ html: String) -> String {
        var out = ""
        var rest = Substring(html)
        while let lt = rest.firstIndex(of: "<") {
            out += rest[..<lt]
            guard let gt = rest[lt...].firstIndex(of: ">") else { out += rest[lt...]; rest = ""; break }
            let tag = rest[lt...gt]
            XCTAssertTrue(tag.hasPrefix("<span class=\"hl-") || tag == "</span>", "unexpected tag \(tag)")
            rest = rest[rest.index(after: gt)...]
        }
        out += rest
        return out.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }

    static let samples: [String: String] = [
        "swift": "import Foundation\n@MainActor\nfinal class A<T>: B {\n  /* nested /* comment */ */\n  let s = \"\"\"\n  multi \\(x) 日本語\n  \"\"\"\n  #if DEBUG\n  func f(_ x: Int) -> Bool { return x > 0x1F && $0 != nil }\n  #endif\n}\n",
        "objective-c": "#import <UIKit/UIKit.h>\n@interface A : NSObject\n@property (nonatomic) NSString *name;\n@end\nNSLog(@\"こんにちは %@\", self.name); // comment\n",
        "c": "#include <stdio.h>\n#define MAX(a, b) \\\n  ((a) > (b) ? (a) : (b))\nint main(void) { char c = '\\n'; printf(\"%d\\n\", 42); return 0; }\n",
        "kotlin": "data class User(val name: String = \"太郎\")\nfun main() { val x = listOf(1, 2).map { it * 2 } // c\n}\n",
        "java": "@Override\npublic static void main(String[] args) { System.out.println(\"hi\" + 1.5e-3); }\n",
        "javascript": "const f = async (a) => { return `template ${a} 文字` + 'q' /* c */; };\n// end\n",
        "typescript": "interface P { name: string; age?: number }\nexport const x: P = { name: \"a\", age: 3 };\n",
        "json": "{\n  \"key\": \"値\",\n  \"n\": -1.5e10,\n  \"ok\": true,\n  \"list\": [null, {\"a\": \"b\\\"c\"}]\n}\n",
        "yaml": "---\n# comment\nname: テスト\nlist:\n  - item: \"quoted\"\n    n: 42\nanchor: &a value\nref: *a\nflag: true\n",
        "ruby": "platform :ios, '13.0'\nuse_frameworks!\ntarget 'App' do\n  pod 'Alamofire', '~> 5.0' # http\nend\ndef x?(a) = @v + $g\n",
        "python": "@decorator\ndef f(x: int) -> None:\n    \"\"\"doc 日本語\"\"\"\n    return x ** 2  # comment\nprint(f'{x}')\n",
        "bash": "#!/bin/bash\nfor f in *.txt; do echo \"$f ${HOME}\" | grep -v --color foo # c\ndone\n",
        "console": "$ swift build -c release\nBuilding...\n% echo $PATH\n# apt-get install x\n",
        "dart": "import 'package:x/x.dart';\nvoid main() async { final s = '''multi\nline'''; print(\"$s\"); }\n",
        "php": "<?php\n$x = array(1, 2); // c\n# hash comment\necho \"値 $x\"; ?>\n",
        "html": "<!DOCTYPE html>\n<html lang=\"ja\"><!-- c --><body class=x>&amp;<br/>\n<script>const a = 1 < 2;</script><style>p { color: #fff; }</style></body></html>\n",
        "xml": "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict><key>名前</key><string>a &lt; b</string></dict></plist>\n",
        "css": "@media (max-width: 600px) {\n  .a > p:hover, #id { color: #ff0000 !important; margin: 0 auto; width: calc(100% - 2px); }\n}\n/* c */ a::before { content: \"→\"; }\n",
        "sql": "SELECT id, name FROM users WHERE age >= 20 AND name LIKE '%太%' -- comment\nORDER BY id DESC;\n",
        "go": "package main\nimport \"fmt\"\nfunc main() { s := `raw\nstring`; fmt.Println(s, 'x', 1.5) }\n",
        "diff": "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n context\n",
        "diff_swift": "-let a = 1 /* c\n+var a = \"二\"\n unchanged()\n@@ hunk @@\n",
    ]

    func testRoundTripEveryLanguage() {
        for (language, code) in Self.samples {
            XCTAssertNotNil(SyntaxHighlighter.canonicalLanguage(language), language)
            let html = SyntaxHighlighter.highlight(code, language: language)
            XCTAssertEqual(Self.strip(html), code, "round trip for \(language)")
            XCTAssertTrue(html.contains("<span class=\"hl-"), "\(language) produced no tokens")
        }
    }

    func testRoundTripOfOddInput() {
        let odd = ["\"unterminated", "/* open", "'", "`", "<", "<a b=", "@", "$", "#", "\\", "0x", "1e", "\u{FFFD}\u{1F600}日本語",
                   "''' x", "\"\"\"", "<!--", "--- ", "@@", "&amp", "${", ":", "- ", "a:b:c", ""]
        for language in Self.samples.keys {
            for code in odd {
                XCTAssertEqual(Self.strip(SyntaxHighlighter.highlight(code, language: language)), code, "\(language): \(code)")
            }
        }
    }

    /// The text between the tags must be exactly the escaped code: the generic lexer copies plain runs
    /// without escaping when no byte of them can need it, and a `"`, `&`, `<` or `>` let through
    /// that way would still round-trip through `strip` (`"` and `&`) but fail here.
    func testTextBetweenTagsIsTheEscapedCode() {
        func escaped(_ s: String) -> String {
            var out = ""
            for ch in s.unicodeScalars {
                switch ch {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                default: out.unicodeScalars.append(ch)
                }
            }
            return out
        }
        func textBetweenTags(_ html: String) -> String {
            var out = ""
            var rest = Substring(html)
            while !rest.isEmpty {
                if rest.hasPrefix("</span>") { rest = rest.dropFirst(7); continue }
                if rest.hasPrefix("<span class=\"hl-"), let end = rest.firstIndex(of: ">") { rest = rest[rest.index(after: end)...]; continue }
                out.append(rest.removeFirst())
            }
            return out
        }
        let pieces = ["a", "Foo", "let", "x1", "3rd", "42", ".5", " ", "  ", "\n", "\t", "\"", "'", "&", "<", ">", "&&", "<=", "->",
                      "&amp;", "//", "#", "@", "$", ":", "-", "*", "`", "(", ")", "{", "}", "[", "]", ";", ",", ".", "?", "!",
                      "日本語", "é", "\\", "/*", "*/", "<?php", "?>", "--", "%", "~", "^", "|", "="]
        var inputs = Array(Self.samples.values)
        var seed: UInt64 = 0x9E37_79B9
        for _ in 0..<300 {
            var code = ""
            for _ in 0..<40 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                code += pieces[Int(seed >> 33) % pieces.count]
            }
            inputs.append(code)
        }
        for language in Self.samples.keys {
            for code in inputs {
                let html = SyntaxHighlighter.highlight(code, language: language)
                XCTAssertEqual(textBetweenTags(html), escaped(code), "\(language): \(code.debugDescription)")
            }
        }
    }

    func testTokenClasses() {
        let swift = SyntaxHighlighter.highlight("let x = \"s\" // c\nfunc f() {}\n", language: "swift")
        XCTAssertTrue(swift.contains("<span class=\"hl-kw\">let</span>"))
        XCTAssertTrue(swift.contains("<span class=\"hl-str\">&quot;s&quot;</span>"))
        XCTAssertTrue(swift.contains("<span class=\"hl-com\">// c</span>"))
        XCTAssertTrue(swift.contains("<span class=\"hl-fn\">f</span>"))
        let console = SyntaxHighlighter.highlight("$ ls -la\noutput\n", language: "console")
        XCTAssertTrue(console.hasPrefix("<span class=\"hl-prompt\">$ </span>"))
        XCTAssertTrue(console.contains("<span class=\"hl-attr\">-la</span>"))
        XCTAssertTrue(console.contains("\noutput\n"))
        let diff = SyntaxHighlighter.highlight("+a\n-b\n@@ x @@\n", language: "diff")
        XCTAssertEqual(diff, "<span class=\"hl-add\">+a</span>\n<span class=\"hl-del\">-b</span>\n<span class=\"hl-hunk\">@@ x @@</span>\n")
        let json = SyntaxHighlighter.highlight("{\"k\": 1}", language: "json")
        XCTAssertTrue(json.contains("<span class=\"hl-attr\">&quot;k&quot;</span>"))
        let yaml = SyntaxHighlighter.highlight("key: value # c\n", language: "yml")
        XCTAssertTrue(yaml.hasPrefix("<span class=\"hl-attr\">key</span>"))
        XCTAssertTrue(yaml.contains("<span class=\"hl-com\"># c</span>"))
        let html = SyntaxHighlighter.highlight("<a href=\"x\">", language: "html")
        XCTAssertTrue(html.contains("<span class=\"hl-tag\">&lt;a</span>"))
        XCTAssertTrue(html.contains("<span class=\"hl-attr\">href</span>"))
        let sql = SyntaxHighlighter.highlight("select 1", language: "sql")
        XCTAssertTrue(sql.contains("<span class=\"hl-kw\">select</span>"))
    }

    func testAliasesAndUnknownLanguage() {
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("zsh"), "bash")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("objc"), "objective-c")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("sh"), "bash")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("shell"), "bash")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("js"), "javascript")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("ts"), "typescript")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("yml"), "yaml")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("py"), "python")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("rb"), "ruby")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("kt"), "kotlin")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("Swift"), "swift")
        XCTAssertEqual(SyntaxHighlighter.canonicalLanguage("diff_swift"), "diff_swift")
        XCTAssertNil(SyntaxHighlighter.canonicalLanguage("brainfuck"))
        XCTAssertEqual(SyntaxHighlighter.language(forFileName: "Podfile"), "ruby")
        XCTAssertEqual(SyntaxHighlighter.language(forFileName: "src/main.swift"), "swift")
        XCTAssertEqual(SyntaxHighlighter.highlight("<b> & x", language: "brainfuck"), "&lt;b&gt; &amp; x")
    }
}
