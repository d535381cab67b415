"""Helpers shared by the tests (import them as ``from helpers import ...``)."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
#: The series of the bundled example downstream (``examples/downstream/patches/series``).
EXAMPLE_SERIES = [
    "retry-backoff-cap.patch",
    "redirect-strip-proxy-auth.patch",
    "headers-merge-order.patch",
    "client-describe-version.patch",
    "metrics-redirects.patch",
    "metrics-same-host.patch",
    "redirect-strip-api-key.patch",
]


#: The ``Patch`` tags of a spec naming :data:`EXAMPLE_SERIES` in its order, numbered from 0.
EXAMPLE_SPEC_TAGS = "".join(
    f"Patch{number}:{' ' * 9}{name}\n" for number, name in enumerate(EXAMPLE_SERIES)
)


def minihttp_spec(
    tags: str = EXAMPLE_SPEC_TAGS,
    *,
    defines: str = "",
    prep: str = "%autosetup -p1 -n %{srcname}-%{version}",
) -> str:
    """The text of a Fedora-style RPM spec packaging the example's minihttp 1.0 (``Release: 3``).

    ``tags`` are whole lines (each ending in a newline) put after ``License:``: its ``Patch``
    tags, any ``URL``/``Source`` tags and comments, or a ``%patchlist`` section.
    ``defines`` are whole ``%global`` lines put after ``%global srcname minihttp`` (line 1),
    ``prep`` the lines of the ``%prep`` section (no final newline). With no ``defines``, the
    first line of ``tags`` is line 8 of the spec; each line of ``defines`` moves it one on.
    """
    return (
        f"%global srcname minihttp\n{defines}\n"
        "Name:           python-%{srcname}\n"
        "Version:        1.0\n"
        "Release:        3%{?dist}\n"
        "Summary:        A small HTTP client\n"
        "License:        MIT\n"
        f"{tags}\n"
        "%description\n"
        "A small HTTP client.\n\n"
        f"%prep\n{prep}\n"
    )


@dataclass
class Example:
    """A private copy of ``examples/``: the downstream and both upstream trees."""

    root: Path

    @property
    def downstream(self) -> Path:
        return self.root / "downstream"

    @property
    def old(self) -> Path:
        return self.root / "upstream" / "minihttp-1.0"

    @property
    def new(self) -> Path:
        return self.root / "upstream" / "minihttp-1.1"

    def target(self, name: str = "target") -> Path:
        """A fresh copy of the old upstream tree to patch."""
        dest = self.root / name
        shutil.copytree(self.old, dest)
        return dest


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative POSIX path -> bytes), for exact comparisons.

    Left out: bytecode caches, and the downstream's evidence store (``.patchkeeper/evidence``),
    which records what ran rather than being part of any tree.
    """
    return {
        key: p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and "__pycache__" not in p.parts
        and not (key := p.relative_to(root).as_posix()).startswith(".patchkeeper/evidence/")
    }


#: One conflict region in diff3 style, markers included.
REGION = re.compile(rb"^<<<<<<< [^\n]*\n.*?^>>>>>>> [^\n]*\n", re.S | re.M)


def resolve(path: Path, *replacements: bytes) -> None:
    """Replace the conflict regions of ``path``, in order, with ``replacements``."""
    data = path.read_bytes()
    regions = REGION.findall(data)
    assert len(regions) == len(replacements), (path, regions)
    for region, replacement in zip(regions, replacements):
        data = data.replace(region, replacement, 1)
    path.write_bytes(data)


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` (the autouse fixture isolates its configuration); its output,
    stripped."""
    done = subprocess.run(
        ["git", "-c", "commit.gpgSign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def make_checkout(root: Path, message: str = "the downstream", tag: str | None = None) -> str:
    """``git init`` in ``root`` and commit every file on ``main`` with ``message`` (tagged
    ``tag`` when given); the commit's id."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    if tag is not None:
        git(root, "tag", tag)
    return git(root, "rev-parse", "HEAD")


def pure_wheel(out: Path, name: str, files: dict[str, bytes], version: str = "1.0") -> Path:
    """``NAME-VERSION-py3-none-any.whl`` written in ``out`` as a wheel is: a zip of ``files``
    (paths relative to site-packages; files of the ``.dist-info`` directory, such as
    ``entry_points.txt``, given by their path too), with the ``.dist-info``'s ``METADATA``,
    ``WHEEL`` and ``RECORD`` (each file's sha256 and size, as an installer checks them)."""
    info = f"{name}-{version}.dist-info"
    files = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    rows = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{path},sha256={digest},{len(data)}")
    files[f"{info}/RECORD"] = ("\n".join([*rows, f"{info}/RECORD,,"]) + "\n").encode()
    wheel = out / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel


#: pip's variables that could point a test at other indexes.
PIP_VARIABLES = (
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "PIP_TRUSTED_HOST",
    "PIP_PROXY",
)
#: Proxy variables that would send a loopback request elsewhere.
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")


def isolate_pip(monkeypatch: pytest.MonkeyPatch) -> None:
    """No pip configuration file and no ``PIP_*`` index or proxy variable (pip's documented
    way: ``PIP_CONFIG_FILE`` set to ``os.devnull``); the test sets its own."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for name in PIP_VARIABLES + PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@dataclass
class LocalIndex:
    """A PEP 503 "simple" index under ``root``, served as ``file://``:
    ``simple/<project>/index.html`` (``<a href="../../files/FILE#sha256=...">`` links) and
    ``files/``."""

    root: Path

    @classmethod
    def announced(cls, root: Path, monkeypatch: pytest.MonkeyPatch) -> LocalIndex:
        """An empty index at ``root`` that pip (and so patchkeeper) is told to use, alone
        (``PIP_INDEX_URL``; call :func:`isolate_pip` first)."""
        index = cls(root)
        (root / "simple").mkdir(parents=True)
        monkeypatch.setenv("PIP_INDEX_URL", index.url)
        return index

    @property
    def url(self) -> str:
        return (self.root / "simple").as_uri()

    def publish(self, project: str, filename: str, data: bytes, sha256: str | None = None) -> str:
        """Add a file to ``project``'s page, with ``sha256`` (default: the real digest).

        Returns the real sha256 of ``data``.
        """
        real = hashlib.sha256(data).hexdigest()
        files = self.root / "files"
        files.mkdir(parents=True, exist_ok=True)
        (files / filename).write_bytes(data)
        page = self.root / "simple" / project / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        links = page.read_text(encoding="utf-8") if page.exists() else ""
        links += f'<a href="../../files/{filename}#sha256={sha256 or real}">{filename}</a><br>\n'
        page.write_text(links, encoding="utf-8")
        return real

    def publish_sdist(self, project: str, version: str, files: dict[str, bytes]) -> None:
        """Add ``project``'s sdist ``NAME-VERSION.tar.gz`` (``NAME``: the project's name with
        ``_`` for ``-``, as setuptools writes it): a ``PKG-INFO`` naming the project and the
        version, and ``files`` (relative path -> content) under its top directory."""
        top = f"{project.replace('-', '_')}-{version}"
        pkg_info = f"Name: {project}\nVersion: {version}\n".encode()
        members = [(f"{top}/PKG-INFO", pkg_info), *((f"{top}/{p}", b) for p, b in files.items())]
        self.publish(project, f"{top}.tar.gz", make_tar(members))


def make_tar(members: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
    """A gzip tarball of ``members``: ``(name, content)`` pairs or ready ``TarInfo`` entries."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                tar.addfile(member)
                continue
            name, content = member
            info = tarfile.TarInfo(name)
            info.size = len(content)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def venv_with_wheel(root: Path, name: str, files: dict[str, bytes]) -> Path:
    """The interpreter of a new virtual environment at ``root/env`` where the environment's
    own pip installed ``name`` 1.0, a wheel of ``files`` (:func:`pure_wheel`, written in
    ``root``), without an index or dependencies."""
    env = root / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    python = env / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
         "--disable-pip-version-check", str(pure_wheel(root, name, files))],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return python


def record_line(site: Path, name: str) -> str:
    """The ``RECORD`` row of the file ``name`` under ``site``: its path, sha256 (urlsafe
    base64, unpadded) and size, as an installer writes it."""
    data = (site / name).read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def venv_with_installed(
    root: Path,
    name: str,
    version: str,
    files: dict[str, str],
    info: dict[str, str] | None = None,
) -> tuple[Path, Path]:
    """A virtual environment at ``root`` (without pip) where ``name`` ``version`` is installed
    as pip installs its wheel: ``files`` (paths relative to site-packages) and a
    ``.dist-info`` with ``METADATA``, the ``info`` files (``WHEEL``, by name), ``INSTALLER``
    and a ``RECORD`` of each file's sha256 and size, in that order. Returns
    ``(python, site)``."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = site_packages(python)
    dist_info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    written = {
        **files,
        f"{dist_info}/METADATA": metadata,
        **{f"{dist_info}/{key}": text for key, text in (info or {}).items()},
        f"{dist_info}/INSTALLER": "pip\n",
    }
    write_files(site, written)
    record = "".join(record_line(site, path) for path in written) + f"{dist_info}/RECORD,,\n"
    (site / dist_info / "RECORD").write_text(record, encoding="utf-8")
    return python, site


def venv_on_paths(
    env: Path, paths: list[Path], name: str, entry_points: str = "", version: str = "0.1"
) -> tuple[Path, Path]:
    """A virtual environment at ``env`` (without pip: no network) whose interpreter imports
    from ``paths`` through a ``NAME.pth`` file, where the distribution ``name`` ``version``
    is declared by a ``.dist-info`` written by hand as an installer writes it: ``METADATA``,
    and ``entry_points.txt`` when ``entry_points`` is given. Returns ``(python, site)``."""
    venv.create(env, with_pip=False, symlinks=True)
    python = env / "bin" / "python"
    site = site_packages(python)
    (site / f"{name}.pth").write_text("".join(f"{path}\n" for path in paths))
    info = {"METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"}
    if entry_points:
        info["entry_points.txt"] = entry_points
    write_files(site / f"{name}-{version}.dist-info", info)
    return python, site


def site_packages(python: Path) -> Path:
    """The site-packages directory (``purelib``) of the environment of ``python``."""
    done = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(done.stdout.strip())


#: ``pkg/settings.py`` of an upstream release, for the tests of a refreshed patch.
SETTINGS_OLD = """def settings():
    debug = False
    verbose = False
    colour = True
    width = 80
    height = 24
    return locals()
"""

#: :data:`SETTINGS_OLD` with a context line changed two lines above :data:`WIDER_PATCH`'s
#: change: the patch fails at fuzz 0 but its own lines are unchanged.
SETTINGS_NEW = SETTINGS_OLD.replace(
    "    debug = False\n", '    debug = bool(os.environ.get("DEBUG"))\n'
)

#: A patch (``strip = 1``) that changes ``width`` in :data:`SETTINGS_OLD` from 80 to 120.
WIDER_PATCH = """Subject: wider default
---
--- a/pkg/settings.py
+++ b/pkg/settings.py
@@ -2,6 +2,6 @@
     debug = False
     verbose = False
     colour = True
-    width = 80
+    width = 120
     height = 24
     return locals()
"""


def vllm_plugin_pyproject(
    name: str,
    version: str,
    entry: str,
    *,
    dependencies: tuple[str, ...] | None = None,
    group: str = "general_plugins",
    package: str | None = None,
    pin: str | None = None,
    note: str = "",
) -> str:
    """The ``pyproject.toml`` of a vLLM plugin: ``[project]`` ``name`` at ``version``, its
    ``dependencies`` (``None``: no such line), the entry point ``entry`` (``key =
    "module:function"``) in the group ``vllm.<group>``; with ``package``, the tables
    ``init`` writes after ``note`` (a comment line, when given): ``[tool.patchkeeper]``
    with upstream vllm and the ``pin`` (when given), ``[tool.patchkeeper.runtime]`` with
    the package.

    >>> print(vllm_plugin_pyproject("vllm-x", "1", 'x = "x:run"', package="x"), end="")
    [project]
    name = "vllm-x"
    version = "1"
    <BLANKLINE>
    [project.entry-points."vllm.general_plugins"]
    x = "x:run"
    <BLANKLINE>
    [tool.patchkeeper]
    upstream = "vllm"
    <BLANKLINE>
    [tool.patchkeeper.runtime]
    package = "x"
    """
    lines = ["[project]", f'name = "{name}"', f'version = "{version}"']
    if dependencies is not None:
        quoted = ", ".join(f'"{d}"' for d in dependencies)
        lines.append(f"dependencies = [{quoted}]")
    lines += ["", f'[project.entry-points."vllm.{group}"]', entry]
    if package is not None:
        lines += ["", *([note] if note else []), "[tool.patchkeeper]", 'upstream = "vllm"']
        lines += [f'pin = "{pin}"'] if pin is not None else []
        lines += ["", "[tool.patchkeeper.runtime]", f'package = "{package}"']
    return "\n".join(lines) + "\n"


#: A one-line DEP-3 patch of ``hello.py`` (``print("hello, world")`` -> ``print("hi")``),
#: for downstreams whose patch's content does not matter.
HELLO_PATCH = """Description: keep the greeting short
Origin: vendor
Forwarded: not-needed
Last-Update: 2026-01-01
---
--- a/hello.py
+++ b/hello.py
@@ -1 +1 @@
-print("hello, world")
+print("hi")
"""


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path relative to ``root`` -> text, UTF-8) under ``root``, making
    the folders they need; an existing file is overwritten. Returns ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# A module whose upstream sorted its imports, and a patch adding one import among them (and
# changing a line further on): git's three-way merge conflicts, the audit refreshes it.

CLI_OLD = """\"\"\"Command line.\"\"\"

import metadata
import argparse
import re
from typing import List

VERSION = metadata.version("tallyho")
"""

# upstream sorted its imports and modernised the typing import
CLI_NEW = """\"\"\"Command line.\"\"\"

import argparse
import metadata
import re
from collections.abc import Sequence

VERSION = metadata.version("tallyho")
"""

VERSION_FROM_ENV = """Subject: take the version from the build environment
---
--- a/tallyho/cli.py
+++ b/tallyho/cli.py
@@ -2,6 +2,7 @@
 
 import metadata
 import argparse
+import os
 import re
 from typing import List
 
@@ -7,2 +8,2 @@
 
-VERSION = metadata.version("tallyho")
+VERSION = os.environ.get("TALLYHO_VERSION") or metadata.version("tallyho")
"""


# A Debian patch (``strip = 1``) dropping a flaky test function of ``tests/subprocess_test.py``
# that sits between two others and ends as the one before it ends: the unpatched file holds the
# patch's post-image (that ending, two blank lines, the next function's start) twice, at the
# hunk's place and at the end of the dropped function itself.
FLAKY_TESTS = """import time


def test_wait():
    t1 = time.time()
    tdiff = time.time() - t1
    assert 0.1 <= tdiff <= 0.2, 'did not stop within allowed time'


def test_communicate_with_poll():
    # skipped for years, and flaky since
    t1 = time.time()
    tdiff = time.time() - t1
    assert 0.1 <= tdiff <= 0.2, 'did not stop within allowed time'


def test_close_stdin():
    p = run(
        ['ls'],
    )
"""

DROP_FLAKY_TEST = """Description: Remove non-deterministic test_communicate_with_poll()
Forwarded: no

--- pkg-1.0.orig/tests/subprocess_test.py
+++ pkg-1.0/tests/subprocess_test.py
@@ -7,13 +7,6 @@ def test_wait():
     assert 0.1 <= tdiff <= 0.2, 'did not stop within allowed time'
 
 
-def test_communicate_with_poll():
-    # skipped for years, and flaky since
-    t1 = time.time()
-    tdiff = time.time() - t1
-    assert 0.1 <= tdiff <= 0.2, 'did not stop within allowed time'
-
-
 def test_close_stdin():
     p = run(
         ['ls'],
"""

#: The function :data:`DROP_FLAKY_TEST` removes, with the two blank lines after it.
FLAKY_TEST = FLAKY_TESTS[
    FLAKY_TESTS.index("def test_communicate") : FLAKY_TESTS.index("def test_close")
]


#: A module a redirect fix patches (the old release), and the new release with the fix.
REDIRECT_CODE = (
    "def redirect(headers):\n    headers.pop('Authorization', None)\n    return headers\n"
)
REDIRECT_FIXED = REDIRECT_CODE.replace("    return", "    headers.pop('Cookie', None)\n    return")

#: The diff of the redirect fix on ``pkg/redirect.py``: :data:`REDIRECT_CODE` to
#: :data:`REDIRECT_FIXED`.
REDIRECT_DIFF = """--- a/pkg/redirect.py
+++ b/pkg/redirect.py
@@ -1,3 +1,4 @@
 def redirect(headers):
     headers.pop('Authorization', None)
+    headers.pop('Cookie', None)
     return headers
"""

#: A backported fix with its regression test's data file (:data:`ON_DATA` changes that file).
WITH_DATA = (
    "Subject: drop cookies on redirect\n---\n"
    + REDIRECT_DIFF
    + """--- /dev/null
+++ b/tests/data/redirect.txt
@@ -0,0 +1,2 @@
+Authorization: x
+Cookie: y
"""
)

#: A patch on the data file only :data:`WITH_DATA` creates.
ON_DATA = """Subject: test a second cookie
---
--- a/tests/data/redirect.txt
+++ b/tests/data/redirect.txt
@@ -1,2 +1,3 @@
 Authorization: x
 Cookie: y
+Cookie: z
"""


# One line, two places: a documentation patch adding one line that upstream took for one
# of two blocks ending the same way (audit: upstreamed, look: "fits elsewhere").

API_OLD = """API
===

.. autoclass:: Section
   :members:
   :inherited-members:

Reading
-------

.. autoclass:: Reader
   :members:
   :inherited-members:

   .. attribute:: source

"""

SKIP_CODEC = """Subject: keep the build path out of the documentation
---
--- a/docs/api.rst
+++ b/docs/api.rst
@@ -11,6 +11,7 @@ Reading
 .. autoclass:: Reader
    :members:
    :inherited-members:
+   :exclude-members: codec
 
    .. attribute:: source
 
"""

# upstream took the line (indented its own way) for Reader and dropped the attribute;
# Section's block still ends the same way
API_NEW = """API
===

.. autoclass:: Section
   :members:
   :inherited-members:

Reading
-------

.. autoclass:: Reader
    :members:
    :inherited-members:
    :exclude-members: codec

"""


def set_read_only(directory: Path, on: bool) -> None:
    """Make ``directory`` itself (not what is under it) unwritable when ``on``, writable again
    when not, for root too: root ignores permission bits, so the directory is made immutable
    (``chattr +i``); as another user its write bit is taken away.

    Fails the test (never skips it) where ``chattr`` does not work."""
    if os.geteuid() != 0:
        directory.chmod(0o555 if on else 0o755)
        return
    done = subprocess.run(["chattr", "+i" if on else "-i", str(directory)], capture_output=True)
    if done.returncode != 0:
        pytest.fail(f"chattr does not work here: {done.stderr.decode()}")


def patchkeeper_on_read_only_mount(
    mount: Path, args: list[str], cwd: Path, copy_of: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m patchkeeper ARGS`` in ``cwd`` with ``mount`` (an empty directory) a
    tmpfs mounted read-only in a mount namespace of its own (``unshare -rm``: a real
    ``Read-only file system``, gone with the namespace), holding a copy of ``copy_of``'s
    files when given; its outcome as text.

    Fails the test (never skips it) where the machine cannot make such a mount."""
    fill = 'cp -a "$2"/. "$1" && ' if copy_of is not None else ""
    script = f'mount -t tmpfs tmpfs "$1" && {fill}mount -o remount,ro "$1" && shift 2 && exec "$@"'
    command = [sys.executable, "-m", "patchkeeper", *args]
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(mount), str(copy_of or mount), *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    if "mount" in done.stderr and "patchkeeper" not in done.stderr:
        pytest.fail(f"no read-only mount here (unshare -rm): {done.stderr}")
    return done
