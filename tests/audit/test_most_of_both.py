"""A failing patch more than half of whose hunks and more than half of whose new lines
upstream has, neither measure reaching what ``mostly-there`` asks alone (three hunks in four,
or most of the code lines): *partially upstreamed*, a person decides (*look*), not a port.
The shape of a stable branch's changes taken whole into a series (code with its tests), a
later release carrying most of it while rewriting some of the code it touched."""

from __future__ import annotations

import difflib
from pathlib import Path

from audit_support import judge

CORE = """def load(path):
    with open(path) as f:
        return f.read()


def parse(text):
    return text.split(",")


def render(items):
    return ", ".join(items)
"""

CORE_FIXED = CORE.replace(
    "def load(path):\n", 'def load(path):\n    if not path:\n        raise ValueError("no path")\n'
).replace(
    '    return ", ".join(items)\n',
    "    if items is None:\n"
    '        return ""\n'
    "    items = [str(item) for item in items]\n"
    "    items.sort()\n"
    '    return ", ".join(items)\n',
)

TESTS = """from app.core import load, parse, render


def test_load(tmp_path):
    path = tmp_path / "a"
    path.write_text("x")
    assert load(path) == "x"


def test_load_twice(tmp_path):
    path = tmp_path / "b"
    path.write_text("y")
    assert load(path) == load(path)


def test_parse():
    assert parse("a,b") == ["a", "b"]


def test_parse_one():
    assert parse("a") == ["a"]
    assert parse("ab") == ["ab"]
    assert parse("a b") == ["a b"]


def test_render():
    assert render(["a"]) == "a"
"""

LOAD_EMPTY = """

def test_load_empty():
    try:
        load("")
    except ValueError as error:
        assert str(error) == "no path"
"""

PARSE_SPACES = """

def test_parse_spaces():
    assert parse("a, b") == ["a", " b"]
    assert parse("") == [""]
    assert parse("a,,b") == ["a", "", "b"]
"""

RENDER_NONE = """

def test_render_none():
    assert render(None) == ""
"""

TESTS_FIXED = (
    TESTS.replace('    assert load(path) == "x"\n', '    assert load(path) == "x"\n' + LOAD_EMPTY)
    .replace('["a", "b"]\n', '["a", "b"]\n' + PARSE_SPACES)
    .replace('render(["a"]) == "a"\n', 'render(["a"]) == "a"\n' + RENDER_NONE)
)


def diff(path: str, old: str, new: str) -> str:
    """A unified diff of one file, three lines of context."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return "".join(lines)


PATCH = (
    "Subject: Changes from the stable branch\n---\n"
    + diff("app/core.py", CORE, CORE_FIXED)
    + diff("tests/test_core.py", TESTS, TESTS_FIXED)
)

# the release has the empty-path check and two of the three tests; it documented render()
# and changed its test, where the patch's other hunks no longer fit
NEW_CORE = CORE.replace(
    "def load(path):\n", 'def load(path):\n    if not path:\n        raise ValueError("no path")\n'
).replace("def render(items):\n", 'def render(items):\n    """Join the items."""\n')
NEW_TESTS = TESTS_FIXED.replace(RENDER_NONE, "").replace(
    'render(["a"]) == "a"\n', 'render(["a"], sep="; ") == "a"\n'
)


def test_more_than_half_by_hunks_and_lines_is_a_look(tmp_path: Path) -> None:
    old = {"app/core.py": CORE, "tests/test_core.py": TESTS}
    new = {"app/core.py": NEW_CORE, "tests/test_core.py": NEW_TESTS}
    [verdict] = judge(tmp_path, new, [("stable.patch", PATCH)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "partially upstreamed",
        "look",
        "most-of-both",
    )
    assert verdict.summary.startswith(
        "more than half of its hunks and of its new lines are upstream: 3 of 5 hunks, 10 of "
        "16 substantive added lines the old pin lacked; app/core.py #2, tests/test_core.py #3 "
        "fail at fuzz 0"
    )
    assert verdict.summary.endswith(
        "to do: look (more than half of it is upstream; decide whether the rest is needed)"
    )


def test_two_hunks_of_five_are_left_to_the_other_rules(tmp_path: Path) -> None:
    # the release rewrote test_parse too: two hunks of five are there, not more than half;
    # one of them adds code the old pin lacked, which is what decides it then
    old = {"app/core.py": CORE, "tests/test_core.py": TESTS}
    new_tests = NEW_TESTS.replace(PARSE_SPACES, "").replace(
        'parse("a,b") == ["a", "b"]', 'parse("a,b") == ["a", "b"], "split"'
    )
    new = {"app/core.py": NEW_CORE, "tests/test_core.py": new_tests}
    [verdict] = judge(tmp_path, new, [("stable.patch", PATCH)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "some-hunks-there",
    )


def test_without_the_pins_tree_it_is_a_port(tmp_path: Path) -> None:
    # the lines the old pin lacked cannot be told apart from those it had
    new = {"app/core.py": NEW_CORE, "tests/test_core.py": NEW_TESTS}
    [verdict] = judge(tmp_path, new, [("stable.patch", PATCH)])
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
