"""The ``[tool.patchkeeper.port]`` settings.

A sample, in ``patchkeeper.toml``::

    [port]
    work-dir = ".patchkeeper-port"        # where a stopped port keeps its state

The pins' tags in an ``--upstream-repo`` checkout come from ``[git] pin-tag``
(:mod:`patchkeeper.ledger.settings`, default ``v{pin}``), then the bare version.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from patchkeeper.config import Config, NotEmpty, register_section

WORK_DIR = ".patchkeeper-port"

register_section(
    "port",
    {
        "work-dir": (
            str,
            WORK_DIR,
            NotEmpty(f'where a stopped port keeps its state: work-dir = "{WORK_DIR}"'),
        )
    },
)


@dataclass(frozen=True)
class PortSettings:
    """The port's settings with paths made absolute.

    Attributes:
        work_dir: the work directory of a stopped port.
        tags: tag name formats tried in order, ``{pin}`` replaced by the version.
    """

    work_dir: Path
    tags: tuple[str, ...]


def port_settings(config: Config) -> PortSettings:
    """Read ``[tool.patchkeeper.port]`` and the pin's tag from ``[tool.patchkeeper.git]``."""
    from patchkeeper.ledger.settings import git_settings

    table = config.sections.get("port", {})
    work_dir = config.root / table.get("work-dir", WORK_DIR)
    pin_tag = git_settings(config).pin_tag
    tags = tuple(dict.fromkeys((pin_tag, "{pin}")))
    return PortSettings(work_dir=work_dir, tags=tags)
