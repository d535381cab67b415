"""The upstream release a plugin runs on, when its files or the configuration name one.

``runtime inventory`` reads the upstream tree the plugin runs on, as the audit reads its
``--from`` tree, to see where vLLM loads the plugin itself (a platform vLLM imports without
an entry point: :mod:`patchkeeper.runtime.inventory.loading`). The release is the
configuration's pin (``upstream = "vllm"``, ``pin = "0.11.0"``; read from its ``pristine``
directory when one is configured), else the plugin's own exact
requirement on an upstream package (``vllm==0.11.0`` in ``[project] dependencies`` of its
``pyproject.toml`` or in its ``requirements.txt``; for a plugin unpacked from its wheel or
sdist, the ``Requires-Dist`` of its ``*.dist-info/METADATA`` or ``PKG-INFO``, or its
``*.egg-info/requires.txt``). A requirement of an extra only (``; extra == "tpu"``) is not
what the plugin runs on. A range (``vllm>=0.10``) names no
release: then no tree is read, and the inventory says its loading was not traced without
the upstream rather than calling an entry never imported.
"""

from __future__ import annotations

import re
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

from patchkeeper.runtime.settings import wheel_root
from patchkeeper.system.pyproject import project_table

#: ``vllm==0.11.0`` (extras and an environment marker allowed around it).
_PIN = re.compile(
    r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*==\s*([\w.+!-]+)\s*(?:;.*)?$"
)


def pinned_requirement(
    config: Any | None, root: Path, packages: tuple[str, ...], plugin: str = ""
) -> str | None:
    """``"vllm==X"``: the configuration's ``upstream``/``pin`` when both are set (the
    configured ``pristine`` directory instead when there is one: the pin's tree, which the
    series commands read in place of the index, so no download is made), else the
    first exact requirement on one of ``packages`` in the plugin at ``root``
    (``pyproject.toml``'s ``[project] dependencies``, then ``requirements.txt``, then the
    metadata an unpacked wheel or sdist ships: ``PKG-INFO``, ``*.egg-info/requires.txt``,
    and the ``*.dist-info/METADATA`` whose ``RECORD`` holds the plugin's top-level package
    ``plugin``, so that another distribution installed beside it names none); ``None``
    when none names a release. A file that cannot be read or parsed names none."""
    upstream = getattr(config, "upstream", None)
    pin = getattr(config, "pin", None)
    if upstream and pin:
        pristine = getattr(config, "pristine", None)
        root_dir = getattr(config, "root", None)
        local = Path(root_dir, pristine).expanduser() if pristine and root_dir else None
        if local is not None and local.is_dir():
            return str(local.resolve())  # the pin's tree as the series commands read it
        return f"{upstream}=={pin}"
    wanted = {p.replace("_", "-").lower() for p in packages}
    for requirement in _requirements(root, plugin.split(".")[0]):
        if _EXTRA.search(requirement.partition(";")[2]):
            continue  # needed by an extra only
        match = _PIN.match(_PARENTHESIZED.sub(r"\1\2", requirement))
        if match and match[1].replace("_", "-").lower() in wanted:
            return f"{match[1]}=={match[2]}"
    return None


#: An environment marker naming an extra: ``extra == "tpu"``.
_EXTRA = re.compile(r"\bextra\s*==")

#: The older metadata form of a version specifier, ``vllm (==0.11.0)``.
_PARENTHESIZED = re.compile(r"^([^;(]*)\(([^)]*)\)")


def _requirements(root: Path, top: str) -> list[str]:
    """The requirement strings the plugin at ``root`` (top-level package ``top``)
    declares."""
    found: list[str] = []
    dependencies = project_table(root).get("dependencies", [])
    if isinstance(dependencies, list):
        found += [d for d in dependencies if isinstance(d, str)]
    try:
        text = (root / "requirements.txt").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    found += [line.split("#", 1)[0] for line in text.splitlines()]
    found += _requires_dist(root / "PKG-INFO")
    for requires in sorted(root.glob("*.egg-info/requires.txt")):
        found += _requires_txt(requires)
    wheel = wheel_root(root)  # a package under NAME.data/purelib: the .dist-info above it
    inside = "" if wheel is None else f"{root.relative_to(wheel).as_posix()}/"
    for metadata in sorted((wheel or root).glob("*.dist-info/METADATA")):
        if top and _records(metadata.parent / "RECORD", inside + top):
            found += _requires_dist(metadata)
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _requires_dist(path: Path) -> list[str]:
    """The ``Requires-Dist`` fields of a core metadata file (``PKG-INFO``, ``METADATA``)."""
    headers = HeaderParser().parsestr(_read(path))
    return [str(value) for value in headers.get_all("Requires-Dist") or []]


def _requires_txt(path: Path) -> list[str]:
    """The requirements of an ``*.egg-info/requires.txt`` before its first ``[extra]``
    section (those after it are an extra's or a marker's)."""
    lines = []
    for line in _read(path).splitlines():
        if line.startswith("["):
            break
        lines.append(line)
    return lines


def _records(record: Path, top: str) -> bool:
    """Whether a wheel's ``RECORD`` lists a file of the package ``top`` (a path in the
    wheel: ``vllm_x`` or ``vllm_x-1.0.data/purelib/vllm_x``)."""
    return any(line.startswith((f"{top}/", f"{top}.py,")) for line in _read(record).splitlines())
