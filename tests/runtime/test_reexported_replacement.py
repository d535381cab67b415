"""A replacement class that the plugin's package ``__init__`` only re-exports (``from
.mrope import PlugRope``), the patch importing it from the package: the audit and the port
find it at its definition, in ``mrope.py``.

Found on vllm-omni (its ``OmniMRotaryEmbedding``, imported from the package that re-exports
it): the port left it by hand, "the replacement is not a function or class of the plugin".
"""

from __future__ import annotations

import json
from pathlib import Path

from plugin_trees import pyproject
from tests.runtime.fupplug import write_files

ROPE_1 = """class Rope:
    def forward(self, x):
        return x + 1
"""
ROPE_2 = ROPE_1.replace("return x + 1\n", "return x + 2\n")
COPY = """class PlugRope:
    def forward(self, x):
        return x + 1
"""
PATCH = """# Note: our rope.
# Affected versions: 0.1.0
# Remove at: 0.3.0
import eng.rope

from plug.ops.rope import PlugRope

eng.rope.Rope = PlugRope
"""
PYPROJECT = pyproject(
    "plug", {"plug": "plug:register"}, group="eng.plugins", version="0.1", upstream="eng"
)


def _trees(tmp_path: Path) -> Path:
    for version, rope in (("0.1.0", ROPE_1), ("0.2.0", ROPE_2)):
        write_files(
            tmp_path / f"eng-{version}",
            {
                "PKG-INFO": f"Metadata-Version: 2.1\nName: eng\nVersion: {version}\n",
                "eng/__init__.py": "",
                "eng/rope.py": rope,
            },
        )
    return write_files(
        tmp_path / "plugin",
        {
            "pyproject.toml": PYPROJECT,
            "plug/__init__.py": "def register():\n    import plug.patch  # noqa: F401\n",
            "plug/ops/__init__.py": "",
            "plug/ops/rope/__init__.py": "from .mrope import PlugRope\n\n__all__ = ['PlugRope']\n",
            "plug/ops/rope/mrope.py": COPY,
            "plug/patch/__init__.py": "from plug.patch import patch_rope  # noqa: F401\n",
            "plug/patch/patch_rope.py": PATCH,
        },
    )


def test_a_reexported_replacement_is_read_at_its_definition(
    tmp_path: Path, cli, monkeypatch
) -> None:
    """The audit compares the copy in ``mrope.py`` with upstream's class (before: no
    downstream diff, the copy unread) and the port merges upstream's change into it
    (before: "by hand", "the replacement is not a function or class of the plugin")."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    plugin = _trees(tmp_path)
    audit = cli(
        "runtime", "audit", "--from", "../eng-0.1.0", "--to", "../eng-0.2.0", "--json", cwd=plugin
    )
    [entry] = json.loads(audit.out)["entries"]
    drift = entry["drift"]
    assert (entry["entry"]["replacement"], drift["decision"], drift["evidence"]) == (
        "plug.ops.rope:PlugRope",
        "update",
        ["upstream eng.rope.Rope changed: body; the downstream change is not in the new upstream"],
    )
    assert drift["downstream_diff"] == (
        "--- a/eng/rope.py:1\n+++ b/plug/ops/rope/mrope.py:1\n@@ -1,3 +1,3 @@\n"
        "-class Rope:\n+class PlugRope:\n     def forward(self, x):\n         return x + 1\n"
    )
    port = cli(
        "runtime", "port", "--from", "../eng-0.1.0", "--to", "../eng-0.2.0", "--json", cwd=plugin
    )
    data = json.loads(port.out)
    assert [(e["decision"], e["action"], e["detail"]) for e in data["entries"]] == [
        ("update", "merged", "three-way merge of plug/ops/rope/mrope.py:1: clean")
    ]
    assert data["files"] == ["plug/ops/rope/mrope.py", "plug/patch/patch_rope.py"]
    assert (
        "--- a/plug/ops/rope/mrope.py\n+++ b/plug/ops/rope/mrope.py\n@@ -1,3 +1,3 @@\n"
        " class PlugRope:\n     def forward(self, x):\n-        return x + 1\n"
        "+        return x + 2\n"
    ) in data["diff"]
