"""Modules that something besides the plugin's loading runs are never *remove* for "never
imported": test modules are left out of the inventory (a test runner runs them), scripts
and other programs' entry points are roots of the activation search.

``lplug`` is written by the test in the shape of vllm-lens's wheel: a
``vllm.general_plugins`` entry point whose ``register()`` patches vLLM, an ``inspect_ai``
entry point (another program loads it), a ``_benchmarks`` script run as ``python -m``, a
``tests`` package shipped inside the package (a ``conftest.py`` and a test assigning vLLM
and torch names, ``monkeypatch.setattr`` and ``mock.patch`` swaps), a ``*_test.py``
module, a module named like a test that the plugin's ``register()`` imports, and a dormant
module nothing imports. The upstream is the same at both releases, so every entry the
loading reaches is *retain*.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from plugin_trees import Trees, TreeWriter

from patchkeeper.main import cli
from patchkeeper.render.runtime import audit_text
from patchkeeper.runtime.inventory.runners import LEFT_OUT_WHY

UPSTREAM = {
    "vllm/__init__.py": "",
    "vllm/engine.py": (
        "class Engine:\n"
        "    def generate(self, x):\n        return x\n\n"
        "    def step(self):\n        return None\n\n"
        "    def abort(self):\n        return None\n"
    ),
    "vllm/llm.py": "class LLM:\n    def chat(self, m):\n        return m\n",
}
#: The new release lost ``vllm.legacy``, which only a test imports.
OLD_ONLY = {"vllm/legacy.py": "def helper():\n    return None\n"}

LPLUG = {
    "pyproject.toml": (
        '[project]\nname = "lplug"\nversion = "1"\n\n'
        '[project.entry-points."vllm.general_plugins"]\nactivations = "lplug.plugin:register"\n\n'
        '[project.entry-points.inspect_ai]\nlplug = "lplug.inspect_entry"\n'
    ),
    "lplug/__init__.py": "",
    "lplug/plugin.py": (
        "import vllm.engine\n\n\n"
        "def _generate(self, x):\n    return x\n\n\n"
        "def register():\n"
        "    import lplug.test_hooks  # noqa: F401\n\n"
        "    vllm.engine.Engine.generate = _generate\n"
    ),
    "lplug/test_hooks.py": (
        "import vllm.engine\n\n\ndef abort(self):\n    return None\n\n\n"
        "vllm.engine.Engine.abort = abort\n"
    ),
    "lplug/inspect_entry.py": (
        "import vllm.llm\n\n\ndef chat(self, m):\n    return m\n\n\nvllm.llm.LLM.chat = chat\n"
    ),
    "lplug/_benchmarks/__init__.py": "",
    "lplug/_benchmarks/bench.py": (
        "import vllm.engine\n\n\n"
        "def _step(self):\n    return None\n\n\n"
        "def main():\n    vllm.engine.Engine.step = _step\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    ),
    "lplug/dormant.py": (
        "import vllm.engine\n\n\ndef step(self):\n    return None\n\n\n"
        "vllm.engine.Engine.step = step\n"
    ),
    "lplug/engine_test.py": "import vllm.engine\n\nvllm.engine.Engine.abort = None\n",
    "lplug/tests/__init__.py": "",
    "lplug/tests/conftest.py": (
        "import vllm.engine\n\n\ndef fake_generate(self, x):\n    return None\n\n\n"
        "vllm.engine.Engine.generate = fake_generate\n"
    ),
    "lplug/tests/test_engine.py": (
        "from unittest import mock\n\n"
        "import torch\n"
        "import vllm.engine\n"
        "from vllm.legacy import helper\n\n\n"
        "def test_step(monkeypatch):\n"
        "    torch.backends.cuda.matmul.allow_tf32 = False\n"
        '    monkeypatch.setattr(vllm.engine.Engine, "step", lambda self: None)\n'
        '    setattr(vllm.engine.Engine, "abort", lambda self: None)\n'
        '    with mock.patch("vllm.engine.Engine.generate", lambda self, x: x):\n'
        "        vllm.engine.Engine.generate = None\n"
    ),
}


@pytest.fixture
def trees(plugin_trees: TreeWriter) -> Trees:
    """The plugin and the two upstream releases (the old one with a module more), and a
    private cache."""
    return plugin_trees.write("lplug", LPLUG, {**UPSTREAM, **OLD_ONLY}, UPSTREAM)


def test_test_modules_are_left_out_and_other_runners_are_roots(
    trees: Trees,
) -> None:
    result = trees.audit()
    assert [
        (
            a.entry.file,
            a.entry.line,
            a.entry.target,
            a.entry.activation.status.value,
            a.drift.decision,
        )
        for a in result.entries
        if a.entry.activation is not None
    ] == [
        # Run by `python -m lplug._benchmarks.bench`: its main() runs under the guard.
        ("lplug/_benchmarks/bench.py", 9, "vllm.engine.Engine.step", "conditional", "retain"),
        # Nothing runs it, and the plugin's loading is traced: still never imported, remove.
        ("lplug/dormant.py", 8, "vllm.engine.Engine.step", "never-imported", "remove"),
        # Loaded by another program (inspect_ai) through its entry point.
        ("lplug/inspect_entry.py", 8, "vllm.llm.LLM.chat", "active", "retain"),
        ("lplug/plugin.py", 11, "vllm.engine.Engine.generate", "active", "retain"),
        # Named like a test, but the plugin's register() imports it: a runtime patch.
        ("lplug/test_hooks.py", 8, "vllm.engine.Engine.abort", "active", "retain"),
    ]
    inventory = result.inventory
    assert inventory.tests_left_out == (
        "lplug/engine_test.py",
        "lplug/tests/__init__.py",
        "lplug/tests/conftest.py",
        "lplug/tests/test_engine.py",
    )
    assert inventory.files == (
        "lplug/__init__.py",
        "lplug/_benchmarks/__init__.py",
        "lplug/_benchmarks/bench.py",
        "lplug/dormant.py",
        "lplug/inspect_entry.py",
        "lplug/plugin.py",
        "lplug/test_hooks.py",
    )
    assert inventory.loading == (
        "entry point vllm.general_plugins:activations = lplug.plugin:register (pyproject.toml)",
        "inspect_ai entry point lplug = lplug.inspect_entry (pyproject.toml)",
        "script python -m lplug._benchmarks.bench (lplug/_benchmarks/bench.py:12)",
    )
    bench = result.entries[0].entry.activation
    assert bench is not None and bench.chain[0] == (
        "script python -m lplug._benchmarks.bench (lplug/_benchmarks/bench.py:12)"
    )
    # No finding names a test module (no duplicate target, no missing header, no upstream
    # name a test imports that the new release lost).
    assert [(f.code, f.path, f.line) for f in result.findings] == [
        ("duplicate", "lplug/_benchmarks/bench.py", 9),
    ]
    assert [(f.code, f.path, f.line) for f in inventory.findings] == [
        ("header-missing", "lplug/_benchmarks/bench.py", 1),
        ("header-missing", "lplug/dormant.py", 1),
        ("header-missing", "lplug/inspect_entry.py", 1),
        ("header-missing", "lplug/plugin.py", 1),
        ("header-missing", "lplug/test_hooks.py", 1),
    ]
    text = audit_text(result).splitlines()
    assert f"test modules left out: 4 ({LEFT_OUT_WHY}; --json lists them)" in text
    assert text[-3:] == [
        "mechanism: assignment 5",
        "activation: active 3, conditional 1, never-imported 1",
        "decision: remove 1, retain 4",
    ]


def test_the_inventory_says_what_it_left_out_in_text_and_json(
    trees: Trees,
) -> None:
    plugin = trees.plugin
    runner = CliRunner()
    args = ["runtime", "inventory", "--plugin", str(plugin), "--package", "lplug"]
    shown = runner.invoke(cli, args)
    assert shown.exit_code == 1, shown.output  # header findings on the patching files
    assert f"test modules left out: 4 ({LEFT_OUT_WHY}; --json lists them)" in (
        shown.output.splitlines()
    )
    listed = runner.invoke(cli, [*args, "--json"])
    data = json.loads(listed.output)
    assert data["tests_left_out"] == [
        "lplug/engine_test.py",
        "lplug/tests/__init__.py",
        "lplug/tests/conftest.py",
        "lplug/tests/test_engine.py",
    ]
    assert [e["file"] for e in data["entries"]] == [
        "lplug/_benchmarks/bench.py",
        "lplug/dormant.py",
        "lplug/inspect_entry.py",
        "lplug/plugin.py",
        "lplug/test_hooks.py",
    ]
