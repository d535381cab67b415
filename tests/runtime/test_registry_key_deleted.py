"""A registry key the plugin deletes (``Manager.tool_parsers.pop("spark25", None)``) is
judged by what the upgrade did to upstream's key. In the shape of vllm-spark2_5-plugin 0.1.0:
it drops the parser cached under its own name before registering its parser lazily, so that
an override takes effect; neither vLLM release registers that name, and the audit said
*remove* ("no longer has the key: nothing to remove"), though no release ever had it. The
upgrade changes nothing there: *retain*. A key the old release had and the new one dropped
leaves nothing to remove (*remove*); one the new release still has is still removed by the
plugin (*retain*). The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

MANAGER = """class ToolParserManager:
    tool_parsers: dict[str, type] = {{{registered}}}
    lazy_parsers: dict[str, tuple[str, str]] = {{}}

    @classmethod
    def register_lazy_module(cls, name, module_path, class_name):
        cls.lazy_parsers[name] = (module_path, class_name)
"""

PLUGIN = """from kup.parsers import ToolParserManager


def register():
    ToolParserManager.tool_parsers.pop({key!r}, None)
    ToolParserManager.register_lazy_module("spark25", "kplug.parser", "SparkParser")
"""


def _audit(tmp_path: Path, key: str, old_keys: str, new_keys: str) -> tuple[str, str]:
    old, new = tmp_path / "kup-1.0", tmp_path / "kup-1.1"
    for root, version, keys in ((old, "1.0", old_keys), (new, "1.1", new_keys)):
        write_files(
            root,
            {
                "pyproject.toml": f'[project]\nname = "kup"\nversion = "{version}"\n',
                "kup/__init__.py": "",
                "kup/parsers.py": MANAGER.format(registered=keys),
            },
        )
    plugin = write_files(
        tmp_path / "kplug",
        {
            "pyproject.toml": pyproject(
                "kplug", {"kplug": "kplug:register"}, group="kup.plugins", upstream="kup"
            ),
            "kplug/__init__.py": PLUGIN.format(key=key),
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    (only,) = result.entries
    assert (only.entry.target, only.entry.key) == (
        "kup.parsers.ToolParserManager.tool_parsers",
        repr(key),
    )
    return only.drift.decision, only.drift.evidence[0]


def test_a_key_neither_release_has_is_retained(tmp_path: Path) -> None:
    assert _audit(tmp_path, "spark25", '"json": object', '"json": object, "xml": object') == (
        "retain",
        "neither release's definition has the key 'spark25' "
        "(kup.parsers.ToolParserManager.tool_parsers): the plugin deletes an item put there "
        "at run time (its own registration, a cache filled on first use), which the upgrade "
        "does not change",
    )


def test_a_key_the_new_release_dropped_leaves_nothing_to_remove(tmp_path: Path) -> None:
    assert _audit(tmp_path, "json", '"json": object', '"xml": object') == (
        "remove",
        "the new upstream kup.parsers.ToolParserManager.tool_parsers no longer has the key "
        "'json': nothing to remove",
    )


def test_a_key_the_new_release_still_has_is_still_removed(tmp_path: Path) -> None:
    assert _audit(tmp_path, "json", '"json": object', '"json": object')[0] == "retain"
