"""What several commands share: the command line an evidence command keeps when it is run
from Python, and the old upstream of the runtime commands when ``--from`` (``runtime lock``:
``--at``) is not given."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

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
) -> str:
    """The old upstream of ``command`` (``"runtime audit"``, ``"runtime port"``), or
    ``what`` it reads through ``option`` (``runtime lock``'s audited upstream, ``--at``):
    ``given`` (the option's value), else the configured pin as the requirement
    ``UPSTREAM==PIN`` (the release the plugin's patches are written against, as ``init``
    writes it for a plugin), which is fetched as ``option NAME==VERSION`` is. ``config`` is
    the configuration in use, or ``None``.

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
    name = upstream or "NAME"
    raise ConfigError(
        f"{command} needs {what}, the release the plugin's patches are written "
        f"against: {option} is not given, {where}",
        path=source,
        hint=spelt_for(
            f'pass {option} {name}==VERSION (or a directory), or set upstream = "{name}" and '
            'pin = "VERSION" in [tool.patchkeeper] (patchkeeper init --upstream '
            f"{name}==VERSION writes them for a plugin)",
            source,
        ),
    )


def recorded_argv(argv: Sequence[str], given: str | None, old: str) -> list[str]:
    """The command line kept with the evidence of a runtime command whose old upstream is
    ``old``: ``argv`` as given, with ``--from old`` added at its end when ``--from`` was not
    given (``given`` is ``None``), so that the evidence names the release it read.

    >>> recorded_argv(["runtime", "audit", "--to", "vllm==0.33.0"], None, "vllm==0.32.0")
    ['runtime', 'audit', '--to', 'vllm==0.33.0', '--from', 'vllm==0.32.0']
    """
    return list(argv) if given is not None else [*argv, OPTION_FROM, old]
