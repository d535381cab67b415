"""``--save-evidence`` where no patchkeeper configuration is found: the evidence store is a
downstream's (``.patchkeeper/evidence/`` beside its ``patchkeeper.toml``), and such a run
wrote it into the directory it ran in. It is refused before the command runs, saying what to
do, and writes nothing."""

from __future__ import annotations

from pathlib import Path

FILE = "a\nb\nc\n"
PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"


def _trees(root: Path) -> Path:
    """A pristine tree ``up``, a target with the patch applied, and ``work``: a series in
    ``patches/`` with no configuration (returned)."""
    (root / "up").mkdir()
    (root / "up" / "f.txt").write_text(FILE)
    (root / "target").mkdir()
    (root / "target" / "f.txt").write_text(FILE.replace("b", "B"))
    work = root / "work"
    (work / "patches").mkdir(parents=True)
    (work / "patches" / "fix.patch").write_text(PATCH)
    (work / "patches" / "series").write_text("fix.patch\n")
    return work


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_save_evidence_outside_a_downstream_is_refused(cli, tmp_path: Path) -> None:
    work = _trees(tmp_path)
    before = _files(tmp_path)
    args = ("verify", "--target", str(tmp_path / "target"), "--pristine", str(tmp_path / "up"))
    run = cli(*args, "--save-evidence", cwd=work)
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            "patchkeeper: error: --save-evidence keeps the result in a downstream's "
            ".patchkeeper/evidence/, and no patchkeeper configuration (patchkeeper.toml, or a "
            f"pyproject.toml with [tool.patchkeeper]) is in {work} or a directory above it; "
            "nothing was written",
            "  hint: run 'patchkeeper init' to make this directory a downstream, pass -C DIR "
            "(or --config FILE) to run in one, or leave out --save-evidence",
        ],
    )
    assert _files(tmp_path) == before
    # without the flag the same run reads and writes nothing
    run = cli(*args, cwd=work)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 1 of 1 patches applied, 0 files drifted",
    )
    assert _files(tmp_path) == before


def test_save_evidence_in_a_downstream_named_by_c(cli, tmp_path: Path) -> None:
    work = _trees(tmp_path)
    (work / "patchkeeper.toml").write_text('upstream = "pkg"\npin = "1.0"\npristine = "../up"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = str(tmp_path / "target")
    run = cli("-C", str(work), "verify", "--target", target, "--save-evidence", cwd=elsewhere)
    assert run.code == 0
    assert _files(elsewhere) == []
    assert (work / ".patchkeeper" / "evidence" / "verify.json").is_file()
