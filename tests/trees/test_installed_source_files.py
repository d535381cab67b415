"""A series cut against an sdist (a Debian series: its patches change ``tests/``, ``docs/``,
``setup.py`` too) applied to an installed distribution: the wheel installed only the
package, so the files are missing, and ``apply`` says so and what to do (apply it to the
unpacked sdist), instead of only "the file does not exist" (seen with Debian's
python-asyncssh series on asyncssh installed from its wheel).

The distribution is a real wheel (a zip with ``.dist-info/METADATA``, ``WHEEL`` and
``RECORD``), installed by pip into a real virtual environment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import site_packages, venv_with_wheel

pytestmark = pytest.mark.slow

CORE = b"def answer():\n    return 41\n"
#: A Debian-shaped patch: the package's code and its test, as in the sdist.
PATCH = (
    b"Description: answer the right number\n"
    b"Forwarded: not-needed\n"
    b"---\n"
    b"--- a/pkdemo/core.py\n+++ b/pkdemo/core.py\n"
    b"@@ -1,2 +1,2 @@\n def answer():\n-    return 41\n+    return 42\n"
    b"--- a/tests/test_core.py\n+++ b/tests/test_core.py\n"
    b"@@ -1,2 +1,2 @@\n def test_answer():\n-    assert answer() == 41\n"
    b"+    assert answer() == 42\n"
)


def test_a_source_tree_patch_on_an_installed_distribution_says_what_to_do(
    cli, tmp_path: Path
) -> None:
    files = {"pkdemo/__init__.py": b"", "pkdemo/core.py": CORE}
    python = venv_with_wheel(tmp_path, "pkdemo", files)
    downstream = tmp_path / "downstream"
    (downstream / "debian" / "patches").mkdir(parents=True)
    (downstream / "debian" / "patches" / "answer.patch").write_bytes(PATCH)
    (downstream / "debian" / "patches" / "series").write_text("answer.patch\n")
    (downstream / "patchkeeper.toml").write_text(
        'upstream = "pkdemo"\npin = "1.0"\nseries = "debian/patches/series"\n'
    )
    run = cli("apply", "--python", str(python), cwd=downstream)
    site = site_packages(python)
    assert (run.code, run.out.splitlines()) == (
        1,
        [
            f"answer.patch does not apply to pkdemo 1.0 installed in {site} (python {python})",
            "  tests/test_core.py: the file does not exist",
            "nothing was changed",
            "hint: the installed distribution has no tests/test_core.py: it holds what its "
            "wheel installed, not the source tree's tests, docs or setup files the series "
            "also changes; pass --target an unpacked sdist of the pin instead",
        ],
    )
    assert (site / "pkdemo" / "core.py").read_bytes() == CORE
