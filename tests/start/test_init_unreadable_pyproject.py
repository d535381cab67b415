"""``init`` does not add its keys to a ``pyproject.toml`` that is not TOML.

A plugin whose ``pyproject.toml`` ended inside a list, or was saved "UTF-8 with BOM", got
the runtime keys appended and init said "wrote pyproject.toml" (exit 0); every command
after it then stopped at the file. init now reads the file first: exit 2 naming its line
and what to do, nothing written. A file that starts with a byte order mark is said to in
every TOML file patchkeeper reads, since tomllib calls it an "Invalid statement" at
column 1.
"""

from __future__ import annotations

from pathlib import Path

from helpers import vllm_plugin_pyproject, write_files

PYPROJECT = vllm_plugin_pyproject(
    "vllm-steer", "0.1.2", 'steer = "steer:register"', dependencies=("numpy",)
)
PATCH_MODULE = (
    "from vllm.v1.engine.core import EngineCore\n\n_orig = EngineCore.__init__\n\n\n"
    "def core_init(self, *args, **kwargs):\n    _orig(self, *args, **kwargs)\n\n\n"
    "def register():\n    EngineCore.__init__ = core_init\n"
)


def plugin(tmp_path: Path, pyproject: bytes) -> Path:
    root = tmp_path / "plugin"
    write_files(root, {"steer/__init__.py": PATCH_MODULE})
    (root / "pyproject.toml").write_bytes(pyproject)
    return root


def test_a_pyproject_left_open_is_named_and_left_alone(cli, tmp_path: Path) -> None:
    text = (PYPROJECT + "extra = [\n").encode()
    root = plugin(tmp_path, text)
    run = cli("init", "--upstream", "vllm==0.30.0", cwd=root)
    assert (run.code, run.out, run.err.splitlines()[0]) == (
        2,
        "",
        f"patchkeeper: error: {root / 'pyproject.toml'}:8: not valid TOML: Invalid value "
        "(the file ends there)",
    )
    assert (root / "pyproject.toml").read_bytes() == text


def test_a_byte_order_mark_is_said(cli, tmp_path: Path) -> None:
    text = b"\xef\xbb\xbf" + PYPROJECT.encode()
    root = plugin(tmp_path, text)
    run = cli("init", "--upstream", "vllm==0.30.0", cwd=root)
    assert (run.code, run.err.splitlines()) == (
        2,
        [
            f"patchkeeper: error: {root / 'pyproject.toml'}:1: not valid TOML: the file starts "
            "with a byte order mark (U+FEFF), which TOML does not allow",
            '  hint: save the file as UTF-8 without a BOM (the editor\'s "UTF-8", not "UTF-8 '
            'with BOM")',
        ],
    )
    assert (root / "pyproject.toml").read_bytes() == text
    # Without the mark, init writes the keys and the runtime commands read them.
    (root / "pyproject.toml").write_bytes(text[3:])
    assert cli("init", "--upstream", "vllm==0.30.0", cwd=root).code == 0
    run = cli("runtime", "inventory", cwd=root)
    assert (run.code, run.out.splitlines()[-2:]) == (
        1,  # the patch module has no Note/Affected versions/Remove at header
        ["mechanism: wrapper 1", "activation: active 1"],
    )


def test_a_configuration_with_a_byte_order_mark_is_said(cli, tmp_path: Path) -> None:
    root = tmp_path / "downstream"
    write_files(root, {"patches/series": "", "PATCHES.md": ""})
    (root / "patchkeeper.toml").write_bytes(b'\xef\xbb\xbfupstream = "app"\npin = "1.0"\n')
    run = cli("lint", cwd=root)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {root / 'patchkeeper.toml'}:1: not valid TOML: the file starts "
        "with a byte order mark (U+FEFF), which TOML does not allow",
    )
