"""An in-place port rewrites the ledger's table after it writes the series, the patches and
the pin. A ledger whose markers are broken (a begin marker edited away) stopped it there: the
series and the pin written, the ledger not, the work directory left, and ``port --abort``
then left the half-written series in place. The markers are checked before the first write:
when the port starts, and again before the series is written (they may be broken while the
port waits at a conflict)."""

from __future__ import annotations

from port_support import API_KEY, PROXY, resolve, start, work_files

from helpers import Example, tree_bytes

BROKEN = "<!-- table:begin", "<!-- tabel:begin"
ERROR = (
    "patchkeeper: error: {ledger}:16: a '<!-- table:end -->' line, but no line starting with "
    "'<!-- table:begin' before it\n"
    "  hint: add a line <!-- table:begin ... --> where the table starts\n"
)


def _break(ledger) -> None:
    ledger.write_text(ledger.read_text().replace(*BROKEN))


def test_an_in_place_port_with_a_broken_ledger_does_not_start(cli, example: Example) -> None:
    down = example.downstream
    ledger = down / "PATCHES.md"
    _break(ledger)
    before = tree_bytes(down)

    run = cli("port", "--to", "../upstream/minihttp-1.1", "--in-place", cwd=down)

    assert (run.code, run.out, run.err) == (2, "", ERROR.format(ledger=ledger))
    assert tree_bytes(down) == before
    # written to a new directory, the port leaves the ledger alone, and goes on
    assert cli("port", "--to", "../upstream/minihttp-1.1", cwd=down).code == 1


def test_a_ledger_broken_during_the_port_stops_it_before_the_series_is_written(
    cli, example: Example
) -> None:
    down = example.downstream
    ledger = down / "PATCHES.md"
    assert start(cli, example, "--in-place").code == 1
    resolve(work_files(example) / "retry.py", PROXY)
    assert cli("port", "--continue", cwd=down).code == 1
    resolve(work_files(example) / "retry.py", API_KEY)
    _break(ledger)
    series = (down / "patches" / "series").read_bytes()
    config = (down / "patchkeeper.toml").read_bytes()

    run = cli("port", "--continue", cwd=down)

    assert (run.code, run.out, run.err) == (2, "", ERROR.format(ledger=ledger))
    assert (down / "patches" / "series").read_bytes() == series
    assert (down / "patchkeeper.toml").read_bytes() == config
    ledger.write_text(ledger.read_text().replace(BROKEN[1], BROKEN[0]))
    run = cli("port", "--continue", cwd=down)
    assert (run.code, run.err) == (0, "")
    assert 'pin = "1.1"' in (down / "patchkeeper.toml").read_text()
    assert cli("ledger", "--check", cwd=down).code == 0
