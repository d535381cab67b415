"""A plugin directory that is not found says both ways to name it: ``--plugin DIR``, or the
``root`` key with its table as the configuration file in use spells it (``[runtime]`` in a
``patchkeeper.toml``); "or set root" alone named no table."""

from __future__ import annotations

from pathlib import Path


def test_the_root_key_is_named_with_its_table(cli, tmp_path: Path) -> None:
    down = tmp_path / "down"
    down.mkdir()
    (down / "patchkeeper.toml").write_text('upstream = "vllm"\n\n[runtime]\npackage = "plug"\n')
    run = cli("runtime", "inventory", "--plugin", str(tmp_path / "nope"), cwd=down)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: the plugin directory {tmp_path / 'nope'} does not exist\n"
        '  hint: pass --plugin DIR (the directory holding the package), or set root = "DIR" '
        "in [runtime]\n",
    )
    (down / "elsewhere").mkdir()
    run = cli("runtime", "inventory", "--plugin", "elsewhere", cwd=down)
    assert (run.code, run.err) == (
        2,
        f"patchkeeper: error: the plugin package plug is not under {down / 'elsewhere'}\n"
        '  hint: pass --plugin DIR (the directory holding the package), or set root = "DIR" '
        "in [runtime]\n",
    )
