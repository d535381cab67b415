"""The decorators of a plugin copy are read from the definition's own source (from its first
decorator line, which the scan records, to its end), not from a parse of the whole file, and
give what the whole file's parse gives; where the two could differ (a form feed, which the
parser does not count as a line end), the file is parsed."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.runtime.inventory.file_facts import ScanSettings
from patchkeeper.runtime.inventory.scan import scan_source
from patchkeeper.runtime.judge.replacement import _decorators, _decorators_by_line

SOURCE = (
    "import functools\n"  # 1
    "\n"  # 2
    "@functools.lru_cache(\n"  # 3
    "    maxsize=None,\n"  # 4
    ")\n"  # 5
    "# a comment between\n"  # 6
    "@staticmethod\n"  # 7
    "def top(x):\n"  # 8
    '    return """\n'  # 9
    "text at column 0\n"  # 10
    '"""\n'  # 11
    "\n"  # 12
    "class Holder:\n"  # 13
    "    @property\n"  # 14
    "    @functools.wraps(\n"  # 15
    "        top)\n"  # 16
    "    def inner(self):\n"  # 17
    "        return 1\n"  # 18
    "\n"  # 19
    "@dataclass(frozen=True)\n"  # 20
    "class Plain:\n"  # 21
    "    x: int = 0\n"  # 22
)


def _facts(path: Path) -> dict[int, tuple[int, int]]:
    """``def``/``class`` line -> (first decorator line, last line), from the scan."""
    facts = scan_source(path.read_bytes(), "plug.m", "plug/m.py", False, ScanSettings("plug"))
    spans = [(f.line, f.end_line) for f in facts.functions.values()]
    spans += list(facts.class_spans.values())
    return {
        start: (facts.decorated[start], end) for start, end in spans if start in facts.decorated
    }


def test_the_scan_records_where_each_definition_s_decorators_start(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    assert _facts(path) == {8: (3, 11), 17: (14, 18), 21: (20, 22)}


def test_decorators_from_the_definition_alone_equal_the_whole_file_s(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE, encoding="utf-8")
    found = {
        start: _decorators(path, first, start, end) for start, (first, end) in _facts(path).items()
    }
    assert found == {
        8: ("functools.lru_cache(maxsize=None)", "staticmethod"),
        17: ("property", "functools.wraps(top)"),
        21: ("dataclass(frozen=True)",),
    }
    assert found == {start: _decorators_by_line(path)[start] for start in found}


def test_a_form_feed_sends_the_reading_to_the_whole_file(tmp_path: Path) -> None:
    # The parser does not end a line at a form feed; str.splitlines does: the lines the
    # scan numbered (the decorator on line 2) are not the lines the source is cut from.
    path = tmp_path / "m.py"
    path.write_text("x = 1  # \f\n@staticmethod\ndef f():\n    pass\n", encoding="utf-8")
    assert _decorators(path, 2, 3, 4) == ("staticmethod",) == _decorators_by_line(path)[3]
