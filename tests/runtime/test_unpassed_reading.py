"""Which upstream modules :func:`patchkeeper.runtime.judge.unpassed.unpassed_parameters`
parses for their calls: a module importing the target's class whose text (ASCII, or in
its normal form) names none of the methods asked about is not parsed, but to check that it
parses when no summary tells it and the answer is not empty; a module that does not parse
still empties the answer, and a text not in its normal form is parsed. A module summarized already is read in
parts for its calls: only its functions, its classes' methods, the rest of its classes
and the lines between them that name the callee asked about are parsed.

The upstream tree is written by the test: ``lib.Engine.step`` gains ``fast=False``; ``a``
imports ``Engine`` and calls ``step`` with ``fast``; ``b`` imports ``Engine`` and calls
nothing named ``step``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from patchkeeper.runtime.judge import unpassed
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.syntax.parsing import PARSE_LOG_ENV, read_parse_log

OLD = "class Engine:\n    def step(self, n):\n        return n\n"
NEW = "class Engine:\n    def step(self, n, fast=False):\n        return n\n"
A = "from lib import Engine\n\n\ndef run(engine: Engine):\n    return engine.step(1, fast=True)\n"
B = "from lib import Engine\n\n\ndef build():\n    return Engine()\n"


def _code(source: str) -> Code:
    code = Code("pkg/lib.py", 1, tuple(source.splitlines(True)))
    assert code.parsed is not None  # parsed before the log is read
    return code


def _tree(tmp_path: Path, b_text: str) -> UpstreamTree:
    root = tmp_path / "up"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    for name, text in (("lib", NEW), ("a", A.replace("lib", "pkg.lib"))):
        (root / "pkg" / f"{name}.py").write_text(text)
    (root / "pkg" / "b.py").write_text(b_text.replace("from lib", "from pkg.lib"))
    return UpstreamTree(root, ("pkg",), importers=True)


def _answer(
    tree: UpstreamTree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[frozenset[tuple[str, str]], list[str]]:
    old, new = _code(OLD), _code(NEW)
    log = tmp_path / "parsed.log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    monkeypatch.setattr(unpassed, "_CALLS", {})
    found = unpassed.unpassed_parameters(tree, ["pkg.lib"], old, new, names=["lib", "Engine"])
    root = str(tree.root)
    return found, [path.removeprefix(root + "/") for path in read_parse_log(log)]


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))


def test_a_summarized_module_naming_no_method_asked_is_not_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path, B)
    assert tree.summary("pkg.b") is not None  # as the lookups summarize it
    found, parsed = _answer(tree, tmp_path, monkeypatch)
    assert found == frozenset()  # a passes fast
    assert parsed == ["pkg/lib.py", "pkg/a.py"]


def test_a_module_without_a_summary_is_not_parsed_for_an_empty_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found, parsed = _answer(_tree(tmp_path, B), tmp_path, monkeypatch)
    assert found == frozenset()
    assert parsed == ["pkg/lib.py", "pkg/a.py"]


def _unpassing(tmp_path: Path, b_text: str) -> UpstreamTree:
    """The tree where ``a`` calls ``step`` without ``fast``."""
    tree = _tree(tmp_path, b_text)
    (tree.root / "pkg" / "a.py").write_text(A.replace("lib", "pkg.lib").replace(", fast=True", ""))
    return tree


def test_a_module_without_a_summary_is_parsed_for_an_answer_that_is_not_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found, parsed = _answer(_unpassing(tmp_path, B), tmp_path, monkeypatch)
    assert found == frozenset({("step", "fast")})
    assert parsed == ["pkg/lib.py", "pkg/a.py", "pkg/b.py"]


def test_a_module_without_a_summary_that_does_not_parse_empties_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found, parsed = _answer(_unpassing(tmp_path, B + "def (\n"), tmp_path, monkeypatch)
    assert found == frozenset()
    assert parsed == ["pkg/lib.py", "pkg/a.py", "pkg/b.py"]


def test_a_module_whose_text_is_not_in_its_normal_form_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "\ufb01" (the ligature fi) is not NFKC: an identifier so written reads as "fi"
    tree = _tree(tmp_path, B + "# \ufb01le\n")
    assert tree.summary("pkg.b") is not None
    found, parsed = _answer(tree, tmp_path, monkeypatch)
    assert found == frozenset()
    assert parsed == ["pkg/lib.py", "pkg/a.py", "pkg/b.py"]


def test_a_summarized_module_not_ascii_in_its_normal_form_is_read_in_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path, B + "# caf\u00e9\n")
    assert tree.summary("pkg.b") is not None
    found, parsed = _answer(tree, tmp_path, monkeypatch)
    assert found == frozenset()
    assert parsed == ["pkg/lib.py", "pkg/a.py"]


#: A module calling ``step`` at its top level, in a function, in a method, and under an
#: ``if`` holding a definition; ``fast`` passed by one call only.
CALLER = """from pkg.lib import Engine

engine = Engine()
engine.step(1)


@staticmethod
def run(other):
    other.step(2)
    return other.reset()


class Loop:
    def go(self):
        return engine.step(3, fast=True)


if engine:
    def later():
        return engine.step(*[4])
"""


def test_a_summarized_module_is_read_in_the_parts_naming_the_callee(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path, B)
    (tree.root / "pkg" / "a.py").write_text(CALLER)
    assert tree.summary("pkg.a") is not None  # parsed whole, as the lookups summarize it
    log = tmp_path / "parsed.log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    monkeypatch.setattr(unpassed, "_CALLS", {})
    monkeypatch.setattr(unpassed, "_PARTS", {})
    step = [("step", (), False, 1), ("step", (), False, 1), ("step", ("fast",), False, 1)]
    assert unpassed._named_calls(tree, "pkg.a", frozenset({"step"})) == {
        "step": [*step, ("step", (), True, 1)]
    }
    # the same calls as the whole module gives, in another order
    assert sorted(unpassed._module_calls(tree, "pkg.a")["step"]) == sorted(  # type: ignore[index]
        [*step, ("step", (), True, 1)]
    )
    parts = unpassed._PARTS[(str(tree.root), "pkg.a")]
    assert parts is not None
    assert [part[1] is not None for part in parts] == [True, True, False, True, False, True]
    assert [str(part[0]).splitlines()[:2] for part in parts] == [
        ["from pkg.lib import Engine", ""],
        ["@staticmethod", "def run(other):"],
        ["", ""],
        ["if 1:", "    def go(self):"],  # a method apart
        ["class Loop:", "    pass"],  # the rest of its class
        ["", ""],
    ]
    assert read_parse_log(log) == [str(tree.root / "pkg" / "a.py")]  # _module_calls only


def test_a_part_naming_no_callee_is_not_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path, B)
    (tree.root / "pkg" / "a.py").write_text(CALLER)
    assert tree.summary("pkg.a") is not None
    monkeypatch.setattr(unpassed, "_CALLS", {})
    monkeypatch.setattr(unpassed, "_PARTS", {})
    assert unpassed._named_calls(tree, "pkg.a", frozenset({"reset"})) == {
        "reset": [("reset", (), False, 0)]
    }
    parts = unpassed._PARTS[(str(tree.root), "pkg.a")]
    assert parts is not None
    assert [part[1] is not None for part in parts] == [False, True, False, False, False, False]
    # a callee any call counts for is read from the whole module
    assert unpassed._named_calls(tree, "pkg.a", frozenset({"forward"})) is None


def test_a_module_that_does_not_parse_empties_the_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path, B + "def (\n")
    summary = tree.summary("pkg.b")
    assert summary is not None and summary.syntax_error != ""
    found, parsed = _answer(tree, tmp_path, monkeypatch)
    assert found == frozenset()
    assert parsed == ["pkg/lib.py", "pkg/a.py", "pkg/b.py"]


def test_without_the_passing_module_the_parameter_is_unpassed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _unpassing(tmp_path, B)
    assert tree.summary("pkg.b") is not None
    found, parsed = _answer(tree, tmp_path, monkeypatch)
    assert found == frozenset({("step", "fast")})
    assert parsed == ["pkg/lib.py", "pkg/a.py"]


def test_a_module_with_a_line_end_the_parser_does_not_count_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path, B)
    # a form feed: a line end to str.splitlines, none to the parser
    (tree.root / "pkg" / "a.py").write_text(CALLER.replace("\n\n\nclass", "\n\x0c\n\nclass"))
    assert tree.summary("pkg.a") is not None
    monkeypatch.setattr(unpassed, "_CALLS", {})
    monkeypatch.setattr(unpassed, "_PARTS", {})
    assert unpassed._named_calls(tree, "pkg.a", frozenset({"step"})) is None
    assert unpassed._PARTS[(str(tree.root), "pkg.a")] is None
    found = unpassed._module_calls(tree, "pkg.a")
    assert found is not None and len(found["step"]) == 4


def test_a_module_not_ascii_in_its_normal_form_without_a_summary_is_not_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its identifiers are written as the parser reads them: naming no "step", it calls none
    found, parsed = _answer(_tree(tmp_path, B + "# caf\u00e9\n"), tmp_path, monkeypatch)
    assert found == frozenset()
    assert parsed == ["pkg/lib.py", "pkg/a.py"]


def test_a_module_not_ascii_without_a_summary_is_parsed_for_an_answer_that_is_not_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found, parsed = _answer(_unpassing(tmp_path, B + "# caf\u00e9\n"), tmp_path, monkeypatch)
    assert found == frozenset({("step", "fast")})
    assert parsed == ["pkg/lib.py", "pkg/a.py", "pkg/b.py"]
