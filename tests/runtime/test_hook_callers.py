"""The hooks a changed module-level function's callers consult (judge's *migrate* rule) are
read from the parsed module only when its text allows a caller that mentions the function
and consults a hook; a module whose ASCII text names the function once, or holds no hook
word, is not parsed, and the answer is the same. A module summarized for the lookups (parsed
whole then) is read in parts: only its functions, its classes' methods, the rest of its
classes and the lines between them that name the function are parsed, each at its lines,
and its functions come in the whole module's order."""

from __future__ import annotations

from pathlib import Path

from patchkeeper.runtime.judge import hooks
from patchkeeper.runtime.judge.drift import upstream_code
from patchkeeper.runtime.lookup.resolve import resolve
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree

OLD = "def target(x):\n    return x\n"

#: A caller of the target that consults a platform hook.
CONSULTING_CALLER = (
    "from up.platforms import current_platform\n"
    "\n"
    "\n"
    "def target(x):\n"
    "    return x + 1\n"
    "\n"
    "\n"
    "def caller(x):\n"
    "    current_platform.check_target(x)\n"
    "    return target(x)\n"
)
#: A caller of the target, and no hook word anywhere.
PLAIN_CALLER = "def target(x):\n    return x + 1\n\n\ndef caller(x):\n    return target(x)\n"
#: A hook consulted by a function that does not mention the target (named once: its def).
UNRELATED_HOOK = (
    "from up.platforms import current_platform\n"
    "\n"
    "\n"
    "def target(x):\n"
    "    return x + 1\n"
    "\n"
    "\n"
    "def other(x):\n"
    "    return current_platform.check_other(x)\n"
)


def _candidates(tmp_path: Path, new_text: str) -> tuple[dict[str, str], bool]:
    """The hook candidates of ``up.mod.target`` from OLD to ``new_text``, and whether the
    new module was read for its callers (parsed whole, or in parts)."""
    trees = []
    for name, text in (("old", OLD), ("new", new_text)):
        (tmp_path / name / "up").mkdir(parents=True)
        (tmp_path / name / "up" / "__init__.py").write_text("", encoding="utf-8")
        (tmp_path / name / "up" / "mod.py").write_text(text, encoding="utf-8")
        trees.append(UpstreamTree(tmp_path / name, ("up",)))
    old, new = (resolve(tree, "up.mod.target") for tree in trees)
    found = hooks.candidates(
        new, trees[1], upstream_code(trees[0], old), upstream_code(trees[1], new)
    )
    key = (str(trees[1].root), "up.mod")
    assert key not in hooks._PARSED  # summarized by the lookups: read in parts
    return found, key in hooks._FUNCTION_PARTS


def test_a_caller_consulting_a_hook_is_found_in_the_parsed_module(tmp_path: Path) -> None:
    found, parsed = _candidates(tmp_path, CONSULTING_CALLER)
    assert found == {"check_target": "current_platform.check_target (in up.mod.caller)"}
    assert parsed


def test_a_module_without_hook_words_is_not_parsed(tmp_path: Path) -> None:
    assert _candidates(tmp_path, PLAIN_CALLER) == ({}, False)


def test_a_module_naming_the_target_once_is_not_parsed(tmp_path: Path) -> None:
    assert _candidates(tmp_path, UNRELATED_HOOK) == ({}, False)


#: Functions at three depths over four top-level parts; the ones naming ``target``: a
#: top-level function, a method, a function nested in a method, a conditional one.
NESTED = """import os


def target(x):
    return x


class Runner:
    def go(self):
        def inner():
            return target(1)

        return inner()

    def stop(self):
        return None


def helper():
    return os.sep


if os.sep:

    def fallback():
        return target(2)
"""


def test_the_functions_read_in_parts_come_in_the_whole_module_order(tmp_path: Path) -> None:
    (tmp_path / "up").mkdir()
    (tmp_path / "up" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "up" / "mod.py").write_text(NESTED, encoding="utf-8")
    tree = UpstreamTree(tmp_path, ("up",))
    assert tree.summary("up.mod") is not None
    named = hooks._named_functions(tree, "up.mod", "target")
    assert named is not None
    rows = [(name, first, last) for name, _node, first, last in named]
    # the parts of helper and stop name no "target": their functions are left out, unparsed
    assert rows == [("target", 4, 5), ("go", 9, 13), ("fallback", 25, 26), ("inner", 10, 11)]
    whole = [(name, first, last) for name, _node, first, last in hooks._functions(tree, "up.mod")]
    assert [row for row in whole if row[0] not in ("helper", "stop")] == rows
    parts = hooks._FUNCTION_PARTS[(str(tree.root), "up.mod")]
    assert parts is not None
    assert [(part[0], part[1].splitlines()[0], part[2] is not None) for part in parts] == [
        (1, "import os", False),
        (4, "def target(x):", True),
        (6, "", False),
        (8, "if 1:", True),  # go, on its lines after the "if 1:" line
        (14, "if 1:", False),  # stop
        (8, "class Runner:", False),  # the rest of the class
        (17, "", False),
        (19, "def helper():", False),
        (21, "", True),
    ]
