"""blog's GitHub Action and the workflow `blog init` writes: schema checks (what GitHub would
reject), pinned `uses:`, and the action's build script run end to end on a fresh `blog init` site;
plus `blog build`'s warning about a local base_url."""
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO, blog_binary, run_blog

PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@v\d+$")


def check_schema(schema, path):
    # The GitHub schemas are built into check-jsonschema (no network).
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, timeout=120)


def uses_lines(path):
    return re.findall(r"^\s*(?:-\s*)?uses:\s*(\S+)\s*$", path.read_text(), flags=re.M)


@pytest.fixture
def init_site(tmp_path):
    run_blog("init", "site", cwd=tmp_path)
    return tmp_path / "site"


def test_workflow_and_action_pass_githubs_schemas(init_site, tmp_path):
    workflow = init_site / ".github" / "workflows" / "pages.yml"
    result = check_schema("vendor.github-workflows", workflow)
    assert result.returncode == 0, result.stdout + result.stderr
    result = check_schema("vendor.github-actions", REPO / "action.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    # The check can fail: a workflow without its jobs, an action whose step names no shell.
    broken = tmp_path / "broken.yml"
    broken.write_text(workflow.read_text().split("\njobs:")[0] + "\n")
    assert check_schema("vendor.github-workflows", broken).returncode != 0
    broken.write_text((REPO / "action.yml").read_text().replace("      shell: bash\n", "", 1))
    assert check_schema("vendor.github-actions", broken).returncode != 0


def test_every_uses_names_a_major_version(init_site):
    workflow = init_site / ".github" / "workflows" / "pages.yml"
    for path in (workflow, REPO / "action.yml"):
        uses = uses_lines(path)
        assert uses, path
        for use in uses:
            assert PINNED.match(use), f"{path.name}: '{use}' is not owner/repo@vN"
    workflow_uses = uses_lines(workflow)
    assert any(u.startswith("actions/upload-pages-artifact@") for u in workflow_uses)
    assert any(u.startswith("actions/deploy-pages@") for u in workflow_uses)
    text = workflow.read_text()
    for permission in ("pages: write", "id-token: write", "contents: read"):
        assert permission in text
    assert "concurrency:" in text
    assert (init_site / ".gitignore").read_text().count("/public/") == 1


def test_no_workflow_flag(tmp_path):
    run_blog("init", "--no-workflow", "plain", cwd=tmp_path)
    assert not (tmp_path / "plain" / ".github").exists()
    assert (tmp_path / "plain" / ".gitignore").is_file()


def test_action_script_builds_a_blog_init_site(init_site, tmp_path):
    outputs = tmp_path / "github-output"
    env = dict(os.environ, BLOG_SOURCE=str(init_site), BLOG_BASE_URL="https://someone.github.io/site",
               BLOG_CONFIGURATION="debug", GITHUB_OUTPUT=str(outputs))
    result = subprocess.run([str(REPO / "scripts" / "action-build.sh"), "build"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout + result.stderr
    public = init_site / "public"
    home = (public / "index.html").read_text()
    assert 'href="https://someone.github.io/site/"' in home or "https://someone.github.io/site/" in home
    assert "localhost" not in (public / "sitemap.xml").read_text()
    assert not (public / ".blog-manifest").exists(), "blog's manifest is not published"
    assert f"output={public}" in outputs.read_text().splitlines()
    assert "base_url is" not in result.stderr, "a given base URL gives no warning"


def test_action_script_rejects_a_folder_that_is_not_a_site(tmp_path):
    env = dict(os.environ, BLOG_SOURCE=str(tmp_path), BLOG_CONFIGURATION="debug")
    result = subprocess.run([str(REPO / "scripts" / "action-build.sh"), "build"], env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode != 0
    assert "blog.yml not found" in result.stderr


def test_build_warns_once_about_a_local_base_url(init_site, tmp_path):
    result = run_blog("build", "--source", init_site, "--output", tmp_path / "out")
    warnings = [line for line in result.stderr.splitlines() if "base_url is http://localhost" in line]
    assert len(warnings) == 1, result.stderr
    assert "canonical links, feeds and the sitemap" in warnings[0] and "--base-url" in warnings[0]
    result = run_blog("build", "--source", init_site, "--output", tmp_path / "out2",
                      "--base-url", "https://example.org/blog/")
    assert "base_url is" not in result.stderr, result.stderr
