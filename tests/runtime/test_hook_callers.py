"""The hooks a changed module-level function's callers consult (judge's *migrate* rule) are
read from the parsed module only when its text allows a caller that mentions the function
and consults a hook; a module whose ASCII text names the function once, or holds no hook
word, is not parsed, and the answer is the same."""

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
    new module was parsed whole for its callers."""
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
    return found, (str(trees[1].root), "up.mod") in hooks._PARSED


def test_a_caller_consulting_a_hook_is_found_in_the_parsed_module(tmp_path: Path) -> None:
    found, parsed = _candidates(tmp_path, CONSULTING_CALLER)
    assert found == {"check_target": "current_platform.check_target (in up.mod.caller)"}
    assert parsed


def test_a_module_without_hook_words_is_not_parsed(tmp_path: Path) -> None:
    assert _candidates(tmp_path, PLAIN_CALLER) == ({}, False)


def test_a_module_naming_the_target_once_is_not_parsed(tmp_path: Path) -> None:
    assert _candidates(tmp_path, UNRELATED_HOOK) == ({}, False)
