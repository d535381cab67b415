"""``upgrade --to NEWPIN``: the whole upgrade of a downstream, as one reviewable piece of work.

Audits the series and the runtime patches, suggests decisions, writes the runtime update,
ports the series in place (stopping at a conflict, like ``port``), writes the audit record,
and says what is left for a person (:mod:`patchkeeper.upgrade.run`). ``--branch NAME`` does
the work on a new git branch, one commit per step; ``--continue`` goes on after a conflict is
resolved; ``--abort`` puts the downstream back.

Exit 0 when the upgrade is done (or aborted), 1 while a conflict waits.
"""

from __future__ import annotations

from patchkeeper.commands import audit, decide, port, report, runtime_audit, runtime_port
from patchkeeper.config import Config
from patchkeeper.upgrade.results import UpgradeResult
from patchkeeper.upgrade.run import Steps, upgrade

#: Each step is the function its own command runs.
STEPS = Steps(
    audit=audit.run,
    runtime_audit=runtime_audit.run,
    decide=decide.run,
    runtime_port=runtime_port.run,
    port=port.run,
    report=report.run,
)


def run(
    config: Config,
    *,
    to: str | None = None,
    source: str | None = None,
    branch: str | None = None,
    action: str = "upgrade",
) -> UpgradeResult:
    """``upgrade`` (``action="upgrade"``), ``upgrade --continue`` or ``upgrade --abort``.

    Raises: as :func:`patchkeeper.upgrade.run.upgrade`.
    """
    return upgrade(config, STEPS, to=to, source=source, branch=branch, action=action)
