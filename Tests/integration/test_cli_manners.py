"""The command line's manners through the real binary: colour on a terminal only, "did you mean",
-v, Hugo's short flags, import --quiet, serve's port fallback, base URL and first-build message,
singular and plural counts, init as the README says, and `new` slugs that match the loader's."""
import errno
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

from conftest import REPO, blog_binary, run_blog

FIXTURE = REPO / "Tests" / "BlogSiteTests" / "Fixtures" / "basic"
QIITA_ITEMS = REPO / "Tests" / "BlogImportTests" / "Fixtures" / "qiita-api" / "items.json"
ESC = "\x1b["


@pytest.fixture
def site(tmp_path):
    target = tmp_path / "site"
    shutil.copytree(FIXTURE, target)
    return target


def run_on_terminal(args, cwd, env_extra=None):
    """Runs blog with stderr (and stdout) on a pseudo-terminal; returns (exit code, everything it wrote)."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    env.update(env_extra or {})
    leader, follower = pty.openpty()
    process = subprocess.Popen([blog_binary(), *args], cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=follower, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    deadline = time.time() + 60
    while time.time() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError as error:  # EIO: the child closed the terminal
                if error.errno != errno.EIO:
                    raise
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    os.close(leader)
    return process.wait(timeout=30), b"".join(chunks).decode("utf-8", "replace")


def break_site(site):
    """One error (a bad date) and one warning (an unknown blog.yml key)."""
    (site / "content/posts/2020-03-01-second.md").write_text("---\ntitle: Second\ndate: 2020-13-45\n---\nx\n")
    (site / "blog.yml").write_text((site / "blog.yml").read_text() + "colour_scheme: dark\n")


# Colour

def test_errors_red_warnings_yellow_paths_bold_on_a_terminal(site):
    break_site(site)
    code, text = run_on_terminal(["build"], cwd=site)
    assert code == 1, text
    error_line = next(line for line in text.splitlines() if "2020-03-01-second.md" in line)
    assert error_line.startswith(f"{ESC}1mcontent/posts/2020-03-01-second.md:3:7{ESC}0m: {ESC}1;31merror:{ESC}0m "), repr(error_line)
    warning_line = next(line for line in text.splitlines() if "colour_scheme" in line)
    assert f"{ESC}1mblog.yml:" in warning_line and f"{ESC}1;33mwarning:{ESC}0m" in warning_line, repr(warning_line)
    # A usage error is an error too.
    code, text = run_on_terminal(["biuld"], cwd=site)
    assert code == 64 and text.startswith(f"{ESC}1;31merror:{ESC}0m unknown command 'biuld'"), repr(text)


def test_no_colour_when_not_a_terminal_or_no_color_is_set(site):
    break_site(site)
    code, text = run_on_terminal(["build"], cwd=site, env_extra={"NO_COLOR": "1"})
    assert code == 1 and "error: invalid date" in text and ESC not in text, repr(text)
    code, text = run_on_terminal(["build"], cwd=site, env_extra={"TERM": "dumb"})
    assert code == 1 and ESC not in text, repr(text)
    piped = run_blog("build", cwd=site, check=False)
    assert piped.returncode == 1
    assert "\ncontent/posts/2020-03-01-second.md:3:7: error: invalid date" in piped.stderr, piped.stderr
    assert piped.stderr.startswith("blog.yml:7:1: warning: unknown key 'colour_scheme'"), piped.stderr
    assert ESC not in piped.stderr + piped.stdout


# Did you mean, version

@pytest.mark.parametrize("args, expected", [
    (["biuld"], "unknown command 'biuld' (did you mean build?)"),
    (["server"], "unknown command 'server' (did you mean serve?)"),
    (["chekc"], "unknown command 'chekc' (did you mean check?)"),
    (["help", "imprt"], "unknown command 'imprt' (did you mean import?)"),
    (["--verison"], "unknown option '--verison' (did you mean --version?)"),
    (["build", "--drfts"], "unknown option '--drfts' (did you mean --drafts?)"),
    (["build", "--base-ulr", "x"], "unknown option '--base-ulr' (did you mean --base-url?)"),
    (["build", "-drafts"], "unknown option '-drafts' (did you mean --drafts?)"),
    (["serve", "--prot", "1"], "unknown option '--prot' (did you mean --port?)"),
    (["new", "--tag", "x", "t"], "unknown option '--tag' (did you mean --tags?)"),
    (["import", "--qiet"], "unknown option '--qiet' (did you mean --quiet?)"),
    (["theme", "lsit"], "unknown theme subcommand 'lsit' (did you mean list?)"),
    (["build", "--port", "8000"], "unknown option '--port' (it is an option of 'blog serve')"),
])
def test_did_you_mean(site, args, expected):
    result = run_blog(*args, cwd=site, check=False)
    assert result.returncode == 64, result.stderr
    assert result.stderr.startswith("error: " + expected), result.stderr
    assert not (site / "public").exists()


def test_no_suggestion_for_a_word_that_is_not_near_any_name(site):
    result = run_blog("publish", cwd=site, check=False)
    assert result.returncode == 64
    assert "did you mean" not in result.stderr and "unknown command 'publish'" in result.stderr


def test_dash_v_prints_the_version():
    long = run_blog("--version")
    short = run_blog("-v")
    assert re.fullmatch(r"blog \d+\.\d+\.\d+\n", long.stdout), long.stdout
    assert short.stdout == long.stdout and short.stderr == ""


# Short flags

def test_hugo_short_flags(site, tmp_path):
    plain = tmp_path / "plain"
    run_blog("build", "-o", plain, cwd=site)
    assert not (plain / "posts/draft-post").exists() and not (plain / "posts/from-the-future").exists()
    short = tmp_path / "short"
    run_blog("build", "-D", "-F", "-b", "https://short.example/blog/", "-d", short, cwd=site)
    assert (short / "posts/draft-post/index.html").exists(), "-D includes drafts"
    assert (short / "posts/from-the-future/index.html").exists(), "-F includes future posts"
    feed = (short / "feed.xml").read_text()
    assert "https://short.example/blog/" in feed and "https://example.com/" not in feed, "-b sets the base URL"
    help_text = run_blog("build", "--help").stdout
    for row in ["-o, -d, --output", "-D, --drafts", "-F, --future", "-b, --base-url"]:
        assert row in help_text, row
    # A letter in the wrong case is pointed at the right one.
    wrong = run_blog("build", "-f", "-d", tmp_path / "x", "-B", "https://a.example/", cwd=site, check=False)
    assert wrong.returncode == 64 and "unknown option '-B' (did you mean -b, --base-url?)" in wrong.stderr, wrong.stderr


# import --quiet

def test_import_quiet_prints_the_summary_only(tmp_path):
    loud_site, quiet_site = tmp_path / "loud", tmp_path / "quiet"
    for folder in (loud_site, quiet_site):
        run_blog("init", folder)
    loud = run_blog("import", "qiita-api", QIITA_ITEMS, "--source", loud_site)
    created = [line for line in loud.stdout.splitlines() if line.startswith("created ")]
    assert len(created) == 3, loud.stdout
    quiet = run_blog("import", "-q", "qiita-api", QIITA_ITEMS, "--source", quiet_site)
    assert quiet.stdout.splitlines() == [loud.stdout.splitlines()[-1]], quiet.stdout
    assert quiet.stdout.startswith("3 created, 0 unchanged"), quiet.stdout
    assert quiet.stderr == ""
    assert sorted(p.name for p in (quiet_site / "content/posts").iterdir()) == \
        sorted(p.name for p in (loud_site / "content/posts").iterdir())


# serve

def start_serve(site, *args):
    process = subprocess.Popen([blog_binary(), "serve", "--source", str(site), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    return process, line


def stop(process):
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    return out, err


def test_serve_takes_the_next_free_port_when_8080_is_taken_unless_told(site):
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        holder.bind(("127.0.0.1", 8080))
        holder.listen(1)
    except OSError:
        pass  # another program holds it already: busy either way
    try:
        process, line = start_serve(site)
        try:
            match = re.match(r"Serving .* at http://127\.0\.0\.1:(\d+)/ ", line)
            assert match, line + process.stderr.read()
            port = int(match.group(1))
            assert port != 8080
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/posts/hello/", timeout=10) as response:
                assert response.status == 200
        finally:
            _, err = stop(process)
        assert f"note: port 8080 is in use; serving on port {port} instead" in err, err

        told = subprocess.run([blog_binary(), "serve", "--source", str(site), "--port", "8080"],
                              capture_output=True, text=True, timeout=60)
        assert told.returncode == 1
        assert "error: port 8080 is already in use" in told.stderr, told.stderr
    finally:
        holder.close()


def test_serve_first_build_says_built_and_base_url_sets_the_path(site):
    process, line = start_serve(site, "--port", "0", "-b", "https://user.example.io/archive/")
    try:
        assert line.startswith("Serving "), line + process.stderr.read()
        url = line.split(" at ")[1].split(" ")[0]
        assert url.endswith("/archive/"), url
        with urllib.request.urlopen(url + "posts/hello/", timeout=10) as response:
            page = response.read().decode()
        assert 'href="/archive/' in page or url + "posts/" in page, "links live under the --base-url path"
    finally:
        _, err = stop(process)
    first = err.splitlines()[0]
    assert re.fullmatch(r"built in \d+ ms \(\d+ output files\)", first), err
    assert "rebuilt" not in err


# Counts, init, new

def test_counts_are_singular_or_plural(tmp_path):
    site = tmp_path / "one"
    run_blog("init", site)
    built = run_blog("build", "-s", site)
    assert built.stdout.startswith("Built 1 post, 0 pages, 1 tag into "), built.stdout
    (site / "content/about.md").write_text("---\ntitle: About\n---\nhi\n")
    (site / "content/posts/2021-01-01-two.md").write_text("---\ntitle: Two\ndate: 2021-01-01\ntags: [a, b]\n---\nx\n")
    again = run_blog("build", "-s", site)
    assert again.stdout.startswith("Built 2 posts, 1 page, 3 tags into "), again.stdout


def test_init_makes_a_site_that_builds_as_the_readme_says(tmp_path):
    site = tmp_path / "new-site"
    result = run_blog("init", site)
    assert not (site / "public").exists(), "init builds nothing itself (README: 'It builds nothing itself')"
    readme = (REPO / "README.md").read_text()
    assert "It builds nothing itself" in readme
    assert "blog build" in result.stdout
    built = run_blog("build", cwd=site)
    assert (site / "public/posts/welcome/index.html").exists(), built.stdout


def test_new_makes_the_slug_the_loader_derives_from_the_title(tmp_path):
    title = "はじめての記事 Swift/iOS"
    written, made = tmp_path / "written", tmp_path / "made"
    for folder in (written, made):
        run_blog("init", folder)
    # By hand: no slug in the front matter, so the build derives one from the title.
    (written / "content/posts/2021-01-01-by-hand.md").write_text(f"---\ntitle: {title}\ndate: 2021-01-01\n---\nx\n")
    path = run_blog("new", title, "--source", made, cwd=tmp_path).stdout.strip()
    assert (tmp_path / path).exists(), path
    assert re.fullmatch(r"made/content/posts/\d{4}-\d{2}-\d{2}-はじめての記事-swift-ios\.md", path), path
    run_blog("build", "-s", written)
    run_blog("build", "-s", made)
    by_hand = {p.name for p in (written / "public/posts").iterdir() if p.is_dir()} - {"welcome"}
    by_new = {p.name for p in (made / "public/posts").iterdir() if p.is_dir()} - {"welcome"}
    assert by_hand == by_new == {"はじめての記事-swift-ios"}, (by_hand, by_new)
