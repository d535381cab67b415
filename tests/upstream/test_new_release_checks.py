"""The checks ``port`` and ``upgrade`` make before they start, one helper for both
(``--to`` given, then ``--to`` and ``--from`` each a release): each command's error names
the command."""

from __future__ import annotations

import pytest

from helpers import Example


@pytest.mark.parametrize("command", ["port", "upgrade"])
def test_no_new_release_is_named(cli, example: Example, command: str) -> None:
    run = cli("-C", str(example.downstream), command)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {command} needs --to NEWPIN\n"
        "  hint: pass --to NAME==VERSION or --to DIR\n"
    )
