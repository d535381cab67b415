"""A name at a path neither release defines, with a similar name upstream (a leading
underscore): the rename is older than the upgrade, and the evidence says so."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import mup_plugin

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

UPSTREAM = {
    "pyproject.toml": '[project]\nname = "mup"\nversion = "{version}"\n',
    "mup/__init__.py": "",
    "mup/config.py": "class ModelConfig:\n    pass\n",
    "mup/platforms.py": "_current_platform = None\n\n\ndef _scale(x):\n    return x\n",
}


def _release(root: Path, version: str) -> Path:
    write_files(root, {k: v.format(version=version) for k, v in UPSTREAM.items()})
    return root


def test_a_rename_before_the_old_release_says_so(tmp_path: Path) -> None:
    old = _release(tmp_path / "mup-1.0", "1.0")
    new = _release(tmp_path / "mup-1.1", "1.1")
    plugin = tmp_path / "mplug"
    write_files(
        plugin,
        mup_plugin(
            {
                "mplug/patch/__init__.py": "import mplug.patch.patch_config  # noqa: F401\n",
                "mplug/patch/patch_config.py": (
                    "import mup.config\n\n\n"
                    "class NpuPlatform:\n    pass\n\n\n"
                    "mup.config.current_platform = NpuPlatform()\n"
                ),
            }
        ),
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    assert [(a.entry.target, a.drift.decision, a.drift.evidence[0]) for a in result.entries] == [
        (
            "mup.config.current_platform",
            "update",
            "mup.config.current_platform is not at that path in either release; upstream has "
            "the name as mup.platforms._current_platform (renamed before the old release: the "
            "patch has not applied since): retarget to mup.platforms._current_platform",
        )
    ]
