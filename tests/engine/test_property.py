"""The symmetry property: for generated trees and patches, whenever
``apply`` succeeds, ``verify`` exits 0, ``verify`` on the pristine tree exits 1, and
``unapply`` gives back the pristine bytes (and modes), every file and directory.

The patches are real ``diff -U N`` output (N from 0 to 3) in three styles (``a/``/``b/``
labels, git's ``diff --git`` headers with new/deleted file modes, one ``diff -Nr`` with
epoch timestamps), applied to the tree they were made from or to a copy with lines inserted
(so hunks land at offsets, or fail).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from engine_support import make_downstream, run, tree_state
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

NAMES = ("f", "g.py", "d/h", "d/e/k")
TEXTS = (b"a", b"b", b"c", b"", b"x = 1", b"@@ z", b"-- y")
line_st = st.builds(bytes.__add__, st.sampled_from(TEXTS), st.sampled_from((b"\n", b"\n", b"\r\n")))

pytestmark = pytest.mark.skipif(shutil.which("diff") is None, reason="needs GNU diffutils")


def content(lines: list[bytes], final_newline: bool) -> bytes:
    data = b"".join(lines)
    return data if final_newline or not data else data[:-1]


@st.composite
def files_st(draw: st.DrawFn, max_lines: int = 10) -> bytes:
    lines = draw(st.lists(line_st, max_size=max_lines))
    return content(lines, draw(st.sampled_from((True, True, False))))


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, bytes], dict[str, bytes], dict[str, bytes], int, str]:
    """``(before, after, target, context, style)``."""
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=1, max_size=3))
    before = {name: draw(files_st()) for name in names}
    after: dict[str, bytes] = {}
    for name, data in before.items():
        action = draw(st.sampled_from(("keep", "modify", "modify", "delete")))
        if action == "delete" and data:
            continue
        after[name] = draw(files_st()) if action == "modify" else data
    for name in NAMES:
        if name not in before and draw(st.integers(0, 3)) == 0:
            after[name] = content(draw(st.lists(line_st, min_size=1, max_size=5)), True)
    target = dict(before)
    if draw(st.booleans()) and target:
        name = draw(st.sampled_from(sorted(target)))
        lines = target[name].splitlines(keepends=True)
        at = draw(st.integers(0, len(lines)))
        extra = draw(st.lists(line_st, min_size=1, max_size=3))
        if lines and not lines[-1].endswith(b"\n") and at == len(lines):
            at -= 1
        target[name] = b"".join(lines[:at] + extra + lines[at:])
    return before, after, target, draw(st.integers(0, 3)), draw(st.sampled_from(STYLES))


STYLES = ("labels", "git", "diff-N")


def write(root: Path, files: dict[str, bytes]) -> None:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def diff(
    work: Path, before: dict[str, bytes], after: dict[str, bytes], context: int, style: str
) -> bytes:
    """A patch from ``before`` to ``after`` made by GNU diff."""
    if style == "diff-N":
        write(work / "a", before)
        write(work / "b", after)
        done = subprocess.run(
            ["diff", "-Nr", f"-U{context}", "a", "b"], cwd=work, capture_output=True, check=False
        )
        return done.stdout
    out = b""
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        write(work / "o", {"x": old or b""})
        write(work / "n", {"x": new or b""})
        labels = [f"a/{name}" if old is not None else "/dev/null"]
        labels.append(f"b/{name}" if new is not None else "/dev/null")
        done = subprocess.run(
            [
                "diff",
                f"-U{context}",
                "--label",
                labels[0],
                "--label",
                labels[1],
                str(work / "o/x") if old is not None else "/dev/null",
                str(work / "n/x") if new is not None else "/dev/null",
            ],
            capture_output=True,
            check=False,
        )
        body = done.stdout
        if style == "git" and body:
            header = f"diff --git a/{name} b/{name}\n"
            header += "new file mode 100644\n" if old is None else ""
            header += "deleted file mode 100644\n" if new is None else ""
            body = header.encode() + body
        out += body
    return out


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(case=({"f": b"a\n"}, {"f": b"b\nb\na\n"}, {"f": b"b\nb\na\n"}, 1, "labels"))
@example(case=({"f": b"a\nb\n"}, {"f": b"b\na\n"}, {"f": b"b\na\na\nb\n"}, 1, "labels"))
# undoing meets a nearer copy of the post-image (b at line 1 of b b) and fails there
@example(case=({"d/h": b"a\nb\na"}, {"d/h": b"b\n"}, {"d/h": b"b\na\nb\na"}, 1, "labels"))
# the pre-image stands again in the patched file (a a), nearer than the post-image
@example(case=({"d/h": b"a\na\n"}, {"d/h": b"a\n"}, {"d/h": b"a\na\na\n"}, 1, "labels"))
@given(case=cases())
def test_whatever_apply_accepts_is_verified_and_undone_exactly(case) -> None:
    before, after, target, context, style = case
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        patch = diff(work, before, after, context, style)
        if not patch:
            event("no patch (no change)")
            return
        ds = make_downstream(work / "ds", target, {"p.patch": patch})
        pristine = tree_state(ds.target)
        applied = run(ds, "apply")
        assert applied.code in (0, 1, 2), applied.out
        if applied.code != 0:
            event(f"apply exit {applied.code}")
            assert tree_state(ds.target) == pristine, "a failed apply changed the target"
            return
        if tree_state(ds.target) == pristine:
            # the target already holds the post-image: apply finds the series applied and
            # changes nothing; the pristine copy (the same bytes) then is not the pre-image,
            # and verify rightly reports the file drifted from it
            event("already applied: nothing changed")
            return
        event(f"applied ({style}, -U{context})")
        verify = run(ds, "verify")
        assert verify.code == 0, f"{patch!r}\n{verify.out}"
        on_pristine = run(ds, "verify", target=ds.pristine)
        assert on_pristine.code == 1, f"{patch!r}\n{on_pristine.out}"
        undone = run(ds, "unapply")
        assert undone.code == 0, f"{patch!r}\n{undone.out}"
        assert tree_state(ds.target) == pristine, patch
