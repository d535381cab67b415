"""``patchkeeper ledger --pre-commit``: the two pre-commit hooks' behaviour, in-process.

As a hook that fixes (``patchkeeper-ledger``), a rewritten table exits 1, as a formatter's fix
does under pre-commit, so the commit stops and the new table goes into it; as a hook that
checks (``patchkeeper-ledger-check``), a stale table names the hook that rewrites it, since
``patchkeeper`` lives only in pre-commit's own environment. The real pre-commit runs both in
``test_pre_commit_hooks.py``."""

from __future__ import annotations

import json
from pathlib import Path

from patchkeeper.main import main

STALE_ROW = "| extra-module | feature | adds pkg.extra | pkg #12 (open) | 1.0 | upstreamed |"


def _make_stale(downstream: Path) -> None:
    patch = downstream / "patches" / "extra-module.patch"
    patch.write_bytes(patch.read_bytes().replace(b"Kind: feature", b"Kind: fix"))


def test_the_fixing_hook_rewrites_and_exits_1_then_0(downstream: Path, capsys) -> None:
    assert main(["-C", str(downstream), "ledger"]) == 0
    _make_stale(downstream)
    capsys.readouterr()
    assert main(["-C", str(downstream), "ledger", "--pre-commit"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        "PATCHES.md: the ledger was stale; rewrote it (2 rows): review it, 'git add "
        "PATCHES.md' and commit again"
    )
    assert f"-{STALE_ROW}" in out.splitlines()
    text = (downstream / "PATCHES.md").read_text()
    assert STALE_ROW.replace("feature", "fix") in text.splitlines()
    assert main(["-C", str(downstream), "ledger", "--pre-commit"]) == 0
    assert capsys.readouterr().out == "PATCHES.md: the ledger is current (2 rows)\n"
    assert (downstream / "PATCHES.md").read_text() == text


def test_the_checking_hook_names_the_fixing_hook(downstream: Path, capsys) -> None:
    assert main(["-C", str(downstream), "ledger"]) == 0
    _make_stale(downstream)
    before = (downstream / "PATCHES.md").read_bytes()
    capsys.readouterr()
    assert main(["-C", str(downstream), "ledger", "--check", "--pre-commit"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        "PATCHES.md: the ledger is stale; run 'pre-commit run patchkeeper-ledger --all-files' "
        "to rewrite it"
    )
    assert (downstream / "PATCHES.md").read_bytes() == before


def test_the_hooks_in_json(downstream: Path, capsys) -> None:
    assert main(["-C", str(downstream), "ledger", "--pre-commit", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["exit_code"], data["written"], data["stale"], data["pre_commit"]) == (
        1,
        True,
        True,
        True,
    )
