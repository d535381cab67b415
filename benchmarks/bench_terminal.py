"""Benchmark: the cost of shaping text output for a terminal, and of the progress bars.

docs/terminal-output.md: with a width (``$COLUMNS`` or a terminal) an audit's table is laid
out to fit it and its long lines are wrapped at words, verdicts coloured; in a pipe the text
is printed as rendered. This measures, for ``--rows`` rows of the audit's shape (a patch
name, a verdict, an evidence cell of about 300 characters: the real ones run to 564):

- the table laid out plain (one line per row) and fitted to ``--width`` columns;
- ``finish`` (wrap and colour) over the fitted text;
- ``progress.track`` over 2,000 files, unwatched (a pipe) and drawn by ``rich.progress`` to
  a stream that says it is a terminal.

Run: ``python benchmarks/bench_terminal.py [--rows 1000] [--width 110] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Callable

from patchkeeper import progress
from patchkeeper.render.console import PLAIN, Terminal, finish, progress_bar, table, use

EVIDENCE = (
    "retry.py #1 fails at fuzz 0 (closest: retry.py line 8, 6 of 7 lines match); 0 of 1 "
    "substantive added lines already upstream (strongest: retry.py 0/1); the later patch "
    "redirect-strip-api-key.patch rewrites the lines it adds; to do: port (rework the "
    "failing hunks)"
)


class TerminalStream(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def best(function: Callable[[], object], repeat: int) -> float:
    """The best wall-clock time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def scan(files: int, drawn: bool) -> None:
    """``files`` advances of one tracked step, with or without a bar (drawn from the start:
    the half-second delay before a bar appears would leave a fast scan without one)."""
    stream = TerminalStream()
    factory = (lambda *args: progress_bar(*args, stream=stream, delay=0)) if drawn else None
    progress.set_bar_factory(factory)
    try:
        with progress.track("searching files for moved lines", files) as advance:
            for _ in range(files):
                advance()
    finally:
        progress.set_bar_factory(None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--width", type=int, default=110)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = [("patch", "verdict", "evidence")]
    rows += [
        (f"{i:04d}-a-patch-of-the-series.patch", "conflict", EVIDENCE) for i in range(args.rows)
    ]
    terminal = Terminal(width=args.width, colour=True)

    def fitted() -> list[str]:
        use(terminal)
        try:
            return table(rows)
        finally:
            use(PLAIN)

    text = "\n".join(fitted())
    figures = {
        f"table, plain ({args.rows} rows)": best(lambda: table(rows), args.repeat),
        f"table, fitted to {args.width} columns": best(fitted, args.repeat),
        f"finish (wrap, colour) of its {len(text.splitlines())} lines": best(
            lambda: finish(text, terminal), args.repeat
        ),
        "track 2,000 files, unwatched": best(lambda: scan(2000, drawn=False), args.repeat),
        "track 2,000 files, rich bar drawn": best(lambda: scan(2000, drawn=True), args.repeat),
    }
    for what, seconds in figures.items():
        print(f"{what:<48} {seconds * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
