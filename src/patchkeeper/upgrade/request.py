"""What an upgrade is asked to do: :class:`UpgradeRequest`, built once by the ``upgrade``
command from its parsed options and passed whole to :func:`patchkeeper.upgrade.run.upgrade`.

A module of its own, importing nothing of the upgrade, so that the MCP tools can read which
options start an upgrade without loading it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class UpgradeRequest:
    """One upgrade run's inputs; each field is the ``upgrade`` option of the same parameter
    name, so that the command builds it from click's parsed parameters.

    Attributes:
        to: the new pin (``--to``): a requirement ``NAME==VERSION`` or a directory; required
            to start an upgrade, ``None`` for ``"continue"`` and ``"abort"``.
        source: the old pin (``--from``), in the same forms; default ``None``, the
            configured pin.
        branch: a new git branch for the work, one commit per step (``--branch``); default
            ``None``, the work tree as it is.
        action: ``"upgrade"`` (default) to start, ``"continue"`` to go on after a conflict
            (``--continue``), ``"abort"`` to drop the upgrade (``--abort``).
    """

    to: str | None = None
    source: str | None = None
    branch: str | None = None
    action: str = "upgrade"

    @classmethod
    def starting(cls) -> tuple[str, ...]:
        """The fields that start an upgrade (every one but ``action``), in order: a
        ``--continue`` or ``--abort`` takes none of them."""
        return tuple(f.name for f in fields(cls) if f.name != "action")
