"""A series one of whose patches does not apply to the release it is ported from.

Seen on Debian's radicale series (3.1.8): its patch of ``setup.cfg`` was cut against the
upstream git tree, whose ``setup.cfg`` indents with spaces, while the sdist of the pin holds
the ``setup.cfg`` setuptools rewrote (tabs, ``key = `` with a trailing space). The port
replays the series on the pin first, so it stops there: the error names the patch's line of
the failing hunk and the release, and says what to do; inside ``upgrade``, whose ``--from``
is fixed, the advice is to fix the series and continue, and ``--continue`` then ports the
fixed series (it is not taken for a series "ported in an earlier run").
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from upgrade_support import MODULE_NEW, MODULE_OLD, STOP_PATCH, STOP_PATCH_MOVED

from helpers import git, make_checkout, write_files
from patchkeeper.commands.upgrade import STEPS
from patchkeeper.config import load_config
from patchkeeper.errors import Interrupted
from patchkeeper.upgrade.request import UpgradeRequest
from patchkeeper.upgrade.run import upgrade

#: ``setup.cfg`` of the pin's sdist, as setuptools writes it (tabs).
PIN_SETUP_CFG = "[tox:tox]\n\n[testenv]\ndeps = \n\tflake8\n\tpytest-cov\ncommands = \n\tflake8 .\n"

#: A DEP-3 patch cut against the upstream git tree (spaces); :data:`STOP_PATCH` applies.
SETUP_PATCH = """\
Description: Avoid pytest extensions missing in Debian
Author: A Maintainer <maintainer@example.org>
Last-Update: 2023-01-09

--- a/setup.cfg
+++ b/setup.cfg
@@ -3,6 +3,5 @@
 [testenv]
 deps =
     flake8
-    pytest-cov
 commands =
     flake8 .
"""

#: What to do with such a patch, on its own and inside ``upgrade`` (``{pin}``: the release).
FIX = "make the patch apply to {pin} (edit it, or take it out of the series)"
SHOWS = "'patchkeeper audit --to {pin}' shows what fails there"
PORT_HINT = f"{FIX}, or pass --from the release the series applies to; {SHOWS}"
UPGRADE_HINT = (
    f"{FIX}, then run 'patchkeeper upgrade --continue' (the upgrade stopped at its port step); "
    "or run 'patchkeeper upgrade --abort' and start again with --from the release the series "
    f"applies to; {SHOWS}"
)


def _pkg_info(version: str) -> str:
    return f"Metadata-Version: 2.1\nName: tinyserve\nVersion: {version}\n"


def _downstream(root: Path) -> Path:
    """The pin 1.0, the release 2.0 and a downstream whose series holds both patches."""
    write_files(
        root / "tinyserve-1.0",
        {
            "PKG-INFO": _pkg_info("1.0"),
            "setup.cfg": PIN_SETUP_CFG,
            "tinyserve/server.py": MODULE_OLD,
        },
    )
    write_files(
        root / "tinyserve-2.0",
        {
            "PKG-INFO": _pkg_info("2.0"),
            "setup.cfg": PIN_SETUP_CFG,
            "tinyserve/server.py": MODULE_NEW,
        },
    )
    down = root / "down"
    write_files(
        down,
        {
            "patchkeeper.toml": 'upstream = "tinyserve"\npin = "1.0"\n'
            'series = "debian/patches/series"\npristine = "../tinyserve-1.0"\n',
            "debian/patches/series": "2002_avoid_pytest_ext.patch\n2004_clean_shutdown.patch\n",
            "debian/patches/2002_avoid_pytest_ext.patch": SETUP_PATCH,
            "debian/patches/2004_clean_shutdown.patch": STOP_PATCH,
        },
    )
    return down


def test_port_names_the_failing_hunk_and_the_release(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    pin = str(tmp_path / "tinyserve-1.0")
    run = cli("port", "--to", "../tinyserve-2.0", cwd=down)
    patch = down / "debian" / "patches" / "2002_avoid_pytest_ext.patch"
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {patch}:7: 2002_avoid_pytest_ext.patch does not apply to {pin}, "
        "the release the series is ported from: setup.cfg #1 fails at fuzz 0 (closest: line 3, "
        f"1 of 6 lines match)\n  hint: {PORT_HINT.format(pin=pin)}\n",
    )
    assert not (down / ".patchkeeper-port").exists()


def test_upgrade_continues_with_the_series_fixed(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    pin = str(tmp_path / "tinyserve-1.0")
    make_checkout(down)
    run = cli("upgrade", "--to", "../tinyserve-2.0", "--branch", "up", cwd=down)
    assert (run.code, run.out, run.err.splitlines()[1:]) == (
        2,
        "",
        [f"  hint: {UPGRADE_HINT.format(pin=pin)}"],
    )
    series = down / "debian" / "patches" / "series"
    series.write_text("2004_clean_shutdown.patch\n", encoding="utf-8")
    run = cli("upgrade", "--continue", cwd=down)
    assert run.code == 0, run.err
    port_lines = [line.split() for line in run.out.splitlines() if line.startswith("  port ")]
    assert port_lines == [["port", "done", "1", "offset"]]
    assert 'pin = "2.0"' in (down / "patchkeeper.toml").read_text(encoding="utf-8")
    ported = (down / "debian" / "patches" / "2004_clean_shutdown.patch").read_text("utf-8")
    assert ported == STOP_PATCH_MOVED


def killed_port(config: Any, request: Any, save_evidence: bool = False) -> Any:
    """A run ended (Ctrl-C) as the port starts, after the upgrade recorded its inputs."""
    raise KeyboardInterrupt


def test_continue_after_a_cut_short_port_then_a_refusal_ports(
    cli, tmp_path: Path, monkeypatch
) -> None:
    down = _downstream(tmp_path)
    make_checkout(down)
    monkeypatch.chdir(down)
    config = load_config(down / "patchkeeper.toml")
    steps = replace(STEPS, port=killed_port)
    with pytest.raises(Interrupted):
        upgrade(config, steps, UpgradeRequest(to="../tinyserve-2.0", branch="up"))
    run = cli("upgrade", "--continue", cwd=down)  # the real port refuses the series
    assert (run.code, run.err.splitlines()[1]) == (
        2,
        f"  hint: {UPGRADE_HINT.format(pin=tmp_path / 'tinyserve-1.0')}",
    )
    series = down / "debian" / "patches" / "series"
    series.write_text("2004_clean_shutdown.patch\n", encoding="utf-8")
    run = cli("upgrade", "--continue", cwd=down)
    port_lines = [line.split() for line in run.out.splitlines() if line.startswith("  port ")]
    assert (run.code, port_lines) == (0, [["port", "done", "1", "offset"]])
    assert 'pin = "2.0"' in (down / "patchkeeper.toml").read_text(encoding="utf-8")


#: :data:`SETUP_PATCH` fixed by hand to apply to the pin's ``setup.cfg`` (tabs).
FIXED_SETUP_PATCH = (
    SETUP_PATCH.replace(" deps =\n", " deps = \n")
    .replace(" commands =\n", " commands = \n")
    .replace(" " * 5, " \t")
    .replace("-    ", "-\t")
)


def test_a_patch_fixed_by_hand_is_the_persons_not_the_ports(cli, tmp_path: Path) -> None:
    """The patch a person fixed after the port refused it is committed on its own, named
    as edited by hand, never among the files the port step wrote; the suggestion made
    from the audit says that audit read the patch before the edit."""
    down = _downstream(tmp_path)
    make_checkout(down)
    assert cli("upgrade", "--to", "../tinyserve-2.0", "--branch", "up", cwd=down).code == 2
    patch = down / "debian" / "patches" / "2002_avoid_pytest_ext.patch"
    patch.write_text(FIXED_SETUP_PATCH, encoding="utf-8")

    run = cli("upgrade", "--continue", cwd=down)

    assert run.code == 0, run.err
    lines = run.out.splitlines()
    port = lines.index("  port           done     1 clean, 1 offset")
    edits = git(down, "rev-parse", "HEAD~2")
    ported = git(down, "rev-parse", "HEAD~1")
    assert lines[port + 1 : port + 5] == [
        "                          edited by hand before it ran again: "
        "debian/patches/2002_avoid_pytest_ext.patch",
        f"                          commit {edits[:12]} upgrade: edits made by hand while "
        "the upgrade waited",
        "                          wrote .patchkeeper/evidence/port.json, "
        "debian/patches/2004_clean_shutdown.patch, patchkeeper.toml",
        f"                          commit {ported[:12]} upgrade: port the series to 2.0",
    ]
    assert git(down, "show", "--format=", "--name-only", edits).split() == [
        "debian/patches/2002_avoid_pytest_ext.patch"
    ]
    assert "debian/patches/2002_avoid_pytest_ext.patch" not in git(
        down, "show", "--format=", "--name-only", ported
    )
    assert [line for line in lines if line.startswith("   - series")] == [
        "   - series 2002_avoid_pytest_ext.patch: carry (verdict: conflict, to do: carry; "
        "the audit read the patch before its edit by hand); no removal-condition yet: write "
        "when it can go",
        "   - series 2004_clean_shutdown.patch: carry (verdict: offset); no removal-condition "
        "yet: write when it can go",
    ]
    assert patch.read_text(encoding="utf-8") == FIXED_SETUP_PATCH
    assert git(down, "status", "--porcelain") == ""


def test_port_names_line_endings_that_keep_the_hunk_out(cli, tmp_path: Path) -> None:
    """The pin's sdist published with CRLF files, the series cut against the LF git tree (a
    Debian series on such an sdist): the error said only "none of its lines is there", where
    apply, verify and status name the line endings; the closest match, read with CRLF as
    LF, is the hunk's own place."""
    down = _downstream(tmp_path)
    server = tmp_path / "tinyserve-1.0" / "tinyserve" / "server.py"
    server.write_bytes(server.read_bytes().replace(b"\n", b"\r\n"))
    (down / "debian" / "patches" / "series").write_text("2004_clean_shutdown.patch\n")
    pin = str(tmp_path / "tinyserve-1.0")
    run = cli("port", "--to", "../tinyserve-2.0", cwd=down)
    patch = down / "debian" / "patches" / "2004_clean_shutdown.patch"
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {patch}:6: 2004_clean_shutdown.patch does not apply to "
        f"{pin}, the release the series is ported from: tinyserve/server.py #1 fails at fuzz 0 "
        "(closest: line 3, 4 of 4 lines match): different line endings: the file's lines end "
        "in CRLF, "
        f"the patch's in LF\n  hint: {PORT_HINT.format(pin=pin)}\n",
    )
    assert not (down / ".patchkeeper-port").exists()
