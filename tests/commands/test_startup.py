"""Start-up: ``--version`` and ``--help`` are answered without importing the command line
(click, the commands); ``--help`` prints exactly what the command line renders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from patchkeeper import __version__
from patchkeeper.main import cli

PROBE = """
import sys
from patchkeeper.__main__ import entry
try:
    entry()
except SystemExit as exc:
    code = exc.code
sys.stdout.write("\\nEXIT %s MODULES %s\\n" % (code, sorted(
    m for m in sys.modules if m.split(".")[0] in ("click", "unidiff", "packaging")
    or m.startswith("patchkeeper.commands"))))
"""


def _run(tmp_path: Path, *args: str) -> tuple[str, str]:
    env = dict(os.environ, PATCHKEEPER_CACHE=str(tmp_path / "cache"), COLUMNS="90")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    )
    output, _, tail = done.stdout.rpartition("\nEXIT ")
    return output, tail.strip()


def _rendered_help() -> str:
    return cli.get_help(cli.make_context("patchkeeper", ["--help"], resilient_parsing=True))


def test_version_imports_nothing_of_the_command_line(tmp_path: Path) -> None:
    assert _run(tmp_path, "--version") == (f"patchkeeper, version {__version__}\n", "0 MODULES []")


def test_help_is_rendered_once_then_printed_as_kept(tmp_path: Path) -> None:
    first, first_tail = _run(tmp_path, "--help")
    assert first_tail.startswith("0 MODULES ['click")
    (kept,) = (tmp_path / "cache" / "help").iterdir()
    assert kept.read_text(encoding="utf-8") == first
    second, second_tail = _run(tmp_path, "-h")
    assert second_tail == "0 MODULES []"
    assert second == first
    assert first.startswith("Usage: patchkeeper [OPTIONS] COMMAND [ARGS]...\n")
    assert "  apply " in first and "  runtime " in first


def test_kept_help_is_what_click_renders(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "90")
    first, _ = _run(tmp_path, "--help")
    assert first == _rendered_help() + "\n"
