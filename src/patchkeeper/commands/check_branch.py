"""``check-branch [BRANCH]``: prove that the series applied to the pin's tag is the branch."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.ledger.check_branch import CheckBranchResult, check_branch


def run(
    config: Config,
    *,
    checkout: Path | None = None,
    branch: str | None = None,
    tag: str | None = None,
) -> CheckBranchResult:
    """Compare the integration branch with the series.

    Raises: as :func:`patchkeeper.ledger.check_branch.check_branch`.
    """
    return check_branch(config, checkout=checkout, branch=branch, tag=tag)
