"""`blog import qiita` against a local stand-in for Qiita's API (issue: own your archive in one command)."""
import hashlib
import json
import os
import pathlib
import re
import signal
import subprocess
import time

import pytest

import qiita_server
from conftest import blog_binary, build_site, run_blog
from qiita_server import JPEG, PNG, TOKEN, item_id


@pytest.fixture
def qiita():
    base, state, server = qiita_server.start()
    yield base, state
    server.shutdown()
    server.server_close()


@pytest.fixture
def site(tmp_path, qiita):
    base, _ = qiita
    root = tmp_path / "site"
    run_blog("init", root)
    for welcome in (root / "content" / "posts").glob("*.md"):
        welcome.unlink()
    config = root / "blog.yml"
    port = base.rsplit(":", 1)[1]
    config.write_text(config.read_text() + f"import:\n  image_hosts: [\"127.0.0.1:{port}\"]\n")
    return root


def blog(*args, cwd, token=None):
    env = {k: v for k, v in os.environ.items() if k != "QIITA_TOKEN"}
    if token is not None:
        env["QIITA_TOKEN"] = token
    return subprocess.run([blog_binary(), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def snapshot(root):
    """Every file under root with its content hash and modification time."""
    result = {}
    for path in sorted(pathlib.Path(root).rglob("*")):
        if path.is_file():
            result[str(path.relative_to(root))] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    return result


def front_matter(text):
    head = text.split("---\n")[1]
    return dict(line.split(": ", 1) for line in head.strip().splitlines())


def post(site, n):
    matches = list((site / "content" / "posts").glob(f"*-{item_id(n)}.md"))
    assert len(matches) == 1, matches
    return matches[0].read_text()


def test_user_import_end_to_end_then_second_run_writes_nothing(site, qiita):
    base, state = qiita
    # Rate limits a second from their reset on pages 1 (a 403, as Qiita answers) and 2 (a 429), a 500
    # on page 3: all are waited out.
    state.faults = {"403rate:1": 1, "429:2": 1, "500:3": 1, "slow-images": None}
    started = time.monotonic()
    result = blog("import", "qiita", "--user", "alice", "--api-base", f"{base}/api/v2", "--max-image-size", "1", cwd=site)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert "5 created, 0 unchanged, 0 skipped, 0 failed" in result.stdout
    assert "images: 3 downloaded, 0 already present, 3 kept remote" in result.stdout
    assert len(re.findall(r"rate limit reached: waiting [12] s", result.stderr)) == 2, result.stderr
    assert "HTTP 500; trying again in 0.5 s" in result.stderr
    assert "fetched 2 of 5 items" in result.stderr and "fetched 5 of 5 items" in result.stderr
    assert elapsed < 20

    # Pages were fetched once each after their fault, in order; no token was sent anywhere.
    api = [path for path, _ in state.requests if path.startswith("/api/")]
    assert api == ["/api/v2/users/alice/items"] * 6
    assert all(auth is None for _, auth in state.requests)

    # The same conversion as qiita-api: front matter fields.
    meta = front_matter(post(site, 1))
    assert meta["title"] == '"記事 1: Swift tips"'
    assert meta["date"] == "2021-01-10T09:15:00+09:00"
    assert meta["updated"] == "2021-01-11T10:00:00+09:00"
    assert meta["tags"] == '["Swift", "iOS"]'
    assert meta["draft"] == "false"
    assert meta["qiita_url"] == f'"https://qiita.com/alice/items/{item_id(1)}"'
    assert meta["likes_count"] == "3"

    # Images: downloaded to static/images/qiita/<id>/<name>, both syntaxes rewritten, the rest kept.
    one = post(site, 1)
    images = site / "static" / "images" / "qiita"
    assert f"![a cat](/images/qiita/{item_id(1)}/cat.png)" in one
    assert f'<img src="/images/qiita/{item_id(1)}/dog.jpg" width="300">' in one
    assert f"[![linked](/images/qiita/{item_id(1)}/cat.png)](/images/qiita/{item_id(1)}/cat.png)" in one
    assert "![elsewhere](https://example.com/remote.png)" in one
    assert f"```markdown\n![in code]({base}/img/cat.png)\n```" in one
    assert (images / item_id(1) / "cat.png").read_bytes() == PNG
    assert (images / item_id(1) / "dog.jpg").read_bytes() == JPEG
    five = post(site, 5)
    assert f"![noext](/images/qiita/{item_id(5)}/noext.png)" in five and f"![again](/images/qiita/{item_id(5)}/noext.png)" in five
    assert (images / item_id(5) / "noext.png").read_bytes() == PNG
    assert sorted(p.name for p in images.rglob("*") if p.is_file()) == ["cat.png", "dog.jpg", "noext.png"]
    assert not [p for p in (site / "static").iterdir() if p.name.startswith(".")], "the staging folder is gone"
    assert 2 <= state.most_images_in_flight <= 4, "a few downloads at a time"

    # Failures keep their URL, with a warning naming the article and the URL.
    for n, name, reason in [(2, "missing.png", "HTTP 404"), (3, "page.png", "not an image (Content-Type: text/html)"),
                            (4, "big.png", "larger than the limit of 1 MB")]:
        url = f"{base}/img/{name}"
        assert url in post(site, n)
        assert f'warning: article "記事 {n}: Swift tips": image {url} not downloaded: {reason}; the article keeps its URL' in result.stderr
    assert f'![big]({base}/img/big.png "a title")' in post(site, 4)

    # The site builds, and its pages point at the copies it publishes.
    public = build_site(site, site.parent / "public")
    page = next(public.glob(f"posts/{item_id(1)}/index.html")).read_text()
    assert f'src="/images/qiita/{item_id(1)}/cat.png"' in page
    assert (public / "images" / "qiita" / item_id(1) / "cat.png").read_bytes() == PNG

    # A second run writes nothing and downloads only what failed before.
    before = snapshot(site)
    state.requests.clear()
    again = blog("import", "qiita", "--user", "alice", "--api-base", f"{base}/api/v2", "--max-image-size", "1", cwd=site)
    assert again.returncode == 0, again.stderr
    assert "0 created, 5 unchanged, 0 skipped, 0 failed" in again.stdout
    assert "images: 0 downloaded, 3 already present, 3 kept remote" in again.stdout
    assert snapshot(site) == before
    fetched_images = sorted(path for path, _ in state.requests if path.startswith("/img/"))
    assert fetched_images == ["/img/big.png", "/img/missing.png", "/img/page.png"]


def test_mine_with_token_imports_private_items_as_drafts_and_never_shows_the_token(site, qiita, tmp_path):
    base, state = qiita
    result = blog("import", "qiita", "--mine", "--api-base", f"{base}/api/v2", "--no-images", cwd=site, token=TOKEN)
    assert result.returncode == 0, result.stderr
    assert "6 created" in result.stdout
    private = front_matter(post(site, 99))
    assert private["draft"] == "true" and private["title"] == '"下書きのメモ"'
    assert front_matter(post(site, 1))["draft"] == "false"
    assert {auth for path, auth in state.requests} == {f"Bearer {TOKEN}"}
    assert not list(site.rglob("images")), "--no-images leaves images remote"

    # --token-file works the same; a wrong token stops with a message naming the scope.
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    again = blog("import", "qiita", "--mine", "--api-base", f"{base}/api/v2", "--no-images", "--token-file", token_file, cwd=site)
    assert again.returncode == 0 and "0 created, 6 unchanged" in again.stdout, again.stderr
    wrong = blog("import", "qiita", "--mine", "--api-base", f"{base}/api/v2", cwd=site, token=TOKEN + "x")
    assert wrong.returncode == 1
    assert "HTTP 401 Unauthorized: the access token was refused" in wrong.stderr and "read_qiita" in wrong.stderr

    for output in (result, again, wrong):
        assert TOKEN not in output.stdout + output.stderr
    for path in site.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    # The token is refused on the command line (there is no option for it) without being echoed.
    refused = blog("import", "qiita", "--mine", f"--token={TOKEN}", cwd=site)
    assert refused.returncode == 64 and TOKEN not in refused.stderr


def test_failure_part_way_writes_nothing(site, qiita):
    base, state = qiita
    before = snapshot(site)
    state.faults = {"401:3": None}
    result = blog("import", "qiita", "--user", "alice", "--api-base", f"{base}/api/v2", cwd=site)
    assert result.returncode == 1
    assert f"{base}/api/v2/users/alice/items?page=3&per_page=100: error: HTTP 401 Unauthorized: this server needs an access token" in result.stderr
    assert "nothing was written" in result.stderr
    assert snapshot(site) == before
    assert not [path for path, _ in state.requests if path.startswith("/img/")], "no image is fetched before the items are"

    # A 500 that does not go away is tried three times, then stops the same way.
    state.faults = {"500:2": None}
    state.requests.clear()
    failed = blog("import", "qiita", "--user", "alice", "--api-base", f"{base}/api/v2", cwd=site)
    assert failed.returncode == 1 and "error: HTTP 500" in failed.stderr
    assert [path for path, _ in state.requests].count("/api/v2/users/alice/items") == 4
    assert snapshot(site) == before


def test_interrupt_while_images_download_writes_nothing(site, qiita):
    base, state = qiita
    before = snapshot(site)
    state.faults = {"slow-image": 1}
    env = {k: v for k, v in os.environ.items() if k != "QIITA_TOKEN"}
    process = subprocess.Popen([blog_binary(), "import", "qiita", "--user", "alice", "--api-base", f"{base}/api/v2"],
                               cwd=site, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not any(p.name.startswith(".blog-import-") for p in (site / "static").iterdir()):
        assert time.monotonic() < deadline and process.poll() is None, "images never started downloading"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=20) == 130
    assert snapshot(site) == before


def test_long_rate_limit_wait_stops_with_no_wait(site, qiita):
    base, state = qiita
    before = snapshot(site)
    state.faults = {"429long:2": None}
    started = time.monotonic()
    result = blog("import", "qiita", "--user", "alice", "--api-base", f"{base}/api/v2", "--no-wait", cwd=site)
    assert result.returncode == 1
    assert time.monotonic() - started < 10
    assert re.search(r"rate limit is used up; it resets in 60 min 0 s \(at \d\d:\d\d:\d\d UTC\)\. Nothing was written", result.stderr), result.stderr
    assert snapshot(site) == before


def test_unknown_user_and_forbidden_say_what_to_check(site, qiita):
    base, state = qiita
    result = blog("import", "qiita", "--user", "nobody", "--api-base", f"{base}/api/v2", cwd=site)
    assert result.returncode == 1
    assert "HTTP 404 Not Found: no user 'nobody'" in result.stderr and "check the user name" in result.stderr
    state.faults = {"403:1": None}
    forbidden = blog("import", "qiita", "--user", "alice", "--api-base", f"{base}/api/v2", cwd=site, token=TOKEN)
    assert forbidden.returncode == 1 and "HTTP 403 Forbidden" in forbidden.stderr and "check its scope (read_qiita" in forbidden.stderr
    usage = blog("import", "qiita", "--mine", cwd=site)
    assert usage.returncode == 64 and "--mine needs an access token" in usage.stderr


def test_qiita_api_files_bring_images_home_with_images_flag(site, qiita, tmp_path):
    base, _ = qiita
    saved = tmp_path / "items.json"
    saved.write_text(json.dumps(qiita_server.items(base)[:1], ensure_ascii=False))
    plain = blog("import", "qiita-api", saved, cwd=site)
    assert plain.returncode == 0 and f"{base}/img/cat.png)" in post(site, 1), "images stay remote without --images"
    result = blog("import", "qiita-api", saved, "--images", "--force", cwd=site)
    assert result.returncode == 0, result.stderr
    assert "images: 2 downloaded" in result.stdout and "1 overwritten" in result.stdout
    assert f"![a cat](/images/qiita/{item_id(1)}/cat.png)" in post(site, 1)
    assert (site / "static" / "images" / "qiita" / item_id(1) / "dog.jpg").read_bytes() == JPEG


def test_qiita_cli_folder_brings_images_home_with_images_flag(site, qiita, tmp_path):
    base, _ = qiita
    public = tmp_path / "qiita-cli" / "public"
    public.mkdir(parents=True)
    (public / "new-article.md").write_text(
        "---\ntitle: 画像のある記事\ntags:\n  - Swift\nprivate: false\nupdated_at: '2023-09-20T10:00:00+09:00'\n"
        "id: null\norganization_url_name: null\nslide: false\nignorePublish: false\n---\n"
        f"![cat]({base}/img/cat.png)\n")
    result = blog("import", "qiita-cli", public.parent, "--images", cwd=site)
    assert result.returncode == 0, result.stderr
    assert "images: 1 downloaded" in result.stdout
    written = list((site / "content" / "posts").glob("*.md"))
    assert len(written) == 1
    slug = front_matter(written[0].read_text())["slug"].strip('"')
    assert f"![cat](/images/qiita/{slug}/cat.png)" in written[0].read_text()
    assert (site / "static" / "images" / "qiita" / slug / "cat.png").read_bytes() == PNG
