"""Shared fixtures for the end-to-end tests: the blog binary, built sites, a loopback HTTP server."""
import functools
import http.server
import os
import pathlib
import shutil
import subprocess
import threading

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def blog_binary():
    path = os.environ.get("BLOG") or str(REPO / ".build" / "debug" / "blog")
    if not os.path.isabs(path):
        path = str(REPO / path)
    if not os.path.exists(path):
        pytest.fail(f"blog binary not found at {path}: run 'swift build' or set BLOG")
    return path


def run_blog(*args, cwd=None, check=True):
    result = subprocess.run([blog_binary(), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300)
    if check and result.returncode != 0:
        raise AssertionError(f"blog {' '.join(map(str, args))} failed ({result.returncode}):\n{result.stderr}")
    return result


def build_site(source, output, *extra):
    run_blog("build", "--source", source, "--output", output, "--quiet", *extra)
    return pathlib.Path(output)


@pytest.fixture(scope="session")
def example_site(tmp_path_factory):
    """The repository's own example site (content/), built once for the session."""
    out = tmp_path_factory.mktemp("example") / "public"
    return build_site(REPO, out)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def serve_dir():
    """Serves a folder over loopback on an ephemeral port; returns the base URL (no trailing slash)."""
    servers = []

    def start(directory):
        handler = functools.partial(_QuietHandler, directory=str(directory))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def copy_tree(src, dst):
    shutil.copytree(src, dst)
    return pathlib.Path(dst)
