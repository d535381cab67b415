"""A plugin that patches its upstream at run time, told from its ``pyproject.toml``: what
``init`` says when a directory holds no patch series but such a plugin.

A plugin declares an entry point in its upstream's plugin groups (``vllm.platform_plugins``,
``vllm.general_plugins``: any group named ``<upstream>.platform_plugins`` or
``<upstream>.general_plugins``) or names the upstream in its dependencies. It carries runtime
patches, which the ``runtime`` commands read, not a series. When the plugin's pin (its exact
requirement, ``vllm==0.32.0``, or ``init --upstream vllm==0.32.0``) and its import package are
known, ``init`` writes the configuration those commands read into its ``pyproject.toml``
(:func:`patchkeeper.start.init.configure_plugin`): ``[tool.patchkeeper]`` with the upstream
and the pin and ``[tool.patchkeeper.runtime]`` with the package, so that ``patchkeeper runtime
inventory`` runs there with no option. Otherwise it writes nothing and says which key to fill in.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import PatchkeeperError
from patchkeeper.system.pyproject import project_table, source_dirs
from patchkeeper.system.regular import read_regular

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
        """What to run and configure instead of ``init``, when it cannot tell the pin or the
        package: one line."""
        package = self.package or "PACKAGE"
        keys = f'upstream = "{self.upstream}", pin = "{self.pin or "VERSION"}"'
        keys += f' and [tool.patchkeeper.runtime] package = "{package}"'
        wanted = [] if self.pin else [f"--upstream {self.upstream}==VERSION"]
        wanted += [] if self.package else ["an entry point naming the package"]
        return (
            f"the runtime commands read them: 'patchkeeper runtime inventory --plugin . --package "
            f"{package}' lists them, then runtime audit, port and check; to configure the "
            f"plugin, add [tool.patchkeeper] {keys} to pyproject.toml "
            f"(docs/commands/runtime.md); init writes them with {' and '.join(wanted)}"
        )


class RuntimePluginHere(PatchkeeperError):
    """No series in the directory, but a runtime plugin: :attr:`plugin`."""

    def __init__(self, message: str, plugin: RuntimePlugin, *, path: Path) -> None:
        super().__init__(message, path=path, hint=plugin.hint())
        self.plugin = plugin


@dataclass(frozen=True)
class PluginInitResult:
    """What ``patchkeeper init`` wrote for a runtime plugin.

    Attributes:
        root: the plugin's directory.
        upstream: the upstream written (``"vllm"``).
        pin: the pin written.
        pin_reason: where the pin was read.
        package: the plugin's import package written.
        reason: what marked the directory a runtime plugin (``entry point
            vllm.platform_plugins``).
        config_file: the ``pyproject.toml`` the tables were added to.
        written_files: every file written.
        next_commands: the commands to run next, each with what it does.
    """

    root: Path
    upstream: str
    pin: str
    pin_reason: str
    package: str
    reason: str
    config_file: Path
    written_files: tuple[Path, ...]
    next_commands: tuple[str, ...]

    @property
    def exit_code(self) -> int:
        """0: init either wrote the configuration or raised before writing anything."""
        return 0


def plugin_config_text(upstream: str, pin: str, package: str) -> str:
    """The tables ``init`` adds at the end of a plugin's ``pyproject.toml``.

    >>> print(plugin_config_text("vllm", "0.32.0", "vllm_acme"), end="")
    <BLANKLINE>
    # patchkeeper settings, written by patchkeeper init (see docs/starting.md)
    [tool.patchkeeper]
    upstream = "vllm"
    pin = "0.32.0"
    <BLANKLINE>
    [tool.patchkeeper.runtime]
    package = "vllm_acme"
    """
    return (
        "\n# patchkeeper settings, written by patchkeeper init (see docs/starting.md)\n"
        f"[tool.patchkeeper]\nupstream = {json.dumps(upstream)}\npin = {json.dumps(pin)}\n\n"
        f"[tool.patchkeeper.runtime]\npackage = {json.dumps(package)}\n"
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
        bases = (root, *source_dirs(root))
        package = named if any((base / named).is_dir() for base in bases) else ""
    pin = None
    for requirement in requirements.values():
        if canonicalize_name(requirement.name) != canonicalize_name(upstream):
            continue
        exact = [s.version for s in requirement.specifier if s.operator in ("==", "===")]
        if len(exact) == 1 and "*" not in exact[0]:
            pin = exact[0]
    return RuntimePlugin(upstream, package, pin, reason)


def wheel_plugin(root: Path) -> tuple[RuntimePlugin, str] | None:
    """The runtime plugin an unpacked wheel in ``root`` declares (what ``pip download``
    gives, unzipped: ``NAME-VERSION.dist-info/entry_points.txt`` with an entry point in an
    upstream's plugin groups), with the name of its ``.dist-info`` directory; ``None`` when
    none does. The pin is the plugin's exact requirement of the upstream without a marker
    (``Requires-Dist: vllm==0.32.0`` in ``METADATA``), else ``None``.

    Raises: nothing; a file that cannot be read declares nothing.
    """
    import configparser

    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    for points in sorted(root.glob("*.dist-info/entry_points.txt")):
        parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]
        try:
            parser.read_string(read_regular(points).decode("utf-8"))
        except (OSError, UnicodeDecodeError, configparser.Error):
            continue
        for group in parser.sections():
            matched = PLUGIN_GROUP.fullmatch(group)
            if matched is None or not parser[group]:
                continue
            upstream = matched["upstream"]
            target = next(iter(parser[group].values()))
            package = target.split(":", 1)[0].split(".", 1)[0].strip()
            pin = None
            try:
                metadata = read_regular(points.parent / "METADATA").decode("utf-8")
            except (OSError, UnicodeDecodeError):
                metadata = ""
            for line in metadata.splitlines():
                if not line.startswith("Requires-Dist:"):
                    continue
                try:
                    requirement = Requirement(line.split(":", 1)[1].strip())
                except InvalidRequirement:
                    continue
                if requirement.marker is not None:
                    continue
                if canonicalize_name(requirement.name) != canonicalize_name(upstream):
                    continue
                exact = [s.version for s in requirement.specifier if s.operator == "=="]
                if len(exact) == 1 and "*" not in exact[0]:
                    pin = exact[0]
            return RuntimePlugin(upstream, package, pin, f"entry point {group}"), points.parent.name
    return None
