"""A refreshed patch: the same preamble and headers, the diff body regenerated on the new tree.

A refreshed patch keeps its preamble and headers byte for byte except ``Cut-against``, which
becomes the new pin, and a ``git format-patch`` diffstat after the ``---`` line, which is
written again for the new body (:func:`restat`); its body is regenerated against the new
tree with three lines of context. The body comes from git itself
(``git diff --no-index`` between two scratch directories holding the touched files before
and after, through :mod:`patchkeeper.upstream.gitops`), so it does not depend on the user's git
configuration.

File headers follow the original patch: a file diff whose header has no ``index`` line
(quilt's ``--- a/x`` / ``+++ b/x``, with or without timestamps) keeps its header bytes; a git
header is rebuilt with the original's path prefixes and ``index`` abbreviation, since its
blob ids change with the content. A hunk's header text follows the original too: a hunk
with the lines of one of the original's keeps its text, another gets the text the original's
writer gives (none after a plain ``diff -u``, 40 bytes after ``diff -p``, git's 80 in a git
patch), so a patch refreshed on a file upstream did not change is the same bytes. Files keep
the original patch's order. A patch with a
rename is regenerated with git's rename detection, so its renames stay renames.

A file with two sections in the original (two commits' diffs joined) gets one section, git's
diff of the file, in the place and the header form of its first section: the regenerated
body is one diff from the file before the patch to the file after it, and which of its
hunks came from which section is not known.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from patchkeeper.errors import PatchkeeperError
from patchkeeper.ledger.patch_form import keep_hunk_texts, text_rule
from patchkeeper.series.engine import FileState, Workspace, apply_patch
from patchkeeper.series.headers import parse_headers, set_field
from patchkeeper.series.model import FileDiff, Patch
from patchkeeper.series.parse import parse_patch, split_lines
from patchkeeper.upstream import gitops

#: An ``index`` line of a git file header: ``index 2da36e6..f639f1f 100644``
INDEX_LINE = re.compile(rb"^index ([0-9a-f]+)\.\.([0-9a-f]+)")
#: The series workflow's pin header: ``Cut-against: 0.32.0: re-anchored after #57169``
CUT_AGAINST = "Cut-against"


class RefreshError(PatchkeeperError):
    """A regenerated patch does not turn the new file into the merged one (a bug)."""

    exit_code = 3


# --------------------------------------------------------------------------- Cut-against


def set_cut_against(preamble: bytes, version: str) -> tuple[bytes, str | None]:
    """Return ``(preamble with Cut-against set to version, the old value)``.

    Every other byte is kept (:func:`patchkeeper.series.headers.set_field`); a preamble without the
    field is returned unchanged (a Debian patch has none, and the port does not add one).

    >>> set_cut_against(b"Kind: fix\\nCut-against: 1.0: note\\n  more\\nWhat: x\\n", "1.1")
    (b'Kind: fix\\nCut-against: 1.1\\nWhat: x\\n', '1.0: note more')
    """
    field = parse_headers(preamble).get(CUT_AGAINST, aliases=False)
    if field is None:
        return preamble, None
    return set_field(preamble, CUT_AGAINST, version), field.value


# --------------------------------------------------------------------------- file headers


def _name_on(header: bytes, marker: bytes) -> str | None:
    for line in split_lines(header):
        if line.startswith(marker):
            name = line[len(marker) :].rstrip(b"\r\n").split(b"\t")[0].strip()
            return name.decode("utf-8", "surrogateescape")
    return None


def prefixes(patch: Patch) -> tuple[str, str]:
    """The path prefixes of the patch's file headers: ``("a/", "b/")`` for ``-p1``.

    Read from the first ``---``/``+++`` names that are not ``/dev/null``; ``("a/", "b/")``
    (``("", "")`` at ``-p0``) when the patch has none.
    """
    src = dst = None
    for diff in patch.files:
        old = _name_on(diff.header_raw, b"--- ")
        new = _name_on(diff.header_raw, b"+++ ")
        if src is None and old and diff.old_path and old.endswith(diff.old_path):
            src = old[: len(old) - len(diff.old_path)]
        if dst is None and new and diff.new_path and new.endswith(diff.new_path):
            dst = new[: len(new) - len(diff.new_path)]
    default = ("a/", "b/") if patch.strip else ("", "")
    return (src if src is not None else default[0], dst if dst is not None else default[1])


def index_abbrev(patch: Patch) -> int | None:
    """Hex digits of the original's ``index`` lines, or ``None`` when it has none."""
    for diff in patch.files:
        for line in split_lines(diff.header_raw):
            match = INDEX_LINE.match(line)
            if match:
                return len(match.group(1))
    return None


def _has_index(header: bytes) -> bool:
    return any(INDEX_LINE.match(line) for line in split_lines(header))


def _git_style(patch: Patch) -> bool:
    return any(diff.header_raw.lstrip().startswith(b"diff --git ") for diff in patch.files) or (
        not patch.files
    )


def _quotes_paths(patch: Patch) -> bool:
    """Whether the patch's git headers quote a name with a non-ASCII letter, as git does by
    default: false when one ``diff --git`` line writes such a name as it is (git's
    ``core.quotePath`` off), so the regenerated headers keep the writer's style."""
    for diff in patch.files:
        for line in split_lines(diff.header_raw):
            if line.startswith(b"diff --git ") and any(byte >= 0x80 for byte in line):
                return False
    return True


def _compose_header(
    diff: FileDiff,
    git_header: bytes,
    names: tuple[str, str],
    git_style: bool,
    keep_index: bool,
    quote: bool = True,
) -> bytes:
    """A file header in the original's style for a regenerated file diff: in git's style,
    each name as git writes it (:func:`quote_path`; ``quote`` false is ``core.quotePath``
    off), so that a name with a non-ASCII letter, a ``"`` or a ``\\`` reads back as git
    reads it."""
    src, dst = names

    def named(name: str) -> str:
        return quote_path(name, quote) if git_style else name

    old = named(f"{src}{diff.old_path}") if diff.old_path is not None else "/dev/null"
    new = named(f"{dst}{diff.new_path}") if diff.new_path is not None else "/dev/null"
    out: list[bytes] = []
    if git_style:
        first = diff.old_path if diff.is_rename and diff.old_path is not None else diff.path
        top = f"diff --git {named(src + first)} {named(dst + diff.path)}\n"
        out.append(top.encode("utf-8", "surrogateescape"))
        for line in split_lines(git_header)[1:]:
            if line.startswith((b"--- ", b"+++ ")):
                break
            if INDEX_LINE.match(line) and not keep_index:
                continue
            out.append(line)
    if diff.hunks:
        out.append(f"--- {old}{_name_end(old)}\n".encode("utf-8", "surrogateescape"))
        out.append(f"+++ {new}{_name_end(new)}\n".encode("utf-8", "surrogateescape"))
    return b"".join(out)


def _name_end(name: str) -> str:
    """What follows a ``---``/``+++`` name: a tab when the name holds a space, so that GNU
    patch (and quilt) read the whole name, as git writes it (diff.c, ``name_a_tab``)."""
    return "\t" if " " in name else ""


#: A rename's (or copy's) side as ``git diff --no-index -M`` names it, under its scratch
#: directory: ``rename from a/pkg/x.py``, ``rename to "b/pkg/na\\303\\257ve.py"``
RENAME_SIDE = re.compile(rb'^((?:rename|copy) (?:from|to) "?)(?:a|b)/')


def _git_sides(output: bytes) -> bytes:
    """``git diff --no-index`` output with each ``diff --git`` line naming the old side
    ``a/`` and the new one ``b/``, as ``git diff`` between trees writes it, and each
    ``rename from``/``rename to`` line naming the path without the scratch directory.

    With ``--no-index`` git names a created file by its new path on both sides
    (``diff --git b/X b/X``) and a deleted one by its old path (``a/X a/X``); where ``X``
    holds a space such a line cannot be split into its two names (git's rule takes two
    names equal after their first component only with ``a/`` and ``b/``).
    """
    lines = split_lines(output)
    for index, line in enumerate(lines):
        side = RENAME_SIDE.match(line)
        if side is not None:  # the scratch directory's name is no part of the path
            lines[index] = side.group(1) + line[side.end() :]
            continue
        if not line.startswith(b"diff --git "):
            continue
        body = line[len(b"diff --git ") :]
        end = len(body) - len(body.rstrip(b"\r\n"))
        names = body[: len(body) - end]
        half = len(names) // 2
        if (
            len(names) % 2 == 1
            and names[half : half + 1] == b" "
            and names[:half] == names[half + 1 :]
        ):
            quote = b'"' if names.startswith(b'"') else b""
            rest = names[len(quote) + 2 : half]
            lines[index] = (
                b"diff --git "
                + quote
                + b"a/"
                + rest
                + b" "
                + quote
                + b"b/"
                + rest
                + body[len(names) :]
            )
    return b"".join(lines)


# --------------------------------------------------------------------------- the diff body


def _write_side(root: Path, states: Mapping[str, FileState | None]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for path, state in states.items():
        if state is None:
            continue
        dest = root.joinpath(*path.split("/"))
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(state.data)
        dest.chmod(state.mode if state.mode is not None else 0o644)


def git_diff(
    before: Mapping[str, FileState | None],
    after: Mapping[str, FileState | None],
    abbrev: int | None,
    renames: bool = False,
) -> list[FileDiff]:
    """The file diffs from ``before`` to ``after`` (path -> state, ``None`` = absent), by git.

    With ``renames``, a file deleted and one created with most of its lines are one rename
    (git's ``-M``), as ``git format-patch`` writes them.

    Returns file diffs parsed at ``-p1`` (git's ``a/``, ``b/`` names), in git's order; paths
    whose state is equal on both sides are left out.
    """
    changed = [path for path in before if before[path] != after.get(path)]
    changed += [path for path in after if path not in before and after[path] is not None]
    if not changed:
        return []
    with tempfile.TemporaryDirectory(prefix="patchkeeper-diff-") as scratch:
        root = Path(scratch)
        _write_side(root / "a", {p: before.get(p) for p in changed})
        _write_side(root / "b", {p: after.get(p) for p in changed})
        # The scratch directories are named a and b, so --no-prefix gives a/ and b/ names.
        args = ["diff", "--no-index", *gitops.DIFF_OPTIONS, "--no-prefix", "-U3"]
        if renames:  # after DIFF_OPTIONS' --no-renames, which it overrides
            args.append("--find-renames")
        full = abbrev is not None and abbrev >= 40
        args.append("--full-index" if full else f"--abbrev={abbrev or 7}")
        done = gitops.call([*args, "a", "b"], root)
    if done.returncode not in (0, 1):
        output = done.stderr.decode("utf-8", "replace").strip()
        raise RefreshError(
            f"git diff --no-index failed with exit code {done.returncode}: {output}",
            hint="this is a bug in patchkeeper; please report it",
        )
    if not done.stdout:
        return []
    parsed = parse_patch(_git_sides(done.stdout), name="git diff", path=Path("git-diff"), strip=1)
    return list(parsed.files)


#: A diffstat line as ``git format-patch`` writes it: `` tests/test_s3.py | 2 ++``
STAT_LINE = re.compile(rb"^ .* \| +(?:\d+|Bin)\b")
#: Its last line: `` 1 file changed, 2 insertions(+)``
STAT_SUMMARY = re.compile(rb"^ \d+ files? changed")
#: What follows it per file: `` create mode 100644 tests/conftest.py``, `` delete mode ...``,
#: `` rename pkg/{a.py => b.py} (100%)``, `` copy ...``, `` mode change 100644 => 100755 x``
STAT_MODE = re.compile(rb"^ (?:(?:create|delete) mode [0-7]+ |(?:rename|copy) |mode change )")
#: The file header line it is written from: ``new file mode 100644``
MODE_LINE = re.compile(rb"^(new|deleted) file mode ([0-7]+)", re.MULTILINE)
#: A rename's or copy's header lines: ``similarity index 93%``, ``copy from a.py``
SIMILARITY = re.compile(rb"^similarity index (\d+)%", re.MULTILINE)
COPY_FROM = re.compile(rb"^copy from ", re.MULTILINE)
#: What git's ``quote_c_style`` writes for a byte as ``\a``, ``\t``, ...; other bytes
#: below 0x20, 0x7f and above are written in octal.
C_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 34: '"', 92: "\\"}
#: The width ``git format-patch`` fits its diffstat in (git's ``MAIL_DEFAULT_WRAP``).
STAT_WIDTH = 72
#: The widths a patch's diffstat is recognised in, and rewritten in after a refresh: git
#: ``format-patch``'s own, then 80, git's width for ``--stat`` without a number, which the
#: patches of Debian's ``gbp pq export`` carry.
STAT_WIDTHS = (STAT_WIDTH, 80)


def _scale(count: int, width: int, largest: int) -> int:
    """git's ``scale_linear``: ``count`` of ``largest`` changes on a graph ``width`` wide."""
    return 0 if not count else 1 + (count * (width - 1)) // largest


def quote_path(path: str, quote: bool = True) -> str:
    """``path`` as git's ``quote_c_style`` writes it in a diffstat: in double quotes, with
    C escapes for ``"``, ``\\`` and control bytes and octal for bytes from 0x7f up, when it
    holds any of them; as it is otherwise. With ``quote`` false (git's ``core.quotePath``
    off) bytes from 0x80 up are written as they are.

    >>> quote_path("pkg/na\u00efve file.py")
    '"pkg/na\\\\303\\\\257ve file.py"'
    >>> quote_path("pkg/na\u00efve file.py", quote=False)
    'pkg/na\u00efve file.py'
    """
    data = path.encode("utf-8", "surrogateescape")
    special = [b < 0x20 or b in (34, 92, 0x7F) or (quote and b >= 0x80) for b in data]
    if not any(special):
        return path
    out = []
    for byte, odd in zip(data, special):
        if not odd:
            out.append(chr(byte) if byte < 0x80 else bytes([byte]).decode("latin-1"))
        elif byte in C_ESCAPES:
            out.append("\\" + C_ESCAPES[byte])
        else:
            out.append(f"\\{byte:03o}")
    text = "".join(out)
    if not quote:  # bytes from 0x80 up stay UTF-8
        text = text.encode("latin-1").decode("utf-8", "surrogateescape")
    return f'"{text}"'


def rename_name(old: str, new: str, quote: bool = True) -> str:
    """A rename's name in a diffstat, as git's ``pprint_rename`` writes it: the common
    leading directories and trailing part once, the parts that differ in braces
    (``pkg/{cache.py => caching.py}``, ``{old => new}/util.py``), or both names whole,
    quoted, when either needs quoting.

    >>> rename_name("dacite/cache.py", "dacite/caching.py")
    'dacite/{cache.py => caching.py}'
    >>> rename_name("a.py", "b.py")
    'a.py => b.py'
    """
    if quote_path(old, quote) != old or quote_path(new, quote) != new:
        return f"{quote_path(old, quote)} => {quote_path(new, quote)}"
    prefix = 0
    for index, (a, b) in enumerate(zip(old, new)):
        if a != b:
            break
        if a == "/":
            prefix = index + 1
    suffix = 0
    adjust = 1 if prefix else 0
    a_end, b_end = len(old) - 1, len(new) - 1
    while a_end >= prefix - adjust and b_end >= prefix - adjust and old[a_end] == new[b_end]:
        if old[a_end] == "/":
            suffix = len(old) - a_end
        a_end -= 1
        b_end -= 1
    a_mid = old[prefix : max(len(old) - suffix, prefix)]
    b_mid = new[prefix : max(len(new) - suffix, prefix)]
    if prefix + suffix:
        return f"{old[:prefix]}{{{a_mid} => {b_mid}}}{old[len(old) - suffix :]}"
    return f"{a_mid} => {b_mid}"


def _stat_name(diff: FileDiff, quote: bool) -> str:
    if diff.is_rename and diff.old_path is not None and diff.new_path is not None:
        return rename_name(diff.old_path, diff.new_path, quote)
    return quote_path(diff.path, quote)


def _summary_lines(diff: FileDiff, quote: bool) -> list[str]:
    """What git's ``diff_summary`` writes after the counts for one file diff."""
    created = MODE_LINE.search(diff.header_raw)
    if created is not None:
        action = "create" if created.group(1) == b"new" else "delete"
        return [f" {action} mode {created.group(2).decode()} {quote_path(diff.path, quote)}"]
    lines = []
    changed = diff.old_mode is not None and diff.new_mode is not None
    changed = changed and diff.old_mode != diff.new_mode
    if diff.is_rename:
        found = SIMILARITY.search(diff.header_raw)
        kind = "copy" if COPY_FROM.search(diff.header_raw) else "rename"
        score = f" ({int(found.group(1))}%)" if found is not None else ""
        lines.append(f" {kind} {_stat_name(diff, quote)}{score}")
        if changed:
            lines.append(f" mode change {diff.old_mode} => {diff.new_mode}")
    elif changed:
        lines.append(
            f" mode change {diff.old_mode} => {diff.new_mode} {quote_path(diff.path, quote)}"
        )
    return lines


def diffstat(diffs: Sequence[FileDiff], quote: bool = True, width: int = STAT_WIDTH) -> list[bytes]:
    """The diffstat ``git format-patch`` writes for ``diffs`` (text diffs), one line each
    without its line ending: a line per file (name, changed lines, a graph of ``+`` and
    ``-`` scaled as git scales it to ``width`` columns, 72 unless told), the summary line,
    and what git's summary says of each created, deleted, renamed or copied file and each
    mode change. A name is written as git writes it (:func:`quote_path`,
    :func:`rename_name`); ``quote`` false is git's ``core.quotePath`` off.

    Written here rather than asked of git: ``git diff --no-index --stat=72 --summary``
    between the scratch directories names each file by its scratch path (``{a => b}/x``,
    ``/dev/null => b/n.py``), which also changes the widths of the names and graphs; ``git
    apply --stat`` scales its graphs otherwise than ``format-patch``; and the stat of a
    patch's old body, which :func:`restat` compares with the written one, has no trees on
    disk to diff."""
    counts = []
    for diff in diffs:
        kinds = "".join(hunk.kinds for hunk in diff.hunks)
        counts.append((_stat_name(diff, quote), kinds.count("+"), kinds.count("-")))
    largest = max((add + dele for _, add, dele in counts), default=0)
    number_width = len(str(largest))
    name_width = max((len(name) for name, _, _ in counts), default=0)
    graph_width = largest
    if name_width + number_width + 6 + graph_width > width:
        if graph_width > width * 3 // 8 - number_width - 6:
            graph_width = max(width * 3 // 8 - number_width - 6, 6)
        if name_width > width - number_width - 6 - graph_width:
            name_width = width - number_width - 6 - graph_width
        else:
            graph_width = width - number_width - 6 - name_width
    lines = []
    for name, add, dele in counts:
        if len(name) > name_width:  # git keeps the end of a long name, after "..."
            name = "..." + name[len(name) - name_width + 3 :]
            if "/" in name[3:]:
                name = ".../" + name[3:].split("/", 1)[1]
        total = add + dele
        if graph_width < largest:
            scaled = _scale(total, graph_width, largest)
            if scaled < 2 and add and dele:
                scaled = 2
            if add < dele:
                add = _scale(add, graph_width, largest)
                dele = scaled - add
            else:
                dele = _scale(dele, graph_width, largest)
                add = scaled - dele
        graph = (" " + "+" * add + "-" * dele) if total else ""
        lines.append(f" {name:<{name_width}} | {total:>{number_width}}{graph}")
    inserted = sum(add for _, add, _ in counts)
    deleted = sum(dele for _, _, dele in counts)
    summary = f" {len(counts)} file{'' if len(counts) == 1 else 's'} changed"
    if inserted or not deleted:
        summary += f", {inserted} insertion{'' if inserted == 1 else 's'}(+)"
    if deleted or not inserted:
        summary += f", {deleted} deletion{'' if deleted == 1 else 's'}(-)"
    modes = [line for diff in diffs for line in _summary_lines(diff, quote)]
    return [line.encode("utf-8", "surrogateescape") for line in [*lines, summary, *modes]]


def restat(
    preamble: bytes, diffs: Sequence[FileDiff], old: Sequence[FileDiff] | None = None
) -> bytes:
    """``preamble`` with the diffstat ``git format-patch`` put after its ``---`` line
    rewritten for ``diffs`` (the regenerated file diffs): a stat that still named the old
    files and counts would tell a reader what the patch no longer does. A preamble without
    a diffstat, or with a binary file in it or in ``diffs``, is returned as it is; so is one
    whose stat is not the one git writes for ``old`` (the patch's file diffs before, when
    given) in any of :data:`STAT_WIDTHS` (the new stat is written in the width the old one
    was): a patch trimmed by hand after ``git format-patch`` (a distribution keeping two
    of an upstream commit's seven files) keeps the stat of the commit, which the
    maintainer chose to leave, byte for byte."""
    lines = split_lines(preamble)
    start = next((i + 1 for i, line in enumerate(lines) if line.rstrip(b"\r\n") == b"---"), None)
    if start is None or any(diff.is_binary for diff in diffs):
        return preamble
    end = start
    while end < len(lines) and STAT_LINE.match(lines[end]) and b"| Bin" not in lines[end]:
        end += 1
    if end == start or end >= len(lines) or not STAT_SUMMARY.match(lines[end]):
        return preamble
    newline = b"\r\n" if lines[end].endswith(b"\r\n") else b"\n"
    end += 1
    while end < len(lines) and STAT_MODE.match(lines[end]):
        end += 1
    written = [line.rstrip(b"\r\n") for line in lines[start:end]]
    quote, width = True, STAT_WIDTH
    if old is not None:
        if any(diff.is_binary for diff in old):
            return preamble
        # the form it was written in: quoted names or not (git's core.quotePath off), in
        # one of the widths git writes
        forms = [(q, w) for w in STAT_WIDTHS for q in (True, False)]
        found = next((f for f in forms if written == diffstat(old, *f)), None)
        if found is None:
            return preamble
        quote, width = found
    stat = [line + newline for line in diffstat(diffs, quote, width)]
    return b"".join([*lines[:start], *stat, *lines[end:]])


def _original_for(patch: Patch) -> dict[str, FileDiff]:
    """Each path's first section in ``patch``: a file with two sections (two commits' diffs
    joined) gets one regenerated section, in the form of the first."""
    out: dict[str, FileDiff] = {}
    for diff in patch.files:
        out.setdefault(diff.path, diff)
    return out


def _ordered(diffs: list[FileDiff], order: Sequence[str]) -> list[FileDiff]:
    """``diffs`` in the order of the paths' first sections in ``order``, then the others in
    their own order."""
    rank: dict[str, int] = {}
    for number, path in enumerate(order):
        rank.setdefault(path, number)
    return sorted(diffs, key=lambda d: (rank.get(d.path, len(rank)), diffs.index(d)))


def refresh(
    patch: Patch,
    before: Mapping[str, FileState | None],
    after: Mapping[str, FileState | None],
    version: str | None,
    moved: Mapping[str, str] | None = None,
) -> tuple[bytes, str | None] | None:
    """The refreshed patch's bytes, or ``None`` when ``before`` and ``after`` are equal.

    Args:
        patch: the original patch (its preamble, headers, prefixes and trailer are kept).
        before: every path the new patch may touch, on the new tree before it.
        after: the same paths after it (``None`` = absent).
        version: the new pin for ``Cut-against`` (``None`` leaves it as it is).
        moved: old path -> new path for files whose content moved upstream.

    Returns:
        ``(bytes, the old Cut-against value or None)``.

    Raises:
        RefreshError: the regenerated patch does not turn ``before`` into ``after``.
    """
    moved = moved or {}
    renames = any(diff.is_rename for diff in patch.files)
    diffs = git_diff(before, after, index_abbrev(patch), renames)
    if not diffs:
        return None
    order = [moved.get(diff.path, diff.path) for diff in patch.files]
    originals = _original_for(patch)
    by_target = {moved.get(path, path): diff for path, diff in originals.items()}
    names = prefixes(patch)
    git_style = _git_style(patch)
    keep_index = index_abbrev(patch) is not None or not patch.files
    quote = _quotes_paths(patch)
    rule = text_rule(patch)  # the hunk-header text as the patch's writer wrote it
    parts: list[bytes] = []
    preamble = patch.preamble
    old_value = None
    if version is not None:
        preamble, old_value = set_cut_against(preamble, version)
    parts.append(preamble)
    for diff in _ordered(diffs, order):
        original = by_target.get(diff.path)
        same_paths = original is not None and (original.old_path, original.new_path) == (
            diff.old_path,
            diff.new_path,
        )
        if (
            same_paths
            and original is not None
            and not _has_index(original.header_raw)
            and bool(original.hunks) == bool(diff.hunks)  # a rename's header has no ---/+++
        ):
            parts.append(original.header_raw)
        else:
            parts.append(
                _compose_header(diff, diff.header_raw, names, git_style, keep_index, quote)
            )
        parts.extend(keep_hunk_texts(diff.hunks, original, rule))
    parts[0] = restat(preamble, _ordered(diffs, order), patch.files)
    parts.append(patch.trailer)
    data = b"".join(parts)
    check(data, patch, before, after)
    return data, old_value


def check(
    data: bytes,
    patch: Patch,
    before: Mapping[str, FileState | None],
    after: Mapping[str, FileState | None],
) -> None:
    """Apply the refreshed patch to ``before`` in memory and compare with ``after``.

    Raises:
        RefreshError: it does not apply, or gives other content.
    """
    refreshed = parse_patch(data, name=patch.name, path=patch.path, strip=patch.strip)
    ws = Workspace(lambda path: before.get(path))
    outcome = apply_patch(ws, refreshed)
    wrong = [] if outcome.ok else [o.path for o in outcome.files if not o.ok]
    if outcome.ok:
        for path, state in after.items():
            got = ws.get(path)
            if (got.data if got else None) != (state.data if state else None):
                wrong.append(path)
    if wrong:
        raise RefreshError(
            f"the regenerated {patch.name} does not reproduce the merged files: "
            + ", ".join(wrong),
            path=patch.path,
            hint="this is a bug in patchkeeper; please report it with the patch",
        )
