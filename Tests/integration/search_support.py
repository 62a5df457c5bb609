"""Helpers for the search browser tests: the fixture posts, building a site with them, a loopback
HTTP server and a headless Chromium.

Two ways to get a site:
* `$BLOG build --source <fixture> --output <tmp>` (the real CLI, when BLOG is set and the build
  writes search/meta.json);
* standalone: the BlogSearch test bundle writes the index for the same posts
  (SearchFixtureExportTests with SEARCH_FIXTURE_OUT) and this module renders
  templates/search.mustache into a minimal page around it.
The tokenizer test vectors always come from the Swift side (search-vectors.json).
"""
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
THEME = REPO / "themes" / "default"


def _post(slug, title, date, tags, body, summary=None):
    return {"slug": slug, "title": title, "date": date, "tags": tags, "markdown": body, "summary": summary}


# The posts every search test runs against. Titles are what the tests look for.
POSTS = [
    _post("swiftui-notification", "SwiftUIでローカル通知を送る", "2023-05-01T10:00:00+09:00", ["Swift", "SwiftUI"],
          "SwiftUI のアプリからローカル通知を送る方法をまとめます。\n\n"
          "## 通知の許可\n\n最初に通知の許可をもらいます。\n\n"
          "```swift\nUNUserNotificationCenter.current().requestAuthorization(options: [.alert])\n```\n"),
    _post("python-notification", "Pythonでデスクトップ通知を出す", "2023-04-01T10:00:00+09:00", ["Python"],
          "Python のスクリプトからデスクトップに通知を出します。plyer を使います。\n"),
    _post("tokyo-observatory", "週末の散歩", "2022-08-10T09:00:00+09:00", ["旅行"],
          "先週、東京都庁の展望室に行きました。無料で、晴れた日には富士山が見えます。\n"),
    _post("kyoto-trip", "京都と東京の旅行記", "2022-09-10T09:00:00+09:00", ["旅行"],
          "東京駅から京都へ。京都の展示は良かった。都庁には寄らず、ホテルの展望室から夜景を見た。"
          "東京の展示も見た。\n"),
    _post("tableview-delegate", "UITableViewDelegateの使い方", "2021-02-06T12:00:00+09:00", ["iOS", "Swift"],
          "テーブルビューで行を選んだときの処理を書きます。\n\n"
          "```swift\nfunc tableView(_ tableView: UITableView, didSelectRowAt indexPath: IndexPath) {\n"
          "    print(indexPath.row)\n}\n```\n"),
    _post("fulltext-search", "全文検索の仕組み", "2024-01-15T08:00:00+09:00", ["検索", "日本語"],
          "日本語の文章には空白がないので、検索の索引は文字の bigram で作ります。\n"),
    _post("xss-title", "<img src=x onerror=alert(1)>", "2020-01-01T00:00:00+09:00", ["security"],
          "タイトルに HTML を含む記事です。onerror 属性はそのまま文字として表示されるべきです。\n"),
    _post("swift-concurrency", "Async/await in Swift concurrency", "2024-03-03T18:00:00+09:00", ["Swift", "Concurrency"],
          "Swift concurrency lets you write asynchronous code with async and await.\n\n"
          "## Tasks\n\nA Task runs concurrently.\n"),
]


# A small archive of a Japanese iOS developer, for typo tolerance, prefixes and title ranking.
# Nothing here is named NSTableView or iOS18: corrections to UITableView or iOS17 would be false hits.
IOS_POSTS = [
    _post("swiftui-local-notification", "SwiftUIでローカル通知を送る", "2024-02-01T10:00:00+09:00", ["Swift", "SwiftUI"],
          "SwiftUI のアプリからローカル通知を送ります。通知の許可は UNUserNotificationCenter で求めます。\n\n"
          "```swift\nUNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound])\n```\n"),
    _post("swiftui2-onreceive", "SwiftUI2のonReceiveで通知を受け取る", "2021-03-01T10:00:00+09:00", ["iOS14"],
          "SwiftUI2 では onReceive で NotificationCenter の通知を受け取れます。\n\n"
          "```swift\n.onReceive(NotificationCenter.default.publisher(for: UIApplication.didBecomeActiveNotification)) { _ in }\n```\n"),
    _post("swiftui3-task", "SwiftUI3のtaskモディファイアとプッシュ通知", "2021-10-01T10:00:00+09:00", ["iOS15"],
          "SwiftUI3 で追加された task モディファイアで、プッシュ通知の登録を非同期に書きます。\n"),
    _post("notificationcenter-observer", "NotificationCenterで画面間に変更を伝える", "2020-06-01T10:00:00+09:00", ["Swift", "iOS"],
          "NotificationCenter を使うと、離れた ViewController に変更を伝えられます。"
          "Notification.Name を拡張して名前を定義します。\n\n"
          "```swift\nNotificationCenter.default.addObserver(self, selector: #selector(reload), name: .didUpdate, object: nil)\n```\n"),
    _post("storyboard-less", "Storyboardを使わずに画面を作る", "2020-09-01T10:00:00+09:00", ["Swift", "iOS"],
          "Main.storyboard を削除して、SceneDelegate でコードから UIViewController を表示します。"
          "Storyboard の参照は Info.plist からも消します。\n"),
    _post("combine-api-client", "Combineを使うAPIクライアント", "2023-08-01T10:00:00+09:00", ["Swift", "URLSession"],
          "Combine の dataTaskPublisher で API クライアントを書きます。\n\n"
          "## URLSessionの設定\n\nURLSession の設定は URLSessionConfiguration で行い、URLSession を一つだけ作ります。"
          "URLSession のキャッシュも URLSession 側で無効にします。\n\n"
          "```swift\nlet session = URLSession(configuration: .ephemeral)\nURLSession.shared.dataTaskPublisher(for: url)\n```\n"),
    _post("urlsession-async", "URLSession入門: async/awaitを使うデータ取得", "2022-05-01T10:00:00+09:00", ["Swift"],
          "async/await で JSON を取得して Codable でデコードします。\n\n"
          "```swift\nlet (data, _) = try await URLSession.shared.data(from: url)\n```\n"),
    _post("uitableview-cell", "UITableViewのセルを自作する", "2019-11-01T10:00:00+09:00", ["iOS"],
          "UITableViewCell を継承して、xib からセルを読み込みます。UITableView の register を忘れずに。\n"),
    _post("ios17-api", "iOS17で追加されたAPIまとめ", "2023-09-20T10:00:00+09:00", ["iOS17"],
          "iOS17 で追加された Observation フレームワークや TipKit を紹介します。\n"),
]


def split_markdown(markdown):
    """Markdown → (headings, prose, code), good enough for the fixture posts."""
    headings, prose, code = [], [], []
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            code.append(line)
        elif line.startswith("#"):
            headings.append(line.lstrip("#").strip())
        else:
            prose.append(line)
    return headings, "\n".join(prose).strip(), "\n".join(code)


def search_documents(base_path="/", posts=None):
    """The posts as BlogSearch documents (for the standalone fixture)."""
    docs = []
    for post in posts or POSTS:
        headings, body, code = split_markdown(post["markdown"])
        docs.append({
            "id": post["slug"], "title": post["title"], "url": f"{base_path}posts/{post['slug']}/",
            "date": post["date"], "tags": post["tags"], "headings": headings, "body": body, "code": code,
            "summary": post["summary"] or body[:120],
        })
    return docs


def write_blog_source(root, posts=None):
    """A site source folder for `blog build` (blog.yml + content/posts/*.md)."""
    root = Path(root)
    (root / "content" / "posts").mkdir(parents=True, exist_ok=True)
    (root / "blog.yml").write_text(
        "title: Search Fixture\ndescription: Search tests\nbase_url: https://example.com/\n"
        "language: ja\nauthor: Tester\nposts_per_page: 5\n", encoding="utf-8")
    for post in posts or POSTS:
        front = ["---", "title: " + json.dumps(post["title"], ensure_ascii=False), "date: " + post["date"], "tags:"]
        front += ["  - " + json.dumps(tag, ensure_ascii=False) for tag in post["tags"]]
        front.append("---")
        name = post["date"][:10] + "-" + post["slug"] + ".md"
        (root / "content" / "posts" / name).write_text("\n".join(front) + "\n\n" + post["markdown"], encoding="utf-8")
    return root


def run_swift_export(out, docs=None, corpus=0, timeout=900):
    """Runs SearchFixtureExportTests: writes out/search/… and out/search-vectors.json."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, SEARCH_FIXTURE_OUT=str(out))
    if docs is not None:
        docs_file = out / "fixture-docs.json"
        docs_file.write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
        env["SEARCH_FIXTURE_DOCS"] = str(docs_file)
    if corpus:
        env["SEARCH_FIXTURE_CORPUS"] = str(corpus)
    swift = os.environ.get("SWIFT", "swift")
    base = [swift, "test", "--filter", "BlogSearchTests.SearchFixtureExportTests"]
    attempts = [base[:2] + ["--skip-build"] + base[2:], base] if (REPO / ".build").exists() else [base]
    last = None
    for command in attempts:
        last = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
        if last.returncode == 0 and (out / "search" / "meta.json").exists():
            return out
    raise RuntimeError("Swift fixture export failed:\n" + (last.stdout[-3000:] if last else "") + (last.stderr[-3000:] if last else ""))


LANG = {
    "search": "検索", "search_placeholder": "記事を検索", "js_required_search": "検索には JavaScript が必要です。",
    "tags": "タグ", "no_posts": "記事がありません", "posts": "件", "did_you_mean": "もしかして:",
}


def render_search_page(base_path="/"):
    """templates/search.mustache rendered with a tiny stand-in for BlogMustache and base.mustache."""
    template = (THEME / "templates" / "search.mustache").read_text(encoding="utf-8")

    def block(name):
        match = re.search(r"\{\{\$\s*" + name + r"\s*\}\}(.*?)\{\{/\s*" + name + r"\s*\}\}", template, re.S)
        return match.group(1) if match else ""

    def fill(text):
        text = re.sub(r"\{\{#asset\}\}(.*?)\{\{/asset\}\}", lambda m: base_path + "assets/" + m.group(1), text)
        text = text.replace("{{site.base_path}}", base_path)
        return re.sub(r"\{\{lang\.(\w+)\}\}", lambda m: LANG.get(m.group(1), m.group(1)), text)

    return (
        "<!DOCTYPE html>\n<html lang=\"ja\"><head><meta charset=\"utf-8\"><title>" + fill(block("title")) + "</title>"
        + fill(block("head_extra")) + "</head><body>"
        + "<header><form action=\"" + base_path + "search/\" method=\"get\" role=\"search\">"
        + "<input type=\"search\" name=\"q\" aria-label=\"search\"></form></header>"
        + "<main>" + fill(block("main")) + "</main>" + fill(block("scripts")) + "</body></html>\n"
    )


def build_standalone_site(root, corpus=0, posts=None):
    """Index from the Swift module + the theme's page, JS and CSS: a site folder served at /."""
    root = Path(root)
    run_swift_export(root, docs=search_documents("/", posts), corpus=corpus)
    (root / "search" / "index.html").write_text(render_search_page("/"), encoding="utf-8")
    for asset in ("js/search-tokenizer.js", "js/search-typo.js", "js/search.js", "css/search.css"):
        target = root / "assets" / asset
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(THEME / "assets" / asset, target)
    (root / "tags").mkdir(exist_ok=True)
    (root / "tags" / "index.html").write_text("<!DOCTYPE html><title>tags</title>", encoding="utf-8")
    for doc in search_documents("/", posts):
        page = root / doc["url"].strip("/") / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text("<!DOCTYPE html><title>post</title><h1 id=\"post\">post</h1>", encoding="utf-8")
    return root


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


class FixtureServer:
    """Serves a folder over loopback on an ephemeral port (test only)."""

    def __init__(self, directory):
        handler = functools.partial(_QuietHandler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self):
        return "http://127.0.0.1:%d/" % self.httpd.server_address[1]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def make_chromium():
    """A headless Chromium driven by the Debian chromedriver (never downloads a driver)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    binary = os.environ.get("CHROME_BIN") or shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver")
    if not binary or not driver_path:
        raise RuntimeError("chromium and chromedriver are required (apt-get install chromium chromium-driver)")
    options = Options()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--disable-extensions", "--window-size=1200,900", "--lang=ja"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_script_timeout(60)
    driver.set_page_load_timeout(60)
    return driver
