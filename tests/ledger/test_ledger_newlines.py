"""A ledger file with CRLF line endings (saved by an editor on Windows, or checked out with
``core.autocrlf``) keeps them in every row ``ledger``, ``retire`` and ``port --in-place``
write.

Found on the example downstream with its ``PATCHES.md`` converted to CRLF: ``ledger --check``
called the current table stale (exit 1) with a diff whose lines looked the same, and
``ledger``/``retire`` then wrote LF rows into the CRLF file (mixed line endings).
"""

from __future__ import annotations

from pathlib import Path


def _crlf(path: Path) -> bytes:
    data = path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    path.write_bytes(data)
    return data


def _lone_lf(data: bytes) -> int:
    return data.replace(b"\r\n", b"").count(b"\n")


def test_a_current_crlf_ledger_is_current(example, cli) -> None:
    ledger = example.downstream / "PATCHES.md"
    before = _crlf(ledger)
    run = cli("ledger", "--check", cwd=example.downstream)
    assert (run.code, run.out) == (0, "PATCHES.md: the ledger is current (7 rows)\n")
    run = cli("ledger", cwd=example.downstream)
    assert run.code == 0
    assert ledger.read_bytes() == before


def test_a_rewritten_crlf_ledger_stays_crlf(example, cli) -> None:
    ledger = example.downstream / "PATCHES.md"
    _crlf(ledger)
    patch = example.downstream / "patches" / "metrics-same-host.patch"
    patch.write_bytes(patch.read_bytes().replace(b"What: count same-host", b"What: count local"))
    assert cli("ledger", "--check", cwd=example.downstream).code == 1
    assert cli("ledger", cwd=example.downstream).code == 0
    data = ledger.read_bytes()
    assert b"| metrics-same-host | own | count local redirects too | none | 1.0 |" in data
    assert _lone_lf(data) == 0


def test_retire_writes_the_retired_table_with_the_files_newlines(example, cli) -> None:
    ledger = example.downstream / "PATCHES.md"
    _crlf(ledger)
    run = cli(
        "retire", "retry-backoff-cap", "--at", "1.1", "--why", "in 1.1", cwd=example.downstream
    )
    assert run.code == 0
    data = ledger.read_bytes()
    assert _lone_lf(data) == 0
    assert data.endswith(
        b"<!-- table:end -->\r\n\r\n## Retired\r\n\r\n<!-- retired:begin -->\r\n"
        b"| patch | kind | what | retired at | why |\r\n|---|---|---|---|---|\r\n"
        b"| retry-backoff-cap | backport | cap the retry backoff at BACKOFF_MAX (120 s) | 1.1 "
        b"| in 1.1 |\r\n<!-- retired:end -->\r\n"
    )
    run = cli("retire", "metrics-same-host", "--at", "1.1", "--why", "gone", cwd=example.downstream)
    assert run.code == 0
    data = ledger.read_bytes()
    assert _lone_lf(data) == 0
    assert b"| metrics-same-host | own | count same-host redirects too | 1.1 | gone |\r\n" in data
    assert cli("ledger", "--check", cwd=example.downstream).code == 0
