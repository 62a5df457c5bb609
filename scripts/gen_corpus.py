#!/usr/bin/env python3
"""Generates a Qiita-style archive for benchmarks and tests.

    scripts/gen_corpus.py OUT_DIR --posts 1000 [--seed 1] [--size 8000] [--math]

Each post is about --size bytes of Markdown: Japanese prose with inline code, headings,
fenced Swift code with file names, tables, lists, links; 1 to 5 tags from about 200 with a
skewed (Zipf-like) distribution; dates spread over ten years. Deterministic for a seed.
With --math, every prose paragraph also has an inline formula and about a third are followed by
a display formula (statistics, machine learning, matrices, cases): a math-heavy archive.
Writes OUT_DIR/blog.yml and OUT_DIR/content/posts/*.md (OUT_DIR must not exist or be empty).
"""
import argparse
import os
import random
import sys

BASE_TAGS = [
    "Swift", "iOS", "Xcode", "SwiftUI", "UIKit", "Firebase", "Kotlin", "Android", "Python", "JavaScript",
    "TypeScript", "React", "Vue.js", "Node.js", "Go", "Rust", "Ruby", "Rails", "Docker", "AWS",
    "Linux", "Git", "GitHub", "CI", "Flutter", "Dart", "CocoaPods", "Combine", "Realm", "CoreData",
    "テスト", "設計", "初心者", "日本語", "ポエム", "個人開発", "機械学習", "データベース", "セキュリティ", "ネットワーク",
]
WORDS_JA = [
    "今回は", "について", "解説します", "実装", "方法", "設定", "注意点", "まとめ", "ビルド", "画面",
    "非同期処理", "通知", "データ", "保存", "読み込み", "エラー", "対応", "確認", "サンプル", "コード",
    "プロジェクト", "ライブラリ", "使い方", "表示", "更新", "削除", "追加", "リスト", "ボタン", "テスト",
    "日付", "変換", "型", "プロトコル", "拡張", "クロージャ", "メモリ", "パフォーマンス", "改善", "計測",
]
IDENTS = ["UITableViewDelegate", "URLSession", "DispatchQueue", "JSONDecoder", "ISO8601DateFormatter",
          "NavigationStack", "ObservableObject", "UserDefaults", "NotificationCenter", "async let"]
INLINE_MATH = [r"\sigma(x) = \frac{1}{1 + e^{-x}}", r"O(n \log n)", r"\hat{\beta} = (X^\top X)^{-1} X^\top y",
               r"p(\theta \mid D) \propto p(D \mid \theta)\, p(\theta)", r"x \in \mathbb{R}^n", r"\sum_{i=1}^{n} x_i",
               r"\alpha_t = \alpha_0 / \sqrt{t}", r"\lVert w \rVert_2^2", r"\text{損失} \le \epsilon"]
DISPLAY_MATH = [
    r"\mathcal{L} = -\frac{1}{N}\sum_{i=1}^{N}\left[y_i \log \hat{y}_i + (1-y_i)\log(1-\hat{y}_i)\right]",
    r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V",
    r"A = \begin{pmatrix} a_{11} & a_{12} & \cdots & a_{1n} \\ \vdots & \vdots & \ddots & \vdots \\ a_{m1} & a_{m2} & \cdots & a_{mn} \end{pmatrix}",
    r"|x| = \begin{cases} x & (x \ge 0) \\ -x & (\text{それ以外}) \end{cases}",
    r"f(x) = \frac{1}{\sqrt{2\pi\sigma^2}} \exp\left(-\frac{(x-\mu)^2}{2\sigma^2}\right)",
    r"\begin{aligned} f(x) &= (x+1)^2 \\ &= x^2 + 2x + 1 \end{aligned}",
]


def tags_pool():
    pool = list(BASE_TAGS)
    i = 0
    while len(pool) < 200:
        pool.append(f"{BASE_TAGS[i % len(BASE_TAGS)]}{i // len(BASE_TAGS) + 2}")
        i += 1
    return pool


def sentence(rng):
    parts = [rng.choice(WORDS_JA) for _ in range(rng.randint(4, 10))]
    if rng.random() < 0.4:
        parts.insert(rng.randint(0, len(parts)), f"`{rng.choice(IDENTS)}`")
    if rng.random() < 0.15:
        parts.append(f"[参考リンク](https://example.com/{rng.randint(1, 9999)})")
    return "".join(parts) + "。"


def paragraph(rng):
    return "".join(sentence(rng) for _ in range(rng.randint(2, 5)))


def code_block(rng, n):
    name = rng.choice(["Sources/App/Model.swift", "ViewController.swift", "Package.swift", "main.swift"])
    lines = [f"```swift:{name}", "import Foundation", "",
             f"struct Item{n}: Codable {{", "    let id: Int", "    let title: String",
             "    var date: Date = Date()", "}", "",
             f"func load{n}() async throws -> [Item{n}] {{",
             "    let (data, _) = try await URLSession.shared.data(from: URL(string: \"https://example.com\")!)",
             f"    return try JSONDecoder().decode([Item{n}].self, from: data) // コメント", "}", "```"]
    return "\n".join(lines)


def table(rng):
    rows = ["| 項目 | 説明 | 値 |", "|:--|:--|--:|"]
    for i in range(rng.randint(2, 5)):
        rows.append(f"| {rng.choice(WORDS_JA)} | {rng.choice(WORDS_JA)}の{rng.choice(WORDS_JA)} | {rng.randint(1, 999)} |")
    return "\n".join(rows)


def post_body(rng, size, n, math=False):
    parts = ["## はじめに", paragraph(rng)]
    section = 1
    while sum(len(p.encode()) for p in parts) < size:
        kind = rng.random()
        if kind < 0.15:
            section += 1
            parts.append(f"## {rng.choice(WORDS_JA)}{rng.choice(WORDS_JA)} {section}")
        elif kind < 0.3:
            parts.append(code_block(rng, n))
        elif kind < 0.38:
            parts.append(table(rng))
        elif kind < 0.48:
            parts.append("\n".join(f"- {sentence(rng)}" for _ in range(rng.randint(2, 5))))
        elif kind < 0.52:
            parts.append(":::note info\n" + sentence(rng) + "\n:::")
        else:
            text = paragraph(rng)
            if math:
                text += f"ここで ${rng.choice(INLINE_MATH)}$ とする。"
            parts.append(text)
            if math and rng.random() < 0.35:
                parts.append("$$\n" + rng.choice(DISPLAY_MATH) + "\n$$")
    parts.append("## まとめ")
    parts.append(paragraph(rng))
    return "\n\n".join(parts) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=8000, help="approximate bytes of Markdown per post")
    parser.add_argument("--math", action="store_true", help="a math-heavy archive (inline and display formulas)")
    args = parser.parse_args()
    if os.path.exists(args.out) and os.listdir(args.out):
        sys.exit(f"gen_corpus: {args.out} exists and is not empty")
    rng = random.Random(args.seed)
    pool = tags_pool()
    weights = [1.0 / (i + 1) ** 1.1 for i in range(len(pool))]
    posts_dir = os.path.join(args.out, "content", "posts")
    os.makedirs(posts_dir, exist_ok=True)
    with open(os.path.join(args.out, "blog.yml"), "w", encoding="utf-8") as f:
        f.write("title: Generated archive\nbase_url: https://example.com/\nlanguage: ja\nauthor: bench\nposts_per_page: 10\n")
    start = 1_420_070_400  # 2015-01-01
    span = 10 * 365 * 86_400
    for n in range(args.posts):
        stamp = start + rng.randrange(span)
        days, rest = divmod(stamp, 86_400)
        import datetime
        when = datetime.datetime.fromtimestamp(stamp, datetime.timezone(datetime.timedelta(hours=9)))
        tags = []
        for _ in range(rng.randint(1, 5)):
            tag = rng.choices(pool, weights)[0]
            if tag not in tags:
                tags.append(tag)
        title = f"{rng.choice(WORDS_JA)}{rng.choice(WORDS_JA)}で{rng.choice(IDENTS)}を使う {n}"
        front = [
            "---",
            f"title: \"{title}\"",
            f"date: {when.isoformat()}",
            "tags: [" + ", ".join(f'"{t}"' for t in tags) + "]",
            f"id: gen{n:06d}",
            "---",
            "",
        ]
        with open(os.path.join(posts_dir, f"{when.date().isoformat()}-gen{n:06d}.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(front) + post_body(rng, args.size, n, args.math))


if __name__ == "__main__":
    main()
