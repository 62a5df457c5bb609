#!/usr/bin/env python3
"""Live-reload latency of `blog serve`: from editing one post to the `reload` server-sent event.

    scripts/bench/serve_latency.py BLOG SITE_DIR [--samples 5] [--timeout 60]

Serves a copy of SITE_DIR (the corpus is never modified), subscribes to /__blog/events, appends a
line to one post `--samples` times and reports the time from the write to the `event: reload` line,
plus the time from starting the server to its first successful response. Prints one JSON object.
When `blog serve --help` fails (no serve command in this build) it prints {"skipped": "..."}.
"""
import argparse
import http.client
import json
import os
import queue
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_http(port, deadline, proc):
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/")
            resp = conn.getresponse()
            resp.read()
            conn.close()
            if resp.status < 500:
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def sse_reader(port, events, stop):
    """Pushes (monotonic time, event name) for every `event:` line of the stream."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=None)
        conn.request("GET", "/__blog/events", headers={"Accept": "text/event-stream"})
        resp = conn.getresponse()
        events.put((time.monotonic(), "__open__" if resp.status == 200 else f"__status_{resp.status}__"))
        while not stop.is_set():
            line = resp.fp.readline()
            if not line:
                events.put((time.monotonic(), "__closed__"))
                return
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if text.startswith("event:"):
                events.put((time.monotonic(), text[len("event:"):].strip()))
    except OSError as error:
        events.put((time.monotonic(), f"__error__ {error}"))


def measure(blog, site, samples=5, timeout=60.0, garbage=None):
    """Edits a post of a copy of site under `blog serve` and times each edit until the reload
    event. The copy is deleted at the end, or added to `garbage` for the caller to delete later."""
    help_run = subprocess.run([blog, "serve", "--help"], capture_output=True, text=True)
    if help_run.returncode != 0:
        return {"skipped": "`blog serve --help` failed: this build has no serve command"}
    help_text = help_run.stdout + help_run.stderr
    if "--port" not in help_text:
        return {"skipped": "`blog serve` has no --port option"}

    work = tempfile.mkdtemp(prefix="blog-bench-serve-")
    proc = None
    stop = threading.Event()
    try:
        copy = os.path.join(work, "site")
        shutil.copytree(site, copy, ignore=shutil.ignore_patterns("public", ".stamp"))
        port = free_port()
        cmd = [blog, "serve", "--source", copy, "--port", str(port)]
        if "--host" in help_text:
            cmd += ["--host", "127.0.0.1"]
        if "--no-open" in help_text:
            cmd.append("--no-open")
        log = open(os.path.join(work, "serve.log"), "wb")
        started = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        if not wait_for_http(port, started + max(timeout, 300), proc):
            log.close()
            tail = open(os.path.join(work, "serve.log"), "rb").read()[-600:].decode("utf-8", "replace")
            return {"skipped": f"`blog serve` did not answer HTTP (exit {proc.poll()}): {tail.strip()}"}
        startup = time.monotonic() - started

        events = queue.Queue()
        threading.Thread(target=sse_reader, args=(port, events, stop), daemon=True).start()
        when, name = events.get(timeout=timeout)
        if name != "__open__":
            return {"skipped": f"/__blog/events did not open ({name})", "startup_s": startup}
        time.sleep(0.5)  # let the watcher settle

        posts_dir = os.path.join(copy, "content", "posts")
        names = sorted(n for n in os.listdir(posts_dir) if n.endswith(".md"))
        target = os.path.join(posts_dir, names[len(names) // 2])
        latencies = []
        for i in range(samples):
            while not events.empty():
                events.get_nowait()
            with open(target, "a", encoding="utf-8") as f:
                f.write(f"\n追記 {i}: ベンチマークの編集です。\n")
            written = time.monotonic()
            deadline = written + timeout
            got = None
            while time.monotonic() < deadline:
                try:
                    when, name = events.get(timeout=max(0.01, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if name == "reload":
                    got = when - written
                    break
                if name.startswith("__"):
                    break
            if got is None:
                return {"skipped": f"no reload event within {timeout:.0f} s after edit {i + 1}", "startup_s": startup,
                        "latencies_s": latencies}
            latencies.append(got)
            time.sleep(0.3)
        return {"startup_s": startup, "latencies_s": latencies, "median_s": statistics.median(latencies),
                "samples": samples, "post": os.path.basename(target)}
    finally:
        stop.set()
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if garbage is None:
            shutil.rmtree(work, ignore_errors=True)
        else:
            garbage.append(work)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("blog")
    parser.add_argument("site")
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    print(json.dumps(measure(args.blog, args.site, args.samples, args.timeout), ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main())
