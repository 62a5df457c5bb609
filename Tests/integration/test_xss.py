"""Stored XSS: every vector of Tests/BlogMarkdownTests/Fixtures/xss-vectors.json, built into a site
(one post each, in the default mode and under `markdown.unsafe`), opened in headless Chromium with
every link clicked and every form submitted: no script may run, and no script URL may reach a page
or feed.xml as an HTML parser reads them (Python's html.parser decodes references as browsers do).

Under `markdown.unsafe`, only the vectors that need no markup of their own (script URLs) are built:
the author's `<script>` and `onclick` are trusted there by design.
"""
import html
import html.entities
import html.parser
import json
import os
import pathlib
import time
from xml.etree import ElementTree

import pytest

import search_support as support
from conftest import REPO, run_blog

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
PER_POST = int(os.environ.get("XSS_PER_POST", "8"))  # vectors per page: fewer page loads
VECTORS = json.loads((REPO / "Tests/BlogMarkdownTests/Fixtures/xss-vectors.json").read_text(encoding="utf-8"))

# Every named reference that stands for a character a scheme is spelled with (or that the URL
# parser drops), straight from Python's copy of the HTML standard's table: none may smuggle one.
SCHEME_CHARACTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.:\t\n\r")
NAMED = sorted(name for name, text in html.entities.html5.items()
               if name.endswith(";") and text and all(c in SCHEME_CHARACTERS for c in text))

# Alert and friends report to the top page, from frames too.
HOOK = """
(function () {
  function hit() { try { (window.top || window).postMessage('__xss__', '*'); } catch (e) {} }
  window.alert = window.confirm = window.prompt = window.print = hit;
  window.__xssCount = 0;
  window.addEventListener('message', function (e) { if (e.data === '__xss__') window.__xssCount += 1; });
})();
"""


def _unavailable(reason):
    if CI:
        pytest.fail(reason)
    pytest.skip(reason)


def _vectors(mode):
    chosen = [v for v in VECTORS if mode == "default" or v["url_only"]]
    if mode == "unsafe":
        # a named reference for every scheme character, in the scheme
        for name in NAMED:
            text = html.entities.html5[name]
            if ":" in text:
                chosen.append({"name": "named " + name, "markdown": '<a href="javascript&%salert(1)">link</a>' % name})
            elif text in "\t\n\r":
                chosen.append({"name": "named " + name, "markdown": '<a href="java&%sscript:alert(1)">link</a>' % name})
    return chosen


def _build(root, mode):
    source = root / mode
    posts = source / "content" / "posts"
    posts.mkdir(parents=True)
    config = "title: XSS\nbase_url: https://example.com/\nlanguage: en\ntimezone: UTC\nfeed_limit: 1000\n"
    if mode == "unsafe":
        config += "markdown:\n  unsafe: true\n"
    (source / "blog.yml").write_text(config, encoding="utf-8")
    names = []
    vectors = _vectors(mode)
    for index in range(0, len(vectors), PER_POST):
        group = vectors[index:index + PER_POST]
        slug = "v%03d" % index
        names.append((slug, ", ".join(v["name"] for v in group)))
        # each vector in its own block, closed off from the next by a blank line and a rule
        body = "\n\n---\n\n".join(v["markdown"] for v in group)
        (posts / (slug + ".md")).write_text(
            "---\ntitle: \"vector %d\"\ndate: 2020-01-01T00:%02d:00+00:00\nslug: %s\n---\n\n%s\n" % (index, index % 60, slug, body),
            encoding="utf-8")
    output = root / (mode + "-public")
    run_blog("build", "--source", source, "--output", output, "--quiet")
    return output, names


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    root = tmp_path_factory.mktemp("xss")
    return {mode: _build(root, mode) for mode in ("default", "unsafe")}


@pytest.fixture(scope="module")
def browser():
    try:
        driver = support.make_chromium()
    except Exception as error:  # noqa: BLE001 - any start-up failure means "no browser"
        _unavailable("headless Chromium is not available: %s" % error)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
    driver.set_page_load_timeout(10)
    yield driver
    driver.quit()


def script_url(value):
    """The scheme that would run script, as the URL parser reads the (already decoded) value."""
    value = value.strip("".join(chr(c) for c in range(0x21)))
    value = "".join(c for c in value if c not in "\t\n\r")
    scheme = value.split(":", 1)[0].lower() if ":" in value else ""
    if not scheme[:1].isalpha() or not all(c.isalnum() or c in "+-." for c in scheme):
        return None
    if scheme in ("javascript", "vbscript", "livescript"):
        return value
    if scheme == "data" and not any(value.lower().startswith("data:image/" + t) for t in ("png", "gif", "jpeg", "webp")):
        return value
    return None


class _Attributes(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None or name.startswith("on") or name in ("title", "alt", "class", "id"):
                continue
            if tag == "meta" and name == "content" and ("http-equiv", "refresh") not in [(k, (v or "").lower()) for k, v in attrs]:
                continue  # a description: text, not a URL
            parts = [value] + [p.strip().split(" ")[0] for p in value.replace(";", ",").split(",")]
            for part in parts:
                if script_url(part):
                    self.found.append("<%s %s=%r>" % (tag, name, value))


def attribute_script_urls(text):
    parser = _Attributes()
    parser.feed(text)
    parser.close()
    return parser.found


def test_no_script_url_in_pages_or_feed(sites):
    for mode, (output, names) in sites.items():
        for slug, name in names:
            page = (output / "posts" / slug / "index.html").read_text(encoding="utf-8")
            assert attribute_script_urls(page) == [], "%s, %s" % (mode, name)
        # the feed carries each post's HTML as the text of <content>: read by an XML parser, then as HTML
        entries = ElementTree.parse(output / "feed.xml").getroot().findall("{http://www.w3.org/2005/Atom}entry")
        assert len(entries) == len(names), mode
        for entry in entries:
            content = entry.find("{http://www.w3.org/2005/Atom}content").text or ""
            assert attribute_script_urls(content) == [], "%s, feed: %s" % (mode, entry.find("{http://www.w3.org/2005/Atom}title").text)


CLICKABLE = """
var root = document.querySelector('.post-content');
if (!root) return [];
var all = root.querySelectorAll('a, area, button, input, form, [href], maction, math, svg a, svg text, svg rect');
return Array.prototype.slice.call(all);
"""

# Whether following the element can only load an ordinary page: every URL it would follow, as the
# browser's own URL parser reads it, is http(s), file or mailto (a form without an action submits
# to this page). Those are not clicked, since the navigation proves nothing and costs a reload.
ORDINARY = """
var el = arguments[0], urls = [];
['href', 'formaction', 'action'].forEach(function (n) { if (el.hasAttribute(n)) urls.push(el.getAttribute(n)); });
var xlink = el.getAttributeNS('http://www.w3.org/1999/xlink', 'href'); if (xlink !== null) urls.push(xlink);
var form = el.form || (el.tagName.toLowerCase() === 'form' ? el : null);
var submits = form && (el === form || el.type === 'submit' || el.type === 'image' || el.tagName.toLowerCase() === 'button');
if (submits && form.hasAttribute('action') && !el.hasAttribute('formaction')) urls.push(form.getAttribute('action'));
if (urls.length === 0) return !!submits;
return urls.every(function (u) {
  try { return ['http:', 'https:', 'file:', 'mailto:'].indexOf(new URL(u, document.baseURI).protocol) >= 0; }
  catch (e) { return true; }  // not a URL at all: nothing to follow
});
"""

ACTIVATE = """
var el = arguments[0];
if (el.tagName.toLowerCase() === 'form') { if (el.requestSubmit) { el.requestSubmit(); } else { el.submit(); } return; }
if (typeof el.click === 'function') { el.click(); return; }
el.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, view: window}));
"""


def _ran(browser):
    """Script ran: the hook's count on this page, or a dialog the hook did not catch."""
    try:
        return browser.execute_script("return window.__xssCount || 0") or 0
    except Exception:  # noqa: BLE001 - a dialog is open
        try:
            browser.switch_to.alert.accept()
        except Exception:  # noqa: BLE001
            pass
        return 1


def _open(browser, url):
    browser.get(url)
    time.sleep(0.05)  # frames, and SVG animations that set an href at 0 s
    browser.execute_script("window.__page = 1")


def test_clicking_every_link_runs_no_script(sites, browser):
    ran = []
    clicks = ordinary = 0
    started = time.monotonic()
    for mode, (output, names) in sites.items():
        for slug, name in names:
            url = (output / "posts" / slug / "index.html").as_uri()
            _open(browser, url)
            if _ran(browser):
                ran.append("%s, %s: on load" % (mode, name))
            count = len(browser.execute_script(CLICKABLE))
            for index in range(count):
                if not browser.execute_script("return window.__page === 1"):
                    _open(browser, url)
                elements = browser.execute_script(CLICKABLE)
                if index >= len(elements):
                    break
                try:
                    if browser.execute_script(ORDINARY, elements[index]):
                        ordinary += 1
                        continue
                    browser.execute_script(ACTIVATE, elements[index])
                except Exception:  # noqa: BLE001 - an alert interrupted the call, or the page went away
                    pass
                clicks += 1
                time.sleep(0.02)
                if _ran(browser):
                    ran.append("%s, %s: element %d" % (mode, name, index))
    print("xss: %d pages, %d clicked, %d only to ordinary URLs, %d ran script, %.1f s" % (
        sum(len(n) for _, n in sites.values()), clicks, ordinary, len(ran), time.monotonic() - started))
    for mode in sites:
        hits = [r for r in ran if r.startswith(mode + ",")]
        print("xss: %s: %d clicks or loads on %d pages ran script" % (mode, len(hits), len(set(r.rsplit(":", 1)[0] for r in hits))))
    assert ran == []
