"""One step's commit of the upgrade's branch (:func:`patchkeeper.upgrade.branch.commit_step`)
when a file of the step is neither on disk nor tracked (a record the user deleted before it
was ever committed): the rest of the step is committed, and a deleted tracked file is
committed as a deletion; git is never handed a pathspec that matches nothing."""

from __future__ import annotations

from upgrade_support import committed_files, git

from patchkeeper.upgrade.branch import commit_step


def test_a_file_neither_on_disk_nor_tracked_is_left_out(tmp_path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "kept.txt").write_text("one\n", encoding="utf-8")
    (tmp_path / "gone.txt").write_text("two\n", encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    (tmp_path / "kept.txt").write_text("one, changed\n", encoding="utf-8")
    (tmp_path / "gone.txt").unlink()
    files = ["kept.txt", "gone.txt", "AUDIT.md"]
    commit = commit_step(tmp_path, files, "upgrade: write the audit record", "why")
    assert commit == git(tmp_path, "rev-parse", "HEAD")
    assert committed_files(tmp_path, "HEAD") == ["gone.txt", "kept.txt"]
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=all") == ""
    assert commit_step(tmp_path, ["AUDIT.md"], "upgrade: nothing", "why") is None
