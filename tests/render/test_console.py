"""The terminal: tables that fit the width, verdicts in colour, progress bars on standard error
(render/console.py; docs/terminal-output.md)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest

from helpers import Example
from patchkeeper import progress
from patchkeeper.render.console import (
    PLAIN,
    Terminal,
    detect,
    finish,
    progress_bar,
    table,
    use,
)


class TerminalStream(io.StringIO):
    """A stream that says it is a terminal (as ``sys.stdout`` does in one)."""

    def isatty(self) -> bool:
        return True


#: The bundled example's audit table at 80 columns: the names whole, the evidence wrapped at
#: word boundaries under its own column.
AUDIT_80 = """\
  patch                            verdict      evidence
  retry-backoff-cap.patch          upstreamed   every hunk's post-image is there
                                                (retry.py #1); 2 of 2
                                                substantive added lines already
                                                upstream (strongest: retry.py
                                                2/2); to do: retire (upstream
                                                has it)
  redirect-strip-proxy-auth.patch  conflict     retry.py #1 fails at fuzz 0
                                                (closest: retry.py line 8, 6 of
                                                7 lines match); 0 of 1
                                                substantive added lines already
                                                upstream (strongest: retry.py
                                                0/1); since the pin, 2 of the 16
                                                lines of `Retry` (retry.py #1)
                                                changed, 1 of the hunk's 2 lines
                                                left there; the later patch
                                                redirect-strip-api-key.patch
                                                rewrites the lines it adds; to
                                                do: port (rework the failing
                                                hunks)
  headers-merge-order.patch        target gone  headers.py no longer exists;
                                                likely moved to httputil.py
                                                (same content: 4 of 4 context
                                                lines found there); to do: port
                                                (onto the file its content moved
                                                to)
  client-describe-version.patch    offset       applies at fuzz 0; hunks moved:
                                                client.py #1 +5; to do: carry
                                                (it applies)
  metrics-redirects.patch          offset       applies at fuzz 0; hunks moved:
                                                client.py #1 +5; to do: carry
                                                (it applies)
  metrics-same-host.patch          clean        applies at fuzz 0, every hunk in
                                                place; to do: carry (it applies)
  redirect-strip-api-key.patch     blocked      retry.py #1 needs lines that the
                                                failing patch
                                                redirect-strip-proxy-auth.patch
                                                adds; to do: port (after
                                                redirect-strip-proxy-auth.patch)"""

#: The first rows at 60 columns: names cut with "..." (whole in --json and --markdown).
AUDIT_60_HEAD = """\
  patch                 verdict      evidence
  retry-backoff-cap...  upstreamed   every hunk's post-image
                                     is there (retry.py #1);"""

#: The conflict's row when nothing asks for a width (a pipe without $COLUMNS): one line.
CONFLICT_ROW = (
    "  redirect-strip-proxy-auth.patch  conflict     retry.py #1 fails at fuzz 0 (closest: "
    "retry.py line 8, 6 of 7 lines match); 0 of 1 substantive added lines already upstream "
    "(strongest: retry.py 0/1); since the pin, 2 of the 16 lines of `Retry` (retry.py #1) "
    "changed, 1 of the hunk's 2 lines left there; the later patch redirect-strip-api-key.patch "
    "rewrites the "
    "lines it adds; to do: port (rework the failing hunks)"
)


def _audit(cli, example: Example, *extra: str):
    return cli("audit", "--to", str(example.new), *extra, cwd=example.downstream)


def test_audit_fits_80_columns(cli, example: Example, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    run = _audit(cli, example)
    assert run.code == 1
    assert run.out.split("\n\n")[1] == AUDIT_80
    assert max(len(line) for line in run.out.splitlines()) <= 80
    assert "\x1b" not in run.out  # not a terminal: no colour
    # no word is cut: the wrapped evidence is the JSON's summary, word for word
    summaries = json.loads(_audit(cli, example, "--json").out)["verdicts"]
    evidence = " ".join(line[48:] for line in AUDIT_80.splitlines()[1:7])
    assert evidence == summaries[0]["summary"]


def test_audit_cuts_names_with_dots_at_60_columns(cli, example: Example, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    markdown = example.root / "audit.md"
    run = _audit(cli, example, "--markdown", str(markdown))
    table = run.out.split("\n\n")[1]
    assert table.startswith(AUDIT_60_HEAD + "\n")
    assert "  redirect-strip-pr...  conflict     retry.py #1 fails at" in table.splitlines()
    assert max(len(line) for line in run.out.splitlines()) <= 60
    assert "| `redirect-strip-proxy-auth.patch` | conflict |" in markdown.read_text()


#: The first rows at 40 columns: too narrow for the evidence beside the other columns, so it
#: goes under each row, in the whole width.
AUDIT_40_HEAD = """\
  patch                    verdict
      evidence
  retry-backoff-cap.patch  upstreamed
      every hunk's post-image is there
      (retry.py #1); 2 of 2 substantive
      added lines already upstream
      (strongest: retry.py 2/2); to do:
      retire (upstream has it)
  redirect-strip-proxy...  conflict
      retry.py #1 fails at fuzz 0"""


def test_audit_puts_the_evidence_under_its_row_at_40_columns(
    cli, example: Example, monkeypatch
) -> None:
    """Before, the evidence kept a column 16 characters wide beside the others, past the
    width, and the terminal text was wrapped again into blank and ragged lines."""
    monkeypatch.setenv("COLUMNS", "40")
    run = _audit(cli, example)
    table = run.out.split("\n\n")[1]
    assert table.startswith(AUDIT_40_HEAD + "\n")
    assert max(len(line) for line in run.out.splitlines()) <= 40
    assert "" not in [line.strip() for line in table.splitlines()]
    summaries = json.loads(_audit(cli, example, "--json").out)["verdicts"]
    evidence = " ".join(line.strip() for line in AUDIT_40_HEAD.splitlines()[3:8])
    assert evidence == summaries[0]["summary"]  # word for word


def test_audit_wraps_the_hunk_evidence_under_its_line(cli, example: Example, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    run = _audit(cli, example)
    detail = run.out.split("\n\n")[2].splitlines()
    assert detail[4:8] == [
        "        line 11: expected '    REMOVE_ON_REDIRECT =",
        '              frozenset(["Authorization"])\'',
        '                 found    \'    REMOVE_ON_REDIRECT = frozenset(["Authorization",',
        '                          "Cookie"])\'',
    ]


def test_audit_in_a_pipe_without_columns_is_one_line_per_row(cli, example: Example) -> None:
    run = _audit(cli, example)
    assert CONFLICT_ROW in run.out.splitlines()
    assert "\x1b" not in run.out


def test_verdicts_in_colour_when_asked_and_never_with_no_color(
    cli, example: Example, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("PATCHKEEPER_COLOR", "always")
    rows = _audit(cli, example).out.split("\n\n")[1].splitlines()
    assert rows[7] == (
        "  redirect-strip-proxy-auth.patch  \x1b[31mconflict\x1b[0m     retry.py #1 fails at fuzz 0"
    )
    assert rows[1].startswith("  retry-backoff-cap.patch          \x1b[36mupstreamed\x1b[0m   ")
    monkeypatch.setenv("NO_COLOR", "1")
    assert _audit(cli, example).out.split("\n\n")[1] == AUDIT_80


def test_detect_reads_the_stream_and_the_environment() -> None:
    tty = TerminalStream()
    assert detect(io.StringIO(), {}) == PLAIN
    assert detect(io.StringIO(), {"COLUMNS": "80"}) == Terminal(width=80, colour=False)
    assert detect(tty, {"COLUMNS": "100"}) == Terminal(width=100, colour=True)
    assert detect(tty, {"NO_COLOR": "1"}) == Terminal(width=None, colour=False)
    assert detect(tty, {"NO_COLOR": ""}) == Terminal(width=None, colour=True)  # empty: unset
    assert detect(tty, {"PATCHKEEPER_COLOR": "never"}).colour is False
    assert detect(io.StringIO(), {"PATCHKEEPER_COLOR": "always"}).colour is True
    assert detect(io.StringIO(), {"COLUMNS": "wide"}) == PLAIN
    assert detect(io.StringIO(), {"FORCE_COLOR": "1"}).colour is True  # CI logs
    assert detect(io.StringIO(), {"FORCE_COLOR": "1", "NO_COLOR": "1"}).colour is False
    assert detect(tty, {"FORCE_COLOR": "1", "PATCHKEEPER_COLOR": "never"}).colour is False


def test_finish_wraps_long_lines_at_words_and_leaves_diffs_and_annotations() -> None:
    text = (
        "  changed outside the series: src/minihttp/client.py differs from pristine "
        "(sha256 0123456789ab, pristine ba9876543210)\n"
        "-a removed line of a stale ledger's diff that is longer than forty columns\n"
        "::error file=patches/a.patch,line=3::a GitHub annotation longer than forty"
    )
    assert finish(text, Terminal(width=40, colour=False)) == (
        "  changed outside the series:\n"
        "        src/minihttp/client.py differs\n"
        "        from pristine (sha256\n"
        "        0123456789ab, pristine\n"
        "        ba9876543210)\n"
        "-a removed line of a stale ledger's diff that is longer than forty columns\n"
        "::error file=patches/a.patch,line=3::a GitHub annotation longer than forty"
    )
    assert finish(text, PLAIN) == text


def test_finish_colours_verdict_cells_only() -> None:
    text = (
        "  applied      a.patch\n  not applied  b.patch\nnot ok: 1 of 2 patches applied\n"
        "  c.patch  pending (conflict)  retry.py #1 conflicts\n"
        "the patch is clean and applied"
    )
    assert finish(text, Terminal(width=None, colour=True)) == (
        "  \x1b[32mapplied\x1b[0m      a.patch\n"
        "  \x1b[31mnot applied\x1b[0m  b.patch\n"
        "\x1b[31mnot ok:\x1b[0m 1 of 2 patches applied\n"
        "  c.patch  \x1b[31mpending (conflict)\x1b[0m  retry.py #1 conflicts\n"
        "the patch is clean and applied"
    )
    assert finish("+\tindented by a tab", Terminal(width=80, colour=True)) == "+\tindented by a tab"


def test_table_cuts_first_columns_with_dots_and_wraps_the_last() -> None:
    rows = [("a-patch-with-a-very-long-name.patch", "conflict", "one two three four five six")]
    use(Terminal(width=50, colour=False))
    try:
        fitted = table(rows)
    finally:
        use(PLAIN)
    assert fitted == [
        "  a-patch-with-a...  conflict  one two three four",
        "                               five six",
    ]
    assert table(rows) == [
        "  a-patch-with-a-very-long-name.patch  conflict  one two three four five six"
    ]


def test_progress_bar_is_silent_when_not_a_terminal() -> None:
    stream = io.StringIO()
    with progress_bar("scanning 3 files", 3, "files", stream) as advance:
        advance()
        advance(2)
    assert stream.getvalue() == ""


def test_progress_bar_counts_files_and_bytes_on_a_terminal() -> None:
    stream = TerminalStream()
    with progress_bar("scanning 2000 files", 2000, "files", stream, delay=0) as advance:
        for _ in range(2000):
            advance()
    shown = stream.getvalue()
    assert "scanning 2000 files" in shown
    assert "\x1b[32m2000/2000\x1b[0m" in shown
    assert shown.endswith("\r\x1b[2K\x1b[?25h\r")  # the bar is erased when done
    stream = TerminalStream()
    with progress_bar(
        "downloading vllm-0.28.0.tar.gz", 40_000_000, "bytes", stream, delay=0
    ) as advance:
        advance(40_000_000)
    assert "\x1b[32m40.0/40.0 MB\x1b[0m" in stream.getvalue()


def test_a_bar_stays_on_one_line_of_the_terminal() -> None:
    stream = TerminalStream()  # 80 columns: rich's default for a stream of unknown size
    name = "downloading a-very-long-distribution-name-with-many-words-0.28.0.tar.gz"
    with progress_bar(name, 40_000_000, "bytes", stream, delay=0) as advance:
        advance(40_000_000)
    frames = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", stream.getvalue()).split("\r")
    drawn = [frame.rstrip("\n") for frame in frames if frame.strip()]
    assert drawn[-1] == (
        "downloading a-very-long-distribution-na\u2026 " + "\u2501" * 16 + " 40.0/40.0 MB ? 0:00:00"
    )
    assert {len(frame) for frame in drawn} == {80}


def test_steps_at_once_share_one_display() -> None:
    """The horizon downloads releases in threads: each gets its bar in the one display
    (``rich`` allows one live display at a time)."""
    stream = TerminalStream()
    with (
        progress_bar("downloading a-1.0.tar.gz", 10, "bytes", stream, delay=0) as first,
        progress_bar("downloading a-2.0.tar.gz", 20, "bytes", stream, delay=0) as second,
    ):
        first(10)
        second(20)
    shown = stream.getvalue()
    assert "\x1b[32m10/10 bytes\x1b[0m" in shown
    assert "\x1b[32m20/20 bytes\x1b[0m" in shown
    with progress_bar("scanning", 1, "files", stream, delay=0) as advance:  # a new display
        advance()
    assert "\x1b[32m1/1\x1b[0m" in stream.getvalue()


def test_track_without_a_bar_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with progress.track("scanning", 2) as advance:
        advance()
    assert capsys.readouterr() == ("", "")


def test_track_draws_through_the_factory_main_sets() -> None:
    stream = TerminalStream()
    progress.set_bar_factory(lambda *args: progress_bar(*args, stream=stream, delay=0))
    try:
        with progress.track("searching files for moved lines", 2) as advance:
            advance(2)
    finally:
        progress.set_bar_factory(None)
    assert "\x1b[32m2/2\x1b[0m" in stream.getvalue()


def test_rich_is_not_imported_to_start() -> None:
    code = (
        "import sys\n"
        "import patchkeeper.main, patchkeeper.render.console, patchkeeper.progress\n"
        "import patchkeeper.upstream.treeindex, patchkeeper.upstream.finder\n"
        "print(sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


def _audit_on_a_terminal(example: Example, columns: int) -> tuple[int, str, bytes]:
    """``audit`` with standard error on a pseudo-terminal ``columns`` wide and standard
    output a pipe: the exit code, standard output and the bytes written to the terminal."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    environ = {
        name: value
        for name, value in os.environ.items()
        if name not in ("COLUMNS", "NO_COLOR", "PATCHKEEPER_COLOR", "FORCE_COLOR")
    }
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    command = [sys.executable, "-m", "patchkeeper", "audit", "--to", str(example.new)]
    with subprocess.Popen(
        command, cwd=example.downstream, stdout=subprocess.PIPE, stderr=slave, env=environ
    ) as process:
        os.close(slave)
        out = process.stdout.read().decode() if process.stdout else ""
        code = process.wait()
    shown = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the other end is closed: all is read
            break
        if not data:
            break
        shown += data
    os.close(master)
    return code, out, shown


def test_a_short_scan_on_a_terminal_leaves_no_status_line_and_draws_no_bar(
    example: Example,
) -> None:
    """End to end: ``main`` sends notes and bars to standard error when it is a terminal (a
    pseudo-terminal 40 columns wide here). The note "scanning ... for moved content" is a
    status line cut to the width and erased when the output comes; the scan of minihttp-1.1's
    four files takes less than half a second, so no bar is drawn for it. Standard output, a
    pipe, stays plain, one line per row."""
    code, out, shown = _audit_on_a_terminal(example, 40)
    assert code == 1
    assert CONFLICT_ROW in out.splitlines()
    assert "\x1b" not in out
    assert b"searching files for moved lines" not in shown  # the bar of the 4-file scan
    assert b"4/4" not in shown
    writes = shown.decode().split("\r\x1b[2K")
    assert writes[0] == ""  # every write starts by erasing the line
    assert writes[-1] == ""  # and the last one erases the last status line
    status = {text for text in writes if text}  # each tree scanned shows it
    assert status == {f"scanning {example.new} for moved content ..."[:38] + "\u2026"}


def test_a_status_line_fits_the_width_and_is_erased(monkeypatch: pytest.MonkeyPatch) -> None:
    from patchkeeper.render.console import StatusLine

    monkeypatch.setenv("COLUMNS", "20")
    stream = TerminalStream()
    status = StatusLine(stream)
    status.show("fetching vllm==0.28.0 (sdist) into the cache ...")
    status.show("short")
    status.clear()
    status.clear()  # nothing is shown: nothing to erase
    assert stream.getvalue() == ("\r\x1b[2Kfetching vllm==0.2\u2026\r\x1b[2Kshort\r\x1b[2K")


def test_no_bar_for_a_step_shorter_than_the_delay() -> None:
    stream = TerminalStream()
    with progress_bar("scanning 4 files", 4, "files", stream) as advance:
        for _ in range(4):
            advance()
    assert stream.getvalue() == ""


def test_a_longer_step_gets_its_bar_after_the_delay_with_what_was_done() -> None:
    import time

    stream = TerminalStream()
    with progress_bar("scanning 5 files", 5, "files", stream, delay=0.05) as advance:
        advance(2)
        assert stream.getvalue() == ""
        time.sleep(0.5)
        advance()
    shown = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", stream.getvalue())
    assert "scanning 5 files" in shown
    assert " 2/5 " in shown  # drawn with the two files done before it appeared
    assert " 3/5 " in shown


def test_verify_fits_and_colours_its_rows(cli, example: Example, monkeypatch) -> None:
    import shutil

    target = example.root / "target"
    shutil.copytree(example.old, target)
    assert cli("apply", "--target", str(target), cwd=example.downstream).code == 0
    (target / "minihttp" / "left-over.txt").write_text("written by hand\n")
    args = ("verify", "--target", str(target), "--pristine", str(example.old))
    plain = cli(*args, cwd=example.downstream)
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setenv("PATCHKEEPER_COLOR", "always")
    fitted = cli(*args, cwd=example.downstream)
    assert plain.code == fitted.code == 1
    lines = fitted.out.splitlines()
    assert lines[-10:] == [
        "  \x1b[32mapplied\x1b[0m  retry-backoff-cap.patch",
        "  \x1b[32mapplied\x1b[0m  redirect-strip-proxy-auth.patch",
        "  \x1b[32mapplied\x1b[0m  headers-merge-order.patch",
        "  \x1b[32mapplied\x1b[0m  client-describe-version.patch",
        "  \x1b[32mapplied\x1b[0m  metrics-redirects.patch",
        "  \x1b[32mapplied\x1b[0m  metrics-same-host.patch",
        "  \x1b[32mapplied\x1b[0m  redirect-strip-api-key.patch",
        "  changed outside the series: left-over.txt exists (sha256",
        "        e0b034665693) but pristine has no such file",
        "\x1b[31mnot ok:\x1b[0m 7 of 7 patches applied, 1 file drifted",
    ]
    assert "  changed outside the series: left-over.txt exists (sha256" in plain.out
