"""Ctrl-C (or a kill) during `blog build` leaves the output folder as it was and nothing beside it."""
import hashlib
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO, blog_binary, build_site


def tree(folder):
    """Relative path → sha256 of every file, and every folder (None), under folder."""
    out = {}
    for directory, folders, files in os.walk(folder):
        for name in folders:
            out[os.path.relpath(os.path.join(directory, name), folder)] = None
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return out


def generated_site(folder, posts):
    subprocess.run([sys.executable, str(REPO / "scripts" / "gen_corpus.py"), str(folder), "--posts", str(posts),
                    "--seed", "3", "--size", "6000"], check=True, capture_output=True)
    return folder


def interrupt_when(site, output, ready, signum, preexec_fn=None):
    """Starts `blog build` and sends signum as soon as ready(pid) holds; returns the exit code and
    stderr. (At 1,000 posts, a debug build stages files for about half a second before it commits.)"""
    build = subprocess.Popen([blog_binary(), "build", "--source", str(site), "--output", str(output)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn)
    deadline = time.monotonic() + 120
    while build.poll() is None and not ready(build.pid) and time.monotonic() < deadline:
        time.sleep(0.005)
    if build.poll() is not None:
        _, stderr = build.communicate()
        pytest.fail(f"the build ended ({build.returncode}) before it could be interrupted:\n{stderr}")
    build.send_signal(signum)
    _, stderr = build.communicate(timeout=60)
    return build.returncode, stderr


def staged_files(output, pid):
    suffix = f".blog-tmp-{pid}"
    for _, _, files in os.walk(output):
        if any(name.endswith(suffix) for name in files):
            return True
    return False


def test_ctrl_c_during_an_update_leaves_the_old_site(tmp_path):
    site = generated_site(tmp_path / "site", 1000)
    output = build_site(site, tmp_path / "public")
    before = tree(output)
    # A new title changes every page, so the build stages thousands of files in the output.
    config = site / "blog.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("title:", "title: Renamed", 1), encoding="utf-8")
    code, stderr = interrupt_when(site, output, lambda pid: staged_files(output, pid), signal.SIGINT)
    assert code == 128 + signal.SIGINT, stderr
    assert "interrupted" in stderr and "was left as it was" in stderr, stderr
    assert tree(output) == before, "no temporary file, new folder or marker is left, and no page was switched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["public", "site"]
    # The next build is a normal one.
    build_site(site, output)
    assert "Renamed" in (output / "index.html").read_text(encoding="utf-8")


def test_a_kill_during_a_first_build_leaves_no_staging_folder(tmp_path):
    site = generated_site(tmp_path / "site", 1000)
    output = tmp_path / "public"

    def staging(pid):
        return (tmp_path / f".public.blog-staging-{pid}" / "posts").is_dir()

    code, stderr = interrupt_when(site, output, staging, signal.SIGTERM)
    assert code == 128 + signal.SIGTERM, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"], "no output and no staging folder"


def test_what_a_killed_build_left_is_cleaned_by_the_next(tmp_path):
    site = generated_site(tmp_path / "site", 1000)
    output = build_site(site, tmp_path / "public")
    before = tree(output)
    config = site / "blog.yml"
    original = config.read_text(encoding="utf-8")
    config.write_text(original.replace("title:", "title: Renamed", 1), encoding="utf-8")
    code, _ = interrupt_when(site, output, lambda pid: staged_files(output, pid), signal.SIGKILL)
    assert code == -signal.SIGKILL
    assert tree(output) != before, "a killed build cannot clean up after itself"
    # Back to the old inputs: the next build has nothing to write, yet it is not "up to date",
    # and it removes the killed build's temporary files, new folders and marker.
    config.write_text(original, encoding="utf-8")
    result = subprocess.run([blog_binary(), "build", "--source", str(site), "--output", str(output)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Up to date" not in result.stdout
    after = tree(output)
    assert after.keys() == before.keys()
    assert {k: v for k, v in after.items() if k != ".blog-manifest"} == {k: v for k, v in before.items() if k != ".blog-manifest"}


def test_a_build_started_with_hangups_ignored_runs_on(tmp_path):
    """Under `nohup` (SIGHUP ignored from the start) a hangup must not stop the build."""
    site = generated_site(tmp_path / "site", 1000)
    output = tmp_path / "public"

    def ignore_hangups():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    def staging(pid):
        return (tmp_path / f".public.blog-staging-{pid}" / "posts").is_dir()

    code, stderr = interrupt_when(site, output, staging, signal.SIGHUP, preexec_fn=ignore_hangups)
    assert code == 0, stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["public", "site"]
    assert (output / "index.html").is_file()
