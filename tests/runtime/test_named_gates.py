"""Version gates reached through a name (``install_backports = gup_version_is("1.0")``, then
``if install_backports:``), on the ``named_gate`` fixture (plugin ``gplug``, upstream ``gup``
1.0 -> 2.0, whose patched class is the same in both releases): exact decisions and evidence."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from plugin_trees import audit_fixture, conditional_entry

from patchkeeper.runtime.judge.named_gates import dead_named_gate, named_test
from patchkeeper.runtime.model import Condition

PATCH = "gplug/patch/patch_manager.py"
UNCHANGED = (
    "retain",
    "upstream gup.sched.Manager.{} is unchanged from the old version (AST without "
    "docstrings, signature, decorators)",
)


def test_decisions_on_the_fixture(runtime_trees: Path) -> None:
    result = audit_fixture(runtime_trees / "named_gate", "gplug", "gup")
    decisions = {
        a.entry.target.rsplit(".", 1)[1]: (a.drift.decision, a.drift.evidence[0])
        for a in result.entries
    }
    assert decisions == {
        # a local of the function that installs the patch
        "grammar_bitmask": (
            "remove",
            f"its version gate is false at 2.0 ({PATCH}:27: if install_backports, where "
            "install_backports = gup_version_is('1.0')): the patch runs at 1.0 only: dead "
            "code there",
        ),
        # written ahead for 2.0: it did not run at 1.0, it starts running at 2.0
        "should_advance": (UNCHANGED[0], UNCHANGED[1].format("should_advance")),
        # bound twice (verbose = verbose and DEBUG): not the version test alone
        "describe": (UNCHANGED[0], UNCHANGED[1].format("describe")),
        # a module constant
        "reset": (
            "remove",
            f"its version gate is false at 2.0 ({PATCH}:41: if _IS_RELEASE_1, where "
            "_IS_RELEASE_1 = gup_version_is('1.0')): the patch runs at 1.0 only: dead code "
            "there",
        ),
        # the else of the test for 1.0 (its condition not (_IS_RELEASE_1)): written ahead
        # for 2.0, as should_advance
        "pause": (UNCHANGED[0], UNCHANGED[1].format("pause")),
        # the else of the test's negation (its condition _IS_RELEASE_1): for 1.0 only
        "resume": (
            "remove",
            f"its version gate is false at 2.0 ({PATCH}:60: the else of if not "
            "(_IS_RELEASE_1), where _IS_RELEASE_1 = gup_version_is('1.0')): the patch runs "
            "at 1.0 only: dead code there",
        ),
    }


SOURCE = """\
FLAG = version_is("1.0")
import other as ALIASED


def install():
    local = version_is("2.0")
    if local:
        pass
    if FLAG:
        pass
    for looped in range(2):
        pass
    if looped:
        pass


def shadow():
    FLAG = False
    if FLAG:
        pass


if ALIASED:
    pass


def given(FLAG):
    if FLAG:
        pass
"""


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        # the function's own local, then the module constant seen from a function
        ("local", 7, ("local", "version_is('2.0')")),
        ("not local", 7, ("local", "version_is('2.0')")),
        ("FLAG", 9, ("FLAG", "version_is('1.0')")),
        # a loop target, a local that shadows the constant, an import: not one value
        ("looped", 13, None),
        ("FLAG", 19, ("FLAG", "False")),
        ("ALIASED", 23, None),
        # a parameter that shadows the constant: the caller's value
        ("FLAG", 28, None),
        # not a name
        ("FLAG and local", 9, None),
    ],
)
def test_named_test(text: str, line: int, expected: tuple[str, str] | None) -> None:
    module = ast.parse(SOURCE)
    assert named_test(module, Condition("if", text, "p.py", line)) == expected


def test_the_else_of_a_named_gate_runs_where_the_name_is_false() -> None:
    """The else of ``if FLAG`` runs under ``not (FLAG)``, its condition's text: at 1.0 and
    not at 2.0 for ``FLAG = version_is("2.0")``, and the evidence names the ``if``'s test."""
    module = ast.parse('FLAG = version_is("2.0")\nif FLAG:\n    pass\nelse:\n    pass\n')
    entry = conditional_entry("up.engine.step", Condition("else", "not (FLAG)", "p.py", 2))
    assert dead_named_gate({"p.py": module}, entry, ("1.0", "2.0")) == (
        "its version gate is false at 2.0 (p.py:2: the else of if FLAG, where FLAG = "
        "version_is('2.0')): the patch runs at 1.0 only: dead code there"
    )
    assert dead_named_gate({"p.py": module}, entry, ("2.0", "3.0")) == ""
