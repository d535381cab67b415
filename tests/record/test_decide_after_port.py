"""``decide`` after a port: a suggestion nobody reviewed to *update* a patch that the port
has carried since (a conflict a person resolved, a patch git's merge refreshed) is stale,
and becomes the port's *carry*; the port was the update."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import Example, resolve

PROXY = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n'


def _decide_carries_the_ported_updates(cli, down: Path) -> None:
    """Run ``decide`` in ``down`` after its port carried two patches decided *update*
    (one a conflict resolved, one merged): both suggestions become *carry*."""
    run = cli("decide", cwd=down)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines() == [
        f"{down / 'patchkeeper-decisions.toml'}: added 0, kept 7 existing",
        "replaced 2 suggestions to update patches the port has carried since:",
        "  series redirect-strip-proxy-auth.patch: suggested: carry (resolved)",
        "  series headers-merge-order.patch: suggested: carry (merged)",
        '2 suggestions to review: delete "suggested: " from a decision to accept it, or write '
        "your own; report --check fails until then",
    ]


def test_decide_replaces_an_update_the_port_has_done(cli, example: Example) -> None:
    down = example.downstream
    to = ("--to", "../upstream/minihttp-1.1")
    assert cli("audit", *to, "--save-evidence", cwd=down).code == 1
    assert cli("decide", cwd=down).code == 0
    assert cli("port", *to, "--in-place", "--save-evidence", cwd=down).code == 1
    resolve(down / ".patchkeeper-port" / "conflict" / "files" / "retry.py", PROXY)
    assert cli("port", "--continue", "--save-evidence", cwd=down).code == 1

    _decide_carries_the_ported_updates(cli, down)
    # the patch the port stopped at next is still to update
    text = (down / "patchkeeper-decisions.toml").read_text()
    table = text[text.index('[series."redirect-strip-api-key.patch"]') :]
    assert 'decision = "suggested: update"\n' in table


def test_a_plain_continue_of_a_port_with_saved_evidence_saves_its_result(
    cli, example: Example
) -> None:
    """The port was started with --save-evidence and stopped; a plain ``port --continue``
    (as the port's INSTRUCTIONS.md says it) saved nothing, so the evidence still told the
    first stop and decide kept suggesting the update the port had done. Its result now
    replaces the stop's evidence, with ``--no-save-evidence`` too."""
    down = example.downstream
    to = ("--to", "../upstream/minihttp-1.1")
    assert cli("audit", *to, "--save-evidence", cwd=down).code == 1
    assert cli("decide", cwd=down).code == 0
    assert cli("port", *to, "--in-place", "--save-evidence", cwd=down).code == 1
    files = down / ".patchkeeper-port" / "conflict" / "files" / "retry.py"
    evidence = down / ".patchkeeper" / "evidence" / "port.json"
    stop = evidence.read_bytes()
    resolve(files, PROXY)
    # with --no-save-evidence too (a warning says so): the stop left there would tell a port
    # that still waits
    assert cli("port", "--continue", "--no-save-evidence", cwd=down).code == 1
    assert evidence.read_bytes() != stop
    saved = json.loads(evidence.read_text())["result"]
    assert (saved["outcome"], saved["stopped_at"]) == ("stopped", "redirect-strip-api-key.patch")
    assert cli("port", "--abort", cwd=down).code == 0
    assert cli("port", *to, "--in-place", "--save-evidence", cwd=down).code == 1
    resolve(files, PROXY)

    assert cli("port", "--continue", cwd=down).code == 1

    saved = json.loads(evidence.read_text())["result"]
    assert (saved["outcome"], saved["stopped_at"]) == ("stopped", "redirect-strip-api-key.patch")
    _decide_carries_the_ported_updates(cli, down)
