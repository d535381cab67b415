"""What a port is asked to do: :class:`PortRequest`, built once by the ``port`` command from
its parsed options (or by ``upgrade``'s port step) and passed whole to
:func:`patchkeeper.port.session.port_series`.

A module of its own, importing nothing of the port, so that the MCP tools can read which
options start a port without loading it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path


@dataclass(frozen=True)
class PortRequest:
    """One port session's inputs; each field is the ``port`` option of the same parameter
    name, so that the command builds it from click's parsed parameters and the evidence is
    read back from it (:func:`dataclasses.asdict`).

    Attributes:
        to: the new pin (``--to``): a requirement ``NAME==VERSION`` or a directory; required
            to start a port, ``None`` for ``"continue"`` and ``"abort"``.
        source: the old pin (``--from``), in the same forms; default ``None``, the
            configured pin.
        in_place: rewrite the series where it is (``--in-place``); default ``False``.
        output: the new series' directory (``--output``); default ``None``, beside the
            series directory, named after the new pin; unused with ``in_place``.
        retire: record the retirements in the ledger (``--retire``, with ``in_place`` only);
            default ``False``.
        upstream_repo: an upstream git checkout whose history is the evidence
            (``--upstream-repo``); default ``None``, no history.
        action: ``"port"`` (default) to start, ``"continue"`` to go on after a conflict
            (``--continue``), ``"abort"`` to drop the port in progress (``--abort``).
    """

    to: str | None = None
    source: str | None = None
    in_place: bool = False
    output: Path | None = None
    retire: bool = False
    upstream_repo: Path | None = None
    action: str = "port"

    @classmethod
    def starting(cls) -> tuple[str, ...]:
        """The fields that start a port (every one but ``action``), in order: a
        ``--continue`` or ``--abort`` takes none of them."""
        return tuple(f.name for f in fields(cls) if f.name != "action")
