"""The corpus of vLLM plugins for the runtime audit: releases, vLLM per release, loading.

    python benchmarks/plugin_corpus.py > /tmp/corpus.toml   # then reviewed into
                                                           # benchmarks/runtime_history/plugins.toml

For each plugin release of :data:`RELEASES` (its sdist, or its wheel when the package index
has no sdist: a source of files, never installed), fetched once into the corpus cache with
:func:`patchkeeper.upstream.fetch.fetch_requirement`, prints as TOML facts read from its
files (nothing of the plugin is copied):

- ``vllm``: the vLLM release it targets, and ``vllm_source``, where that was read: the
  Dockerfile's ``ARG VLLM_TAG=vX``, a ``rev = "vX"`` source of ``vllm`` in ``pyproject.toml``,
  an exact ``vllm==X`` requirement, or the release's own version where its ``setup.py``
  takes its version from vLLM's build (``VLLM_VERSION_OVERRIDE``); a range (``vllm<0.16.1,
  >=0.11.0``) is recorded as the range, not as a release;
- ``loading``: how vLLM loads it: its entry points in the ``vllm.platform_plugins`` and
  ``vllm.general_plugins`` groups, and its console scripts;
- ``grep``: the by-hand count of patch-like lines in the plugin's package (:data:`GREP`,
  run with ``grep``), which ``benchmarks/runtime_history.py`` compares with the inventory.

Pairs are consecutive releases (in the order listed) whose ``vllm`` differ and are both
releases.
"""

from __future__ import annotations

import configparser
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import tomllib

from patchkeeper.upstream.fetch import FetchError, fetch_requirement

#: The releases looked at, oldest first, per plugin (the recent releases of each that the
#: package index lists; dev builds left out).
RELEASES: dict[str, list[str]] = {
    "vllm-ascend": [
        "0.24.0rc1",
        "0.25.1rc1",
        "0.26.0rc1",
        "0.27.1rc1",
        "0.28.0rc1",
        "0.29.0rc1",
        "0.30.0rc1",
    ],
    "tpu-inference": [
        "0.21.0",
        "0.22.1",
        "0.23.0",
        "0.24.0",
        "0.25.0",
        "0.26.0",
        "0.27.0",
        "0.28.0",
        "0.29.0",
        "0.30.0",
        "0.31.0",
        "0.32.0",
    ],
    "vllm-spyre": ["1.9.1", "1.10.0", "2.0.0rc8", "2.0.0rc9"],
    "vllm-mindspore": ["0.5.0", "0.5.1"],
    "vllm-rbln": ["0.11.2.post1", "0.12.0", "0.12.1a8"],
    "vllm-musa": ["0.1.0", "0.1.1"],
    "vllm-kunlun": ["0.11.1"],
    "vllm-neuron": ["0.1.0"],
    "vllm-hi": ["0.1.0"],
    "vllm-mblt": ["0.6.1", "0.7.0", "0.8.0"],
    "vllm-npu": ["0.4.2", "0.4.2.post1", "0.4.2.post2"],
    "pace-vllm": ["1.2.0", "1.3.0"],
    "mixinputs": ["0.1.0", "0.1.1"],
    "vllm-ascend-split-batch": ["0.1.0", "0.1.1", "0.1.2", "0.1.3", "0.2.0"],
    "vllm-hust-opset": ["0.3.0", "0.3.1", "0.3.2"],
    "light-vllm-ascend-security": ["1.0.0", "1.0.1.3"],
    "vllm-swift": ["0.3.2"],
    "vllm-lens": ["1.0.0", "1.1.0", "1.2.0", "1.2.1", "1.3.0"],
    "vllm-beam-search-plugin": ["0.1.3", "0.1.4", "0.1.5"],
    "hotwire-vllm": ["0.1.1", "0.1.2"],
    "vllm-hust-vspec": ["0.13.0", "0.13.1", "0.13.2", "0.13.3", "0.14.2", "0.14.3"],
    "vllm-ascend-kvcompress-hust": ["0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "0.9.0", "0.10.0"],
    "turboquant-plus-vllm": ["0.13.9", "0.13.10", "0.13.11", "0.13.12"],
    "raif-vllm": ["0.1.0", "0.2.0"],
    "lmcache-vllm": ["0.6.1", "0.6.2", "0.6.2.1", "0.6.2.2", "0.6.2.3"],
}

#: The by-hand grep: lines that assign to a dotted name whose root is capitalised (a class)
#: or ``vllm``, or call ``setattr(``, in the plugin's Python files. It over-counts (the
#: plugin's own classes) and misses patches through other names; it is the yardstick
#: written down before the audit runs, not the truth.
GREP = (
    r"^\s*(setattr\(|vllm\.[A-Za-z0-9_.]+\s*=[^=]"
    r"|[A-Z][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*\s*=[^=])"
)

_TAG = re.compile(r"^ARG VLLM_TAG=v?(\S+)", re.M)
_REV = re.compile(r'^vllm\s*=\s*\{[^}]*rev\s*=\s*"v?([^"]+)"', re.M)
_RANGE = re.compile(
    r"^_?[A-Z_]*VLLM[A-Z_]*(?:RANGE|VERSIONS?)\s*=\s*[\"']([<>=!~][^\"']+)[\"']", re.M
)
_PIN = re.compile(r"^Requires-Dist:[ \t]*vllm[ \t]*([^;\n]*)$", re.M | re.I)


def fetch(name: str, version: str) -> tuple[str, Path]:
    """The unpacked sdist (else wheel) of ``name==version``: ``(kind, root)``."""
    try:
        return "sdist", Path(fetch_requirement(f"{name}=={version}", kind="sdist").root)
    except FetchError:
        return "wheel", Path(fetch_requirement(f"{name}=={version}", kind="wheel").root)


def metadata(root: Path) -> str:
    """The release's core metadata text (``PKG-INFO`` or a wheel's ``METADATA``)."""
    for path in [root / "PKG-INFO", *root.glob("*.dist-info/METADATA")]:
        if path.is_file():
            return path.read_text(encoding="utf-8", errors="replace")
    return ""


def vllm_of(root: Path, version: str, name: str = "") -> tuple[str, str]:
    """The vLLM release (or range) the plugin release ``name==version`` at ``root``
    targets, and where it was read (last: a ``SUPPORTED_VLLM_RANGE = ">=0.21.0,<0.22.0"``
    style constant in the package's ``__init__.py``)."""
    for dockerfile in sorted(root.glob("Dockerfile*")):
        found = _TAG.search(dockerfile.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found.group(1), f"{dockerfile.name}: ARG VLLM_TAG"
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        found = _REV.search(pyproject.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found.group(1), "pyproject.toml: vllm source rev"
    setup = root / "setup.py"
    if setup.is_file() and "VLLM_VERSION_OVERRIDE" in setup.read_text(
        encoding="utf-8", errors="replace"
    ):
        return version, "setup.py: version from vLLM's build (VLLM_VERSION_OVERRIDE)"
    found = _PIN.search(metadata(root))
    if found:
        spec = found.group(1).strip().strip("()").replace(" ", "")
        pinned = re.fullmatch(r"==([0-9][^,+]*)(\+\w+)?", spec)
        return (pinned.group(1) if pinned else spec or "any"), "metadata: Requires-Dist"
    init = source_root(root) / package_of(root, name) / "__init__.py"
    if init.is_file():
        found = _RANGE.search(init.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found.group(1).replace(" ", ""), f"{init.relative_to(root)}: a vLLM range"
    return "unknown", "no vLLM requirement, Dockerfile tag or source rev found"


def entry_points(root: Path) -> dict[str, list[str]]:
    """The release's entry points by group (``entry_points.txt`` of its egg-info or
    dist-info), only vLLM's groups and console scripts."""
    out: dict[str, list[str]] = {}
    for path in [
        *root.glob("*.egg-info/entry_points.txt"),
        *root.glob("src/*.egg-info/entry_points.txt"),
        *root.glob("*.dist-info/entry_points.txt"),
    ]:
        parser = configparser.ConfigParser(delimiters=("=",))
        parser.optionxform = str  # type: ignore[assignment, method-assign]
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
        for group in parser.sections():
            if group.startswith("vllm.") or group == "console_scripts":
                out[group] = [f"{k} = {v}" for k, v in parser.items(group)]
    if not out and (root / "pyproject.toml").is_file():
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        project = data.get("project", {})
        for group, points in project.get("entry-points", {}).items():
            if group.startswith("vllm."):
                out[group] = [f"{k} = {v}" for k, v in points.items()]
        if project.get("scripts"):
            out["console_scripts"] = [f"{k} = {v}" for k, v in project["scripts"].items()]
    return out


def source_root(root: Path) -> Path:
    """Where the release's packages are: ``root/src`` in a src layout (no package at the
    top, one under ``src/``: the audit's settings resolve a plugin directory the same
    way), else ``root``."""
    top = [p for p in root.glob("*/__init__.py") if p.parent.name != "tests"]
    if not top and list((root / "src").glob("*/__init__.py")):
        return root / "src"
    return root


def package_of(root: Path, name: str) -> str:
    """The plugin's top-level package (``vllm_ascend``): the project name with ``_``, else
    the only other directory holding an ``__init__.py`` (``vllm_musa_platform``); looked
    for under :func:`source_root`."""
    root = source_root(root)
    guess = name.replace("-", "_")
    if (root / guess / "__init__.py").is_file():
        return guess
    found = sorted(p.parent.name for p in root.glob("*/__init__.py") if p.parent.name != "tests")
    return found[0] if len(found) == 1 else guess


def patch_directory(root: Path, package: str) -> str:
    """The directory the audit scans: ``<package>/patch`` or ``<package>/patches``, else the
    whole package (a plugin without a patch directory); relative to :func:`source_root`."""
    root = source_root(root)
    for name in ("patch", "patches"):
        if (root / package / name).is_dir():
            return f"{package}/{name}"
    return package


def grep_lines(root: Path, directory: str) -> list[str]:
    """``file:line:text`` of the lines under ``directory`` matching :data:`GREP`
    (``grep -rEn --include=*.py GREP DIRECTORY`` run in :func:`source_root`)."""
    root = source_root(root)
    if not (root / directory).is_dir():
        return []
    found = subprocess.run(
        ["grep", "-rEn", "--include=*.py", GREP, directory],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.splitlines()


def main() -> int:
    print("# Written by python benchmarks/plugin_corpus.py, then reviewed by hand.")
    print(f"grep = {json.dumps(GREP)}")
    for name, versions in RELEASES.items():
        rows = []
        for version in versions:
            kind, root = fetch(name, version)
            package = package_of(root, name)
            vllm, source = vllm_of(root, version, name)
            scanned = patch_directory(root, package)
            count = len(grep_lines(root, scanned))
            rows.append((version, kind, package, vllm, source, count, entry_points(root), scanned))
        pairs = [
            f"{a[0]}_{b[0]}"
            for a, b in itertools.pairwise(rows)
            if a[3] != b[3] and all(re.fullmatch(r"[0-9][0-9.a-z]*", r[3]) for r in (a, b))
        ]
        points = rows[-1][6]
        loading = [f"{group}: {point}" for group, listed in points.items() for point in listed]
        print(f"\n[[plugin]]\nname = {json.dumps(name)}\npackage = {json.dumps(rows[-1][2])}")
        print(f"patch_directory = {json.dumps(rows[-1][7])}")
        print(f"loading = {json.dumps(loading)}\npairs = {json.dumps(pairs)}")
        for version, kind, _package, vllm, source, count, _points, _dir in rows:
            print(
                f"[[plugin.release]]\nversion = {json.dumps(version)}\n"
                f"kind = {json.dumps(kind)}\nvllm = {json.dumps(vllm)}\n"
                f"vllm_source = {json.dumps(source)}\ngrep = {count}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
