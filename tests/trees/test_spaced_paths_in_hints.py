"""A command line a message tells the user to run, holding a path with a space (an upstream
release unpacked under ``~/My Releases``, a plugin under ``Plugins 2026``), is quoted as the
shell reads it: pasted, it ran with the path cut at the space. Each message's command is
run as pasted (split as the shell splits it) and does what it says."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from helpers import Example, write_files


def test_the_audit_a_release_mismatch_names_runs_as_pasted(
    cli, example: Example, tmp_path: Path
) -> None:
    # the example's files as an unpacked sdist that says it is 1.1
    target = tmp_path / "My Releases" / "minihttp-1.1"
    shutil.copytree(example.old, target)
    (target / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: minihttp\nVersion: 1.1\n")
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert run.err == (
        f"patchkeeper: warning: {target} is minihttp 1.1 (as its own metadata says), but the "
        f'series is cut against 1.0 (pin = "1.0" in {example.downstream / "patchkeeper.toml"}): '
        "its patches are read on another release; to do: apply the series to a tree of "
        "minihttp==1.0, or audit the series against this one ('patchkeeper audit --to "
        f"'{target}'') and move the pin\n"
    )
    line = re.search(r"\('(patchkeeper audit .*)'\) and move the pin", run.err)
    assert line is not None
    run = cli(*shlex.split(line.group(1))[1:], cwd=example.downstream)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[1] == f"against directory {target}"


def test_the_plugin_directory_a_hint_names_runs_as_pasted(cli, tmp_path: Path) -> None:
    plugin = write_files(
        tmp_path / "Plugins 2026" / "acme",
        {
            "acme_plug/__init__.py": "",
            "acme_plug/patch/__init__.py": (
                "import vllm.worker\n\n\ndef run(self):\n    return None\n\n\n"
                "vllm.worker.Worker.run = run\n"
            ),
        },
    )
    run = cli(
        "runtime", "inventory", "--plugin", str(plugin / "acme_plug"), "--package", "acme_plug"
    )
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the plugin package acme_plug is not under {plugin / 'acme_plug'}\n"
        f"  hint: {plugin / 'acme_plug'} is the package acme_plug itself: pass --plugin "
        f"'{plugin}'\n",
    )
    given = shlex.split(run.err.rsplit("pass ", 1)[1])
    assert given == ["--plugin", str(plugin)]
    run = cli("runtime", "inventory", *given, "--package", "acme_plug")
    assert run.code == 1, run.err
    assert "acme_plug/patch/__init__.py:8  assignment  vllm.worker.Worker.run" in run.out
