"""The audit weighs evidence against the old pin's tree: ``--pristine``, the configured
``pristine``, else ``upstream==pin``; when none can be had it goes on and says so."""

from __future__ import annotations

import json

from helpers import Example


def _without_pristine(example: Example) -> None:
    config = example.downstream / "patchkeeper.toml"
    lines = config.read_text().splitlines(keepends=True)
    kept = [line for line in lines if not line.startswith(("pristine", "pin ="))]
    config.write_text("".join(kept))


def test_without_a_pin_tree_the_audit_says_so(cli, example: Example) -> None:
    _without_pristine(example)
    run = cli("audit", "--to", str(example.new), cwd=example.downstream)
    assert run.code == 1
    assert run.out.splitlines()[2] == (
        "the old pin's tree could not be had (no pin is configured (set upstream and pin, or "
        "pass --pristine)): lines it already had count as evidence too"
    )
    data = json.loads(cli("audit", "--json", "--to", str(example.new), cwd=example.downstream).out)
    assert (data["pin_tree"], data["pin_note"]) == (
        None,
        "no pin is configured (set upstream and pin, or pass --pristine)",
    )


def test_pristine_option_names_the_pin_tree(cli, example: Example) -> None:
    _without_pristine(example)
    run = cli(
        "audit", "--json", "--to", str(example.new), "--pristine", str(example.old),
        cwd=example.downstream,
    )  # fmt: skip
    data = json.loads(run.out)
    assert (data["pin_tree"], data["pin_note"]) == (f"directory {example.old.resolve()}", None)
    assert [v["verdict"] for v in data["verdicts"]] == [
        "upstreamed", "conflict", "target gone", "offset", "offset", "clean", "blocked"
    ]  # fmt: skip
    run = cli("audit", "--to", str(example.new), "--pristine", "./nowhere", cwd=example.downstream)
    assert (run.code, run.err) == (
        2,
        "patchkeeper: error: nowhere: the pristine reference (--pristine) does not exist\n"
        f"  hint: relative paths start at {example.downstream} (-C DIR's, when given), and "
        f"there is no directory {example.downstream / 'nowhere'}\n",
    )
