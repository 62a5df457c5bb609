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
        "",
    ]

    /// `{"version":1,"vectors":[{"input":…,"tokens":[…],"query":[…],"tag":…},…]}`
    public static func json() -> String {
        var w = JSONWriter()
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
        w.raw("]}\n")
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
