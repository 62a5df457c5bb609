#!/usr/bin/env python3
"""Measures blog (and Hugo, when installed) on generated corpora. Called by scripts/bench.sh,
which builds the release binaries and the corpora first; see docs/benchmarks.md.

    scripts/bench/run.py --blog BIN --bench BIN --corpus N=DIR [--corpus N=DIR]... [--runs 3]
                         [--hugo-runs-large 1] [--hugo-max-posts 10000] [--no-hugo] [--no-serve]
                         [--json .bench/results.json] [--command "make bench"]

Every build-level number is the median of --runs runs. Prints a readable table, writes the JSON
results and prints the Markdown tables for README.md and docs/benchmarks.md.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import serve_latency  # noqa: E402

TIME = "/usr/bin/time"
# "  content    1085.3 ms    2101.7 ms CPU  1.94 cores" (a phase marked + ran beside the one before it).
PHASE_LINE = re.compile(r"^\s*(\S+)\s+([0-9.]+) ms\b")


def log(text):
    print(text, file=sys.stderr, flush=True)


def timed(cmd, cwd=None):
    """Runs cmd under /usr/bin/time; returns wall/user/sys seconds, peak RSS (MB) and stderr."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        start = time.perf_counter()
        run = subprocess.run([TIME, "-o", t.name, "-f", "%e %U %S %M"] + cmd, cwd=cwd,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        freed()  # the process's memory went back to the system when it exited
        fields = t.read().strip().splitlines()[-1].split()
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stderr[-2000:]}")
    _, user, system, rss_kb = fields
    return {"wall_s": wall, "user_s": float(user), "sys_s": float(system), "cpu_s": float(user) + float(system),
            "rss_mb": int(rss_kb) / 1024.0, "stderr": run.stderr}


# Folders to delete once everything is measured. Deleting a large output folder and building again
# soon after makes the next build pay for it: on ext4 without a journal (this machine's disk) the
# inode allocator skips, one by one and from the start of the group for every new inode, each inode
# freed in the last 60 s, or in the last 360 s when its inode-table block is dirty (the kernel's
# RECENTCY_MIN and RECENTCY_DIRTY in fs/ext4/ialloc.c). A new build dirties those blocks itself as
# it takes the inodes beside them, so a build a minute or two after deleting 30,000 inodes spent
# a third of its samples in `recently_deleted` and `find_get_block_common` (docs/benchmarks.md,
# "Twentieth round"). So nothing on the disk is deleted before a measurement: each full build
# (blog's and Hugo's) writes into a folder of its own, a previous bench's leftovers are renamed
# aside (`retire`), everything goes at the end, and the time of that deletion is kept in
# DELETE_STAMP so that `settle()` in the next bench waits out the rest of SETTLE_S.
GARBAGE = []
SETTLE_S = 370.0
DELETE_STAMP = [None]  # path of the file holding the time.time() of the last deletion on the disk


# Memory, too, is dearer here some seconds after it was freed than at once (docs/benchmarks.md,
# "Seventeenth round"): the guest hands free 2 MB blocks back to its host (free page reporting),
# and a page touched again after that costs 2-4 ms per MB, against ~0.1 ms per MB while it is
# still the guest's. Memory freed 8 s before a build was still warm, 20-30 s before it was cold.
# So every full build waits until COOL_S have passed since anything freed memory (a deletion, a
# measured process's exit): each one finds the machine's memory as a first build of the day
# would, and the builds into RAM (whose previous output is deleted just before) are no longer
# measured on memory the one before had just given back.
LAST_FREE = [0.0]
COOL_S = 30.0


def freed():
    """Notes that memory was just given back (a process exited, files were deleted)."""
    LAST_FREE[0] = time.monotonic()


def cool():
    """Waits until COOL_S have passed since memory was last given back (see LAST_FREE)."""
    wait = COOL_S - (time.monotonic() - LAST_FREE[0])
    if LAST_FREE[0] > 0.0 and wait > 0:
        log(f"    waiting {wait:.0f} s for freed memory to go cold (see LAST_FREE in run.py)")
        time.sleep(wait)


def retire(path, work):
    """Moves a leftover folder aside (a rename frees no inode) to be deleted at the end."""
    if os.path.exists(path):
        trash = os.path.join(work, "trash")
        os.makedirs(trash, exist_ok=True)
        n = 0
        while os.path.lexists(aside := os.path.join(trash, f"{os.path.basename(path)}-{os.getpid()}-{n}")):
            n += 1
        os.rename(path, aside)
        GARBAGE.append(aside)


def delete_garbage():
    """Deletes every folder kept for the end and notes when (for the next bench's settle())."""
    if not GARBAGE:
        return
    for path in GARBAGE:
        shutil.rmtree(path, ignore_errors=True)
    GARBAGE.clear()
    if DELETE_STAMP[0]:
        with open(DELETE_STAMP[0], "w", encoding="utf-8") as f:
            f.write(f"{time.time():.0f}\n")


def settle():
    """Before a timed build: writes the dirty pages back (so that the previous build's writeback
    does not run during this one), waits until SETTLE_S have passed since the last deletion on
    the disk (this bench's or the previous one's) and COOL_S since memory was last freed."""
    subprocess.run(["sync"], check=False)
    last = 0.0
    if DELETE_STAMP[0]:
        try:
            with open(DELETE_STAMP[0], encoding="utf-8") as f:
                last = float(f.read().strip() or 0)
        except (OSError, ValueError):
            pass
    wait = SETTLE_S - (time.time() - last)
    if wait > 0:
        log(f"    waiting {wait:.0f} s for inodes freed on the disk to settle (see GARBAGE in run.py)")
        time.sleep(wait)
    cool()


def run_folder(base, i):
    """A fresh output folder for run i (main() retired any leftover), deleted at the end of the bench."""
    path = f"{base}.run{i}"
    GARBAGE.append(path)
    return path


def median_of(samples, key):
    return statistics.median(s[key] for s in samples)


def summarize(samples):
    out = {k: median_of(samples, k) for k in ("wall_s", "cpu_s", "user_s", "sys_s", "rss_mb")}
    out["runs"] = len(samples)
    out["wall_samples_s"] = [round(s["wall_s"], 3) for s in samples]
    return out


def count_html(root):
    n = 0
    for _, _, files in os.walk(root):
        n += sum(1 for f in files if f.endswith(".html"))
    return n


def du_bytes(path):
    if not os.path.exists(path):
        return None
    out = subprocess.run(["du", "-sb", path], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0])


def parse_phases(stderr):
    phases = {}
    for line in stderr.splitlines():
        m = PHASE_LINE.match(line)
        if m:
            phases[m.group(1)] = float(m.group(2)) / 1000.0
    return phases


def bench_blog(blog, bench, corpus, out, runs):
    full = []
    phase_runs = []
    folders = [run_folder(out, i) for i in range(runs)]
    for i in range(runs):
        settle()
        r = timed([blog, "build", "--source", corpus, "--output", folders[i], "--quiet", "--timings"])
        full.append(r)
        phase_runs.append(parse_phases(r["stderr"]))
        log(f"    blog full build {i + 1}/{runs}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU, {r['rss_mb']:.0f} MB")
    # The last run's output is the site the other measurements use.
    os.rename(folders[-1], out)
    html = count_html(out)
    result = {"full": summarize(full), "html_pages": html}
    result["full"]["pages_per_s"] = html / result["full"]["wall_s"]
    # The file system's share: the same folders and files made again with nothing else to do,
    # on this disk and in RAM, and the same builds with their output in RAM.
    settle()
    result["files_disk"] = files_floor(bench, out, f"{out}.files")
    GARBAGE.append(f"{out}.files")
    ram = ram_folder()
    if ram:
        try:
            result["files_ram"] = files_floor(bench, out, os.path.join(ram, "files"))
            shutil.rmtree(os.path.join(ram, "files"), ignore_errors=True)
            freed()
            result["full_ram"] = ram_builds(blog, corpus, ram, "run", runs, "blog full build into RAM")
            # The same with the input out of the page cache, as after a reboot or a fresh clone (and
            # as on this machine a minute after the files were last read: it pages out memory left
            # alone that long).
            result["cold_ram"] = ram_builds(blog, corpus, ram, "cold", runs, "blog full build into RAM, input not cached",
                                            before=lambda: f"{evict_page_cache(corpus)} files evicted")
        finally:
            shutil.rmtree(ram, ignore_errors=True)
    else:
        result["full_ram"] = {"skipped": "no tmpfs with room at /dev/shm"}
    names = list(phase_runs[0].keys())
    phases = {n: statistics.median(p.get(n, 0.0) for p in phase_runs) for n in names}
    total = sum(v for n, v in phases.items() if not n.startswith("+"))
    result["phases_s"] = phases
    # The post pages are made in the "posts" phase (with their bodies) when the theme allows it.
    result["render_share"] = sum(phases.get(n, 0.0) for n in ("posts", "lists", "posts+lists")) / total if total else None
    result["output_bytes"] = du_bytes(out)
    result["search_index_bytes"] = du_bytes(os.path.join(out, "search"))
    rebuild = []
    for i in range(runs):
        r = timed([blog, "build", "--source", corpus, "--output", out, "--quiet", "--timings"])
        rebuild.append(r)
        log(f"    blog no-change rebuild {i + 1}/{runs}: {r['wall_s']:.2f} s wall")
    result["rebuild"] = summarize(rebuild)
    # The same with --force: the whole pipeline again, writing only what changed (nothing).
    forced = []
    for i in range(runs):
        settle()
        r = timed([blog, "build", "--source", corpus, "--output", out, "--quiet", "--timings", "--force"])
        forced.append(r)
        log(f"    blog forced no-change rebuild {i + 1}/{runs}: {r['wall_s']:.2f} s wall")
    result["forced_rebuild"] = summarize(forced)
    result["rebuild"]["phases_s"] = {n: statistics.median(parse_phases(r["stderr"]).get(n, 0.0) for r in forced) for n in names}
    return result


def ram_builds(blog, corpus, ram, prefix, runs, label, before=None):
    """`runs` full builds into new folders under ram (each deleted at once); `before()` runs ahead
    of each build and says what it did. Returns the summary with the median phases."""
    samples = []
    for i in range(runs):
        folder = os.path.join(ram, f"{prefix}{i}")
        settle()
        note = before() if before else None
        r = timed([blog, "build", "--source", corpus, "--output", folder, "--quiet", "--timings"])
        shutil.rmtree(folder, ignore_errors=True)
        freed()
        samples.append(r)
        log(f"    {label}{f' ({note})' if note else ''} {i + 1}/{runs}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU, {r['rss_mb']:.0f} MB")
    result = summarize(samples)
    result["phases_s"] = {n: statistics.median(parse_phases(r["stderr"]).get(n, 0.0) for r in samples)
                          for n in parse_phases(samples[0]["stderr"])}
    return result


def evict_page_cache(root):
    """Drops root's files from the page cache (posix_fadvise DONTNEED; clean pages go at once).
    Returns how many files it asked for."""
    count = 0
    for folder, _, files in os.walk(root):
        for name in files:
            try:
                fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                count += 1
            finally:
                os.close(fd)
    return count


def ram_folder():
    """A fresh folder in tmpfs for builds into RAM, or None when /dev/shm is missing or short of room."""
    if not os.path.isdir("/dev/shm"):
        return None
    st = os.statvfs("/dev/shm")
    if st.f_bavail * st.f_frsize < 2 * 1024 ** 3:
        return None
    return tempfile.mkdtemp(prefix="blog-bench-", dir="/dev/shm")


def run_bench(bench, *args):
    """One `blog-bench` subcommand: its report on stderr goes to the log, its JSON line is returned."""
    run = subprocess.run([bench, *args], capture_output=True, text=True)
    for line in run.stderr.splitlines():
        log("    " + line)
    if run.returncode != 0:
        return {"error": run.stderr.strip()[-500:]}
    return json.loads(run.stdout.strip().splitlines()[-1])


def files_floor(bench, site, target):
    """`blog-bench files`: the built site's folders and files made again under target."""
    return run_bench(bench, "files", site, target)


HUGO_CONFIG = """\
# Generated by scripts/bench/run.py for one benchmark corpus.
baseURL = "https://example.com/"
languageCode = "ja"
title = {title}
contentDir = {content}
themesDir = {themes}
theme = "hugo-theme"
paginate = 10
rssLimit = 20
hasCJKLanguage = true
timeZone = "Asia/Tokyo"
enableRobotsTXT = true
disableHugoGeneratorInject = true
[params]
author = "bench"
related = {related}
[taxonomies]
tag = "tags"
[markup.goldmark.renderer]
unsafe = false
hardWraps = true
[markup.highlight]
noClasses = false
[markup.tableOfContents]
startLevel = 2
endLevel = 3
"""


def hugo_version():
    try:
        return subprocess.run(["hugo", "version"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def bench_hugo(corpus, runs, related=True):
    """Hugo on the corpus with the bench theme; `related=False` drops its related-posts section
    (`.Related` is Hugo's most expensive feature), for the comparison that favours Hugo most."""
    work = tempfile.mkdtemp(prefix="blog-bench-hugo-")
    try:
        config = HUGO_CONFIG.format(title=json.dumps("Generated archive"),
                                    related="true" if related else "false",
                                    content=json.dumps(os.path.join(os.path.abspath(corpus), "content")),
                                    themes=json.dumps(HERE))
        with open(os.path.join(work, "hugo.toml"), "w", encoding="utf-8") as f:
            f.write(config)
        dest = os.path.join(work, "public")
        samples = []
        for i in range(runs):
            dest = os.path.join(work, f"public{i}")
            settle()
            r = timed(["hugo", "--quiet", "--source", work, "--destination", dest, "--cacheDir", os.path.join(work, "cache")])
            samples.append(r)
            log(f"    hugo{'' if related else ' (no related)'} full build {i + 1}/{runs}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} s CPU, {r['rss_mb']:.0f} MB")
        html = count_html(dest)
        result = {"full": summarize(samples), "html_pages": html, "output_bytes": du_bytes(dest)}
        result["full"]["pages_per_s"] = html / result["full"]["wall_s"]
        return result
    finally:
        GARBAGE.append(work)


# The formulas BlogMathTests compare with KaTeX: what `blog-bench math` converts for formulas/s.
MATH_CORPUS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "Tests", "BlogMathTests", "Fixtures", "corpus.tex")


def bench_math_archive(blog, corpus, runs):
    """The math-heavy archive built into RAM twice: formulas converted to MathML (the default) and
    kept as TeX (`markdown.math: keep`, from a copy of the corpus's blog.yml): the difference is
    what converting costs a build."""
    ram = ram_folder() or tempfile.mkdtemp(prefix="blog-bench-math-")
    keep = tempfile.mkdtemp(prefix="blog-bench-math-keep-")
    try:
        with open(os.path.join(corpus, "blog.yml"), encoding="utf-8") as f:
            config = f.read()
        with open(os.path.join(keep, "blog.yml"), "w", encoding="utf-8") as f:
            f.write(config.rstrip("\n") + "\nmarkdown:\n  math: keep\n")
        shutil.copytree(os.path.join(corpus, "content"), os.path.join(keep, "content"))
        result = {"mathml": ram_builds(blog, corpus, ram, "math", runs, "math archive, MathML"),
                  "keep": ram_builds(blog, keep, ram, "mathkeep", runs, "math archive, TeX kept")}
        formulas = 0
        for folder, _, files in os.walk(os.path.join(corpus, "content")):
            for name in files:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    text = f.read()
                formulas += text.count("$$") // 2 + (text.count("$") - text.count("$$") * 2) // 2
        result["formulas"] = formulas
        return result
    finally:
        shutil.rmtree(keep, ignore_errors=True)


def blog_bench(bench, sub, corpus, passes):
    return run_bench(bench, sub, corpus, "--passes", str(passes))


def memory_cost(bench):
    """`blog-bench memory`: what fresh memory costs on this machine (first touch vs just freed)."""
    return run_bench(bench, "memory", "512")


def memory_note(machine):
    """What `blog-bench memory` measured, as a phrase ("" when it did not run)."""
    m = machine.get("memory") or {}
    if "first_touch_ms_per_mb" not in m:
        return ""
    small = (f", {m['small_first_touch_ms_per_mb']:.2f} ms/MB in 4 KB pages"
             if "small_first_touch_ms_per_mb" in m else "")
    return (f"fresh memory {m['first_touch_ms_per_mb']:.2f} ms/MB on first touch in huge pages{small}, "
            f"{m['reused_touch_ms_per_mb']:.2f} ms/MB just after it was freed (`blog-bench memory`)")


def width(text):
    """Display width in a terminal (CJK characters take two columns)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in str(text))


def pad(text, n, right=False):
    fill = " " * max(0, n - width(text))
    return fill + str(text) if right else str(text) + fill


def fmt(value, spec, unit=""):
    if value is None:
        return "–"
    return format(value, spec) + unit


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def size_label(n):
    return f"{n:,}"


def readable_table(results):
    sizes = results["sizes"]
    head = ["metric"]
    for s in sizes:
        head += [f"blog {size_label(s['posts'])}", f"hugo {size_label(s['posts'])}", "hugo/blog"]
    rows = []

    def row(name, blog_value, hugo_value, spec, unit="", show_ratio=True):
        cells = [name]
        for s in sizes:
            b = blog_value(s)
            h = hugo_value(s) if s.get("hugo") and "full" in s["hugo"] else None
            cells += [fmt(b, spec, unit), fmt(h, spec, unit), fmt(ratio(h, b), ".2f", "×") if show_ratio else ""]
        rows.append(cells)

    row("full build, wall (s)", lambda s: s["blog"]["full"]["wall_s"], lambda s: s["hugo"]["full"]["wall_s"], ".2f")
    row("  Hugo without related (s)", lambda s: s["blog"]["full"]["wall_s"],
        lambda s: (s.get("hugo_plain") or {}).get("full", {}).get("wall_s"), ".2f")
    row("CPU user+sys (s)", lambda s: s["blog"]["full"]["cpu_s"], lambda s: s["hugo"]["full"]["cpu_s"], ".2f")
    row("  full build into RAM (s)", lambda s: s["blog"].get("full_ram", {}).get("wall_s"), lambda s: None, ".2f", show_ratio=False)
    row("  same, input not cached (s)", lambda s: s["blog"].get("cold_ram", {}).get("wall_s"), lambda s: None, ".2f", show_ratio=False)
    row("  files alone, disk (s)", lambda s: s["blog"].get("files_disk", {}).get("wall_s"), lambda s: None, ".2f", show_ratio=False)
    row("  files alone, RAM (s)", lambda s: s["blog"].get("files_ram", {}).get("wall_s"), lambda s: None, ".2f", show_ratio=False)
    row("peak RSS (MB)", lambda s: s["blog"]["full"]["rss_mb"], lambda s: s["hugo"]["full"]["rss_mb"], ".0f")
    row("HTML pages", lambda s: s["blog"]["html_pages"], lambda s: s["hugo"]["html_pages"], "d", show_ratio=False)
    row("pages/s (wall)", lambda s: s["blog"]["full"]["pages_per_s"], lambda s: s["hugo"]["full"]["pages_per_s"], ".0f")
    row("runs (median of)", lambda s: s["blog"]["full"]["runs"], lambda s: s["hugo"]["full"]["runs"], "d", show_ratio=False)
    row("no-change rebuild, wall (s)", lambda s: s["blog"]["rebuild"]["wall_s"], lambda s: None, ".2f", show_ratio=False)
    row("  same with --force (s)", lambda s: s["blog"].get("forced_rebuild", {}).get("wall_s"), lambda s: None, ".2f", show_ratio=False)
    row("output size (MB)", lambda s: (s["blog"]["output_bytes"] or 0) / 1e6, lambda s: (s["hugo"]["output_bytes"] or 0) / 1e6, ".1f", show_ratio=False)
    row("search index (KB)", lambda s: None if s["blog"]["search_index_bytes"] is None else s["blog"]["search_index_bytes"] / 1e3,
        lambda s: None, ".0f", show_ratio=False)
    row("render phase share", lambda s: None if s["blog"]["render_share"] is None else 100 * s["blog"]["render_share"],
        lambda s: None, ".1f", "%", show_ratio=False)
    row("Markdown MB/s (1 thread)", lambda s: s.get("markdown", {}).get("qiita_mb_s"), lambda s: None, ".1f", show_ratio=False)
    row("  vs raw cmark (×)", lambda s: s.get("markdown", {}).get("ratio_qiita_vs_raw_cmark"), lambda s: None, ".2f", show_ratio=False)
    row("TeX→MathML formulas/s (1 thr.)", lambda s: s.get("math", {}).get("formulas_per_second"), lambda s: None, ".0f", show_ratio=False)
    row("render phase pages/s", lambda s: s.get("templates", {}).get("render_pages_per_s"), lambda s: None, ".0f", show_ratio=False)
    row("post template posts/s (1 thr.)", lambda s: s.get("templates", {}).get("post_template_posts_per_s"), lambda s: None, ".0f", show_ratio=False)
    row("serve reload latency (ms)", lambda s: None if "median_s" not in s.get("serve", {}) else 1000 * s["serve"]["median_s"],
        lambda s: None, ".0f", show_ratio=False)

    def http_rps(s, path):
        for r in (s.get("http") or {}).get("results", []):
            if r["path"] == path:
                return r["requests_per_s"]
        return None
    row("serve: requests/s, /robots.txt", lambda s: http_rps(s, "/robots.txt"), lambda s: None, ".0f", show_ratio=False)
    row("serve: requests/s, home page", lambda s: http_rps(s, "/"), lambda s: None, ".0f", show_ratio=False)
    row("serve --poll: idle CPU (% core)", lambda s: None if "idle_core_share" not in s.get("watch", {}) else 100 * s["watch"]["idle_core_share"],
        lambda s: None, ".1f", show_ratio=False)
    row("serve --poll: edit seen (ms)", lambda s: None if "edit_reported_s" not in s.get("watch", {}) else 1000 * s["watch"]["edit_reported_s"],
        lambda s: None, ".0f", show_ratio=False)

    widths = [max(width(r[i]) for r in [head] + rows) for i in range(len(head))]
    lines = ["  ".join(pad(c, widths[i], right=i > 0) for i, c in enumerate(r)) for r in [head] + rows]
    lines.insert(1, "-" * len(lines[0]))
    out = "\n".join(lines)

    # Per-phase timings.
    note = memory_note(results["machine"])
    if note:
        out += "\n\nmachine: " + note
    out += "\n\nblog build phases (ms, median; full build / no-change rebuild with --force / full build into RAM):\n"
    for s in sizes:
        phases = s["blog"]["phases_s"]
        rebuild = s["blog"]["rebuild"].get("phases_s", {})
        ram = s["blog"].get("full_ram", {}).get("phases_s", {})
        out += f"  {size_label(s['posts']):>7} posts: " + ", ".join(
            f"{k} {1000 * v:.0f}/{1000 * rebuild.get(k, 0):.0f}/{1000 * ram.get(k, 0):.0f}" for k, v in phases.items()) + "\n"
    # Search queries.
    for s in sizes:
        search = s.get("search", {})
        if "queries" in search:
            out += (f"\nsearch, {size_label(s['posts'])} posts: index {search['index_bytes'] / 1e3:.0f} KB in {search['index_files']} files "
                    f"({search['shards']} shards); what a browser fetches per query (meta + shards + doc chunks of the top 10):\n")
            for q in search["queries"]:
                gz = q.get("gzip_bytes")
                out += (f"  {pad(q['query'], 20)} {q['bytes'] / 1e3:7.1f} KB ({'–' if gz is None else format(gz / 1e3, '.1f')} KB gzip)"
                        f"  {len(q['files']):2d} files  {q['hits']:6d} hits\n")
        elif "skipped" in search:
            out += f"\nsearch, {size_label(s['posts'])} posts: skipped ({search['skipped']})\n"
        serve = s.get("serve", {})
        if "skipped" in serve:
            out += f"serve reload latency, {size_label(s['posts'])} posts: skipped ({serve['skipped']})\n"
        elif "median_s" in serve:
            out += (f"serve, {size_label(s['posts'])} posts: startup {serve['startup_s']:.2f} s; edit → reload event "
                    + ", ".join(f"{1000 * x:.0f}" for x in serve["latencies_s"]) + f" ms (median {1000 * serve['median_s']:.0f} ms)\n")
    math = results.get("math_archive")
    if math:
        converted, kept = math["mathml"], math["keep"]
        out += (f"\nmath-heavy archive (~{math['formulas']:,} formulas), into RAM: MathML {converted['wall_s']:.2f} s "
                f"({converted['cpu_s']:.2f} s CPU), TeX kept {kept['wall_s']:.2f} s ({kept['cpu_s']:.2f} s CPU): "
                f"converting costs {converted['cpu_s'] - kept['cpu_s']:.2f} CPU-s\n")
    return out


def fewer_runs_note(results):
    notes = []
    for s in results["sizes"]:
        for name, key in (("blog", "blog"), ("Hugo", "hugo")):
            runs = (s.get(key) or {}).get("full", {}).get("runs")
            if runs is not None and runs < results["runs"]:
                notes.append(f"{name} at {size_label(s['posts'])} posts: {runs} run{'s' if runs != 1 else ''}")
    return f" ({'; '.join(notes)})" if notes else ""


def hugo_note(version):
    if not version:
        return "no Hugo comparison (not installed or --no-hugo)"
    m = re.search(r"v[0-9][0-9.]*", version)
    return "Hugo " + (m.group(0) if m else version) + " with the minimal theme in scripts/bench/hugo-theme"


def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def readme_table(results):
    """The README's Performance table: the largest corpus, blog against Hugo's lower ratio."""
    s = max(results["sizes"], key=lambda s: s["posts"])
    b = s["blog"]
    runs = [e for e in (s.get("hugo"), s.get("hugo_plain")) if e and "full" in e]
    hugo = min(runs, key=lambda e: e["full"]["wall_s"]) if runs else None
    plain = hugo is not None and hugo is s.get("hugo_plain")
    serve = s.get("serve", {}).get("median_s")
    per_query = median([q["bytes"] / 1e3 for q in s.get("search", {}).get("queries", [])])

    def cell(value, fmt):
        return "" if value is None else fmt.format(value)

    def memory(mb):
        return f"{mb / 1000:.1f} GB" if mb >= 1000 else f"{mb:.0f} MB"

    hw, hm = (hugo["full"]["wall_s"], hugo["full"]["rss_mb"]) if hugo else (None, None)
    version = re.search(r"v?(\d+\.\d+)", results.get("hugo_version") or "")
    lines = [f"| {size_label(s['posts'])} posts | blog | Hugo{' ' + version.group(1) if version else ''}"
             f"{', no related posts' if plain else ''} | Hugo / blog |",
             "|---|--:|--:|--:|",
             f"| full build | {b['full']['wall_s']:.1f} s | {cell(hw, '{:.1f} s')} | {cell(ratio(hw, b['full']['wall_s']), '{:.0f}×')} |",
             f"| peak memory | {memory(b['full']['rss_mb'])} | {'' if hm is None else memory(hm)} | {cell(ratio(hm, b['full']['rss_mb']), '{:.0f}×')} |",
             f"| no-change rebuild | {b['rebuild']['wall_s']:.2f} s | | |",
             f"| `blog serve`: edit → browser reload | {cell(None if serve is None else 1000 * serve, '{:.0f} ms')} | | |",
             f"| search: bytes fetched per query (median) | {cell(per_query, '{:.0f} KB')} | | |"]
    return "\n".join(lines)


def markdown_table(results):
    """docs/benchmarks.md's table of the latest results: one row per corpus size."""
    m = results["machine"]
    lines = [f"Measured {results['date']} on {m['nproc']} cores ({m['cpu']}) with `{results['command']}`, "
             f"median of {results['runs']} run{'s' if results['runs'] != 1 else ''}{fewer_runs_note(results)}; "
             f"{hugo_note(results['hugo_version'])}.", ""]
    lines.append("| posts | blog build | peak memory | Hugo | Hugo, no related posts | Hugo / blog (lower) "
                 "| no-change rebuild | serve edit → reload | search, KB per query (median) |")
    lines.append("|--:|--:|--:|--:|--:|--:|--:|--:|--:|")

    def wall(entry):
        return entry["full"]["wall_s"] if entry and "full" in entry else None

    for s in results["sizes"]:
        b = s["blog"]
        hugo, plain = wall(s.get("hugo")), wall(s.get("hugo_plain"))
        ratios = [r for r in (ratio(hugo, b["full"]["wall_s"]), ratio(plain, b["full"]["wall_s"])) if r is not None]
        serve = s.get("serve", {}).get("median_s")
        per_query = median([q["bytes"] / 1e3 for q in s.get("search", {}).get("queries", [])])
        lines.append("| {posts} | {wall:.2f} s | {rss:.0f} MB | {hugo} | {plain} | {ratio} | {rebuild:.2f} s | {serve} | {query} |".format(
            posts=size_label(s["posts"]), wall=b["full"]["wall_s"], rss=b["full"]["rss_mb"],
            hugo="–" if hugo is None else f"{hugo:.2f} s", plain="–" if plain is None else f"{plain:.2f} s",
            ratio="–" if not ratios else f"{min(ratios):.1f}×", rebuild=b["rebuild"]["wall_s"],
            serve="–" if serve is None else f"{1000 * serve:.0f} ms",
            query="–" if per_query is None else f"{per_query:.0f}"))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blog", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--corpus", action="append", required=True, help="N=DIR")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--runs-max-posts", type=int, default=10000, help="larger corpora are built once")
    parser.add_argument("--hugo-runs-large", type=int, default=1, help="Hugo runs for corpora over 1,000 posts")
    parser.add_argument("--hugo-max-posts", type=int, default=10000)
    parser.add_argument("--no-hugo", action="store_true")
    parser.add_argument("--no-serve", action="store_true")
    parser.add_argument("--serve-max-posts", type=int, default=10000)
    parser.add_argument("--micro-max-posts", type=int, default=10000, help="run blog-bench only up to this corpus size")
    parser.add_argument("--math-corpus", help="a math-heavy corpus (gen_corpus.py --math) to build with and without MathML")
    parser.add_argument("--json", default=".bench/results.json")
    parser.add_argument("--command", default="scripts/bench.sh")
    parser.add_argument("--work", default=".bench")
    args = parser.parse_args()

    started = time.monotonic()
    hugo = None if args.no_hugo or shutil.which("hugo") is None else hugo_version()
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": args.command,
        "runs": args.runs,
        "machine": {"nproc": os.cpu_count(), "cpu": cpu, "loadavg_at_start": os.getloadavg()},
        "blog_version": subprocess.run([args.blog, "--version"], capture_output=True, text=True).stdout.strip() or None,
        "hugo_version": hugo,
        "sizes": [],
    }
    # Before anything else touches memory: how much a page of fresh memory costs here.
    log("== machine: fresh memory")
    results["machine"]["memory"] = memory_cost(args.bench)
    # Outputs of a previous bench are moved aside, to be deleted at the end with this bench's.
    DELETE_STAMP[0] = os.path.join(args.work, ".last-delete")
    trash = os.path.join(args.work, "trash")
    if os.path.isdir(trash):  # left by a bench that stopped early
        GARBAGE.extend(os.path.join(trash, name) for name in sorted(os.listdir(trash)))
    for spec in args.corpus:
        base = os.path.join(args.work, f"out-{int(spec.split('=', 1)[0])}")
        for leftover in [base, f"{base}.files"] + [f"{base}.run{i}" for i in range(max(args.runs, 10))]:
            retire(leftover, args.work)
    for spec in args.corpus:
        n_text, corpus = spec.split("=", 1)
        n = int(n_text)
        log(f"== {size_label(n)} posts ({corpus})")
        entry = {"posts": n, "corpus": corpus}
        out = os.path.join(args.work, f"out-{n}")
        runs = args.runs if n <= args.runs_max_posts else 1
        entry["blog"] = bench_blog(args.blog, args.bench, corpus, out, runs)
        if hugo and n <= args.hugo_max_posts:
            runs = args.runs if n <= 1000 else max(1, min(runs, args.hugo_runs_large))
            entry["hugo"] = bench_hugo(corpus, runs)
            entry["hugo_plain"] = bench_hugo(corpus, runs, related=False)
        elif hugo:
            entry["hugo"] = {"skipped": f"over --hugo-max-posts {args.hugo_max_posts}"}
        else:
            entry["hugo"] = {"skipped": "hugo not installed" if not args.no_hugo else "--no-hugo"}
        if n <= args.micro_max_posts:
            entry["markdown"] = blog_bench(args.bench, "markdown", corpus, args.runs)
            entry["templates"] = blog_bench(args.bench, "templates", corpus, args.runs if n <= 1000 else 1)
            entry["math"] = blog_bench(args.bench, "math", MATH_CORPUS, args.runs)
            entry["search"] = blog_bench(args.bench, "search", corpus, 1)
            entry["http"] = blog_bench(args.bench, "http", corpus, 1)
            entry["watch"] = blog_bench(args.bench, "watch", corpus, 3)
            if "queries" in entry["search"]:
                # gzip sizes of the same files as written to disk by the full build (what a CDN would send).
                import gzip
                for q in entry["search"]["queries"]:
                    total = 0
                    for path in q["files"]:
                        disk = os.path.join(out, path)
                        if os.path.exists(disk):
                            with open(disk, "rb") as f:
                                total += len(gzip.compress(f.read(), 6, mtime=0))
                    q["gzip_bytes"] = total
        if not args.no_serve and n <= args.serve_max_posts:
            log("    serve reload latency…")
            entry["serve"] = serve_latency.measure(args.blog, corpus, garbage=GARBAGE)
            freed()
        else:
            entry["serve"] = {"skipped": "--no-serve" if args.no_serve else f"over --serve-max-posts {args.serve_max_posts}"}
        results["sizes"].append(entry)

    if args.math_corpus:
        log(f"== math-heavy archive ({args.math_corpus})")
        results["math_archive"] = bench_math_archive(args.blog, args.math_corpus, args.runs)
    delete_garbage()
    results["elapsed_s"] = time.monotonic() - started
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(readable_table(results))
    print(f"\nResults: {args.json} (measured in {results['elapsed_s']:.0f} s)\n")
    print("Markdown for README.md:\n")
    print(readme_table(results))
    print("\nMarkdown for docs/benchmarks.md:\n")
    print(markdown_table(results))


if __name__ == "__main__":
    main()
