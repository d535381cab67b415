"""A path or package name longer than the file system allows is the user's to fix (exit 2,
the path and what to do), not a bug: ``runtime inventory --package`` with a 300-letter name
stopped on ``OSError: File name too long`` (exit 3, "please report it"), and so did a long
``--plugin``, ``--patch-dir``, ``--config`` and ``runtime audit --to ./NAME``. The plugin is
written by the test, in the shape of a KV-offload connector that patches the scheduler."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import tree_bytes, write_files

LONG = "A" * 300

HINT = (
    "  hint: a name in that path is longer than the file system allows (most allow 255 "
    "bytes a name, 4096 a path): check the option or the configuration key that gives it, "
    "and pass a shorter one\n"
)


def _plugin(tmp_path: Path) -> Path:
    return write_files(
        tmp_path / "offload",
        {
            "offload_kv/__init__.py": "from offload_kv._patches import install\n",
            "offload_kv/_patches.py": (
                "from vllm.v1.core.sched.scheduler import Scheduler\n\n\n"
                "def _split(self, request):\n    return request\n\n\n"
                "def install():\n    Scheduler._split = _split\n"
            ),
        },
    )


def test_a_name_too_long_is_said_with_its_path(cli, tmp_path: Path) -> None:
    plugin = _plugin(tmp_path)
    before = tree_bytes(tmp_path)
    cases = [
        (("runtime", "inventory", "--plugin", "offload", "--package", LONG), plugin / LONG),
        (("runtime", "inventory", "--plugin", LONG, "--package", "x"), tmp_path / LONG),
        (
            (
                "runtime",
                "inventory",
                "--plugin",
                "offload",
                "--package",
                "offload_kv",
                "--patch-dir",
                LONG,
            ),
            plugin / LONG,
        ),
        (("--config", LONG, "status"), tmp_path / LONG),
    ]
    for args, named in cases:
        run = cli(*args, cwd=tmp_path)
        assert (run.code, run.out, run.err) == (
            2,
            "",
            f"patchkeeper: error: {named}: File name too long; patchkeeper stopped here\n" + HINT,
        ), args
    run = cli(
        "runtime",
        "audit",
        "--plugin",
        "offload",
        "--package",
        "offload_kv",
        "--from",
        str(tmp_path),
        "--to",
        f"./{LONG}",
        "--json",
        cwd=tmp_path,
    )
    assert run.code == 2
    assert json.loads(run.out)["error"] == {
        "message": "File name too long; patchkeeper stopped here",
        "file": LONG,
        "line": None,
        "hint": HINT.removeprefix("  hint: ").rstrip("\n"),
    }
    assert tree_bytes(tmp_path) == before
