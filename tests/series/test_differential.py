"""Differential tests: patchkeeper's engine against GNU ``patch -p1 --fuzz 0``.

Generated file pairs are turned into unified diffs and applied by
both tools, which must agree on success or failure and, on success, give identical bytes.
The diffs are real GNU diffutils output (``diff -U N``, N from 0 to 5); the files mix repeated
lines (so offsets are ambiguous), CRLF and LF endings, lines that look like diff syntax, empty
files and a missing final newline on either side. The target is the original file or a mutated
copy (lines inserted, deleted, changed, duplicated), so hunks land at offsets or fail.

GNU patch is not atomic (it writes the hunks that applied), so after a failure only the
verdict is compared; patchkeeper must then have changed nothing.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from patchkeeper.commands import apply as apply_command
from patchkeeper.config import load_config
from patchkeeper.series.engine import FileState, Workspace, apply_patch
from patchkeeper.series.parse import parse_patch
from patchkeeper.trees.results import APPLIED, FAILED, PARTIAL, ApplyResult
from patchkeeper.trees.tree import TargetChoice

#: The reference command of the issue; ``-N`` never reverses, ``-r -`` drops rejects.
GNU_PATCH = ("patch", "-p1", "--fuzz", "0", "-N", "-s", "-r", "-", "--no-backup-if-mismatch")

#: GNU patch and diffutils; the generated cases are ``slow`` (minutes), the regressions are not.
pytestmark = pytest.mark.tool("patch", "diff")

# --------------------------------------------------------------------------- generated content

#: Few distinct texts, so repeated lines make a hunk's position ambiguous; some look like diff
#: syntax once a marker column is put before them.
TEXTS = (b"a", b"b", b"c", b"", b"-- x", b"++ y", b"@@ -1 +1 @@", b"\\ z", b"\tdef f():")
ENDINGS = (b"\n", b"\n", b"\n", b"\r\n")

lines_st = st.lists(st.builds(bytes.__add__, st.sampled_from(TEXTS), st.sampled_from(ENDINGS)))


def render(lines: list[bytes], final_newline: bool) -> bytes:
    """Join lines (each ends in ``\\n``); drop the last ``\\n`` unless ``final_newline``."""
    data = b"".join(lines)
    if not final_newline and data.endswith(b"\n"):
        data = data[:-1]
    return data


@st.composite
def contents(draw: st.DrawFn, max_size: int = 24) -> tuple[list[bytes], bool]:
    """A file as ``(lines, final_newline)``."""
    lines = draw(lines_st.filter(lambda x: len(x) <= max_size))
    return lines, draw(st.sampled_from((True, True, False)))


@st.composite
def edited(draw: st.DrawFn, file: tuple[list[bytes], bool]) -> tuple[list[bytes], bool]:
    """``file`` with 1 to 4 random edits: insert, delete, change or duplicate lines, or flip
    the final newline."""
    lines, final_newline = list(file[0]), file[1]
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(("insert", "delete", "change", "duplicate", "newline")))
        at = draw(st.integers(0, len(lines)))
        count = draw(st.integers(1, 3))
        if op == "insert":
            lines[at:at] = draw(lines_st.filter(lambda x: 1 <= len(x) <= 4))
        elif op == "delete":
            del lines[at : at + count]
        elif op == "change" and at < len(lines):
            lines[at : at + count] = draw(lines_st.filter(lambda x: 1 <= len(x) <= 3))
        elif op == "duplicate" and lines:
            start = draw(st.integers(0, len(lines) - 1))
            lines[at:at] = lines[start : start + count]
        elif op == "newline":
            final_newline = not final_newline
    return lines, final_newline


# --------------------------------------------------------------------------- the two tools


def gnu_diff(old: Path, new: Path, context: int, old_label: str, new_label: str) -> bytes:
    """``diff -U N`` with the given labels; empty when the files are equal."""
    done = subprocess.run(
        ["diff", f"-U{context}", "--label", old_label, "--label", new_label, old, new],
        capture_output=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def gnu_offsets(tree: Path, patch: Path) -> bool:
    """Whether GNU patch, run on ``tree`` (changed), places a hunk at an offset."""
    verbose = tuple(arg for arg in GNU_PATCH if arg != "-s")
    done = subprocess.run(
        [*verbose, "-d", tree, "-i", patch],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        start_new_session=True,
        check=False,
    )
    return b"(offset " in done.stdout


def gnu_patch(tree: Path, patch: Path) -> int:
    """Run GNU patch on ``tree`` (no terminal, no questions); return its exit code."""
    done = subprocess.run(
        [*GNU_PATCH, "-d", tree, "-i", patch],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        start_new_session=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr + done.stdout
    return done.returncode


def reset(directory: Path) -> Path:
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One scratch directory for the module, cleared by each example."""
    return tmp_path_factory.mktemp("differential")


# --------------------------------------------------------------------------- one file


def single_file_case(
    work: Path, old: bytes, new: bytes, target: bytes, context: int, crlf_patch: bool = False
) -> tuple[bytes, tuple[bool, bytes | None], tuple[bool, bytes | None]]:
    """Diff ``old`` -> ``new`` and apply it to ``target`` with both tools; with
    ``crlf_patch`` every line of the patch file gets a ``\\r`` before its ``\\n`` (a patch
    that went through a Windows editor or mailer: GNU patch then strips one ``\\r`` per line).

    Returns ``(patch, (gnu_ok, gnu_bytes), (patchkeeper_ok, patchkeeper_bytes))``.
    """
    (work / "old").write_bytes(old)
    (work / "new").write_bytes(new)
    patch = gnu_diff(work / "old", work / "new", context, "a/f", "b/f")
    if crlf_patch:
        patch = patch.replace(b"\n", b"\r\n")
    (work / "case.patch").write_bytes(patch)
    tree = work / "tree"
    tree.mkdir(exist_ok=True)
    (tree / "f").write_bytes(target)
    gnu_ok = gnu_patch(tree, work / "case.patch") == 0
    gnu_bytes = (tree / "f").read_bytes() if (tree / "f").exists() else None

    parsed = parse_patch(patch, name="case.patch", path=work / "case.patch")
    ws = Workspace(lambda path: FileState.from_bytes(target) if path == "f" else None)
    outcome = apply_patch(ws, parsed)
    state = ws.get("f")
    pk_bytes = state.data if state is not None else None
    if not outcome.ok:
        assert pk_bytes == target, "a failed patch changed the workspace"
    if any(p.offset for p in outcome.placements):
        event("a hunk applied at an offset")
    if gnu_ok and not outcome.ok and zero_context_refusals(outcome):
        # patchkeeper's one designed difference: a hunk without context (diff -U0) applies
        # only at its header's line, where GNU patch searches offsets (docs/reliability.md, Limits)
        event("a hunk without context at an offset: refused")
        return patch, (gnu_ok, gnu_bytes), (gnu_ok, gnu_bytes)
    return patch, (gnu_ok, gnu_bytes), (outcome.ok, pk_bytes)


def zero_context_refusals(outcome) -> bool:
    """Whether every hunk that failed has no context and occurs, whole, somewhere else, or
    leaves its last line without a newline where other lines follow (docs/reliability.md, Limits)."""
    return all(
        (
            not failure.hunk.has_context
            and failure.closest is not None
            and failure.closest.matching == failure.closest.total
        )
        or (failure.hunk.post_image and not failure.hunk.post_image[-1].endswith(b"\n"))
        for _, failure in outcome.failures
    )


@st.composite
def single_cases(draw: st.DrawFn) -> tuple[bytes, bytes, bytes, int, bool]:
    """``(old, new, target, context, crlf_patch)``: the target is ``old`` or a mutated copy."""
    old = draw(contents())
    new = draw(edited(old))
    kind = draw(st.sampled_from(("same", "edited", "shifted")))
    target = old
    if kind == "edited":
        target = draw(edited(old))
    elif kind == "shifted":  # lines inserted in one place: the hunks after it move
        at = draw(st.integers(0, len(old[0])))
        extra = draw(lines_st.filter(lambda x: 1 <= len(x) <= 6))
        target = (old[0][:at] + extra + old[0][at:], old[1])
    context = draw(st.integers(0, 5))
    crlf_patch = draw(st.sampled_from((False, False, False, True)))
    return render(*old), render(*new), render(*target), context, crlf_patch


@pytest.mark.slow
@settings(
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=single_cases())
def test_one_file_agrees_with_gnu_patch(
    case: tuple[bytes, bytes, bytes, int, bool], work: Path
) -> None:
    old, new, target, context, crlf_patch = case
    assume(old != new)
    patch, gnu, ours = single_file_case(work, old, new, target, context, crlf_patch)
    event(f"GNU {'applies' if gnu[0] else 'fails'}{' (CRLF patch)' if crlf_patch else ''}")
    event(f"target {'is the original' if target == old else 'mutated'}")
    assert ours[0] == gnu[0], f"verdicts differ (GNU ok={gnu[0]}) for\n{patch!r}"
    if gnu[0]:
        assert ours[1] == gnu[1], f"results differ for\n{patch!r}"


# --------------------------------------------------------------------------- several files

NAMES = ("f", "g.py", "d/h", "d/e/k", "n/m")


@st.composite
def trees(draw: st.DrawFn) -> dict[str, bytes]:
    """A small tree: path -> bytes (files may be empty)."""
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
    return {name: render(*draw(contents(max_size=12))) for name in names}


@st.composite
def tree_changes(draw: st.DrawFn, before: dict[str, bytes]) -> dict[str, bytes]:
    """The tree after a change: files modified, deleted (non-empty ones) or created."""
    after: dict[str, bytes] = {}
    for name, data in before.items():
        action = draw(st.sampled_from(("keep", "modify", "modify", "delete")))
        if action == "delete" and data:
            continue
        if action == "modify":
            data = render(*draw(edited((split_keep(data), data.endswith(b"\n") or not data))))
        after[name] = data
    for name in NAMES:
        if name not in before and draw(st.booleans()):
            lines = draw(lines_st.filter(lambda x: 1 <= len(x) <= 8))
            after[name] = render(lines, draw(st.booleans()))
    return after


def split_keep(data: bytes) -> list[bytes]:
    """Lines that all end in ``\\n`` (one is added to an unterminated last line)."""
    return [line + b"\n" for line in data.split(b"\n")[:-1]] + (
        [data.rsplit(b"\n", 1)[-1] + b"\n"] if data and not data.endswith(b"\n") else []
    )


@st.composite
def mutated_tree(draw: st.DrawFn, before: dict[str, bytes], after: dict[str, bytes]) -> dict:
    """``before``, or ``before`` with one file edited, removed, or added where the patch
    creates one (empty, or with the content the patch gives it)."""
    target = dict(before)
    kind = draw(st.sampled_from(("same", "same", "edit", "remove", "add")))
    if kind == "edit" and target:
        name = draw(st.sampled_from(sorted(target)))
        lines = split_keep(target[name])
        target[name] = render(*draw(edited((lines, target[name].endswith(b"\n")))))
    elif kind == "remove" and target:
        del target[draw(st.sampled_from(sorted(target)))]
    elif kind == "add":
        created = sorted(set(after) - set(before))
        if created:
            name = draw(st.sampled_from(created))
            target[name] = draw(st.sampled_from((b"", after[name], b"other\n")))
    return target


def file_diff(work: Path, name: str, old: bytes | None, new: bytes | None, context: int, git: bool):
    """One file's part of a patch: ``diff -U N`` output, with git's header if ``git``."""
    old_file, new_file = reset(work / "o") / "x", reset(work / "n") / "x"
    old_file.write_bytes(old or b"")
    new_file.write_bytes(new or b"")
    old_label = f"a/{name}" if old is not None else "/dev/null"
    new_label = f"b/{name}" if new is not None else "/dev/null"
    body = gnu_diff(
        old_file if old is not None else Path("/dev/null"),
        new_file if new is not None else Path("/dev/null"),
        context,
        old_label,
        new_label,
    )
    if not body or not git:
        return body
    header = f"diff --git a/{name} b/{name}\n"
    if old is None:
        header += "new file mode 100644\n"
    elif new is None:
        header += "deleted file mode 100644\n"
    return header.encode() + body


#: How a multi-file patch is written: ``diff -U N`` per file with ``a/``, ``b/`` and
#: ``/dev/null`` labels; the same with git's ``diff --git`` and new/deleted file mode lines;
#: one ``diff -Nru`` of two directories (timestamps, the epoch for a missing file).
STYLES = ("labels", "git", "diff-N")


def tree_diff(
    work: Path, before: dict[str, bytes], after: dict[str, bytes], context: int, style: str
) -> bytes:
    """A patch turning ``before`` into ``after``, written in ``style``."""
    if style == "diff-N":
        write_tree(work / "a", before)
        write_tree(work / "b", after)
        done = subprocess.run(
            ["diff", "-Nr", f"-U{context}", "a", "b"], cwd=work, capture_output=True, check=False
        )
        assert done.returncode in (0, 1), done.stderr
        return done.stdout
    return b"".join(
        file_diff(work, name, before.get(name), after.get(name), context, style == "git")
        for name in sorted(set(before) | set(after))
    )


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    reset(root)
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def snapshot(root: Path) -> tuple[dict[str, bytes], set[str]]:
    """Every file (path -> bytes) and every directory under ``root``, patchkeeper's own
    state directory left out."""
    files, dirs = {}, set()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith(".patchkeeper"):
            continue
        if path.is_dir():
            dirs.add(relative)
        else:
            files[relative] = path.read_bytes()
    return files, dirs


@pytest.mark.slow
@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), context=st.integers(0, 5), style=st.sampled_from(STYLES))
def test_several_files_agree_with_gnu_patch(
    data: st.DataObject, context: int, style: str, work: Path
) -> None:
    before = data.draw(trees())
    after = data.draw(tree_changes(before))
    target = data.draw(mutated_tree(before, after))
    reset(work)
    patch = tree_diff(work, before, after, context, style)
    assume(patch)
    downstream = reset(work / "downstream")
    (downstream / "case.patch").write_bytes(patch)
    (downstream / "series").write_text("case.patch\n")
    (downstream / "patchkeeper.toml").write_text('series = "series"\n')

    write_tree(work / "gnu", target)
    gnu_ok = gnu_patch(work / "gnu", downstream / "case.patch") == 0
    write_tree(work / "pk", target)
    pristine = snapshot(work / "pk")
    config = load_config(downstream / "patchkeeper.toml")
    result = apply_command.run(config, TargetChoice(target=work / "pk"))
    ours_ok = result.outcome == APPLIED
    event(f"{style}: GNU {'applies' if gnu_ok else 'fails'}")
    if result.offsets:
        event("a hunk applied at an offset")

    verdicts = f"GNU ok={gnu_ok}, patchkeeper {result.outcome}"
    no_context_offset = context == 0 and gnu_ok and not ours_ok
    if no_context_offset:
        write_tree(work / "gnu-offsets", target)
        no_context_offset = gnu_offsets(work / "gnu-offsets", downstream / "case.patch")
    if context == 0 and gnu_ok and result.outcome == PARTIAL:
        # docs/reliability.md, Limits: a context-free hunk whose new lines are at its place and whose old
        # lines occur nowhere counts as applied, so the series is partially applied and
        # apply refuses
        event("a hunk without context whose lines are there: partially applied")
        assert snapshot(work / "pk") == pristine, "a refused apply changed the target"
        return
    if no_context_offset or (gnu_ok and not ours_ok and refused_for_no_context(result)):
        event("a hunk without context at an offset: refused")  # docs/reliability.md, Limits
        assert snapshot(work / "pk") == pristine, "a failed apply changed the target"
        return
    if gnu_ok and not ours_ok and documented_refusal(patch, target):
        # Another file's hunk already looks applied, so apply says "partially applied"
        # rather than "failed"; the refusal itself is a documented one.
        event("a documented refusal beside a hunk that looks applied")
        assert snapshot(work / "pk") == pristine, "a refused apply changed the target"
        return
    assert ours_ok == gnu_ok, f"verdicts differ ({verdicts}) for\n{patch!r}"
    if gnu_ok:
        assert snapshot(work / "pk") == snapshot(work / "gnu"), f"trees differ for\n{patch!r}"
    else:
        assert snapshot(work / "pk") == pristine, "a failed apply changed the target"


def documented_refusal(patch: bytes, target: dict[str, bytes]) -> bool:
    """Whether the engine refuses ``patch`` on ``target`` only by a documented choice
    (:func:`zero_context_refusals`), whatever apply's summary calls the series."""
    parsed = parse_patch(patch, name="case.patch", path=Path("case.patch"))
    ws = Workspace(lambda path: FileState.from_bytes(target[path]) if path in target else None)
    outcome = apply_patch(ws, parsed, commit=False)
    return (
        not outcome.ok
        and all(file.problem is None for file in outcome.files)
        and bool(outcome.failures)
        and zero_context_refusals(outcome)
    )


def refused_for_no_context(result: ApplyResult) -> bool:
    """Whether apply failed only on hunks without context that match at another line."""
    hunks = [hunk for failure in result.failures for hunk in failure.hunks]
    return (
        result.outcome == FAILED
        and bool(hunks)
        and all(not failure.problem for failure in result.failures)
        and all(
            "the hunk has no context lines" in hunk.note or "without a newline" in hunk.note
            for hunk in hunks
        )
    )


# --------------------------------------------------------------------------- regressions

#: Disagreements the properties above found, minimised: (patch, tree before, tree after GNU
#: patch, or ``None`` when GNU patch refuses). Both tools must give exactly that.
REGRESSIONS = {
    # ``diff -u`` of an empty file: old side "-0,0" means "probably empty", so a missing file
    # is patched as an empty one, i.e. created (pch.c, p_says_nonexistent = 1).
    "empty-old-side-creates-missing-file": (
        b"--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n",
        {},
        {"f": b"a\n"},
    ),
    "empty-old-side-inserts-at-top": (
        b"--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n",
        {"f": b"x\n"},
        {"f": b"a\nx\n"},
    ),
    "empty-new-side-keeps-empty-file": (
        b"--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-a\n",
        {"f": b"a\n"},
        {"f": b""},
    ),
    # ``diff -N``: the epoch as timestamp on an empty side means "no such file" (= 2).
    "epoch-new-side-deletes": (
        b"--- a/d/h\t2026-11-30 09:55:04.180203777 +0000\n"
        b"+++ b/d/h\t1970-01-01 00:00:00.000000000 +0000\n"
        b"@@ -1 +0,0 @@\n-a\n",
        {"d/h": b"a\n", "f": b""},
        {"f": b""},
    ),
    "epoch-new-side-refuses-to-delete-a-longer-file": (
        b"--- a/d/h\t2026-11-30 09:55:04.180203777 +0000\n"
        b"+++ b/d/h\t1970-01-01 00:00:00.000000000 +0000\n"
        b"@@ -1 +0,0 @@\n-a\n",
        {"d/h": b"a\na\n"},
        None,
    ),
    "epoch-in-another-zone-creates": (
        b"--- a/n/m\t1969-12-31 19:00:00.000000000 -0500\n"
        b"+++ b/n/m\t2026-11-30 09:55:04.180203777 -0500\n"
        b"@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n",
        {},
        {"n/m": b"a\nb"},
    ),
    "epoch-old-side-refuses-to-create-over-a-file": (
        b"--- a/f\t1970-01-01 00:00:00.000000000 +0000\n"
        b"+++ b/f\t2026-11-30 09:55:04.180203777 +0000\n"
        b"@@ -0,0 +1 @@\n+a\n",
        {"f": b"x\n"},
        None,
    ),
    # GNU patch 2.7.6 locates a hunk no earlier than the line after the last one the
    # previous hunk removed or copied (min_where = last_frozen_line + 1).
    "hunk-may-not-start-on-lines-the-previous-one-consumed": (
        b"--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-a\n b\n@@ -4,2 +3,4 @@\n a\n+b\n+a\n b\n",
        {"f": b"a\nb\n"},
        None,
    ),
    "context-may-not-reach-back-over-a-removed-line": (
        b"--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-x\n a\n@@ -10,3 +9,3 @@\n x\n a\n-b\n+B\n",
        {"f": b"x\na\nb\n"},
        None,
    ),
    # Two hunks whose contexts overlap share those input lines: each is written once.
    "hunks-sharing-context-write-it-once": (
        b"--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n+b\n a\n@@ -4,2 +5 @@\n a\n-b\n",
        {"f": b"a\nb\n"},
        {"f": b"b\na\n"},
    ),
    # An insertion after line 1 of an empty file: the empty pattern lands past the end.
    "insertion-past-the-end-of-an-empty-file": (
        b"--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+a\n",
        {"f": b""},
        {"f": b"a\n"},
    ),
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_regression_agrees_with_gnu_patch(name: str, work: Path) -> None:
    patch, before, expected = REGRESSIONS[name]
    downstream = reset(work / "downstream")
    (downstream / "case.patch").write_bytes(patch)
    (downstream / "series").write_text("case.patch\n")
    (downstream / "patchkeeper.toml").write_text('series = "series"\n')
    write_tree(work / "gnu", before)
    gnu_ok = gnu_patch(work / "gnu", downstream / "case.patch") == 0
    write_tree(work / "pk", before)
    result = apply_command.run(
        load_config(downstream / "patchkeeper.toml"), TargetChoice(target=work / "pk")
    )

    assert gnu_ok == (expected is not None)
    if expected is None:  # refused; the wording (failed, partially applied) is apply's own
        assert result.outcome != APPLIED
        assert snapshot(work / "pk")[0] == before
    else:
        assert result.outcome == APPLIED
        assert snapshot(work / "gnu")[0] == expected
        assert snapshot(work / "pk") == snapshot(work / "gnu")


def test_no_newline_refusal_beside_a_hunk_that_looks_applied(work: Path) -> None:
    """A hunk leaving its last line without a newline in front of other lines is refused
    (docs/reliability.md, Limits) while GNU patch adds the newline; another file's hunk
    whose post-image is already there makes apply call the series partially applied."""
    patch = (
        b"--- a/d/e/k\n+++ b/d/e/k\n@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n"
        b"--- a/d/h\n+++ b/d/h\n@@ -2 +2,2 @@\n a\n+a\n"
    )
    target = {"d/e/k": b"a", "d/h": b"a\na\n"}
    downstream = reset(work / "downstream")
    (downstream / "case.patch").write_bytes(patch)
    (downstream / "series").write_text("case.patch\n")
    (downstream / "patchkeeper.toml").write_text('series = "series"\n')
    write_tree(work / "gnu", target)
    assert gnu_patch(work / "gnu", downstream / "case.patch") == 0
    assert snapshot(work / "gnu")[0] == {"d/e/k": b"a\na", "d/h": b"a\na\na\n"}
    write_tree(work / "pk", target)
    result = apply_command.run(
        load_config(downstream / "patchkeeper.toml"), TargetChoice(target=work / "pk")
    )
    assert result.outcome == PARTIAL
    assert snapshot(work / "pk")[0] == target
    assert documented_refusal(patch, target)
