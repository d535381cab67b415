"""The upstream release a plugin runs on, when its files or the configuration name one.

``runtime inventory`` reads the upstream tree the plugin runs on, as the audit reads its
``--from`` tree, to see where vLLM loads the plugin itself (a platform vLLM imports without
an entry point: :mod:`patchkeeper.runtime.inventory.loading`). The release is the
configuration's pin (``upstream = "vllm"``, ``pin = "0.11.0"``; read from its ``pristine``
directory when one is configured), else the plugin's own exact
requirement on an upstream package (``vllm==0.11.0`` in ``[project] dependencies`` of its
``pyproject.toml`` or in its ``requirements.txt``). A range (``vllm>=0.10``) names no
release: then no tree is read, and the inventory says its loading was not traced without
the upstream rather than calling an entry never imported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from patchkeeper.system.pyproject import project_table

#: ``vllm==0.11.0`` (extras and an environment marker allowed around it).
_PIN = re.compile(
    r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*==\s*([\w.+!-]+)\s*(?:;.*)?$"
)


def pinned_requirement(config: Any | None, root: Path, packages: tuple[str, ...]) -> str | None:
    """``"vllm==X"``: the configuration's ``upstream``/``pin`` when both are set (the
    configured ``pristine`` directory instead when there is one: the pin's tree, which the
    series commands read in place of the index, so no download is made), else the
    first exact requirement on one of ``packages`` in the plugin at ``root``
    (``pyproject.toml``'s ``[project] dependencies``, then ``requirements.txt``); ``None``
    when neither names a release. A file that cannot be read or parsed names none."""
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
    for requirement in _requirements(root):
        match = _PIN.match(requirement)
        if match and match[1].replace("_", "-").lower() in wanted:
            return f"{match[1]}=={match[2]}"
    return None


def _requirements(root: Path) -> list[str]:
    """The requirement strings the plugin at ``root`` declares."""
    found: list[str] = []
    dependencies = project_table(root).get("dependencies", [])
    if isinstance(dependencies, list):
        found += [d for d in dependencies if isinstance(d, str)]
    try:
        text = (root / "requirements.txt").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    found += [line.split("#", 1)[0] for line in text.splitlines()]
    return found
