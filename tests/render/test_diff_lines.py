"""A diff line on the terminal is never wrapped: a wrapped ``+`` line's tail would have no
sign and read as unchanged context. Longer than the width, it is cut with ``…``; every line
of a diff block starts with its sign (render/console.py, :func:`diff_lines`)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from helpers import REPO, Example

#: The added line the test puts into the runtime fixture's new upstream: longer than 80.
LONG = (
    "        return min(budget, 64)  # the cap keeps one batch inside the device memory of "
    "every accelerator we support"
)
#: The line as the diff of the function shows it (its body, dedented by the class's indent).
ADDED = "+" + LONG[4:]


def _block(out: str, first: str) -> list[str]:
    """The lines of the indented diff block that starts with ``first``, without the indent
    shared by the block."""
    lines = out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.lstrip() == first)
    indent = lines[start][: len(lines[start]) - len(first)]
    block = []
    for line in lines[start:]:
        if not line.startswith(indent) or line[len(indent) : len(indent) + 1] not in "+- @":
            break
        block.append(line[len(indent) :])
    return block


@pytest.fixture
def plugin(tmp_path: Path, private_cache: Path) -> Path:
    """The runtime fixtures, the new upstream's ``schedule`` returning through a long line."""
    work = tmp_path / "work"
    shutil.copytree(REPO / "tests" / "runtime" / "fixtures", work)
    scheduler = work / "upstream-2.0" / "tinyup" / "scheduler.py"
    text = scheduler.read_text()
    scheduler.write_text(text.replace("        return min(budget, 64)\n", LONG + "\n"))
    return work / "plugin"


@pytest.mark.parametrize(
    ("width", "cut"),
    [
        (80, "      " + ADDED[: 80 - 7] + "…"),
        (40, "      " + ADDED[: 40 - 7] + "…"),
    ],
)
def test_runtime_audit_cuts_a_diff_line_at_the_width(
    cli, plugin: Path, monkeypatch: pytest.MonkeyPatch, width: int, cut: str
) -> None:
    args = ("runtime", "audit", "--from", "../upstream-1.0", "--to", "../upstream-2.0")
    whole = _block(cli(*args, cwd=plugin).out, "--- a/tinyup/scheduler.py:2")
    assert ADDED in whole  # without a width (a pipe) the line is whole
    monkeypatch.setenv("COLUMNS", str(width))
    out = cli(*args, cwd=plugin).out
    block = _block(out, "--- a/tinyup/scheduler.py:2")
    assert [line[:1] for line in block] == [line[:1] for line in whole]  # every sign kept
    assert len(block) == len(whole) == 10
    assert cut in out.splitlines()
    assert max(len(line) for line in out.splitlines() if line.startswith("      ")) <= width
    for shown, line in zip(block, whole):  # whole, or its start and the mark
        assert shown == line or (shown.endswith("…") and line.startswith(shown[:-1]))


def test_port_range_diff_lines_are_cut_not_wrapped(
    cli, example: Example, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The port's range-diff (what the refreshed patch now adds differently) at 40 columns:
    one line per changed line, each with its two signs."""
    sys.path.insert(0, str(REPO / "tests" / "port"))
    try:
        from port_support import resolve
    finally:
        sys.path.remove(str(REPO / "tests" / "port"))
    down = example.downstream
    args = ("port", "--to", str(example.new), "--from", str(example.old))
    assert cli(*args, cwd=down).code == 1
    files = down / ".patchkeeper-port" / "conflict" / "files"
    resolve(
        files / "retry.py",
        b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n',
    )
    monkeypatch.setenv("COLUMNS", "40")
    out = cli("port", "--continue", cwd=down).out
    lines = out.splitlines()
    start = lines.index("      retry.py", next(n for n, x in enumerate(lines) if "change: 2" in x))
    whole = [
        '        - -    REMOVE_ON_REDIRECT = frozenset(["Authorization"])',
        '        - +    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Proxy-Authorization"])',
        '        + -    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie"])',
        '        + +    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", '
        '"Proxy-Authorization"])',
    ]
    assert lines[start + 1 : start + 6] == [line[:39] + "…" for line in whole] + [""]
