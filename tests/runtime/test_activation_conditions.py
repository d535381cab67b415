"""Conditions of an entry's activation that are not written as an ``if`` around it: an early
``return`` after a platform check or after ``except ImportError`` makes what follows it in
the function conditional. The plugin is written by the test in the shape of a real one (a
``register()`` that leaves when the platform is not its own)."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.runtime.inventory.runtime_inventory import take_inventory

PATCH = """import vllm.engine
from vllm.platforms import current_platform


def step(x):
    return x


def run(x):
    return x


def install():
    vllm.engine.early = step
    if not current_platform.is_tpu():
        return
    vllm.engine.step = step
    try:
        import vllm.fast  # noqa: F401
    except ImportError:
        return
    vllm.engine.run = run
"""

FILES = {
    "pyproject.toml": (
        '[project]\nname = "cplug"\nversion = "1"\n\n'
        '[project.entry-points."vllm.platform_plugins"]\nc = "cplug:register"\n'
    ),
    "cplug/__init__.py": (
        "def register():\n    from cplug.patch import p_exit\n\n    p_exit.install()\n"
    ),
    "cplug/patch/__init__.py": "",
    "cplug/patch/p_exit.py": PATCH,
}


def test_an_early_return_makes_the_rest_of_the_function_conditional(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    for relative, text in FILES.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    inventory = take_inventory(None, plugin=tmp_path, package="cplug")
    found = [
        (
            e.target,
            e.activation.status.value,
            [(c.kind, c.text, c.line) for c in e.activation.conditions],
        )
        for e in inventory.entries
        if e.activation
    ]
    assert found == [
        ("vllm.engine.early", "active", []),
        (
            "vllm.engine.step",
            "conditional",
            [("else", "not (not current_platform.is_tpu())", 15)],
        ),
        (
            "vllm.engine.run",
            "conditional",
            [
                ("else", "not (not current_platform.is_tpu())", 15),
                ("try-import", "try: ... except ImportError", 18),
            ],
        ),
    ]


#: a registration retried in an ``except`` handler, as vllm-omni's diffusion cache hooks
#: register their block class again when the first ``register`` raises ``ValueError``
HANDLER = """from diffusers.hooks import _helpers


class Block:
    pass


def install():
    try:
        _helpers.TransformerBlockRegistry.register(Block)
    except ValueError:
        _helpers.TransformerBlockRegistry.blocks = [Block]
"""


def test_an_except_handler_is_named_once_in_the_listing(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listing said ``conditional: except except ValueError``: the handler's text
    already starts with its kind."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    files = {**FILES, "cplug/patch/p_exit.py": HANDLER}
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    run = cli("runtime", "inventory", "--plugin", str(tmp_path), "--package", "cplug", cwd=tmp_path)
    listed = [line for line in run.out.splitlines() if "conditional:" in line]
    assert listed == ["    conditional: except ValueError (cplug/patch/p_exit.py:11)"]
