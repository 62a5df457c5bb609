/// Interface text of the default theme, by site language (`lang.*` in templates).
enum UIStrings {
    static func table(for language: String) -> [String: String] {
        language.hasPrefix("ja") ? japanese : english
    }

    static let japanese: [String: String] = [
        "tags": "タグ", "archive": "アーカイブ", "search": "検索", "search_placeholder": "記事を検索",
        "did_you_mean": "もしかして:",
        "newer": "新しい記事", "older": "古い記事", "previous_post": "前の記事", "next_post": "次の記事",
        "related": "関連記事", "toc": "目次", "published": "投稿日", "updated": "更新日",
        "reading_time": "読了時間", "minutes_suffix": "分で読めます", "posts": "記事", "posts_suffix": "件",
        "no_posts": "まだ記事がありません。", "not_found": "ページが見つかりません",
        "not_found_text": "お探しのページは移動または削除された可能性があります。", "home": "ホーム",
        "sort_by_count": "記事数順", "sort_by_name": "名前順",
        "js_required_search": "検索には JavaScript が必要です。タグ一覧から記事を探せます。",
        "page": "ページ", "all_posts": "すべての記事", "feed": "フィード", "skip_to_content": "本文へスキップ",
        "no_results": "一致する記事はありませんでした。", "draft": "下書き", "view_on_qiita": "Qiitaで見る",
        "likes": "いいね", "theme_dark": "ダークモード", "copy": "コピー", "copied": "コピーしました",
    ]

    static let english: [String: String] = [
        "tags": "Tags", "archive": "Archive", "search": "Search", "search_placeholder": "Search posts",
        "did_you_mean": "Did you mean:",
        "newer": "Newer posts", "older": "Older posts", "previous_post": "Previous post", "next_post": "Next post",
        "related": "Related posts", "toc": "Contents", "published": "Published", "updated": "Updated",
        "reading_time": "Reading time", "minutes_suffix": " min read", "posts": "posts", "posts_suffix": " posts",
        "no_posts": "No posts yet.", "not_found": "Page not found",
        "not_found_text": "The page you are looking for may have moved or been removed.", "home": "Home",
        "sort_by_count": "By count", "sort_by_name": "By name",
        "js_required_search": "Search needs JavaScript. You can browse posts by tag instead.",
        "page": "Page", "all_posts": "All posts", "feed": "Feed", "skip_to_content": "Skip to content",
        "no_results": "No posts matched.", "draft": "Draft", "view_on_qiita": "View on Qiita",
        "likes": "Likes", "theme_dark": "Dark mode", "copy": "Copy", "copied": "Copied",
    ]

    /// "2020年" / "2020年2月" or "2020" / "February 2020".
    static func periodLabel(year: Int, month: Int, language: String) -> String {
        if language.hasPrefix("ja") || language.hasPrefix("zh") {
            return month == 0 ? "\(year)年" : "\(year)年\(month)月"
        }
        let names = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        return month == 0 ? "\(year)" : "\(names[month - 1]) \(year)"
    }
}
