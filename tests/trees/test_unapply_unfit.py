"""``unapply`` on a pristine tree whose series does not apply to it (a patch cut against
another release than the pin): no patch is applied and every file is the pristine
reference's, so there is nothing to undo. It said "the series is partially applied" and
told the user to undo the patch's applied hunks by hand, of which there were none."""

from __future__ import annotations

from pathlib import Path

CORE = "def answer():\n    return 41\n\n\ndef other():\n    return 1\n"
#: Cut against a release whose answer() returned 40: its context is not in the pin.
PATCH = (
    "Description: answer the right number\n"
    "---\n"
    "--- a/pkg/core.py\n+++ b/pkg/core.py\n"
    "@@ -1,4 +1,4 @@\n def answer():\n-    return 40\n+    return 42\n \n \n"
)


def _downstream(root: Path) -> Path:
    (root / "up" / "pkg").mkdir(parents=True)
    (root / "up" / "pkg" / "core.py").write_text(CORE)
    down = root / "down"
    (down / "patches").mkdir(parents=True)
    (down / "patches" / "answer.patch").write_text(PATCH)
    (down / "patches" / "series").write_text("answer.patch\n")
    (down / "patchkeeper.toml").write_text('upstream = "pkg"\npin = "1.0"\npristine = "../up"\n')
    return down


def _pristine_target(tmp_path: Path) -> Path:
    """A directory target holding the pristine ``pkg/core.py`` only."""
    target = tmp_path / "target"
    (target / "pkg").mkdir(parents=True)
    (target / "pkg" / "core.py").write_text(CORE)
    return target


def _already_pristine(target: Path) -> list[str]:
    """What unapply prints on ``target`` when none of ``answer.patch``'s hunks is there."""
    return [
        f"unapply: the series is already pristine on directory {target}",
        "nothing was changed; answer.patch does not apply to this tree either (none of its "
        "hunks is there, and they do not fit: see 'patchkeeper status')",
    ]


def test_unapply_of_a_series_that_does_not_fit_the_pristine_tree(cli, tmp_path: Path) -> None:
    down = _downstream(tmp_path)
    target = _pristine_target(tmp_path)
    run = cli("unapply", "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines()) == (0, _already_pristine(target))
    assert (target / "pkg" / "core.py").read_text() == CORE
    # a drifted file is still a refusal: the tree is not the pristine one
    (target / "pkg" / "core.py").write_text(CORE + "# local\n")
    run = cli("unapply", "--target", str(target), cwd=down)
    assert run.code == 1
    assert (
        run.out.splitlines()[0] == f"unapply: the series is partially applied on directory {target}"
    )


#: A Debian-style patch of the sdist's root: its module and its test, which a wheel lacks.
WITH_TEST = (
    "Description: answer the right number, tested\n"
    "---\n"
    "--- a/pkg/core.py\n+++ b/pkg/core.py\n"
    "@@ -1,4 +1,4 @@\n def answer():\n-    return 41\n+    return 42\n \n \n"
    "--- a/tests/test_core.py\n+++ b/tests/test_core.py\n"
    "@@ -1,2 +1,2 @@\n def test_answer():\n-    assert answer() == 41\n+    assert answer() == 42\n"
)


def test_unapply_where_a_file_of_the_patch_is_in_neither_tree(cli, tmp_path: Path) -> None:
    """The series changes ``tests/test_core.py``, which neither the target nor the pristine
    reference has (an installed wheel holds no tests): nothing is applied and every file is
    pristine. unapply said "the series is partially applied" (exit 1) and "undo its applied
    hunks by hand", of which there were none."""
    down = _downstream(tmp_path)
    (down / "patches" / "answer.patch").write_text(WITH_TEST)
    target = _pristine_target(tmp_path)
    run = cli("unapply", "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines()) == (0, _already_pristine(target))
    assert (target / "pkg" / "core.py").read_text() == CORE
    run = cli("status", "--target", str(target), cwd=down)
    assert (
        run.out.splitlines()[-2] == "    answer.patch: tests/test_core.py: the file does not exist"
    )


def test_unapply_names_several_unfit_patches_in_the_plural(cli, tmp_path: Path) -> None:
    """Two patches that do not fit the pristine tree (an upstream whose files end their
    lines in CRLF, a series cut in LF): the note names both and its verb agrees with them,
    where it read "a.patch, b.patch does not apply ... none of its hunks"."""
    down = _downstream(tmp_path)
    crlf = CORE.replace("\n", "\r\n")
    (down.parent / "up" / "pkg" / "core.py").write_bytes(crlf.encode())
    target = _pristine_target(tmp_path)
    (target / "pkg" / "core.py").write_bytes(crlf.encode())
    (down / "patches" / "answer.patch").write_text(PATCH.replace("return 40", "return 41"))
    other = (
        "Description: other returns two\n---\n--- a/pkg/core.py\n+++ b/pkg/core.py\n"
        "@@ -4,3 +4,3 @@\n \n def other():\n-    return 1\n+    return 2\n"
    )
    (down / "patches" / "other.patch").write_text(other)
    (down / "patches" / "series").write_text("answer.patch\nother.patch\n")
    run = cli("unapply", "--target", str(target), cwd=down)
    assert (run.code, run.out.splitlines()) == (
        0,
        [
            f"unapply: the series is already pristine on directory {target}",
            "nothing was changed; answer.patch, other.patch do not apply to this tree either "
            "(none of their hunks is there, and they do not fit: see 'patchkeeper status')",
        ],
    )
    assert (target / "pkg" / "core.py").read_bytes() == crlf.encode()
