import BlogSearch
import TestSupport
import Foundation

extension SplitMix64 {
    /// Zipf-like pick: rank r with probability roughly proportional to 1/(r+1).
    mutating func zipf(_ n: Int) -> Int {
        // Inverse of the harmonic CDF approximated by exp(u * ln(n+1)) - 1.
        let u = Double(next() >> 11) / Double(1 << 53)
        let r = Int((exp(u * log(Double(n) + 1)) - 1).rounded(.down))
        return min(n - 1, max(0, r))
    }
}

/// A generated archive of Qiita-like posts: Japanese prose with English words, identifiers
/// and code, about `targetBytes` of UTF-8 per post.
struct SearchCorpus {
    static let kanji = Array("日本語検索通知設定開発環境構築実装方法問題解決変数関数型配列文字列処理非同期並行画面表示入力出力確認追加削除更新作成取得送信受信接続管理機能性能改善最適化手順記事説明理由結果原因対応修正導入利用使用場合今回前回以下以上注意必要可能簡単基本応用例外条件分岐反復構造設計試験動作起動終了保存読込書込端末操作記録情報共有参照値戻引数定義宣言型推論安全並列計算資源時間空間速度容量").map(String.init)
    static let kana = Array("アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワンガギグゲゴザジズゼゾダデドバビブベボパピプペポー").map(String.init)
    static let particles = ["の", "を", "に", "は", "が", "で", "と", "も", "から", "まで", "より", "へ"]
    static let endings = ["です。", "ます。", "しました。", "できます。", "します。", "でした。", "ません。", "になります。", "と思います。"]
    static let english = ["swift", "server", "client", "request", "response", "async", "await", "actor", "task", "thread", "memory", "cache", "index", "search", "query", "token", "string", "array", "dictionary", "closure", "protocol", "struct", "class", "enum", "error", "result", "value", "type", "generic", "module", "package", "build", "test", "debug", "release", "deploy", "docker", "linux", "kernel", "network", "socket", "http", "json", "yaml", "markdown", "render", "view", "layout", "state", "binding", "notification", "delegate", "controller", "model", "data", "database", "table", "column", "migration", "schema", "performance", "latency", "benchmark", "profile", "compile", "linker", "library", "framework", "interface", "function", "method", "property", "observer", "stream", "buffer", "encode", "decode", "parser", "lexer", "syntax", "semantic", "runtime", "platform", "device", "simulator", "keyboard", "gesture", "animation", "image", "camera", "location", "storage", "security", "password", "session", "cookie", "router", "handler", "middleware", "logger", "config", "option", "command", "terminal", "script", "pipeline", "workflow"]
    static let tags = ["Swift", "SwiftUI", "iOS", "Xcode", "Linux", "Docker", "Python", "Rust", "Go", "TypeScript", "JavaScript", "React", "Vue", "AWS", "GCP", "Kubernetes", "Git", "GitHub", "初心者", "設計", "テスト", "パフォーマンス", "非同期処理", "データベース", "機械学習", "セキュリティ", "ネットワーク", "Vim", "Emacs", "macOS", "Android", "Kotlin", "Java", "C++", "CI/CD", "Terraform", "Nginx", "PostgreSQL", "MySQL", "Redis"]

    /// Japanese "words": kanji compounds and katakana loanwords, Zipf-distributed by rank.
    let japaneseWords: [String]
    let identifiers: [String]

    init() {
        var rng = SplitMix64(seed: 42)
        var words: [String] = []
        var seen = Set<String>()
        while words.count < 3000 {
            let w: String
            if rng.below(4) == 0 {
                let n = 3 + rng.below(4)
                w = (0..<n).map { _ in SearchCorpus.kana[rng.below(SearchCorpus.kana.count)] }.joined()
            } else {
                let n = 2 + rng.below(2)
                w = (0..<n).map { _ in SearchCorpus.kanji[rng.zipf(SearchCorpus.kanji.count)] }.joined()
            }
            if seen.insert(w).inserted { words.append(w) }
        }
        japaneseWords = words
        var ids: [String] = []
        for i in 0..<600 {
            let n = 2 + (i % 3)
            var parts: [String] = []
            for j in 0..<n {
                let word = SearchCorpus.english[rng.zipf(SearchCorpus.english.count)]
                parts.append(j == 0 && i % 2 == 0 ? word : word.prefix(1).uppercased() + word.dropFirst())
            }
            ids.append(parts.joined())
        }
        identifiers = ids
    }

    func document(_ n: Int, targetBytes: Int = 8000) -> SearchDocument {
        var rng = SplitMix64(seed: UInt64(n) &* 7919 &+ 1)
        func jp() -> String { japaneseWords[rng.zipf(japaneseWords.count)] }
        func en() -> String { SearchCorpus.english[rng.zipf(SearchCorpus.english.count)] }
        func sentence() -> String {
            var s = ""
            let words = 3 + rng.below(6)
            for _ in 0..<words {
                switch rng.below(6) {
                case 0: s += en()
                case 1: s += identifiers[rng.zipf(identifiers.count)]
                default: s += jp()
                }
                s += SearchCorpus.particles[rng.below(SearchCorpus.particles.count)]
            }
            return s + jp() + SearchCorpus.endings[rng.below(SearchCorpus.endings.count)]
        }
        let title = "\(en().capitalized)で\(jp())\(SearchCorpus.particles[rng.below(4)])\(jp())する方法 #\(n)"
        var tags: [String] = []
        for _ in 0..<(1 + rng.below(4)) {
            let t = SearchCorpus.tags[rng.zipf(SearchCorpus.tags.count)]
            if !tags.contains(t) { tags.append(t) }
        }
        var headings: [String] = []
        var body = ""
        var code = ""
        while body.utf8.count + code.utf8.count < targetBytes {
            if rng.below(5) == 0 { headings.append("\(jp())\(SearchCorpus.particles[rng.below(4)])\(jp())") }
            if rng.below(6) == 0 {
                let id = identifiers[rng.zipf(identifiers.count)]
                code += "let \(en()) = \(id)(\(en()): \"\(jp())\")\nawait \(en()).\(identifiers[rng.zipf(identifiers.count)])()\n"
            }
            var paragraph = ""
            for _ in 0..<(2 + rng.below(4)) { paragraph += sentence() }
            body += paragraph + "\n\n"
        }
        let summary = String(body.prefix(120))
        let month = 1 + (n % 12), day = 1 + (n % 28), year = 2015 + (n % 9)
        let date = String(format: "%04d-%02d-%02d", year, month, day)
        return SearchDocument(id: "post-\(n)", title: title, url: "/posts/post-\(n)/", date: date,
                              tags: tags, headings: headings, body: body, code: code, summary: summary)
    }
}
