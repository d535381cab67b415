"""A series cut against an sdist with a ``src/`` layout, on the installed distribution.

Seen on Debian's python-filelock 3.9.0 series: its patches name ``src/filelock/_unix.py``,
which the installed distribution has as ``site-packages/filelock/_unix.py``. ``apply`` and
``status`` (the default target: the distribution installed in the environment) reported every
file missing and said nothing more; they now say where the files are and what to do. The
environment is a real ``python -m venv`` into which the test installs the distribution's files,
``METADATA`` and ``RECORD`` as pip installs a wheel.
"""

from __future__ import annotations

from pathlib import Path

from helpers import venv_with_installed, write_files

UNIX = "class UnixFileLock:\n    def _acquire(self):\n        mode = 0o644\n        return mode\n"

#: The diff of ``_unix.py``, its path from the sdist's root (``src/filelock/...``).
UNIX_DIFF = """\
--- a/src/filelock/_unix.py
+++ b/src/filelock/_unix.py
@@ -1,4 +1,4 @@
 class UnixFileLock:
     def _acquire(self):
-        mode = 0o644
+        mode = 0o600
         return mode
"""

#: A DEP-3 patch whose paths start at the sdist's root.
PATCH = (
    "Description: do not follow symbolic links when opening the lock file\n"
    "Origin: upstream, https://example.org/filelock/commit/1\n"
    "Last-Update: 2025-12-17\n\n" + UNIX_DIFF
)


def _venv_with_filelock(root: Path) -> tuple[Path, Path]:
    """A venv with filelock 3.9.0 installed as pip installs its wheel: (python, site)."""
    files = {
        "filelock/__init__.py": "from filelock._unix import UnixFileLock\n",
        "filelock/_unix.py": UNIX,
    }
    wheel = "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return venv_with_installed(root, "filelock", "3.9.0", files, {"WHEEL": wheel})


def _downstream(root: Path, series: str, patches: dict[str, str]) -> Path:
    """A Debian-style downstream of filelock 3.9.0: ``series`` and ``patches`` (name ->
    text) in ``debian/patches/``."""
    return write_files(
        root,
        {
            "patchkeeper.toml": 'upstream = "filelock"\npin = "3.9.0"\n'
            'series = "debian/patches/series"\n',
            "debian/patches/series": series,
            **{f"debian/patches/{name}": text for name, text in patches.items()},
        },
    )


def test_src_layout_paths_on_the_installed_distribution(cli, tmp_path: Path) -> None:
    python, site = _venv_with_filelock(tmp_path / "venv")
    down = _downstream(tmp_path / "down", "CVE-2025-68146.patch\n", {"CVE-2025-68146.patch": PATCH})
    hint = (
        f"hint: these files are under {site} without their leading src/: the series names them "
        "as a source tree (an sdist) lays them out, and the installed distribution has no "
        "src/; pass --target an unpacked sdist of the pin instead, or, to patch the installed "
        "files, strip one more leading directory (-pN on the patch's series line, or strip)"
    )
    label = f"filelock 3.9.0 installed in {site} (python {python})"
    run = cli("apply", "--python", str(python), cwd=down)
    assert (run.code, run.out) == (
        1,
        f"CVE-2025-68146.patch does not apply to {label}\n"
        "  src/filelock/_unix.py: the file does not exist\n"
        f"nothing was changed\n{hint}\n",
    )
    run = cli("status", "--python", str(python), cwd=down)
    assert (run.code, run.out.splitlines()[-1]) == (1, hint)
    assert (site / "filelock" / "_unix.py").read_text(encoding="utf-8") == UNIX
    # the advice holds: one more leading directory stripped, the series applies there
    series = down / "debian" / "patches" / "series"
    series.write_text("CVE-2025-68146.patch -p2\n", encoding="utf-8")
    run = cli("apply", "--python", str(python), cwd=down)
    assert (run.code, run.out) == (
        0,
        f"applied 1 patch on {label}: 1 file changed\n",
    )
    patched = UNIX.replace("0o644", "0o600")
    assert (site / "filelock" / "_unix.py").read_text(encoding="utf-8") == patched


#: A Debian CVE fix in its usual shape: the code, in the sdist's ``src/`` layout, and its test,
#: which the wheel does not install.
FIX_WITH_TEST = (
    "Description: close the lock file on error\nForwarded: not-needed\n\n"
    + UNIX_DIFF
    + """\
--- a/tests/test_unix.py
+++ b/tests/test_unix.py
@@ -1,2 +1,2 @@
 def test_mode():
-    assert UnixFileLock()._acquire() == 0o644
+    assert UnixFileLock()._acquire() == 0o600
"""
)

#: A documentation patch, first in the series as in many Debian series.
DOCS = """\
Description: use the packaged intersphinx inventory
Forwarded: not-needed

--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1 +1 @@
-intersphinx_mapping = {"python": ("https://docs.python.org/3", None)}
+intersphinx_mapping = {"python": ("/usr/share/doc/python3/html", None)}
"""


def test_src_layout_and_uninstalled_files_are_told_apart(cli, tmp_path: Path) -> None:
    """A patch of ``src/filelock/_unix.py`` and ``tests/test_unix.py``: the first is
    installed as ``filelock/_unix.py``, the second not at all. The hint said the installed
    distribution had neither, calling the code file a test, doc or setup file; ``status``
    named only the first patch's ``docs/conf.py``."""
    python, site = _venv_with_filelock(tmp_path / "venv")
    down = _downstream(
        tmp_path / "down", "fix.patch\n", {"docs.patch": DOCS, "fix.patch": FIX_WITH_TEST}
    )
    run = cli("apply", "--python", str(python), cwd=down)
    assert (run.code, run.out.splitlines()[-1]) == (
        1,
        f"hint: src/filelock/_unix.py is under {site} without the leading src/ (the series "
        "names files as a source tree, an sdist, lays them out), and the installed "
        "distribution has no tests/test_unix.py (a wheel installs no tests, docs or setup "
        "files); pass --target an unpacked sdist of the pin instead",
    )
    (down / "debian" / "patches" / "series").write_text("docs.patch\nfix.patch\n")
    run = cli("status", "--python", str(python), cwd=down)
    assert (run.code, run.out.splitlines()[-1]) == (
        1,
        f"hint: src/filelock/_unix.py is under {site} without the leading src/ (the series "
        "names files as a source tree, an sdist, lays them out), and the installed "
        "distribution has no docs/conf.py, tests/test_unix.py (a wheel installs no tests, "
        "docs or setup files); pass --target an unpacked sdist of the pin instead",
    )
    assert (site / "filelock" / "_unix.py").read_text(encoding="utf-8") == UNIX
