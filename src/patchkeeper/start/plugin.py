"""A plugin that patches its upstream at run time, told from its ``pyproject.toml``: what
``init`` says when a directory holds no patch series but such a plugin.

A plugin declares an entry point in its upstream's plugin groups (``vllm.platform_plugins``,
``vllm.general_plugins``: any group named ``<upstream>.platform_plugins`` or
``<upstream>.general_plugins``) or names the upstream in its dependencies. It carries runtime
patches, which the ``runtime`` commands read, not a series: ``init`` writes nothing for it and
points to them with the configuration they read, the upstream and the pin taken from the
plugin's requirement when it is exact (``vllm==0.32.0``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.system.pyproject import project_table

#: The entry-point groups an upstream loads its plugins from: the upstream is the prefix.
PLUGIN_GROUP = re.compile(r"(?P<upstream>[A-Za-z0-9_.-]+)\.(?:platform|general)_plugins")
#: The upstream a dependency alone marks a runtime plugin of.
KNOWN_UPSTREAMS = ("vllm",)


@dataclass(frozen=True)
class RuntimePlugin:
    """What ``pyproject.toml`` says of a runtime plugin.

    Attributes:
        upstream: the upstream it patches (a distribution name, ``"vllm"``).
        package: its import package, ``""`` when neither an entry point nor a directory
            named after the project tells it.
        pin: the upstream version its requirement names exactly, ``None`` without one.
        reason: what marked it, in words (``entry point vllm.platform_plugins``).
    """

    upstream: str
    package: str
    pin: str | None
    reason: str

    def hint(self) -> str:
        """What to run and configure instead of ``init``: one line."""
        package = self.package or "PACKAGE"
        keys = f'upstream = "{self.upstream}", pin = "{self.pin or "VERSION"}"'
        keys += f' and [tool.patchkeeper.runtime] package = "{package}"'
        return (
            f"the runtime commands read them: 'patchkeeper runtime inventory --plugin . --package "
            f"{package}' lists them, then runtime audit, port and check; to configure the "
            f"plugin, add [tool.patchkeeper] {keys} to pyproject.toml "
            "(docs/commands/runtime.md); init writes nothing for it"
        )


def runtime_plugin(root: Path) -> RuntimePlugin | None:
    """The runtime plugin ``root/pyproject.toml`` declares, ``None`` when it declares none (no
    file, not TOML, neither a plugin entry point nor a dependency on a known upstream).

    Raises: nothing; a file that cannot be read is no plugin.
    """
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    project = project_table(root)
    groups = project.get("entry-points")
    upstream = package = reason = ""
    for group, points in (groups if isinstance(groups, dict) else {}).items():
        matched = PLUGIN_GROUP.fullmatch(str(group))
        if matched is None or not isinstance(points, dict):
            continue
        upstream, reason = matched["upstream"], f"entry point {group}"
        target = next((v for v in points.values() if isinstance(v, str)), "")
        package = target.split(":", 1)[0].split(".", 1)[0].strip()
        break
    requirements = {}  # each as written: the reason names it so
    for text in project.get("dependencies") or ():
        try:
            requirements[str(text).strip()] = Requirement(str(text))
        except InvalidRequirement:
            continue
    if not upstream:
        known = {canonicalize_name(name) for name in KNOWN_UPSTREAMS}
        written = [t for t, r in requirements.items() if canonicalize_name(r.name) in known]
        if not written:
            return None
        upstream, reason = requirements[written[0]].name, f"dependency {written[0]}"
    if not package and isinstance(project.get("name"), str):  # the project's own package
        named = canonicalize_name(project["name"]).replace("-", "_")
        package = named if (root / named).is_dir() or (root / "src" / named).is_dir() else ""
    pin = None
    for requirement in requirements.values():
        if canonicalize_name(requirement.name) != canonicalize_name(upstream):
            continue
        exact = [s.version for s in requirement.specifier if s.operator in ("==", "===")]
        if len(exact) == 1 and "*" not in exact[0]:
            pin = exact[0]
    return RuntimePlugin(upstream, package, pin, reason)
