"""An upstream tree that states no version (a checkout: no ``PKG-INFO``, the version left to
setuptools-scm) is named ``directory ROOT`` where ``runtime port`` and ``runtime lock`` write
it, never by the path as typed; ``runtime port`` writes no ``Reviewed against`` header then.

Found with ``runtime port --from ../up1 --to ../up2`` on a plugin in the audit seed's shape:
the header became ``Affected versions: 0.1.0 Reviewed against ../up2.``, the conflict label
``<<<<<<< upstream ../up2``, and ``runtime lock --at ../up1`` wrote ``"version": "../up1"``,
which the guard's warning then quoted in the plugin's process ("the audited release
../up1").
"""

from __future__ import annotations

import json
import shutil
import sys
import warnings
from pathlib import Path

from patchkeeper.guard import GuardWarning, check


def _checkout(work: Path, release: str) -> Path:
    """The upstream tree of ``release`` as a checkout has it: no stated version."""
    tree = shutil.copytree(work / f"upstream-{release}", work / f"checkout-{release}")
    (tree / "pyproject.toml").write_text(
        '[project]\nname = "tinyup"\ndynamic = ["version"]\n', encoding="utf-8"
    )
    return tree


def test_port_to_an_unversioned_tree_writes_no_path_into_the_plugin(
    runtime_trees: Path, cli
) -> None:
    new = _checkout(runtime_trees, "2.0")
    plugin = runtime_trees / "plugin"
    run = cli("runtime", "port", "--from", "../upstream-1.0", "--to", "../checkout-2.0", cwd=plugin)
    assert run.code == 1
    assert "# Affected versions:" not in run.out  # no header edit in the diff
    assert "../checkout-2.0" not in run.out
    assert f"+<<<<<<< upstream directory {new}\n" in run.out
    assert (
        f"BY HAND       metaplug/patch Affected versions: the version of directory {new} "
        "is unknown (no PKG-INFO, no version in pyproject.toml): add 'Reviewed against "
        "VERSION.' to the 'Affected versions:' header of 5 file(s) by hand"
    ) in run.err.splitlines()  # the report: the diff alone is on standard output
    assert run.err.splitlines()[-1].startswith(f"runtime port 1.0 -> directory {new}: ")


def test_lock_of_an_unversioned_tree_names_its_directory(runtime_trees: Path, cli) -> None:
    old = _checkout(runtime_trees, "1.0")
    plugin = runtime_trees / "plugin"
    run = cli("runtime", "lock", "--at", "../checkout-1.0", cwd=plugin)
    assert run.code == 0  # sub_kernel is in no release: the plugin adds it
    lock_file = plugin / "metaplug/patch/patchkeeper.lock"
    assert run.out.splitlines() == [
        f"locked 6 targets in 4 upstream files at directory {old}: {lock_file}",
        "not locked (1):",
        f"  tinyup.kernels.sub_kernel: added by the plugin: directory {old} defines no "
        "such name; nothing upstream to guard",
    ]
    assert json.loads(lock_file.read_text(encoding="utf-8"))["version"] == f"directory {old}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(lock_file, root=str(runtime_trees / "upstream-2.0"))
    assert str(caught[0].message).startswith(
        f"4 patched upstream target(s) differ from the audited release directory {old}: "
    )


def test_guard_says_when_the_upstream_is_not_importable(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    assert cli("runtime", "lock", "--at", "../upstream-1.0", cwd=plugin).code == 0
    lock_file = plugin / "metaplug/patch/patchkeeper.lock"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = check(lock_file)  # tinyup is not installed in patchkeeper's interpreter
    assert [d.target for d in found] == ["tinyup"]
    assert caught[0].category is GuardWarning
    assert str(caught[0].message) == (
        f"tinyup is not importable by this interpreter ({sys.executable}): nothing was "
        "compared with the audited release 1.0; install it in this environment, or pass root= "
        "the directory that holds it"
    )
