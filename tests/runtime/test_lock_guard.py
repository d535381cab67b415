"""``runtime lock`` and ``patchkeeper.guard.check`` on the fixture plugin and its upstreams."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from patchkeeper.config import load_config
from patchkeeper.guard import Difference, GuardError, GuardWarning, check, differences
from patchkeeper.runtime.live import lock


def _lock(work: Path) -> Path:
    plugin = work / "plugin"
    result = lock.write_lock(
        load_config(plugin / "pyproject.toml"), lock.LockRequest(at=str(work / "upstream-1.0"))
    )
    assert (result.target_count, result.file_count) == (6, 4)
    # sub_kernel is in no release: the plugin adds it (allow_missing), nothing to guard
    added = "added by the plugin: 1.0 defines no such name; nothing upstream to guard"
    assert result.unguarded == ()
    assert (result.skipped, result.exit_code) == ((("tinyup.kernels.sub_kernel", added),), 0)
    assert result.path == str(plugin / "metaplug/patch/patchkeeper.lock")
    return Path(result.path)


def test_lock_records_definitions_and_files(runtime_trees: Path) -> None:
    data = json.loads(_lock(runtime_trees).read_text(encoding="utf-8"))
    assert (data["format"], data["package"]) == (1, "tinyup")
    assert sorted(data["files"]) == [
        "tinyup/kernels.py",
        "tinyup/registry.py",
        "tinyup/sampler.py",
        "tinyup/scheduler.py",
    ]
    create = data["files"]["tinyup/scheduler.py"]["targets"]["tinyup.scheduler.Scheduler.create"]
    assert create["qualname"] == "Scheduler.create"
    assert len(create["sha256"]) == 64
    schedule = data["files"]["tinyup/scheduler.py"]["targets"][
        "tinyup.scheduler.Scheduler.schedule"
    ]
    code = "def schedule(self, budget):\n    if budget <= 0:\n        return 0\n    return budget"
    assert schedule["code_sha256"] == hashlib.sha256(code.encode()).hexdigest()
    assert not (runtime_trees / "plugin" / ".patchkeeper" / "journal").exists()


def test_guard_silent_on_the_audited_upstream(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    assert check(path, strict=True, root=str(runtime_trees / "upstream-1.0")) == []


def test_guard_names_every_changed_target(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    found = differences(path, root=str(runtime_trees / "upstream-2.0"))
    assert found == [
        Difference("tinyup.kernels.add_kernel", "tinyup/kernels.py is missing"),
        Difference("tinyup.registry.BACKENDS", "BACKENDS in tinyup/registry.py changed"),
        Difference(
            "tinyup.scheduler.Scheduler.create", "Scheduler.create in tinyup/scheduler.py changed"
        ),
        # Scheduler.make: only a comment was added in 2.0, no difference
        Difference(
            "tinyup.scheduler.Scheduler.schedule",
            "Scheduler.schedule in tinyup/scheduler.py changed",
        ),
    ]
    with pytest.warns(GuardWarning, match=r"^4 patched upstream target\(s\) differ"):
        check(path, root=str(runtime_trees / "upstream-2.0"))
    with pytest.raises(
        GuardError, match=r"tinyup\.kernels\.add_kernel: tinyup/kernels\.py is missing"
    ):
        check(path, strict=True, root=str(runtime_trees / "upstream-2.0"))


def test_guard_ignores_changes_outside_the_locked_definitions(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    scheduler = runtime_trees / "upstream-1.0" / "tinyup" / "scheduler.py"
    scheduler.write_text(scheduler.read_text() + "\n\nUNRELATED = 1\n")
    assert differences(path, root=str(runtime_trees / "upstream-1.0")) == []


DOCSTRING_AND_COMMENTS = '''class Scheduler:
    def schedule(self, budget):
        """Return how many requests may run in this step (never below zero)."""
        # nothing to run without a budget
        if budget <= 0:
            return 0
        """A string statement (as PEP 257's attribute docstrings) does nothing when run."""
        return budget  # all of it

    @staticmethod
    def make():
        return Scheduler()

    @classmethod
    def create(cls):
        return cls()
'''


def test_guard_ignores_a_docstring_or_comment_only_change(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    scheduler = runtime_trees / "upstream-1.0" / "tinyup" / "scheduler.py"
    scheduler.write_text(DOCSTRING_AND_COMMENTS)
    assert differences(path, root=str(runtime_trees / "upstream-1.0")) == []
    assert check(path, strict=True, root=str(runtime_trees / "upstream-1.0")) == []


def test_guard_still_names_a_code_change_beside_a_docstring_change(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    scheduler = runtime_trees / "upstream-1.0" / "tinyup" / "scheduler.py"
    scheduler.write_text(DOCSTRING_AND_COMMENTS.replace("return cls()", "return cls(1)"))
    assert differences(path, root=str(runtime_trees / "upstream-1.0")) == [
        Difference(
            "tinyup.scheduler.Scheduler.create", "Scheduler.create in tinyup/scheduler.py changed"
        )
    ]


def test_guard_compares_an_old_lock_by_text(runtime_trees: Path) -> None:
    """A lock written before ``code_sha256`` existed is read as before: text only."""
    path = _lock(runtime_trees)
    data = json.loads(path.read_text(encoding="utf-8"))
    for record in data["files"].values():
        for item in record["targets"].values():
            del item["code_sha256"]
    path.write_text(json.dumps(data), encoding="utf-8")
    scheduler = runtime_trees / "upstream-1.0" / "tinyup" / "scheduler.py"
    scheduler.write_text(DOCSTRING_AND_COMMENTS)
    assert differences(path, root=str(runtime_trees / "upstream-1.0")) == [
        Difference(
            "tinyup.scheduler.Scheduler.schedule",
            "Scheduler.schedule in tinyup/scheduler.py changed",
        )
    ]


def test_guard_warns_on_a_missing_lock_file(tmp_path: Path) -> None:
    missing = tmp_path / "patchkeeper.lock"
    expected = (
        f"{missing}: cannot read the lock file: No such file or directory; nothing was "
        "compared with the audited release: run patchkeeper runtime lock --at "
        "UPSTREAM==VERSION in the plugin's source tree and ship the lock file with the "
        "plugin (as package data)"
    )
    with pytest.warns(GuardWarning) as caught:
        found = check(missing)
    assert [str(w.message) for w in caught] == [expected]
    assert found == [Difference(str(missing), "the lock file cannot be read")]
    with pytest.raises(GuardError) as raised:
        check(missing, strict=True)
    assert str(raised.value) == expected


def test_guard_warns_on_an_unreadable_lock_file(tmp_path: Path) -> None:
    broken = tmp_path / "patchkeeper.lock"
    broken.write_text('{"format": 1,')
    with pytest.warns(GuardWarning) as caught:
        found = check(broken)
    assert [str(w.message).split(";")[0] for w in caught] == [
        f"{broken}: cannot read the lock file: Expecting property name enclosed in double "
        "quotes: line 1 column 14 (char 13)"
    ]
    assert found == [Difference(str(broken), "the lock file cannot be read")]


def test_guard_refuses_a_file_that_is_not_a_lock(tmp_path: Path) -> None:
    bad = tmp_path / "x.lock"
    bad.write_text('{"format": 9}')
    with pytest.raises(GuardError, match=r"x.lock: not a patchkeeper lock file of format 1"):
        check(bad, strict=True)
    with pytest.warns(GuardWarning, match=r"x.lock: not a patchkeeper lock file of format 1; "):
        assert check(bad) == [Difference(str(bad), "the lock file cannot be read")]


def test_guard_imports_only_the_standard_library(runtime_trees: Path) -> None:
    path = _lock(runtime_trees)
    code = (
        "import sys; before = set(sys.modules); import patchkeeper.guard as g; "
        f"g.check({str(path)!r}, strict=True, root={str(runtime_trees / 'upstream-1.0')!r}); "
        "new = sorted(m.split('.')[0] for m in set(sys.modules) - before); "
        "print(sorted(set(new) & {'click', 'rich', 'unidiff', 'unearth', 'packaging', 'tomli'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


def test_lock_names_targets_the_release_removed_or_moved(runtime_trees: Path, cli) -> None:
    """A target the release moved or removed cannot be guarded: exit 1, each named with
    where it went; the lock is written for the rest."""
    plugin = runtime_trees / "plugin"
    run = cli("runtime", "lock", "--at", "../upstream-2.0", cwd=plugin)
    lock_file = plugin / "metaplug/patch/patchkeeper.lock"
    assert (run.code, run.out.splitlines()) == (
        1,
        [
            f"locked 5 targets in 3 upstream files at 2.0: {lock_file}",
            "unguarded (1): the release removed or moved these targets; their patches replace "
            "nothing the guard can check (runtime audit says what to do with each):",
            "  tinyup.kernels.add_kernel: moved at 2.0: defined now as "
            "tinyup.ops.kernels.add_kernel (line 5)",
            "not locked (1):",
            "  tinyup.kernels.sub_kernel: added by the plugin: 2.0 defines no such name; "
            "nothing upstream to guard",
        ],
    )
    data = json.loads(lock_file.read_text(encoding="utf-8"))
    assert sorted(data["files"]) == [
        "tinyup/registry.py",
        "tinyup/sampler.py",
        "tinyup/scheduler.py",
    ]


def test_lock_output_in_a_missing_directory_is_refused(cli, runtime_trees: Path) -> None:
    """A new user's report: ``runtime lock --output /new/dir/x`` made the missing directories.
    As ``--markdown`` and ``runtime port --output``, it names the directory and writes nothing;
    in a directory that exists the lock is written there."""
    plugin = runtime_trees / "plugin"
    at = str(runtime_trees / "upstream-1.0")
    output = runtime_trees / "new" / "dir" / "x.lock"
    before = sorted(p.relative_to(runtime_trees) for p in runtime_trees.rglob("*"))
    run = cli("runtime", "lock", "--at", at, "--output", str(output), cwd=plugin)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {output}: cannot write the lock file: no such directory: "
        f"{output.parent}\n  hint: pass --output a file in a directory that exists (create it "
        "first), or leave --output out for <patch-directory>/patchkeeper.lock\n",
    )
    assert sorted(p.relative_to(runtime_trees) for p in runtime_trees.rglob("*")) == before
    output.parent.mkdir(parents=True)
    run = cli("runtime", "lock", "--at", at, "--output", str(output), cwd=plugin)
    assert (run.code, run.err) == (0, "")
    assert json.loads(output.read_text(encoding="utf-8"))["version"] == "1.0"
    assert not (plugin / "metaplug/patch/patchkeeper.lock").exists()


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('{"format": 1, "files": {}}', "'package' is not a name"),
        ('{"format": 1, "package": "tinyup", "files": 5}', "'files' is not a table"),
        (
            '{"format": 1, "package": "tinyup", "files": {"tinyup/a.py": 5}}',
            "files['tinyup/a.py'] has no 'sha256'",
        ),
        (
            '{"format": 1, "package": "tinyup", "files": {"tinyup/a.py": {"sha256": "0"}}}',
            "files['tinyup/a.py'] has no table 'targets'",
        ),
        (
            '{"format": 1, "package": "tinyup", "files": {"tinyup/a.py": {"sha256": "0", '
            '"targets": {"tinyup.a.f": {"sha256": "0"}}}}}',
            "target 'tinyup.a.f' has no 'qualname' and 'sha256'",
        ),
        (
            '{"format": 1, "package": "tinyup", "files": {"tinyup/a.py": {"sha256": "0", '
            '"targets": {"tinyup.a.f": {"qualname": "f", "sha256": "0", "code_sha256": 1}}}}}',
            "target 'tinyup.a.f': 'code_sha256' is not text",
        ),
    ],
)
def test_guard_warns_on_a_lock_file_of_the_wrong_shape(
    tmp_path: Path, body: str, problem: str
) -> None:
    """A hand-edited or truncated lock of format 1 is unreadable, never a KeyError or
    TypeError raised into the plugin's import."""
    bad = tmp_path / "patchkeeper.lock"
    bad.write_text(body)
    expected = f"{bad}: not a patchkeeper lock file of format 1: {problem}; nothing was compared"
    with pytest.warns(GuardWarning) as caught:
        found = check(bad, root=str(tmp_path))
    assert [str(w.message)[: len(expected)] for w in caught] == [expected]
    assert found == [Difference(str(bad), "the lock file cannot be read")]
    with pytest.raises(GuardError) as raised:
        check(bad, strict=True, root=str(tmp_path))
    assert str(raised.value).startswith(expected)


def test_guard_names_a_root_that_does_not_hold_the_upstream_package(runtime_trees: Path) -> None:
    """``root=`` the package folder itself (``.../upstream-1.0/tinyup``), or a directory
    without it: every locked file read as "missing", an upstream that seemed to have
    changed everywhere. It is one difference saying where the package is not, and for the
    package folder, the directory to pass instead."""
    path = _lock(runtime_trees)
    package = runtime_trees / "upstream-1.0" / "tinyup"
    expected = (
        f"tinyup is not under root={str(package)!r}: nothing was compared with the audited "
        f"release 1.0; pass root= the directory that holds the folder tinyup ({package} is "
        f"the package itself: pass root={str(package.parent)!r})"
    )
    assert differences(path, root=str(package)) == [
        Difference("tinyup", "the upstream package is not under root")
    ]
    with pytest.warns(GuardWarning) as caught:
        check(path, root=str(package))
    assert [str(w.message) for w in caught] == [expected]
    with pytest.raises(GuardError) as raised:
        check(path, strict=True, root=str(package))
    assert str(raised.value) == expected
    elsewhere = runtime_trees / "plugin"
    with pytest.warns(GuardWarning) as caught:
        check(path, root=str(elsewhere))
    assert [str(w.message) for w in caught] == [
        f"tinyup is not under root={str(elsewhere)!r}: nothing was compared with the audited "
        "release 1.0; pass root= the directory that holds the folder tinyup"
    ]
