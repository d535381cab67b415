"""The configured upstream is not installed, but the import package of that name is, from a
distribution named otherwise: a Debian source package named after the import package
(``init`` takes the source name as the project) whose project the package index knows under
another name (``NAME.six``, a maintained fork). The error names the configured
``upstream`` line and the distribution to set there, rather than advising to install the
configured name, a different project on the index.

The environment is a real ``python -m venv`` into which the test writes a distribution's
files, ``METADATA``, ``top_level.txt`` and ``RECORD`` as pip installs a wheel.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import site_packages, write_files

PATCH = """From: A Maintainer <maintainer@example.org>
Subject: Do not load pickled font tables from the search path
Forwarded: not-needed

---
--- a/pdfthing/cmapdb.py
+++ b/pdfthing/cmapdb.py
@@ -1,3 +1,3 @@
 import pickle
-DIRS = ["/usr/share/pdfthing", "."]
+DIRS = ["/usr/share/pdfthing"]
 # end
"""
CMAPDB = 'import pickle\nDIRS = ["/usr/share/pdfthing", "."]\n# end\n'


def _venv_with_fork(root: Path) -> Path:
    """A venv with pdfthing.six 20221105 installed (its import package: pdfthing)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    info = "pdfthing.six-20221105.dist-info"
    names = {
        "pdfthing/__init__.py": "",
        "pdfthing/cmapdb.py": CMAPDB,
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: pdfthing.six\nVersion: 20221105\n",
        f"{info}/top_level.txt": "pdfthing\n",
    }
    site = write_files(site_packages(python), names)
    record = "".join(f"{name},,\n" for name in names) + f"{info}/RECORD,,\n"
    (site / info / "RECORD").write_text(record, encoding="utf-8")
    return python


def test_the_import_package_installed_by_another_distribution_is_named(cli, tmp_path: Path) -> None:
    python = _venv_with_fork(tmp_path / "venv")
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "pdfthing"\npin = "20221105"\n'
            'series = "debian/patches/series"\n',
            "debian/patches/series": "pickle-path.patch\n",
            "debian/patches/pickle-path.patch": PATCH,
        },
    )

    run = cli("status", "--python", str(python), "--json", cwd=down)

    assert (run.code, json.loads(run.out)["error"]) == (
        2,
        {
            "message": f"pdfthing is not installed in the environment of {python}, but its "
            "import package pdfthing is: the distribution pdfthing.six 20221105 installs it",
            "file": str(down / "patchkeeper.toml"),
            "line": 1,
            "hint": "if pdfthing.six is the project the series is cut against, set upstream = "
            '"pdfthing.six"; else install pdfthing (pip install pdfthing==20221105), pass --python for '
            "another environment, or --target DIR for a source tree",
        },
    )


def test_a_name_nothing_installs_keeps_the_plain_advice(cli, tmp_path: Path) -> None:
    python = _venv_with_fork(tmp_path / "venv")
    down = write_files(
        tmp_path / "down",
        {"patchkeeper.toml": 'upstream = "pdfwriter"\npin = "1.0"\n', "patches/series": ""},
    )

    run = cli("status", "--python", str(python), "--json", cwd=down)

    assert (run.code, json.loads(run.out)["error"]) == (
        2,
        {
            "message": f"pdfwriter is not installed in the environment of {python}",
            "file": None,
            "line": None,
            "hint": "install it (pip install pdfwriter==1.0), pass --python for another "
            "environment, or --target DIR for a source tree",
        },
    )
