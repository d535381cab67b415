"""``decide`` suggests what the audit's action says: a *conflict* whose hunks land with their
own lines unchanged is carried (refresh it), not updated; and a person's ``carry`` of it is
no contradiction for ``report --check``."""

from __future__ import annotations

from pathlib import Path

from recordhelpers import evidence_downstream

from helpers import SETTINGS_NEW as NEW
from helpers import SETTINGS_OLD as OLD
from helpers import WIDER_PATCH as WIDER
from patchkeeper.record.decisions import load


def _downstream(root: Path) -> Path:
    """A downstream carrying ``wider.patch`` on ``pkg`` 1.0, keeping evidence, with both
    upstream releases as directories beside it."""
    return evidence_downstream(root, "pkg/settings.py", (OLD, NEW), WIDER, "wider.patch")


def test_a_conflict_to_refresh_is_suggested_carry(cli, tmp_path: Path, private_cache: Path) -> None:
    downstream = _downstream(tmp_path)
    audit = cli("audit", "--to", "../pkg-1.1", cwd=downstream)
    assert audit.code == 1
    assert "to do: carry (refresh it" in audit.out
    run = cli("decide", cwd=downstream)
    assert run.code == 0
    path = downstream / "patchkeeper-decisions.toml"
    decision = load(path).get("series", "wider.patch")
    assert decision is not None
    assert (decision.decision, decision.reason, decision.suggested) == (
        "carry",
        "suggested by patchkeeper decide from the audit verdict: conflict, to do: carry",
        True,
    )
    assert path.read_text().splitlines()[-7:-3] == [
        '[series."wider.patch"]',
        "# suggested from audit: conflict, to do: carry; to accept it, delete "
        '"suggested: " from the decision',
        "# and write in removal-condition when it can go (report --check asks for it)",
        'decision = "suggested: carry"',
    ]
    # accepted, the carry of the refreshed patch agrees with the evidence
    path.write_text(
        path.read_text()
        .replace('decision = "suggested: carry"', 'decision = "carry"')
        .replace('removal-condition = ""', 'removal-condition = "when upstream widens it"')
    )
    assert cli("report", cwd=downstream).code == 0
    check = cli("report", "--check", cwd=downstream)
    assert (check.code, check.err) == (0, "")
