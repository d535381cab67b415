"""Keep a patch file's own form when ``export`` writes it again from a commit.

``export`` writes git's form: ``diff --git`` and ``index`` lines, ``a/``/``b/`` names, git's
hunk-header text. A series that was not written by ``export`` (a Debian or quilt series, a
``gbp pq`` or ``git format-patch`` one) has its own: ``Index:`` lines and ``====`` rules,
``--- pkg.orig/x`` / ``+++ pkg/x`` names with timestamps, abbreviated blob ids, hunk headers as
``diff -p`` writes them. Rewriting such a file in git's form after ``import`` makes the first
``export`` a diff of noise, so the file already on disk (the *reference*) decides the form, as
``quilt refresh`` keeps a patch's description (its ``--no-index``, ``-p ab`` and
``--no-timestamps`` choose the form of what it regenerates), where ``gbp pq export`` writes
every patch anew in ``git format-patch``'s form (the form ``--normalise`` asks for):

- a file section whose change is the commit's (its hunks apply to the commit's parent at fuzz
  0 and give the commit's file) keeps its bytes, header lines, timestamps, ``index`` line,
  hunk-header text and line numbers included: a section cut against another release that
  applies at an offset stays as it was (python-urllib3's
  ``fix-missed-coverage-when-calling-read-having-amt-Non.patch`` says ``@@ -587,6`` where
  1.26.12 has the lines at 476);
- a section whose file the commit changes differently is written from git's diff in the
  section's form: its own header lines for a ``---``/``+++`` section (``Index:`` line, names,
  timestamps; ``/dev/null`` where the file is created or deleted and the section said
  otherwise), git's header with the section's ``index`` abbreviation for a ``diff --git``
  section; a hunk keeps its header text when its lines are those of a hunk it had, else it
  gets the text its form writes (:func:`function_text`);
- a file the reference did not change gets a section in the form of the reference's first
  section (its header lines with the path replaced, no timestamps), after the other sections;
- two sections of one file (two commits' diffs joined) keep their bytes, each in its place,
  when applied in order, the second to the file the first leaves (as GNU patch applies
  them), they make the commit's change to the file; else the file gets one section, git's,
  in the place and form of its first section;
- a section for a file the commit no longer changes is left out;
- the bytes after the last hunk (a ``-- `` signature) stay.

``export --normalise`` skips all this and writes git's form.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from patchkeeper import constants as C
from patchkeeper.series.hunks import patch_lines
from patchkeeper.series.model import FileDiff, Hunk, Patch
from patchkeeper.series.parse import split_lines

#: A hunk header's numbers and its text: ``@@ -235,7 +235,7 @@ class Retry(object):``.
HUNK_TEXT = re.compile(rb"^(@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)(.*?)(\r?\n)?$", re.S)
#: An ``index`` line: ``index 3b1f81a..9d2c6e0 100644``.
INDEX_IDS = re.compile(rb"^index ([0-9a-f]+)\.\.([0-9a-f]+)")
#: GNU diff ``-p`` writes at most this many bytes of the function line (diff's
#: ``print_context_function``); git writes up to 80 (xdiff's ``func_line`` buffer).
GNU_FUNCTION_BYTES = 40
#: Where the rules for the hunk-header text come from: git's diff, GNU ``diff -p``, or none
#: (a plain ``diff -u``, quilt's default, writes no text).
GIT, GNU, NONE = "git", "gnu", "none"

#: ``read(path) -> bytes or None``: a file of the commit's parent or of the commit, by its
#: path relative to the patch root; ``None`` when the file does not exist there.
Reader = Callable[[str], "bytes | None"]


@dataclass(frozen=True)
class Sides:
    """The commit's files before and after, as :data:`Reader` functions."""

    before: Reader
    after: Reader


def is_git_section(diff: FileDiff) -> bool:
    """Whether a file section has a ``diff --git`` line (else it is a ``---``/``+++`` one)."""
    return any(line.startswith(C.DIFF_GIT) for line in split_lines(diff.header_raw))


def index_abbrev(patch: Patch) -> int | None:
    """The length of the blob ids on the patch's first ``index`` line, if it has one.

    >>> from pathlib import Path
    >>> from patchkeeper.series.parse import parse_patch
    >>> text = b"diff --git a/x b/x\\nindex 3b1f81a..9d2c6e0 100644\\n--- a/x\\n+++ b/x\\n"
    >>> index_abbrev(parse_patch(text + b"@@ -1 +1 @@\\n-a\\n+b\\n", name="p", path=Path("p")))
    7
    """
    for diff in patch.files:
        for line in split_lines(diff.header_raw):
            match = INDEX_IDS.match(line)
            if match:
                return len(match.group(1))
    return None


def text_rule(patch: Patch) -> str:
    """How the reference's hunk-header text was made: :data:`GIT` when a section has a
    ``diff --git`` line, :data:`GNU` when a ``---``/``+++`` patch has any hunk text (``diff -p``,
    Debian's ``QUILT_DIFF_OPTS=-p``), else :data:`NONE`."""
    if any(is_git_section(diff) for diff in patch.files):
        return GIT
    if any(hunk.section for diff in patch.files for hunk in diff.hunks):
        return GNU
    return NONE


def function_text(git_text: bytes, rule: str) -> bytes:
    """The hunk-header text (after ``@@ ... @@``, leading space included) ``rule`` writes,
    from the text git wrote.

    git and GNU ``diff -p`` take the same line (the last one before the hunk that starts with
    a letter, ``_`` or ``$``); git keeps 80 bytes of it, GNU diff 40, both without trailing
    white space (GNU diff's ``print_context_function``).

    >>> function_text(b" class TestPoolManager(HTTPDummyServerTestCase):", GNU)
    b' class TestPoolManager(HTTPDummyServerTes'
    >>> function_text(b" def f():", NONE)
    b''
    """
    if rule == GIT:
        return git_text
    if rule == NONE or not git_text.strip():
        return b""
    return b" " + git_text.lstrip()[:GNU_FUNCTION_BYTES].rstrip()


def _hunk_body(hunk: Hunk) -> bytes:
    return hunk.raw.partition(b"\n")[2]


def _retext(hunk: Hunk, rule: str, known: dict[bytes, bytes]) -> bytes:
    """``hunk``'s bytes with the header text of a reference hunk with the same lines, else
    the text ``rule`` writes."""
    header, _, body = hunk.raw.partition(b"\n")
    match = HUNK_TEXT.match(header + b"\n")
    assert match is not None
    text = known.get(body)
    if text is None:
        text = function_text(match.group(2), rule)
    return match.group(1) + text + b"\n" + body


def keep_hunk_texts(hunks: Sequence[Hunk], reference: FileDiff | None, rule: str) -> list[bytes]:
    """The bytes of ``hunks`` (git's diff of one file) in the hunk-header form of a patch
    written by ``rule`` (:func:`text_rule`): each keeps the header text of the ``reference``
    section's hunk with the same lines, else gets the text ``rule`` writes (none for a plain
    ``diff -u``, 40 bytes for ``diff -p``): a hunk regenerated unchanged is the same bytes."""
    known = _texts(reference) if reference is not None else {}
    return [_retext(hunk, rule, known) for hunk in hunks]


def _texts(diff: FileDiff) -> dict[bytes, bytes]:
    """``{hunk body: header text}`` of a reference section's hunks."""
    out: dict[bytes, bytes] = {}
    for hunk in diff.hunks:
        match = HUNK_TEXT.match(hunk.raw.partition(b"\n")[0] + b"\n")
        if match is not None:
            out.setdefault(_hunk_body(hunk), match.group(2))
    return out


def _name(line: bytes) -> bytes:
    """The file name of a ``---``/``+++`` line, without marker, timestamp and line end."""
    return line[4:].rstrip(b"\r\n").split(b"\t", 1)[0]


def _header_lines(diff: FileDiff) -> tuple[list[bytes], bytes | None, bytes | None]:
    """A ``---``/``+++`` section's lines before ``---`` (from its first header line on:
    ``Index:``, the rule, a ``diff`` command line), and its ``---`` and ``+++`` lines."""
    lines = split_lines(diff.header_raw)
    start = next(
        (
            index
            for index, line in enumerate(lines)
            if line.startswith((C.INDEX_LINE, C.DIFF_OTHER, C.OLD_FILE))
        ),
        len(lines),
    )
    old = next((line for line in lines[start:] if line.startswith(C.OLD_FILE)), None)
    new = next((line for line in lines[start:] if line.startswith(C.NEW_FILE)), None)
    before = [line for line in lines[start:] if not line.startswith((C.OLD_FILE, C.NEW_FILE))]
    return before, old, new


def _prefix(name: bytes | None, path: str) -> bytes | None:
    """What a header name has before the stripped path (``pkg.orig/``), if it ends in it."""
    if name is None or name == C.DEV_NULL.encode():
        return None
    tail = path.encode("utf-8", "surrogateescape")
    return name[: -len(tail)] if name.endswith(tail) else None


@dataclass(frozen=True)
class PlainForm:
    """The form of a ``---``/``+++`` section, for a file the reference did not have.

    Attributes:
        before: the header lines before ``---`` (``Index: pkg/x``, the ``====`` rule).
        path: the path those lines name (replaced by the new file's).
        old_prefix, new_prefix: what the names have before the path (``pkg.orig/``, ``a/``).
        ending: the line ending of the header lines.
    """

    before: tuple[bytes, ...]
    path: str
    old_prefix: bytes
    new_prefix: bytes
    ending: bytes

    def header(self, diff: FileDiff) -> bytes:
        """``diff``'s header lines in this form: ``/dev/null`` for a side that does not exist,
        no timestamps."""
        pattern = re.compile(
            rb"(?<![^\s/])" + re.escape(self.path.encode("utf-8", "surrogateescape")) + rb"(?=\s|$)"
        )
        lines = [
            pattern.sub(diff.path.encode("utf-8", "surrogateescape").replace(b"\\", b"\\\\"), x)
            for x in self.before
        ]
        null = C.DEV_NULL.encode()
        old = (
            null
            if diff.is_creation
            else self.old_prefix + str(diff.old_path).encode("utf-8", "surrogateescape")
        )
        new = (
            null
            if diff.is_deletion
            else self.new_prefix + str(diff.new_path).encode("utf-8", "surrogateescape")
        )
        lines += [b"--- " + old + self.ending, b"+++ " + new + self.ending]
        return b"".join(lines)


def plain_form(patch: Patch) -> PlainForm | None:
    """The form of the reference's first ``---``/``+++`` section; ``None`` when its first
    section is a git one (new files then get git's header)."""
    if not patch.files or is_git_section(patch.files[0]):
        return None
    first = patch.files[0]
    before, old, _ = _header_lines(first)
    default_old, default_new = (b"a/", b"b/") if patch.strip else (b"", b"")
    old_prefix = new_prefix = None
    for diff in patch.files:
        _, o, n = _header_lines(diff)
        old_prefix = old_prefix if old_prefix is not None else _prefix(o and _name(o), diff.path)
        new_prefix = new_prefix if new_prefix is not None else _prefix(n and _name(n), diff.path)
    ending = b"\r\n" if (old or b"").endswith(b"\r\n") else b"\n"
    return PlainForm(
        before=tuple(before),
        path=first.path,
        old_prefix=old_prefix if old_prefix is not None else default_old,
        new_prefix=new_prefix if new_prefix is not None else default_new,
        ending=ending,
    )


def same_change(section: FileDiff, sides: Sides) -> bool:
    """Whether a reference section makes exactly the commit's change to its file: its hunks
    apply to the parent's file at fuzz 0 (at any offset, as ``import``'s ``git apply`` took
    them) and give the commit's file, and the file exists before (after) exactly when the
    section says so."""
    old, new = section.old_path, section.new_path
    before = sides.before(old) if old is not None else None
    if old is None and new is not None and sides.before(new) is not None:
        return False
    if old is not None and before is None and not section.old_side_empty:
        return False
    after = sides.after(new) if new is not None else None
    if new is not None and after is None:
        return False
    if new is None and old is not None and sides.after(old) is not None:
        return False
    if section.is_rename and old is not None and sides.after(old) is not None:
        return False
    result = patch_lines(split_lines(before or b""), section.hunks)
    if result.lines is None:
        return False
    return b"".join(result.lines) == (after or b"")


def same_changes(sections: Sequence[FileDiff], sides: Sides) -> bool:
    """Whether reference sections of one file (two or more, in patch order) make exactly the
    commit's change to it when applied in order, each at fuzz 0 to the file the ones before
    it leave, as GNU patch applies them: the first may create the file and the last delete
    it, no section renames it. One section: :func:`same_change`."""
    if len(sections) == 1:
        return same_change(sections[0], sides)
    if any(s.is_rename for s in sections) or any(s.is_creation for s in sections[1:]):
        return False
    if any(s.is_deletion for s in sections[:-1]):
        return False
    first, last = sections[0], sections[-1]
    path = first.path
    data = sides.before(path)
    if first.is_creation and data is not None:
        return False
    if not first.is_creation and data is None and not first.old_side_empty:
        return False
    for section in sections:
        result = patch_lines(split_lines(data or b""), section.hunks)
        if result.lines is None:
            return False
        data = b"".join(result.lines)
    after = sides.after(path)
    if last.is_deletion != (after is None):
        return False
    return data == (after or b"")


def _same_modes(section: FileDiff, git: list[FileDiff]) -> bool:
    """A git section's modes are git's. A ``---``/``+++`` section says nothing of modes: it
    makes the commit's change when the commit changes no mode and creates no file other
    than 100644 (what ``git apply`` gives a file such a diff creates); an executable file it
    modifies stays executable (Pillow's ``setup.py``)."""
    if is_git_section(section):
        if section.is_rename:
            return True
        return all((section.old_mode, section.new_mode) == (g.old_mode, g.new_mode) for g in git)
    return all(_same_modes_plain(g) for g in git)


def _same_modes_plain(git: FileDiff) -> bool:
    """Whether a ``---``/``+++`` header can stand for git's section: no mode change, and a
    created file is 100644."""
    if git.is_creation:
        return git.new_mode in (None, C.REGULAR_TYPE + "644")
    return git.is_deletion or git.old_mode == git.new_mode


def _restyle(git: FileDiff, section: FileDiff | None, plain: PlainForm | None, rule: str) -> bytes:
    """One of git's sections in the form of the reference ``section`` (``None``: a file the
    reference did not have, in the form ``plain``, or git's own when that is ``None``)."""
    known = _texts(section) if section is not None else {}
    hunks = b"".join(_retext(hunk, rule, known) for hunk in git.hunks)
    if section is not None and is_git_section(section):
        return git.header_raw + hunks
    if not _same_modes_plain(git):
        return git.header_raw + hunks  # a mode a ---/+++ header cannot say: git's header
    if section is not None:
        before, old, new = _header_lines(section)
        kept = (
            old is not None
            and new is not None
            and section.is_creation == git.is_creation
            and section.is_deletion == git.is_deletion
            and section.path == git.path
        )
        if kept:
            return section.header_raw + hunks
        form = plain_form_of(section, before)
        return form.header(git) + hunks
    if plain is None:
        return git.header_raw + hunks
    return plain.header(git) + hunks


def plain_form_of(section: FileDiff, before: list[bytes]) -> PlainForm:
    """The form of one ``---``/``+++`` section (its names' prefixes, ``a/``/``b/`` when a
    side is ``/dev/null``)."""
    _, old, new = _header_lines(section)
    old_prefix = _prefix(old and _name(old), section.path)
    new_prefix = _prefix(new and _name(new), section.path)
    if old_prefix is None:
        old_prefix = new_prefix.replace(b"b/", b"a/", 1) if new_prefix == b"b/" else b"a/"
    if new_prefix is None:
        new_prefix = b"b/" if old_prefix == b"a/" else old_prefix
    return PlainForm(tuple(before), section.path, old_prefix, new_prefix, b"\n")


def render_in_form(reference: Patch, preamble: bytes, git: Patch, sides: Sides) -> bytes:
    """The commit's diff (``git``, parsed from git's output) in the form of ``reference``,
    after ``preamble``; the rules are this module's docstring's.

    Args:
        reference: the patch file on disk, parsed at its strip level.
        preamble: the bytes before the first section (the commit body, an ``--- exported
            from`` line when the reference has one).
        git: git's diff of the commit, parsed at strip level 1.
        sides: the commit's parent's and the commit's files.

    Returns:
        The patch file's bytes.
    """
    rule = text_rule(reference)
    plain = plain_form(reference)
    by_path = {diff.path: diff for diff in git.files}
    of_path: dict[str, list[FileDiff]] = {}
    for section in reference.files:
        of_path.setdefault(section.path, []).append(section)
    kept = {
        path
        for path, sections in of_path.items()
        if len(sections) > 1
        and path in by_path
        and all(_same_modes(s, [by_path[path]]) for s in sections)
        and same_changes(sections, sides)
    }
    used: set[str] = set()
    parts = [preamble]
    for section in reference.files:
        if section.path in kept:
            used.add(section.path)
            parts.append(section.header_raw + b"".join(hunk.raw for hunk in section.hunks))
            continue
        paths = [p for p in dict.fromkeys((section.old_path, section.new_path)) if p is not None]
        changed = [by_path[p] for p in paths if p in by_path and p not in used]
        if not changed:
            continue
        used.update(paths)
        if _same_modes(section, changed) and same_change(section, sides):
            parts.append(section.header_raw + b"".join(hunk.raw for hunk in section.hunks))
            continue
        mine = [g for g in changed if g.path == section.path] or changed
        for git_section in changed:
            own = section if git_section is mine[0] else None
            parts.append(_restyle(git_section, own, plain, rule))
    for path, git_section in by_path.items():
        if path not in used:
            parts.append(_restyle(git_section, None, plain, rule))
    parts.append(reference.trailer)
    return b"".join(parts)
