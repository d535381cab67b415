"""``runtime inventory`` reads the upstream release the plugin runs on when the
configuration's pin or the plugin's exact requirement names one; without one, a plugin
nothing declares to vLLM has its loading "not traced without the upstream", never a plain
"never imported". The plugin files are written by the test."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from patchkeeper.runtime import remembered
from patchkeeper.runtime.inventory.upstream_pin import pinned_requirement
from patchkeeper.runtime.settings import PluginLocation

PYPROJECT = """[project]
name = "uplug"
version = "1"
dependencies = ["numpy>=1", "vllm[tpu] == 0.11.0 ; python_version >= '3.10'"]
"""


def test_the_pin_comes_from_the_configuration_then_the_plugin(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "requirements.txt").write_text("vllm==0.10.2  # the CI's\n")
    config = SimpleNamespace(upstream="vllm", pin="0.9.1")
    ranged = tmp_path / "ranged"
    ranged.mkdir()
    (ranged / "requirements.txt").write_text("vllm>=0.10\ntorch==2.5.1\n")
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "requirements.txt").write_text("torch==2.5.1\nvllm==0.10.2  # the CI's\n")
    assert [
        pinned_requirement(config, tmp_path, ("vllm",)),
        pinned_requirement(None, tmp_path, ("vllm",)),
        pinned_requirement(SimpleNamespace(upstream="vllm", pin=None), texts, ("vllm",)),
        pinned_requirement(None, ranged, ("vllm",)),
    ] == ["vllm==0.9.1", "vllm==0.11.0", "vllm==0.10.2", None]


def test_without_a_pin_the_loading_is_not_traced_without_the_upstream(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "uplug"\nversion = "1"\ndependencies = ["vllm>=0.10"]\n'
    )
    (tmp_path / "uplug").mkdir()
    (tmp_path / "uplug" / "__init__.py").write_text("")
    (tmp_path / "uplug" / "platform.py").write_text(
        "import vllm.platforms as platforms\n\nplatforms.current = None\n"
    )
    ready = remembered.inventory(None, PluginLocation(plugin=tmp_path, package="uplug"))
    [entry] = json.loads(ready.body)["entries"]
    assert (entry["target"], entry["activation"]["status"], entry["activation"]["untraced"]) == (
        "vllm.platforms.current",
        "never-imported",
        "loading not traced without the upstream (no release pinned: neither the plugin's "
        "requirements nor the configuration name one): nothing else declares uplug to the "
        "upstream (no entry point in its groups, no configured activation), and whether "
        "the upstream imports it itself is unknown",
    )


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_an_unpacked_wheel_or_sdist_names_its_pin_in_its_metadata(tmp_path: Path) -> None:
    """A plugin unpacked from its wheel has no ``pyproject.toml``: its requirements are the
    ``Requires-Dist`` of its ``*.dist-info/METADATA`` (before: "no release pinned: neither
    the plugin's requirements nor the configuration name one", the wheel requiring
    ``vllm==0.24.0``). A requirement of an extra only is not what the plugin runs on, and
    another distribution's metadata beside it (a ``site-packages``) is not the plugin's."""
    wheel = tmp_path / "wheel"
    _write(wheel / "wplug" / "__init__.py", "")
    _write(
        wheel / "wplug-0.1.dist-info" / "METADATA",
        "Metadata-Version: 2.4\nName: wplug\nVersion: 0.1\n"
        "Requires-Dist: numpy>=1.26\n"
        "Requires-Dist: vllm==0.23.0; extra == 'old'\n"
        "Requires-Dist: vllm==0.24.0\n\n"
        "Requires-Dist: vllm==0.1.0 (in the description, not a field)\n",
    )
    _write(wheel / "wplug-0.1.dist-info" / "RECORD", "wplug/__init__.py,sha256=x,0\n")
    _write(
        wheel / "other-1.0.dist-info" / "METADATA",
        "Metadata-Version: 2.1\nName: other\nVersion: 1.0\nRequires-Dist: vllm==0.9.0\n",
    )
    _write(wheel / "other-1.0.dist-info" / "RECORD", "other/__init__.py,sha256=x,0\n")
    sdist = tmp_path / "sdist"
    _write(
        sdist / "PKG-INFO",
        "Metadata-Version: 1.2\nName: splug\nVersion: 2\nRequires-Dist: vllm (==0.25.1)\n",
    )
    egg = tmp_path / "egg"
    _write(egg / "eplug.egg-info" / "requires.txt", "torch\nvllm==0.26.0\n\n[tpu]\nvllm==0.1\n")
    extra_only = tmp_path / "extra"
    _write(egg / "eplug.egg-info" / "PKG-INFO", "Name: eplug\n")
    _write(extra_only / "xplug.egg-info" / "requires.txt", "torch\n\n[vllm]\nvllm==0.26.0\n")
    assert [
        pinned_requirement(None, wheel, ("vllm",), "wplug"),
        pinned_requirement(None, wheel, ("vllm",), "other"),
        pinned_requirement(None, wheel, ("vllm",), "third"),
        pinned_requirement(None, sdist, ("vllm",), "splug"),
        pinned_requirement(None, egg, ("vllm",), "eplug"),
        pinned_requirement(None, extra_only, ("vllm",), "xplug"),
    ] == ["vllm==0.24.0", "vllm==0.9.0", None, "vllm==0.25.1", "vllm==0.26.0", None]
