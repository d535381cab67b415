"""The lines that can hold an edge are the lines holding a needle as a substring, whether
they are found by one search per needle (few needles) or by one pass over the words of the
text (many needles: a file defining thousands of functions)."""

from __future__ import annotations

from patchkeeper.runtime.inventory.edge_lines import MANY_NEEDLES, hot_lines

#: Needles inside longer names, in strings, after a dot, at the end of the text, with CR
#: line ends; a dotted needle (not a word) and a name with a non-ASCII letter.
TEXT = (
    "import os\n"  # 1
    "def prefix_f3_suffix(x):\n"  # 2: f3 inside a longer name
    '    return "plug.ops.tool"\n'  # 3: the dotted needle in a string
    "def other(y):\n"  # 4
    "    return y.f7\r\n"  # 5: after a dot, CR LF
    "x = 1\r"  # 6: CR alone
    "naïve_name = 2\n"  # 7: a non-ASCII word
    "    # nothing here\n"  # 8
    "last = f12"  # 9: at the end, no line end
)


def _brute_force(text: str, needles: set[str]) -> list[int]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [n for n, line in enumerate(lines, 1) if any(k and k in line for k in needles)]


def test_few_and_many_needles_give_the_same_lines() -> None:
    few = {"f3", "f7", "f12", "plug.ops", "ïve", ""}
    filler = {f"unused{i}" for i in range(MANY_NEEDLES)}
    assert hot_lines(TEXT, few) == [2, 3, 5, 7, 9]
    assert hot_lines(TEXT, few | filler) == [2, 3, 5, 7, 9]
    assert _brute_force(TEXT, few | filler) == [2, 3, 5, 7, 9]


def test_many_needles_on_a_generated_file() -> None:
    """Thousands of function names, each a prefix of others (``f1`` of ``f10``...)."""
    text = "".join(f"def f{i}(x):\n    return g{i % 7}(x) + f{i // 2}(x)\n\n" for i in range(3000))
    needles = {f"f{i}" for i in range(0, 3000, 3)} | {"g3"}
    found = hot_lines(text, needles)
    assert found == _brute_force(text, needles)
    assert len(found) == 4051
