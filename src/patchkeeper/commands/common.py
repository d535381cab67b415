"""What several commands share: the command line an evidence command keeps when it is run
from Python."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


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
