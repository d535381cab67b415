"""The bundled example stays consistent: its ledger is current and its patches lint clean."""

from __future__ import annotations

from helpers import Example


def test_example_ledger_is_current_and_lint_clean(cli, example: Example) -> None:
    run = cli("ledger", "--check", cwd=example.downstream)
    assert (run.code, run.out.strip()) == (0, "PATCHES.md: the ledger is current (7 rows)")
    run = cli("lint", cwd=example.downstream)
    assert (run.code, run.out.strip()) == (0, "no problems in 7 patches")


def test_example_series_applies_to_its_pin(cli, example: Example) -> None:
    target = example.target()
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.out.strip()) == (
        0,
        f"applied 7 patches on directory {target}: 4 files changed",
    )
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 7 of 7 patches applied, 0 files drifted",
    )
