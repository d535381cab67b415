"""A patch file Python cannot parse (the conflict markers ``runtime port --write`` leaves) is
never taken for a file without patches: ``runtime lock`` and ``runtime port`` refuse, ``runtime
audit`` and ``runtime check`` name it and exit 1.

Found by running ``runtime port --write`` on vllm-ascend 0.30.0rc2 (vLLM 0.30.0 -> 0.32.0): 26
copies were left with conflict markers; afterwards ``runtime lock`` locked 0 of their targets
(exit 0: the guard then watched nothing of them), ``runtime audit`` listed 186 of 241 entries
with exit 0 on a one-file plugin, and a second ``runtime port --write`` merged again into a
file the user had resolved.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import venv_on_paths
from patchkeeper.config import load_config
from patchkeeper.runtime.live import check

SCHEDULER = "metaplug/patch/bugfix/fix_scheduler.py"
CONFLICTED = """@patch("tinyup.scheduler", "Scheduler.schedule")
def schedule(self, budget):
<<<<<<< upstream 2.0
    return max(budget, 0)
||||||| upstream 1.0
    return budget
=======
    return budget if budget >= 0 else 0
>>>>>>> plugin
"""


def _break(plugin: Path) -> bytes:
    """Leave a conflict region in the scheduler copy, as ``runtime port --write`` does."""
    path = plugin / SCHEDULER
    text = path.read_text(encoding="utf-8")
    start = text.index('@patch("tinyup.scheduler", "Scheduler.schedule")')
    end = text.index('@patch("tinyup.scheduler", "Scheduler.make")')
    path.write_text(text[:start] + CONFLICTED + "\n\n" + text[end:], encoding="utf-8")
    return path.read_bytes()


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_lock_refuses_a_patch_file_that_does_not_parse(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    _break(plugin)
    before = _tree(plugin)
    run = cli("runtime", "lock", "--at", str(runtime_trees / "upstream-2.0"), cwd=plugin)
    assert run.code == 2
    assert run.out == ""
    assert run.err.splitlines() == [
        f"patchkeeper: error: {plugin / SCHEDULER}:13: not valid Python (an unresolved conflict region): "
        "runtime lock cannot read this file's patches, and would act as if it had none",
        "  hint: fix the file (conflict markers '<<<<<<<' left by 'patchkeeper runtime port "
        "--write' are resolved by editing them away) and run the command again",
    ]
    assert _tree(plugin) == before  # no lock file written


def test_port_refuses_to_merge_again_into_conflict_markers(
    runtime_trees: Path, runtime_versions: list[str], cli
) -> None:
    plugin = runtime_trees / "plugin"
    _break(plugin)
    before = _tree(plugin)
    run = cli("runtime", "port", *runtime_versions, "--write", cwd=plugin)
    assert run.code == 2
    assert run.err.startswith(
        f"patchkeeper: error: {plugin / SCHEDULER}:13: not valid Python (an unresolved conflict region): "
        "runtime port cannot read"
    )
    assert _tree(plugin) == before


def test_audit_names_the_file_it_could_not_read_and_exits_1(
    runtime_trees: Path, runtime_versions: list[str], cli
) -> None:
    plugin = runtime_trees / "plugin"
    # A one-file plugin whose only file is broken: before, exit 0 and empty counts.
    for other in ("fix_disabled.py", "fix_sampler.py"):
        (plugin / "metaplug/patch/bugfix" / other).unlink()
    (plugin / "metaplug/patch/enhancement/backends.py").unlink()
    (plugin / "metaplug/patch/performance/kernels.py").unlink()
    for init in ("bugfix", "enhancement", "performance"):
        (plugin / "metaplug/patch" / init / "__init__.py").write_text("")
    (plugin / "metaplug/patch/bugfix/__init__.py").write_text(
        "from metaplug.patch.bugfix import fix_scheduler  # noqa: F401\n"
    )
    _break(plugin)
    run = cli("runtime", "audit", *runtime_versions, cwd=plugin)
    assert run.code == 1
    lines = run.out.splitlines()
    assert lines[1:4] == [
        "not audited (1 file(s); their entries are unknown):",
        f"  {SCHEDULER}:13: not valid Python (an unresolved conflict region)",
        "stale bindings: 0 (0 not patched)",
    ]
    assert lines[-3:] == ["mechanism: none", "activation: none", "decision: none"]
    markdown = runtime_trees / "audit.md"
    cli("runtime", "audit", *runtime_versions, "--markdown", str(markdown), cwd=plugin)
    assert (
        "## Not audited (not valid Python: their entries are unknown)\n\n"
        f"- {SCHEDULER}:13: not valid Python (an unresolved conflict region)\n"
    ) in markdown.read_text(encoding="utf-8")


def test_inventory_says_a_file_holds_a_conflict_region(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    _break(plugin)
    run = cli("runtime", "inventory", cwd=plugin)
    assert run.code == 1
    assert f"  {SCHEDULER}:13: syntax: an unresolved conflict region" in run.out.splitlines()


def _hand_made_env(root: Path, work: Path) -> Path:
    """A virtual environment (no pip, no network) in which tinyup 1.0 and a copy of the
    plugin (as installed) are importable through a ``.pth`` file, and the plugin's entry
    point is declared by a ``dist-info`` written by hand, as an installer writes it."""
    installed = shutil.copytree(work / "plugin", root / "installed-plugin")
    entry_points = "[tinyup.general_plugins]\nmetaplug = metaplug:register\n"
    python, _site = venv_on_paths(
        root, [work / "upstream-1.0", installed], "metaplug", entry_points
    )
    return python


def test_check_names_the_file_it_could_not_read_and_exits_1(runtime_trees: Path) -> None:
    python = _hand_made_env(runtime_trees / "env", runtime_trees)
    plugin = runtime_trees / "plugin"
    config = load_config(plugin / "pyproject.toml")
    whole = check.check_live(config, check.LiveCheckRequest(python=python))
    assert (whole.unread, whole.exit_code) == ((), 0)
    # The installed copy still runs; the checkout's scheduler file is mid-merge: its three
    # entries were checked live before and are not now.
    _break(plugin)
    result = check.check_live(config, check.LiveCheckRequest(python=python))
    assert result.unread == (f"{SCHEDULER}:13: not valid Python (an unresolved conflict region)",)
    assert [e.target for e in whole.entries if e not in result.entries] == [
        "tinyup.scheduler.Scheduler.schedule",
        "tinyup.scheduler.Scheduler.make",
        "tinyup.scheduler.Scheduler.create",
    ]
    assert result.exit_code == 1


def test_a_patch_file_not_in_utf8_without_a_coding_line_is_named(runtime_trees: Path, cli):
    """A Latin-1 byte in a comment of a patch file without a ``coding:`` line: the parser
    takes it, Python's import refuses the file, and the inventory read it as if it imported.
    It is a ``syntax`` finding at the line of the byte, saying what to do; ``runtime lock``
    refuses; with a coding line the file is read as Python reads it."""
    plugin = runtime_trees / "plugin"
    sampler = plugin / "metaplug/patch/bugfix/fix_sampler.py"
    original = sampler.read_bytes()
    sampler.write_bytes(original.replace(b"# Note:", b"# Note (Andr\xe9):", 1))
    run = cli("runtime", "inventory", cwd=plugin)
    line = 2  # the fixture's "# Note:" line
    assert run.code == 1
    assert (
        f"  metaplug/patch/bugfix/fix_sampler.py:{line}: syntax: not UTF-8 (byte 0xe9) and no "
        "coding line: save it as UTF-8, or declare its encoding on its first line "
        "(# -*- coding: latin-1 -*-)"
    ) in run.out.splitlines()
    assert "Traceback" not in run.err
    lock = cli("runtime", "lock", "--at", str(runtime_trees / "upstream-1.0"), cwd=plugin)
    assert (lock.code, lock.out) == (2, "")
    assert lock.err.splitlines() == [
        f"patchkeeper: error: {sampler}:{line}: not valid Python (not UTF-8 (byte 0xe9) and no "
        "coding line): runtime lock cannot read this file's patches, and would act as if it "
        "had none",
        "  hint: save it as UTF-8, or declare its encoding on its first line "
        "(# -*- coding: latin-1 -*-), and run the command again",
    ]
    sampler.write_bytes(b"# -*- coding: latin-1 -*-\n" + sampler.read_bytes())
    declared = cli("runtime", "inventory", cwd=plugin)
    assert "not UTF-8" not in declared.out
    assert "metaplug/patch/bugfix/fix_sampler.py:20  wrapper     tinyup.sampler.sample" in (
        declared.out
    )
