"""`blog serve` end to end through the real binary: live reload, broken content, recovery, shutdown."""
import json
import os
import pathlib
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from conftest import REPO, blog_binary

FIXTURE = REPO / "Tests" / "BlogSiteTests" / "Fixtures" / "basic"
POST = "content/posts/2020-02-06-hello.md"


class Server:
    def __init__(self, site, env=None, args=()):
        self.process = subprocess.Popen([blog_binary(), "serve", "--port", "0", "--source", str(site), *args],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.process.stdout.readline()
        assert line.startswith("Serving "), line + self.process.stderr.read()
        self.url = line.split(" at ")[1].split(" ")[0].rstrip("/")
        self.events = queue.Queue()
        threading.Thread(target=self._listen, daemon=True).start()
        self.wait_for(lambda e: e[0] in ("ok", "error"), "initial state")

    def _listen(self):
        with urllib.request.urlopen(self.url + "/__blog/events", timeout=60) as stream:
            event, data = None, []
            for raw in stream:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())
                elif line == "" and event:
                    self.events.put((event, "\n".join(data)))
                    event, data = None, []

    def wait_for(self, predicate, what, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                break
            if predicate(event):
                return event
        pytest.fail(f"no {what} event within {timeout} s")

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return response.read().decode("utf-8")


@pytest.fixture
def served(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    server = Server(site)
    yield site, server
    if server.process.poll() is None:
        server.process.kill()


def test_edit_break_fix_cycle(served):
    site, server = served
    page = server.get("/posts/hello/")
    assert "Line one" in page
    assert "/__blog/livereload.js" in page, "the reload script is injected in serve mode"

    post = site / POST
    original = post.read_text()
    post.write_text(original.replace("Line one", "Freshly edited line"))
    server.wait_for(lambda e: e[0] == "reload", "reload after an edit")
    assert "Freshly edited line" in server.get("/posts/hello/")

    post.write_text("---\ntitle: broken\ndate: 2020-02-31\n---\n")
    event = server.wait_for(lambda e: e[0] == "error", "error after breaking the front matter")
    lines = json.loads(event[1])
    assert any(line.startswith(POST + ":3:7: error: invalid date") for line in lines), lines
    status = json.loads(server.get("/__blog/status"))
    assert status["errors"] == lines
    assert "Freshly edited line" in server.get("/posts/hello/"), "the last good page keeps being served"

    post.write_text(original.replace("Line one", "Fixed again"))
    server.wait_for(lambda e: e[0] == "ok", "ok after the fix")
    server.wait_for(lambda e: e[0] == "reload", "reload after the fix")
    assert "Fixed again" in server.get("/posts/hello/")
    assert json.loads(server.get("/__blog/status"))["errors"] == []


def test_polling_watcher_reloads_edits_and_serve_does_not_warn_about_localhost(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    server = Server(site, args=["--poll"])
    try:
        post = site / POST
        post.write_text(post.read_text().replace("Line one", "Seen by polling"))
        server.wait_for(lambda e: e[0] == "reload", "reload after an edit")
        assert "Seen by polling" in server.get("/posts/hello/")
    finally:
        server.process.send_signal(signal.SIGINT)
        _, errors = server.process.communicate(timeout=30)
    # serve builds for a local address on purpose: no base_url warning (blog build gives one).
    assert "base_url" not in errors, errors


def test_new_folder_and_ctrl_c(served):
    site, server = served
    folder = site / "content" / "posts" / "2030"
    folder.mkdir()
    (folder / "late.md").write_text("---\ntitle: Late arrival\ndate: 2021-03-03\nslug: late\n---\nhello\n")
    server.wait_for(lambda e: e[0] == "reload", "reload after a file in a new folder")
    assert "Late arrival" in server.get("/posts/late/")
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(timeout=10) == 0
    assert not (site / "public").exists(), "serve never writes the output folder"


def test_stylesheet_only_change_is_swapped_not_reloaded(served):
    site, server = served
    page = server.get("/")
    assert "/assets/css/main.css" in page, "serve keeps asset names stable"
    css = (REPO / "themes" / "default" / "assets" / "css" / "main.css").read_text()
    target = site / "themes" / "default" / "assets" / "css" / "main.css"
    target.parent.mkdir(parents=True)
    target.write_text(css + "\n/* tweaked */\n")
    event = server.wait_for(lambda e: e[0] == "reload", "reload after a stylesheet edit")
    assert json.loads(event[1])["paths"] == ["/assets/css/main.css"], event
    assert server.get("/assets/css/main.css").endswith("/* tweaked */\n")


def kernel_thp_mode():
    try:
        text = pathlib.Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        return None
    match = re.search(r"\[(\w+)\]", text)
    return match.group(1) if match else None


def huge_page_regions(pid):
    """How many of the process's mappings were asked for huge pages (the `hg` flag in
    /proc/PID/smaps: madvise(MADV_HUGEPAGE); `ht`: hugetlbfs pages, which mimalloc tries first and
    gets where the system reserved some): mimalloc asks for its segments when large_os_pages is on."""
    smaps = pathlib.Path(f"/proc/{pid}/smaps").read_text()
    return sum(1 for line in smaps.splitlines()
               if line.startswith("VmFlags:") and ({"hg", "ht"} & set(line.split()[1:])))


def test_blog_allocates_with_mimalloc(tmp_path):
    # mimalloc reports itself when asked to; glibc's malloc would say nothing.
    result = subprocess.run([blog_binary(), "--version"], capture_output=True, text=True,
                            env=dict(os.environ, MIMALLOC_VERBOSE="1"))
    assert result.returncode == 0, result.stderr
    assert "mimalloc: process init" in result.stderr, result.stderr
    assert "mimalloc:" not in subprocess.run([blog_binary(), "--version"], capture_output=True, text=True).stderr


@pytest.mark.skipif(kernel_thp_mode() != "madvise", reason="the kernel gives huge pages only on request in 'madvise' mode")
def test_serve_takes_huge_pages_only_when_the_user_asks(tmp_path):
    # Big enough that the first build takes memory beyond what mimalloc mapped before blog's main
    # (about 300 posts here), so that a request for huge pages would show in its mappings.
    site = tmp_path / "site"
    subprocess.run([sys.executable, str(REPO / "scripts" / "gen_corpus.py"), str(site), "--posts", "500"],
                   check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIMALLOC_")}

    def regions(extra):
        server = Server(site, env=dict(env, **extra))
        try:
            assert "<html" in server.get("/"), "the server serves the site"
            return huge_page_regions(server.process.pid)
        finally:
            server.process.kill()
            server.process.wait()

    # blog asks for no huge pages of its own.
    assert regions({}) == 0
    # The user's MIMALLOC_LARGE_OS_PAGES is honoured by mimalloc (and shows the count can tell).
    assert regions({"MIMALLOC_LARGE_OS_PAGES": "1"}) > 0
    assert regions({"MIMALLOC_LARGE_OS_PAGES": "0"}) == 0
