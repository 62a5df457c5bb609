/// Inputs with the tokens the Swift tokenizer gives them, so the browser tests can check that
/// search.js tokenizes exactly like the index (`window.blogSearch.tokenize` / `queryTerms`).
public enum SearchTestVectors {
    /// The inputs: NFKC (full-width, half-width kana, compatibility ideographs, ligatures),
    /// bigrams, camelCase and snake_case identifiers, mixed scripts, Hangul, case mapping.
    public static let inputs: [String] = [
        "東京",
        "東京都庁の展望室",
        "猫",
        "SwiftUI 通知",
        "SwiftUIで通知を送る",
        "UITableViewDelegate",
        "tableView(_:didSelectRowAt:)",
        "snake_case_name __init__",
        "HTTPServerURL parseJSONData utf8String",
        "ＳｗｉｆｔＵＩ　ｶﾀｶﾅ ﾃﾞｰﾀ",
        "①番目の㍻とﬁle",
        "コンピューター・サイエンス",
        "한국어 검색",
        "ΟΔΟΣ İstanbul Straße",
        "Swift 5.9 で async/await を使う",
        "C++とC#とF#",
        "々 〆 ゝゞ",
        "emoji 🍣 寿司 🍺",
        "a_b_c_d_e_f_g_h_i_j",
        "x" + String(repeating: "y", count: 70) + " short",
        "<img src=x onerror=alert(1)>",
        "tag:Swift 並行処理",
        "URLSessionを使う",
        "SwiftUI2とSwiftUI3の通知",
        "NotificatonCenter Storybord iOS18",
        "",
    ]

    /// Typed query words and index terms: the corrections the page may offer and those it must not.
    public static let typoPairs: [(typed: String, term: String)] = [
        ("Notifcation", "notification"), ("Storybord", "storyboard"), ("NotificatonCenter", "notificationcenter"),
        ("URLSesion", "urlsession"), ("URLSesson", "urlsession"), ("Notfiication", "notification"),
        ("UITablViewDelegate", "uitableviewdelegate"), ("Notificetion", "notification"), ("Codabel", "codable"),
        ("NSTableView", "uitableview"), ("iOS18", "ios17"), ("SwiftUI4", "swiftui3"), ("Swiftt", "swift"),
        ("Swft", "swift"), ("Combine", "combined"), ("Notifcaton", "notification"), ("Notfcatn", "notification"),
        ("コンバイン", "コンバイン"), ("コンバイン", "コンバイ"), ("ストーリボード", "ストーリーボード"), ("Ωmega", "ωmegα"),
        ("Codabeel", "codable"), ("Storybrd", "storyboard"), ("UITablViewDelegat", "uitableviewdelegate"),
    ]

    /// Posting values (field mask, body + code count − 1 above), text lengths and idfs to score.
    static let scoreCases: [(value: Int, length: Double, idf: Double)] = [
        (1, 100, 2.5), (8, 100, 2.5), (8 | 40 << 5, 100, 2.5), (8 | 400 << 5, 50, 2.5), (9, 300, 1.25),
        (2, 120, 0.3), (4 | 16 | 3 << 5, 1000, 4), (16, 10, 1), (31 | 7 << 5, 120, 0.7), (0, 120, 3),
    ]

    /// `{"version":1,"vectors":[{"input":…,"tokens":[…],"query":[…],"tag":…},…],
    /// "typos":[{"typed":…,"word":…,"term":…,"edits":n|null,"recased":…},…],
    /// "scores":[{"value":…,"length":…,"idf":…,"score":…},…],"scoring":{weights,k1,b,avgText}}`
    public static func json() -> String {
        var w = IndexJSON()
        w.raw("{\"version\":")
        w.int(SearchTokenizer.version)
        w.raw(",\"vectors\":[")
        for (i, input) in inputs.enumerated() {
            if i > 0 { w.raw(",\n") }
            w.raw("{\"input\":")
            w.string(input)
            w.raw(",\"tokens\":")
            w.stringArray(SearchTokenizer.tokens(input))
            w.raw(",\"query\":")
            w.stringArray(SearchTokenizer.queryTerms(input))
            w.raw(",\"tag\":")
            w.string(SearchTokenizer.normalizeTag(input))
            w.raw("}")
        }
        w.raw("],\n\"typos\":[")
        for (i, pair) in typoPairs.enumerated() {
            if i > 0 { w.raw(",\n") }
            let term = SearchTokenizer.queryTerms(pair.typed).first ?? ""
            w.raw("{\"typed\":")
            w.string(pair.typed)
            w.raw(",\"word\":")
            w.string(term)
            w.raw(",\"term\":")
            w.string(pair.term)
            w.raw(",\"edits\":")
            w.bytes.append(contentsOf: (SearchTypo.edits(from: term, to: pair.term).map(String.init) ?? "null").utf8)
            w.raw(",\"recased\":")
            w.string(SearchTypo.recase(pair.typed, as: pair.term))
            w.raw("}")
        }
        w.raw("],\n\"scores\":[")
        let scoring = SearchScoring(avgText: 120)
        for (i, c) in scoreCases.enumerated() {
            if i > 0 { w.raw(",\n") }
            let score = scoring.termScore(value: c.value, textLength: c.length, idf: c.idf)
            w.bytes.append(contentsOf: "{\"value\":\(c.value),\"length\":\(c.length),\"idf\":\(c.idf),\"score\":\(score)".utf8)
            w.raw("}")
        }
        let weights = scoring.weights.map { String($0) }.joined(separator: ",")
        w.bytes.append(contentsOf: "],\"scoring\":{\"weights\":[\(weights)],\"k1\":\(scoring.k1),\"b\":\(scoring.b),\"avgText\":\(scoring.avgText)}}\n".utf8)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
