"""A build killed outright during the output switch (SIGKILL, the OOM killer) must leave nothing
the next build cannot finish: strace kills `blog build` at every rename of the switch, at every
unlink, and at the writes of the switch's journal. After each kill, a build of a broken site (it
fails after blog has recovered the output folder, before it writes anything) shows what the
recovery made: it must be the old site or the new one, never a mix; then a build of the new site
must succeed and give exactly the new site."""
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import blog_binary

STRACE = shutil.which("strace")
pytestmark = pytest.mark.skipif(STRACE is None, reason="strace is not installed (scripts/install-deps.sh test)")

POST = "---\ntitle: {title}\ndate: 2020-01-0{day}T00:00:00+09:00\ntags: [{tags}]\n---\n{body}\n"


def write_site(root, version):
    """Version 1 and 2 differ in every way a switch must handle: a changed, a removed and a new
    post, a file that becomes a folder and a folder that becomes a file."""
    root = pathlib.Path(root)
    shutil.rmtree(root, ignore_errors=True)
    (root / "content" / "posts").mkdir(parents=True)
    (root / "static").mkdir()
    (root / "blog.yml").write_text("title: Faults\nbase_url: https://example.com/\n")
    posts = root / "content" / "posts"
    posts.joinpath("kept.md").write_text(POST.format(title="Kept", day=1, tags="a", body=f"version {version}"))
    if version == 1:
        posts.joinpath("old.md").write_text(POST.format(title="Old", day=2, tags="a, gone", body="old"))
        (root / "static" / "thing").write_text("a file\n")
        (root / "static" / "box" / "inner").mkdir(parents=True)
        (root / "static" / "box" / "inner" / "x.txt").write_text("x\n")
    else:
        posts.joinpath("new.md").write_text(POST.format(title="New", day=3, tags="a, fresh", body="new"))
        (root / "static" / "thing" / "deep").mkdir(parents=True)
        (root / "static" / "thing" / "deep" / "f.txt").write_text("now a folder\n")
        (root / "static" / "box").write_text("now a file\n")
    return root


def published(output):
    """Every file and folder in the output but blog's own bookkeeping, with the files' bytes."""
    result = {}
    for path in sorted(output.rglob("*")):
        relative = str(path.relative_to(output))
        if relative.startswith(".blog-"):
            continue
        result[relative] = None if path.is_dir() and not path.is_symlink() else path.read_bytes()
    return result


def blog(*args, strace=()):
    command = [*strace, blog_binary(), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    base = tmp_path_factory.mktemp("switch")
    v1, v2 = write_site(base / "v1", 1), write_site(base / "v2", 2)
    broken = write_site(base / "broken", 2)
    (broken / "content" / "posts" / "bad.md").write_text("---\ntitle: [unclosed\n---\n")
    old, new = base / "old", base / "new"
    assert blog("build", "-s", v1, "-o", old, "-q").returncode == 0
    assert blog("build", "-s", v2, "-o", new, "-q").returncode == 0
    old_files, new_files = published(old), published(new)
    assert old_files != new_files
    return dict(base=base, v2=v2, broken=broken, old=old, old_files=old_files, new_files=new_files)


def kill_and_recover(sites, name, inject, path_filter=None, finish=True):
    """Copies the old output, runs the v1 → v2 update under strace with `inject`, then recovers
    (and, with `finish`, builds the new site). Returns whether the build was killed and the state
    the recovery left."""
    out = sites["base"] / name
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(sites["old"], out, symlinks=True)
    trace = [STRACE, "-f", "-qq", "-o", "/dev/null", "-e", f"inject={inject}"]
    if path_filter:
        trace += ["-P", str(out / path_filter)]
    run = blog("build", "-s", sites["v2"], "-o", out, "-q", "-f", strace=trace)
    killed = run.returncode in (-9, 137)
    assert killed or run.returncode == 0, run.stderr
    sites["after_kill"] = sorted(p.name for p in out.iterdir())
    # The broken site fails after the output folder was recovered and before anything is staged.
    recovery = blog("build", "-s", sites["broken"], "-o", out, "-q", "-f")
    assert recovery.returncode == 1 and "bad.md" in recovery.stderr, recovery.stderr
    state = published(out)
    leftovers = [p.name for p in out.rglob("*") if ".blog-tmp-" in p.name or p.name.startswith((".blog-stage", ".blog-switch", ".blog-build"))]
    assert leftovers == [], (inject, leftovers)
    if not finish:
        return killed, state
    final = blog("build", "-s", sites["v2"], "-o", out, "-q")
    assert final.returncode == 0, (inject, final.stderr)
    assert published(out) == sites["new_files"], inject
    return killed, state


def sweep(sites, syscall, path_filter=None, limit=200):
    """Kills at the 1st, 2nd, ... call of `syscall` until a build runs through; returns the kill
    points and how many left a mix of the old and the new site."""
    points = mixed = 0
    for n in range(1, limit):
        # Building the new site after every third recovery keeps the test fast; a recovered
        # folder that is exactly the old or the new site builds like any other.
        killed, state = kill_and_recover(sites, f"{syscall}-{n}", f"{syscall}:signal=SIGKILL:when={n}", path_filter,
                                         finish=n % 3 == 1)
        if not killed:
            return points, mixed
        points += 1
        if state not in (sites["old_files"], sites["new_files"]):
            mixed += 1
    pytest.fail(f"the build still renamed after {limit} kills")


def test_killed_at_every_rename_of_the_switch(sites):
    points, mixed = sweep(sites, "rename")
    # The journal, the changed files, the folder that replaces a file and the manifest.
    assert points >= 8
    assert mixed == 0, f"{mixed} of {points} kill points left a mixed site"
    print(f"rename kill points: {points}, mixed outputs: {mixed}")


def test_killed_at_every_unlink(sites):
    points, mixed = sweep(sites, "unlink")
    assert points >= 3
    assert mixed == 0, f"{mixed} of {points} kill points left a mixed site"
    print(f"unlink kill points: {points}, mixed outputs: {mixed}")


@pytest.mark.parametrize("syscall", ["openat", "write", "close"])
def test_killed_while_writing_the_journal(sites, syscall):
    killed, state = kill_and_recover(sites, f"journal-{syscall}", f"{syscall}:signal=SIGKILL:when=1", ".blog-switch.tmp")
    assert killed
    # Killed in the commit, at the journal: the files were staged, the journal not whole.
    assert (".blog-switch.tmp" in sites["after_kill"]) == (syscall != "openat")
    assert ".blog-switch" not in sites["after_kill"]
    assert any(".blog-tmp-" in name for name in sites["after_kill"])
    # The journal was never whole: the switch had not begun, so the old site stays.
    assert state == sites["old_files"]
