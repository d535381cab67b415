"""A plugin unpacked from a wheel that keeps its package under ``NAME-VERSION.data/purelib``
(pip installs it into site-packages like any other), with only its ``.dist-info`` at the
top: ``--plugin`` the unpacked wheel finds the package there, and its entry points and
requirements in the ``.dist-info`` above it.

Without that, ``--plugin WHEEL`` stopped ("the plugin package is not under WHEEL"), and
``--plugin WHEEL/NAME.data/purelib`` lost the entry point: every patch the plugin's
``register()`` reaches read as loaded by importing the package, its loading untraced.
"""

from __future__ import annotations

from plugin_trees import ENGINE, TreeWriter

from patchkeeper.runtime.inventory.upstream_pin import pinned_requirement

DATA = "moeplug-0.2.data/purelib"

#: The unpacked wheel: the package under its ``.data``, the metadata at the top.
WHEEL = {
    f"{DATA}/moeplug/__init__.py": "",
    f"{DATA}/moeplug/hybrid.py": "def register():\n    from moeplug import shims  # noqa: F401\n",
    f"{DATA}/moeplug/shims.py": (
        "import vllm.engine\n\n\ndef step(x):\n    return x\n\n\nvllm.engine.step = step\n"
    ),
    f"{DATA}/moeplug/unused.py": (
        "import vllm.engine\n\n\ndef run(x):\n    return x\n\n\nvllm.engine.run = run\n"
    ),
    "moeplug-0.2.dist-info/METADATA": (
        "Metadata-Version: 2.4\nName: moeplug\nVersion: 0.2\nRequires-Dist: vllm==1.0\n"
        'Requires-Dist: vllm[cuda]==2.0; extra == "gpu"\n'
    ),
    "moeplug-0.2.dist-info/entry_points.txt": (
        "[vllm.general_plugins]\nmoeplug = moeplug.hybrid:register\n"
    ),
    "moeplug-0.2.dist-info/RECORD": (
        f"{DATA}/moeplug/__init__.py,sha256=,0\n{DATA}/moeplug/hybrid.py,sha256=,0\n"
        "moeplug-0.2.dist-info/METADATA,,\n"
    ),
}

UPSTREAM = {"vllm/__init__.py": "", "vllm/engine.py": ENGINE}


def test_the_unpacked_wheel_is_the_plugin(plugin_trees: TreeWriter, cli) -> None:
    wheel = plugin_trees.write("moeplug", WHEEL, UPSTREAM).plugin
    run = cli("runtime", "inventory", "--plugin", str(wheel), "--package", "moeplug")
    assert (run.code, run.err) == (1, "")
    assert run.out.splitlines()[:2] == [
        f"plugin moeplug ({wheel.resolve() / DATA}), patch directory moeplug: 4 files, 2 entries",
        "entry point vllm.general_plugins:moeplug = moeplug.hybrid:register "
        "(../../moeplug-0.2.dist-info/entry_points.txt)",
    ]
    assert run.out.splitlines()[-2:] == [
        "mechanism: assignment 2",
        "activation: active 1, never-imported 1",
    ]
    # the same read from the package's own folder
    inside = cli("runtime", "inventory", "--plugin", str(wheel / DATA), "--package", "moeplug")
    assert (inside.code, inside.out) == (1, run.out)


def test_its_package_and_requirement_are_found_there(plugin_trees: TreeWriter, cli) -> None:
    wheel = plugin_trees.write("moeplug", WHEEL, UPSTREAM).plugin
    run = cli("runtime", "inventory", "--plugin", str(wheel))
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[1] == (
        f"  hint: the packages in {wheel.resolve()}: moeplug; pass --package NAME or set "
        'package = "NAME" in [tool.patchkeeper.runtime]'
    )
    assert pinned_requirement(None, wheel / DATA, ("vllm",), "moeplug") == "vllm==1.0"
    # another distribution's metadata beside it names no requirement of this plugin
    record = wheel / "moeplug-0.2.dist-info" / "RECORD"
    record.write_text("other/__init__.py,,\n")
    assert pinned_requirement(None, wheel / DATA, ("vllm",), "moeplug") is None
