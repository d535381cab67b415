"""The ``[tool.patchkeeper.port]`` settings.

A sample, in ``patchkeeper.toml``::

    [port]
    work-dir = ".patchkeeper-port"        # where a stopped port keeps its state
    tag = ["v{version}", "{version}"]     # the pins' tags in an --upstream-repo checkout
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from patchkeeper.config import Config, register_section

WORK_DIR = ".patchkeeper-port"
TAGS = ["v{version}", "{version}"]

register_section("port", {"work-dir": (str, WORK_DIR), "tag": (list, TAGS)})


@dataclass(frozen=True)
class PortSettings:
    """The port's settings with paths made absolute.

    Attributes:
        work_dir: the work directory of a stopped port.
        tags: tag name formats tried in order, ``{version}`` replaced by the pin.
    """

    work_dir: Path
    tags: tuple[str, ...]


def port_settings(config: Config) -> PortSettings:
    """Read ``[tool.patchkeeper.port]`` (defaults when absent)."""
    table = config.sections.get("port", {})
    work_dir = config.root / table.get("work-dir", WORK_DIR)
    return PortSettings(work_dir=work_dir, tags=tuple(table.get("tag", TAGS)))
