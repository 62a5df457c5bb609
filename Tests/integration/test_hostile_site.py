"""What a hostile or unlucky site folder does to `blog build` (issue 42): links out of the site,
files that are not regular files, too many tags, bad ids, and the smaller traps. Each case runs
`blog build` on a tiny site and checks the message and that nothing was written."""
import json
import os
import pathlib
import re

import pytest

from conftest import run_blog

POST = """---
title: {title}
date: 2020-01-01T00:00:00+09:00
{extra}---
body text
"""


def make_site(root, posts=None, config="title: T\nbase_url: https://example.com/\n"):
    root = pathlib.Path(root)
    (root / "content" / "posts").mkdir(parents=True)
    (root / "blog.yml").write_text(config)
    for name, text in (posts or {"a.md": POST.format(title="A", extra="")}).items():
        (root / "content" / "posts" / name).write_text(text)
    return root


def build(site, *extra, output=None):
    output = output or site.parent / (site.name + "-out")
    result = run_blog("build", "--source", site, "--output", output, "--quiet", *extra, check=False)
    return result, pathlib.Path(output)


def published(output):
    return sorted(str(p.relative_to(output)) for p in output.rglob("*") if p.is_file())


# 1. Symbolic links out of the site folder

@pytest.fixture
def outside(tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "shadow").write_text("root:x:secret\n")
    return secret


@pytest.mark.parametrize("where", ["static/etc", "content/etc", "layouts/etc", "themes/default"])
def test_link_out_of_the_site_is_refused_naming_link_and_target(tmp_path, outside, where):
    site = make_site(tmp_path / "site")
    link = site / where
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    result, output = build(site)
    assert result.returncode == 1, result.stderr
    assert where in result.stderr and str(outside) in result.stderr and "outside the site folder" in result.stderr
    assert not output.exists()


def test_link_to_one_file_out_of_the_site_is_refused(tmp_path, outside):
    site = make_site(tmp_path / "site")
    (site / "static").mkdir()
    (site / "static" / "shadow").symlink_to(outside / "shadow")
    result, output = build(site)
    assert result.returncode == 1 and "static/shadow" in result.stderr
    assert not output.exists()


def test_link_out_is_followed_when_allowed(tmp_path, outside):
    site = make_site(tmp_path / "site")
    (site / "static").mkdir()
    (site / "static" / "etc").symlink_to(outside)
    result, output = build(site, "--allow-outside-links")
    assert result.returncode == 0, result.stderr
    assert (output / "etc" / "shadow").read_text() == "root:x:secret\n"
    (site / "blog.yml").write_text("title: T\nfollow_outside_links: true\n")
    result, output = build(site, output=tmp_path / "out2")
    assert result.returncode == 0, result.stderr
    assert (output / "etc" / "shadow").exists()


def test_links_inside_the_site_are_followed(tmp_path):
    site = make_site(tmp_path / "site")
    (site / "assets").mkdir()
    (site / "assets" / "logo.txt").write_text("logo")
    (site / "static").mkdir()
    (site / "static" / "img").symlink_to("../assets")
    (site / "static" / "logo.txt").symlink_to("../assets/logo.txt")
    (site / "drafts").mkdir()
    (site / "drafts" / "b.md").write_text(POST.format(title="Linked", extra="slug: linked\n"))
    (site / "content" / "posts" / "b.md").symlink_to("../../drafts/b.md")
    result, output = build(site)
    assert result.returncode == 0, result.stderr
    assert (output / "img" / "logo.txt").read_text() == "logo"
    assert (output / "logo.txt").read_text() == "logo"
    assert "Linked" in (output / "posts" / "linked" / "index.html").read_text()


def test_link_loops_and_broken_links_are_reported(tmp_path):
    site = make_site(tmp_path / "site")
    static = site / "static"
    (static / "deep").mkdir(parents=True)
    (static / "deep" / "up").symlink_to("..")
    (static / "self").symlink_to("self")
    (static / "gone").symlink_to("nowhere")
    result, output = build(site)
    assert result.returncode == 1
    assert re.search(r"static/deep/up: error: .*loop", result.stderr), result.stderr
    assert re.search(r"static/self: error: .*loop", result.stderr), result.stderr
    assert re.search(r"static/gone: error: .*broken", result.stderr), result.stderr
    assert not output.exists()


# 6. Only regular files are read, and none over the size limit

def test_fifo_named_md_is_an_error_not_a_hang(tmp_path):
    site = make_site(tmp_path / "site")
    os.mkfifo(site / "content" / "posts" / "pipe.md")
    result, output = build(site)  # a hang fails on run_blog's timeout
    assert result.returncode == 1
    assert "content/posts/pipe.md" in result.stderr and "FIFO" in result.stderr
    assert not output.exists()


def test_post_linked_to_a_device_is_an_error(tmp_path):
    site = make_site(tmp_path / "site")
    (site / "content" / "posts" / "zero.md").symlink_to("/dev/zero")
    result, _ = build(site, "--allow-outside-links")
    assert result.returncode == 1, result.stderr
    assert "content/posts/zero.md" in result.stderr and "not a regular file" in result.stderr


def test_fifo_in_static_is_an_error(tmp_path):
    site = make_site(tmp_path / "site")
    (site / "static").mkdir()
    os.mkfifo(site / "static" / "feed")
    result, _ = build(site)
    assert result.returncode == 1 and "static/feed" in result.stderr and "FIFO" in result.stderr


def test_markdown_file_over_the_size_limit(tmp_path):
    body = "x" * (1 << 20) + "\n"
    site = make_site(tmp_path / "site", config="title: T\nlimits:\n  max_file_mb: 1\n",
                     posts={"big.md": POST.format(title="Big", extra="") + body})
    result, output = build(site)
    assert result.returncode == 1
    assert "content/posts/big.md" in result.stderr and "limits.max_file_mb" in result.stderr
    (site / "blog.yml").write_text("title: T\nlimits:\n  max_file_mb: 2\n")
    result, output = build(site)
    assert result.returncode == 0, result.stderr


# 5. Tags: at most 50 a post

def tags_post(count):
    return POST.format(title="Tagged", extra="tags:\n" + "".join(f"  - t{n}\n" for n in range(count)))


def test_fifty_tags_are_accepted_fifty_one_refused_with_the_line(tmp_path):
    site = make_site(tmp_path / "site", posts={"a.md": tags_post(50)})
    result, output = build(site)
    assert result.returncode == 0, result.stderr
    assert len([p for p in (output / "tags").iterdir() if p.is_dir()]) == 50
    site = make_site(tmp_path / "site2", posts={"a.md": tags_post(51)})
    result, output = build(site)
    assert result.returncode == 1
    assert "content/posts/a.md:4:" in result.stderr and "at most 50 tags" in result.stderr


def longest_post(title=300, description=1000, tag=50, slug=200):
    """A post whose title, description, 50 tags and slug are each `n` long (characters; bytes for the slug)."""
    tags = "".join(f"  - {n:02d}{'タ' * (tag - 2)}\n" for n in range(50))
    extra = f"description: {'説' * description}\nslug: {'s' * slug}\ntags:\n{tags}"
    return POST.format(title="題" * title, extra=extra)


def test_longest_allowed_values_keep_the_output_linear(tmp_path):
    # Title, description and tag names are repeated on every list, tag page and feed the post is
    # in: at their limits, with 50 tags, one post still makes a few megabytes, not hundreds.
    site = make_site(tmp_path / "site", posts={"a.md": longest_post()})
    result, output = build(site)
    assert result.returncode == 0, result.stderr
    total = sum(p.stat().st_size for p in output.rglob("*") if p.is_file())
    assert total < 12_000_000, total


@pytest.mark.parametrize("field, line, message", [
    ("title", 2, "'title' is 301 characters long; at most 300"),
    ("description", 4, "'description' is 1001 characters long; at most 1000"),
    ("tag", 7, "a tag is 51 characters long; at most 50"),
    ("slug", 5, "'slug' is 201 bytes long; at most 200"),
])
def test_one_more_character_is_refused_with_the_line(tmp_path, field, line, message):
    limits = {"title": 300, "description": 1000, "tag": 50, "slug": 200}
    limits[field] += 1
    site = make_site(tmp_path / "site", posts={"a.md": longest_post(**limits)})
    result, output = build(site)
    assert result.returncode == 1
    assert f"content/posts/a.md:{line}:" in result.stderr and message in result.stderr, result.stderr
    assert not output.exists()


def test_tag_of_many_bytes_is_refused_with_the_line(tmp_path):
    # 50 characters, but each a family emoji of 25 bytes: too long for a folder's name.
    family = "\U0001F468\u200D\U0001F469\u200D\U0001F467\u200D\U0001F466\uFE0F"
    site = make_site(tmp_path / "site", posts={"a.md": POST.format(title="A", extra=f"tags: [\"{family * 10}\"]\n")})
    result, output = build(site)
    assert result.returncode == 1
    assert "content/posts/a.md:4:" in result.stderr and "bytes long; at most 200" in result.stderr, result.stderr
    assert not output.exists()


def test_long_id_is_refused_like_a_long_slug(tmp_path):
    site = make_site(tmp_path / "site", posts={"a.md": POST.format(title="A", extra=f"id: {'i' * 201}\n")})
    result, output = build(site)
    assert result.returncode == 1
    assert "content/posts/a.md:4:5:" in result.stderr and "'id' is 201 bytes long" in result.stderr
    assert not output.exists()


# 8. `id:` is checked like `slug:`

@pytest.mark.parametrize("bad", ["../../x", "a/b", ".hidden", "a\\\\b"])
def test_bad_id_is_an_error_with_its_line(tmp_path, bad):
    site = make_site(tmp_path / "site", posts={"a.md": POST.format(title="A", extra=f'id: "{bad}"\n')})
    result, output = build(site)
    assert result.returncode == 1
    assert "content/posts/a.md:4:" in result.stderr and "'id' must be one path segment" in result.stderr
    assert not output.exists()


def test_qiita_id_makes_the_url(tmp_path):
    site = make_site(tmp_path / "site", posts={"a.md": POST.format(title="A", extra="id: 0123456789abcdef0123\n")})
    result, output = build(site)
    assert result.returncode == 0, result.stderr
    assert (output / "posts" / "0123456789abcdef0123" / "index.html").exists()


# 13. The smaller traps

@pytest.mark.parametrize("inside", ["static", "content", "static/out", "layouts", "themes/x"])
def test_output_into_a_folder_blog_reads_is_refused(tmp_path, inside):
    site = make_site(tmp_path / "site")
    (site / "static").mkdir()
    (site / "static" / "keep.txt").write_text("keep")
    result, output = build(site, output=site / inside)
    assert result.returncode == 1
    assert "blog reads that" in result.stderr, result.stderr
    assert sorted(p.name for p in (site / "static").iterdir()) == ["keep.txt"]


def test_duplicate_keys_are_warnings_naming_both_lines(tmp_path):
    post = "---\ntitle: First\ndate: 2020-01-01T00:00:00+09:00\ntitle: Second\n---\nbody\n"
    site = make_site(tmp_path / "site", config="title: A\nfeed_limit: 5\ntitle: B\n", posts={"a.md": post})
    result = run_blog("build", "--source", site, "--output", tmp_path / "out", check=False)
    assert result.returncode == 0, result.stderr
    assert "blog.yml:3:1: warning: 'title' is given twice, on lines 1 and 3" in result.stderr
    assert "content/posts/a.md:4:1: warning: 'title' is given twice, on lines 2 and 4" in result.stderr


def test_old_mac_line_endings_get_a_message_that_says_so(tmp_path):
    post = POST.format(title="A", extra="").replace("\n", "\r")
    site = make_site(tmp_path / "site", posts={"a.md": post})
    result, output = build(site)
    assert result.returncode == 1
    assert "content/posts/a.md:1:1: error:" in result.stderr and "CR only" in result.stderr
    (site / "content" / "posts" / "a.md").write_text(post.replace("\r", "\r\n"))
    result, output = build(site)
    assert result.returncode == 0, result.stderr


def test_tag_slugs_drop_bidi_controls_and_avoid_windows_reserved_names(tmp_path):
    tags = ["con", "NUL", "com1", "lpt9", "aux.h", "sw\u202eift", "\u2066ios\u2069", "console"]
    extra = "tags:\n" + "".join(f'  - "{t}"\n' for t in tags)
    site = make_site(tmp_path / "site", posts={"a.md": POST.format(title="A", extra=extra)})
    result, output = build(site)
    assert result.returncode == 0, result.stderr
    slugs = sorted(p.name for p in (output / "tags").iterdir() if p.is_dir())
    assert slugs == sorted(["con-tag", "nul-tag", "com1-tag", "lpt9-tag", "aux.h-tag", "swift", "ios", "console"])


def test_less_than_in_the_search_index_is_escaped(tmp_path):
    post = POST.format(title="A <script>alert(1)</script>", extra="tags: [\"<b>\"]\n")
    site = make_site(tmp_path / "site", posts={"a.md": post})
    result, output = build(site)
    assert result.returncode == 0, result.stderr
    shards = list((output / "search").rglob("*.json"))
    assert shards
    text = "".join(p.read_text() for p in shards)
    assert "<" not in text and "\\u003cscript" in text
    docs = [json.loads(p.read_text()) for p in shards]
    assert "A <script>alert(1)</script>" in json.dumps(docs, ensure_ascii=False)


# 5 and 7. A very long post is not copied into every feed that lists it

def test_a_very_long_post_is_in_its_feeds_by_summary_and_link(tmp_path):
    # One fenced block (cheap to render) makes the post's HTML over a megabyte.
    code = "".join(f"line {n} of a long listing\n" for n in range(45000))
    post = POST.format(title="Long", extra="tags: [a, b, c]\n").replace("body text\n", "intro\n\n```\n" + code + "```\n")
    site = make_site(tmp_path / "site", posts={"long.md": post, "short.md": POST.format(title="Short", extra="tags: [a]\n")})
    result, output = build(site)
    assert result.returncode == 0, result.stderr
    page = (output / "posts" / "long" / "index.html").read_text()
    assert "line 44999 of a long listing" in page and len(page) > 1 << 20
    for feed in [output / "feed.xml", *(output / "tags" / t / "feed.xml" for t in "abc")]:
        text = feed.read_text()
        assert "line 44999" not in text and len(text) < 64 << 10, feed
        assert "https://example.com/posts/long/" in text and "<summary>intro" in text
    # A post of ordinary length keeps its content in the feed.
    assert "<content type=\"html\"><![CDATA[<p>body text</p>" in (output / "tags" / "a" / "feed.xml").read_text()
