"""What several commands share: the command line an evidence command keeps when it is run
from Python, and the old upstream of the runtime commands when ``--from`` (``runtime lock``:
``--at``) is not given."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from patchkeeper.constants import OPTION_FROM

if TYPE_CHECKING:
    from patchkeeper.config import Config


def command_line(
    words: Sequence[str], options: Mapping[str, object], given: Sequence[str] | None = None
) -> list[str]:
    """The command line kept with a command's evidence: ``given`` (the arguments ``main``
    parsed) when there is one, else the one that asks for ``options``.

    ``options`` maps an option to its value: ``None`` or ``False`` leaves it out, ``True`` is
    a flag, anything else is written as text after it.

    >>> command_line(["audit"], {"--to": "urllib3==1.26.20", "--json": False, "--x": None})
    ['audit', '--to', 'urllib3==1.26.20']
    >>> command_line(["port"], {"--in-place": True}, given=["-C", "d", "port", "--in-place"])
    ['-C', 'd', 'port', '--in-place']
    """
    if given is not None:
        return list(given)
    line = list(words)
    for option, value in options.items():
        if value is None or value is False:
            continue
        line += [option] if value is True else [option, str(value)]
    return line


def configured_old(
    config: Config | None,
    given: str | None,
    command: str,
    option: str = OPTION_FROM,
    what: str = "the old upstream",
    required: Callable[[], str | None] | None = None,
) -> str:
    """The old upstream of ``command`` (``"runtime audit"``, ``"runtime port"``), or
    ``what`` it reads through ``option`` (``runtime lock``'s audited upstream, ``--at``):
    ``given`` (the option's value), else the configured pin as the requirement
    ``UPSTREAM==PIN`` (the release the plugin's patches are written against, as ``init``
    writes it for a plugin), which is fetched as ``option NAME==VERSION`` is. ``config`` is
    the configuration in use, or ``None``; ``required``, when given, finds the plugin's own
    exact requirement on its upstream (``vllm==0.30.0`` in its ``Requires-Dist``), which
    the error's hint then offers as the release to pass.

    Raises:
        ConfigError: ``given`` is ``None`` and the configuration names no upstream or no pin
            (it names the file, and what to pass or set).
    """
    from patchkeeper.config import spelt_for
    from patchkeeper.errors import ConfigError

    if given is not None:
        return given
    upstream, pin = (config.upstream, config.pin) if config else (None, None)
    if upstream and pin:
        return f"{upstream}=={pin}"
    source = config.source if config else None
    if source is None:
        where = "and there is no configuration"
    elif upstream:
        where = f"and the configuration names the upstream {upstream} but no pin"
    else:
        where = "and the configuration names no upstream and pin"
    name, version = upstream or "NAME", "VERSION"
    pinned = required() if required is not None else None
    if pinned:  # the plugin names the release it runs on: offered, never assumed
        name, _, version = pinned.partition("==")
    hint = spelt_for(
        f'pass {option} {name}=={version} (or a directory), or set upstream = "{name}" and '
        f'pin = "{version}" in [tool.patchkeeper] (patchkeeper init --upstream '
        f"{name}=={version} writes them for a plugin)",
        source,
    )
    if pinned:
        hint = f"the plugin requires {pinned}; if its patches are written against it, {hint}"
    raise ConfigError(
        f"{command} needs {what}, the release the plugin's patches are written "
        f"against: {option} is not given, {where}",
        path=source,
        hint=hint,
    )


def plugin_requirement(config: Config | None, params: Mapping[str, Any]) -> str | None:
    """The plugin's own exact requirement on its upstream (``vllm==0.30.0``: its
    ``pyproject.toml`` or ``requirements.txt``, or the ``Requires-Dist`` of the wheel or
    sdist it was unpacked from), the plugin found as the runtime command's ``params``
    (``plugin``, ``package``, ``patch_directory``) and ``config`` say; ``None`` when it
    names none or the plugin cannot be found (the command says why then)."""
    from patchkeeper.errors import PatchkeeperError
    from patchkeeper.runtime.inventory.upstream_pin import pinned_requirement
    from patchkeeper.runtime.settings import resolve_settings

    try:
        settings = resolve_settings(
            config,
            plugin=params.get("plugin"),
            package=params.get("package"),
            patch_directory=params.get("patch_directory"),
        )
        return pinned_requirement(None, settings.root, settings.upstream_packages, settings.package)
    except (PatchkeeperError, OSError):
        return None


def recorded_argv(argv: Sequence[str], given: str | None, old: str) -> list[str]:
    """The command line kept with the evidence of a runtime command whose old upstream is
    ``old``: ``argv`` as given, with ``--from old`` added at its end when ``--from`` was not
    given (``given`` is ``None``), so that the evidence names the release it read.

    >>> recorded_argv(["runtime", "audit", "--to", "vllm==0.33.0"], None, "vllm==0.32.0")
    ['runtime', 'audit', '--to', 'vllm==0.33.0', '--from', 'vllm==0.32.0']
    """
    return list(argv) if given is not None else [*argv, OPTION_FROM, old]
