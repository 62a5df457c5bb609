#!/usr/bin/env python3
"""Text-dump fixtures for `blog import text`.

  dump-fixtures.py flatten DIR   writes DIR/NN-name.txt from each hand-written DIR/NN-name.md, losing
                                 the Markdown the way the Qiita text dumps did (see docs in DESIGN.md:
                                 a line break after every inline code span and usually before it, code
                                 blocks joined with single spaces and glued to the prose around them, a
                                 fence's file name glued in front, headings glued to the paragraph
                                 before, <br> a line break, blank lines gone).
  dump-fixtures.py metrics DIR BLOG [PREFIX...]
                                 imports every DIR/*.txt with BLOG into a scratch site and compares the
                                 posts with the .md files: inline code spans (precision/recall), code
                                 lines inside fences, code lines whose line breaks match, headings
                                 (precision/recall). PREFIXes limit the comparison to
                                 the fixtures whose names start with them.
"""
import collections, glob, os, re, subprocess, sys, tempfile

FENCE = re.compile(r"^(`{3,})([^`:]*)(?::(.*))?$")
SPAN = re.compile(r"(`+)(.+?)\1")


def parse_md(path):
    """(date, title, body lines) of a hand-written fixture."""
    lines = open(path, encoding="utf-8").read().split("\n")
    date = lines[0].split(": ", 1)[1]
    title = lines[1].split(": ", 1)[1]
    return date, title, lines[3:]


def blocks(body):
    """The body as items: ('code', label, [lines]), ('heading', text), ('line', text)."""
    items, index = [], 0
    while index < len(body):
        line = body[index]
        match = FENCE.match(line)
        if match:
            fence, code = match.group(1), []
            index += 1
            while index < len(body) and body[index] != fence:
                code.append(body[index])
                index += 1
            items.append(("code", match.group(3), code))
        elif line.startswith("#"):
            items.append(("heading", line.lstrip("#").strip()))
        elif line.strip():
            items.append(("line", line))
        index += 1
    return items


def flatten_prose(line, counter):
    """A prose line as the dump has it: each span on a line of its own, its break before sometimes lost."""
    out, position = "", 0
    for match in SPAN.finditer(line):
        before = line[position:match.start()]
        out += before
        counter[0] += 1
        # The break before a span is missing now and then (every third span here).
        if out and not (counter[0] % 3 == 0 and before):
            out += "\n"
        out += match.group(2) + "\n"
        position = match.end()
    out += line[position:]
    out = out.replace("<br>", "")
    return out.rstrip("\n")


def flatten(path):
    date, title, body = parse_md(path)
    out = []  # the dump's lines
    glue_next = False
    counter = [0]
    for item in blocks(body):
        if item[0] == "code":
            text = " ".join(line.strip() for line in item[2] if line.strip())
            if item[1]:
                text = item[1] + text
            if out:
                out[-1] += text
            else:
                out.append(text)
            glue_next = True
        elif item[0] == "heading":
            if out:
                out[-1] += item[1]
            else:
                out.append(item[1])
            glue_next = False
        else:
            text = flatten_prose(item[1], counter)
            if glue_next and out:
                first, _, rest = text.partition("\n")
                out[-1] += first
                if rest:
                    out.extend(rest.split("\n"))
            else:
                out.extend(text.split("\n"))
            glue_next = False
    return "- 投稿日:%s\n%s\n%s\n" % (date, title, "\n".join(out))


def expected_parts(body):
    spans, headings, code = [], [], []
    for item in blocks(body):
        if item[0] == "code":
            code.append([line.rstrip() for line in item[2] if line.strip()])
        elif item[0] == "heading":
            headings.append(item[1])
        else:
            spans += [m.group(2) for m in SPAN.finditer(item[1])]
    return spans, headings, code


def counts(expected, found):
    e, f = collections.Counter(expected), collections.Counter(found)
    hits = sum((e & f).values())
    return hits, sum(f.values()), sum(e.values())


def metrics(directory, blog, names=()):
    site = tempfile.mkdtemp(prefix="dump-metrics-")
    os.makedirs(os.path.join(site, "content", "posts"))
    open(os.path.join(site, "blog.yml"), "w").write("title: metrics\nbase_url: https://example.com/\n")
    dumps = sorted(os.path.abspath(p) for p in glob.glob(os.path.join(directory, "*.txt")))
    subprocess.run([blog, "import", "text", "--keep-duplicates"] + dumps, cwd=site, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    posts = {}
    for post in glob.glob(os.path.join(site, "content", "posts", "*.md")):
        text = open(post, encoding="utf-8").read()
        front, body = text.split("\n---\n", 1)
        title = re.search(r"^title: (.*)$", front, re.M).group(1).strip().strip('"')
        posts[title] = body.lstrip("\n").split("\n")
    totals = collections.defaultdict(int)
    for md in sorted(glob.glob(os.path.join(directory, "*.md"))):
        if names and not any(os.path.basename(md).startswith(name) for name in names):
            continue
        _, title, body = parse_md(md)
        if title not in posts:
            print("missing post for", md)
            continue
        want_spans, want_headings, want_code = expected_parts(body)
        got_spans, got_headings, got_code = expected_parts(posts[title])
        for name, want, got in (("span", want_spans, got_spans), ("heading", want_headings, got_headings)):
            hits, found, expected = counts(want, got)
            totals[name + "_hits"] += hits
            totals[name + "_found"] += found
            totals[name + "_expected"] += expected
        fenced = "".join("".join(block) for block in got_code).replace(" ", "")
        got_lines = collections.Counter(line.replace(" ", "") for block in got_code for line in block)
        got_indented = collections.Counter(line for block in got_code for line in block)
        want_fenced = "".join("".join(block) for block in want_code).replace(" ", "")
        for block in got_code:
            for line in block:
                totals["fenced_lines"] += 1
                totals["fenced_not_code"] += line.replace(" ", "") not in want_fenced
        for block in want_code:
            for line in block:
                key = line.replace(" ", "")
                totals["code_lines"] += 1
                totals["code_in_fence"] += key in fenced
                if got_lines[key] > 0:
                    got_lines[key] -= 1
                    totals["code_breaks"] += 1
                if got_indented[line] > 0:
                    got_indented[line] -= 1
                    totals["code_indented"] += 1
    def ratio(a, b):
        return "%d/%d = %.0f%%" % (a, b, 100.0 * a / b if b else 100.0)
    print("inline code spans: precision", ratio(totals["span_hits"], totals["span_found"]),
          " recall", ratio(totals["span_hits"], totals["span_expected"]))
    print("code lines inside fences:", ratio(totals["code_in_fence"], totals["code_lines"]))
    print("code lines whose line breaks match:", ratio(totals["code_breaks"], totals["code_lines"]))
    print("code lines whose line breaks and indentation match:", ratio(totals["code_indented"], totals["code_lines"]))
    print("fenced lines that are not code (prose taken for code):", ratio(totals["fenced_not_code"], totals["fenced_lines"]))
    print("headings: precision", ratio(totals["heading_hits"], totals["heading_found"]),
          " recall", ratio(totals["heading_hits"], totals["heading_expected"]))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "flatten":
        for md in sorted(glob.glob(os.path.join(sys.argv[2], "*.md"))):
            open(md[:-3] + ".txt", "w", encoding="utf-8").write(flatten(md))
    elif len(sys.argv) >= 4 and sys.argv[1] == "metrics":
        metrics(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)
