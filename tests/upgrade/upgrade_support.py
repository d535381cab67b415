"""Helpers of the upgrade tests: a downstream made a git checkout, its commits and files; the
bundled example's upgrade (its start, its resolved lines, the commits and files of each stop)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers import DROP_FLAKY_TEST, FLAKY_TESTS, Example, git, make_checkout, resolve, write_files
from patchkeeper.commands.upgrade import STEPS
from patchkeeper.config import load_config
from patchkeeper.errors import Interrupted
from patchkeeper.upgrade.request import UpgradeRequest
from patchkeeper.upgrade.run import upgrade

__all__ = ["git", "make_checkout", "resolve"]


# A Debian source package's debian/ directory over the made-up "chunky" upstream, its one
# DEP-3 patch cut against an sdist's root: the downstream of the record tests.
CHUNKY_SERIES = "fix-version.patch\n"
CHUNKY_PATCH = """Description: read the version from the package
Author: A Maintainer <maintainer@example.org>
Forwarded: not-needed
Last-Update: 2026-01-02

--- a/setup.py
+++ b/setup.py
@@ -1,4 +1,4 @@
 from setuptools import setup
 
-setup(name="chunky", version=VERSION)
+setup(name="chunky", version="1.0")
 # end
"""
#: ``setup.py`` of every chunky release.
CHUNKY_SETUP = 'from setuptools import setup\n\nsetup(name="chunky", version=VERSION)\n# end\n'
CHUNKY_CONFIG = """upstream = "chunky"
pin = "1.0"
series = "debian/patches/series"
strip = 1

[headers]
schema = "dep3"
"""


def chunky_downstream() -> dict[str, str]:
    """The files of the chunky downstream (series, patch, configuration), by path."""
    return {
        "debian/patches/series": CHUNKY_SERIES,
        "debian/patches/fix-version.patch": CHUNKY_PATCH,
        "patchkeeper.toml": CHUNKY_CONFIG,
    }


def tinyserve_downstream(root: Path) -> Path:
    """The releases ``tinyserve-1.0`` and ``tinyserve-2.0`` (the module moved three lines
    down, the test file as it was) and ``down``, a downstream on 1.0 whose series removes a
    flaky test and stops the server cleanly; returns ``down``."""
    for version, module in (("1.0", MODULE_OLD), ("2.0", MODULE_NEW)):
        write_files(
            root / f"tinyserve-{version}",
            {
                "PKG-INFO": f"Metadata-Version: 2.1\nName: tinyserve\nVersion: {version}\n",
                "tests/subprocess_test.py": FLAKY_TESTS,
                "tinyserve/server.py": module,
            },
        )
    return write_files(
        root / "down",
        {
            "patchkeeper.toml": 'upstream = "tinyserve"\npin = "1.0"\n'
            'series = "debian/patches/series"\npristine = "../tinyserve-1.0"\n',
            "debian/patches/series": "remove-poll-test.patch\nclean-shutdown.patch\n",
            "debian/patches/remove-poll-test.patch": DROP_FLAKY_TEST,
            "debian/patches/clean-shutdown.patch": STOP_PATCH,
        },
    )


def subjects(root: Path, base: str) -> list[str]:
    """The subjects of the commits after ``base``, oldest first."""
    return git(root, "log", "--reverse", "--format=%s", f"{base}..HEAD").splitlines()


def committed_files(root: Path, commit: str) -> list[str]:
    """The files one commit changed, sorted."""
    return sorted(git(root, "show", "--format=", "--name-only", commit).splitlines())


def step_rows(data: dict[str, Any]) -> list[tuple[str, str, list[str], str | None]]:
    """``(name, status, files, subject)`` of each step of an upgrade's JSON result."""
    return [(s["name"], s["status"], s["files"], s["subject"]) for s in data["steps"]]


#: The first steps of an upgrade of a downstream without a series (runtime patches only),
#: as :func:`step_rows` gives them: the series audit skipped, the runtime audit and decide done.
RUNTIME_ONLY_FIRST_STEPS = [
    ("audit", "skipped", [], None),
    (
        "runtime audit",
        "done",
        [".patchkeeper/evidence/runtime-audit.json"],
        "upgrade: audit the runtime patches against 2.0",
    ),
    (
        "decide",
        "done",
        ["patchkeeper-decisions.toml"],
        "upgrade: suggest decisions from the evidence",
    ),
]


def continued_to_the_end(cli: Any, root: Path) -> dict[str, Any]:
    """``upgrade --continue --json`` in ``root``, asserted to finish (exit 0, outcome
    ``done``, no state directory left, no conflicts); its JSON."""
    run = cli("upgrade", "--continue", "--json", cwd=root)
    data: dict[str, Any] = json.loads(run.out)
    assert (run.code, data["outcome"], data["state_dir"], data["conflicts"]) == (
        0,
        "done",
        None,
        [],
    )
    return data


def ctrl_c(config: Any, *args: Any, **kwargs: Any) -> Any:
    """A Ctrl-C as a step starts."""
    raise KeyboardInterrupt


def ctrl_c_at_the_report(root: Path, monkeypatch: pytest.MonkeyPatch) -> Interrupted:
    """Make the downstream ``root`` (configured in its ``pyproject.toml``) a checkout and
    run ``upgrade --to ../upstream-2.0 --branch up`` in it with a Ctrl-C as the report
    step starts; return the :class:`Interrupted` error the upgrade raised."""
    make_checkout(root)
    monkeypatch.chdir(root)
    config = load_config(root / "pyproject.toml")
    with pytest.raises(Interrupted) as caught:
        upgrade(
            config, replace(STEPS, report=ctrl_c), UpgradeRequest(to="../upstream-2.0", branch="up")
        )
    return caught.value


def tracked_tree(root: Path) -> dict[str, bytes]:
    """Every file of the work tree but ``.git`` (relative path -> bytes)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


#: ``tinyserve/server.py`` at the pin 1.0 and at the release 2.0, which puts three lines at
#: its top.
MODULE_OLD = "def serve():\n    return 'serve'\n\n\ndef stop():\n    return None\n"
MODULE_NEW = "VERSION = '2.0'\n\n\n" + MODULE_OLD

#: A DEP-3 patch of :data:`MODULE_OLD`; on :data:`MODULE_NEW` its hunk lands three lines down.
STOP_PATCH = """\
Description: Shut down cleanly
Forwarded: not-needed

--- a/tinyserve/server.py
+++ b/tinyserve/server.py
@@ -3,4 +3,4 @@ def serve():
 
 
 def stop():
-    return None
+    return 'stopped'
"""

#: :data:`STOP_PATCH` as the port writes it for :data:`MODULE_NEW`.
STOP_PATCH_MOVED = STOP_PATCH.replace("@@ -3,4 +3,4 @@", "@@ -6,4 +6,4 @@")


PROXY = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n'


API_KEY = (
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization", '
    b'"X-Api-Key"])\n'
)


SUGGESTED = [
    ("retry-backoff-cap.patch", "retire", "upstreamed"),
    ("redirect-strip-proxy-auth.patch", "update", "conflict"),
    ("headers-merge-order.patch", "update", "target gone"),
    ("client-describe-version.patch", "carry", "offset"),
    ("metrics-redirects.patch", "carry", "offset"),
    ("metrics-same-host.patch", "carry", "clean"),
    ("redirect-strip-api-key.patch", "update", "blocked"),
]


AT_THE_STOP = [
    "upgrade: audit the series against 1.1",
    "upgrade: suggest decisions from the evidence",
    "upgrade: port the series to 1.1 (stopped at a conflict)",
    "upgrade: write the audit record (the port stopped)",
]


PORTED = [
    ".patchkeeper/evidence/port.json",
    "PATCHES.md",
    "patches/client-describe-version.patch",
    "patches/headers-merge-order.patch",
    "patches/metrics-redirects.patch",
    "patches/metrics-same-host.patch",
    "patches/redirect-strip-api-key.patch",
    "patches/redirect-strip-proxy-auth.patch",
    "patches/series",
    "patchkeeper-decisions.toml",
    "patchkeeper.toml",
]


RECORD = [".patchkeeper/evidence/environment.json", "AUDIT.md"]


def start_upgrade(cli, example: Example):
    return cli(
        "-C",
        str(example.downstream),
        "upgrade",
        "--to",
        "../upstream/minihttp-1.1",
        "--branch",
        "up",
        "--json",
        cwd=example.root,
    )
