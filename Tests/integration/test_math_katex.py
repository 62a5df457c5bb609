"""The KaTeX golden file (Tests/BlogMathTests/Fixtures/katex.mathml) against live KaTeX.

BlogMathTests compare blog's MathML with the stored file, so they need no Node; this test checks
that the stored file is still what KaTeX writes for the corpus, when Node and Debian's katex
package are installed (scripts/install-deps.sh test)."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODE_PATH = "/usr/share/nodejs"


@pytest.mark.skipif(shutil.which("node") is None or not os.path.isdir(os.path.join(NODE_PATH, "katex")),
                    reason="needs node and Debian's katex package")
def test_golden_file_matches_live_katex():
    run = subprocess.run(["node", os.path.join(ROOT, "scripts", "katex-golden.js"), "--check"],
                         env={**os.environ, "NODE_PATH": NODE_PATH}, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "match live KaTeX" in run.stdout
