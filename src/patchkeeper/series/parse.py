"""Series files and unified diffs -> :mod:`patchkeeper.series.model`.

The diff structure (file diffs, git extended headers, hunks, ``\\ No newline at end of file``)
is read by python-unidiff; this module splits off the preamble, keeps exact bytes and line
numbers, checks what unidiff lets through (a hunk longer than its header says, a hunk before
any file header, binary content), and turns everything into frozen model objects.

Lines are split on ``\\n`` only, as GNU patch does: a ``\\r`` stays part of its line, so CRLF
files are matched byte for byte.
"""

from __future__ import annotations

import errno
import hashlib
import os
import posixpath
import re
import stat
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper import constants as C
from patchkeeper.errors import PatchFormatError
from patchkeeper.series.model import (
    ADDED,
    CONTEXT,
    REMOVED,
    FileDiff,
    Hunk,
    Patch,
    Series,
    SeriesEntry,
)
from patchkeeper.system.filenames import name_hint, name_problem
from patchkeeper.system.names import shown_name, unquoted_name
from patchkeeper.system.patch_paths import path_refusal, shown_path
from patchkeeper.system.regular import file_kind, read_regular

if TYPE_CHECKING:  # unidiff is imported when a patch is parsed (not on a parse-cache hit)
    from unidiff import PatchedFile

    from patchkeeper.series.parse_cache import ParseCache

_ENCODING = "utf-8"
_ERRORS = "surrogateescape"


def split_lines(data: bytes) -> list[bytes]:
    """Split ``data`` into lines that keep their ``\\n``; only ``\\n`` ends a line.

    >>> split_lines(b"a\\r\\nb\\nc")
    [b'a\\r\\n', b'b\\n', b'c']
    >>> split_lines(b"")
    []
    >>> split_lines(b"a\\n\\nb\\n")
    [b'a\\n', b'\\n', b'b\\n']
    >>> split_lines(b"a\\rb\\n")
    [b'a\\rb\\n']
    """
    if not data:
        return []
    if b"\r" not in data:  # then bytes.splitlines (\n, \r, \r\n) splits on \n only, in C
        return data.splitlines(keepends=True)
    lines = data.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out


def sha256_hex(data: bytes) -> str:
    """Return the hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- series


def parse_series(path: Path) -> Series:
    """Read a series file: one patch per line, ``#`` comments, blank lines, quilt's ``-pN``
    or ``-p N`` (:func:`_series_strip`).

    Raises:
        PatchFormatError: the file is missing or a directory, is UTF-16 or UTF-32 text, or
            a line has an option other than ``-pN``.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = Path(d, "series")
    >>> _ = p.write_text("# comment\\n\\na.patch\\nb.patch -p0  # why\\nfix-#7.patch #7\\n")
    >>> [(e.name, e.line_no, e.strip) for e in parse_series(p).entries]
    [('a.patch', 3, None), ('b.patch', 4, 0), ('fix-#7.patch', 5, None)]
    """
    try:
        data = read_regular(path)
    except FileNotFoundError:
        raise PatchFormatError(
            "the series file does not exist",
            path=path,
            hint="create it, or set 'series' in [tool.patchkeeper]",
        ) from None
    except IsADirectoryError:
        inner = path / "series"
        raise PatchFormatError(
            "the series file is a directory",
            path=path,
            hint=(
                f"point 'series' in [tool.patchkeeper] to the series file in it, {inner}"
                if inner.is_file()
                else "point 'series' in [tool.patchkeeper] to the file that lists the "
                "patches, one a line"
            ),
        ) from None
    except OSError as exc:
        raise PatchFormatError(
            f"cannot read the series file: {exc.strerror}",
            path=path,
            hint="make it a readable file that lists the patches, one a line, or point "
            "'series' in [tool.patchkeeper] to one",
        ) from None
    refuse_wide_text(data, path, "the series file")
    text = data.decode(_ENCODING, _ERRORS)
    # A byte order mark (an editor's UTF-8 "with BOM") is not part of the first name.
    text = text.removeprefix("\ufeff")
    _refuse_a_patch_as_series(text, path)
    entries: list[SeriesEntry] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = _COMMENT.sub("", raw).strip()
        if not line:
            continue
        name, *options = line.split()
        check_series_name(name, path, number)
        try:
            strip = _series_strip(name, options, path, number)
        except PatchFormatError:
            _refuse_a_spaced_name(line, path, number)
            raise
        entries.append(SeriesEntry(name=name, line_no=number, strip=strip))
    return Series(path=path, entries=tuple(entries))


def _refuse_a_spaced_name(line: str, path: Path, number: int) -> None:
    """Refuse a series line that names, whole, a patch file with a space in its name
    (``0002 narrow padding.patch``): a line is split at spaces into the name and patch's
    options, as quilt reads it, so the words after the first were refused as unknown options
    (``unknown option 'narrow' after 0002``), which said nothing of the file beside the
    series. Returns when the line names no such file.

    Raises:
        PatchFormatError: naming the series file, the line and the name to rename it to.
    """
    try:
        spaced = (path.parent / line).is_file()
    except (OSError, ValueError):
        spaced = False
    if spaced:
        renamed = re.sub(r"\s+", "-", line)
        raise PatchFormatError(
            f"{shown_name(line)} has a space in its name: a series line is a patch name "
            "and its options, split at spaces, as quilt reads it",
            path=path,
            line=number,
            hint=f"rename the patch file without spaces (say {shown_name(renamed)}) and write "
            "that name on this line",
        )


def _refuse_a_patch_as_series(text: str, path: Path) -> None:
    """Refuse a patch given where a series file belongs (``--patches fix.patch``, ``series =
    "debian/patches/fix.patch"``): read as a series, its header lines would be taken for
    patch names and options (``unknown option 'Doe' after From:``), which says nothing of the
    real mistake. A patch is told by its first file diff: a ``diff --git`` line, or a ``---``
    line followed by a ``+++`` line.

    Raises:
        PatchFormatError: naming the file and its first diff line.
    """
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        git = line.startswith("diff --git ")
        unified = (
            line.startswith("--- ") and number < len(lines) and lines[number].startswith("+++ ")
        )
        if git or unified:
            raise PatchFormatError(
                "this is a patch, not a series file (a series file lists patch names, one a "
                "line): its file diff starts here",
                path=path,
                line=number,
                hint=f"write a series file beside it that names it ({path.name} on a line) "
                "and give that file instead ('series' in the configuration, or init's "
                "--patches)",
            )


#: A series line's comment: ``#`` at the start of the line or after white space, to the end
#: (dpkg-source's rule; quilt reads the first word of a line not starting with ``#``), so a
#: ``#`` inside a name (``fix-#123.patch``) is part of it.
_COMMENT = re.compile(r"(?:^|\s)#.*")

#: What a series line may say after the patch name: ``-pN`` or ``-p N``.
_OPTIONS_HINT = "a series line is a patch name, optionally followed by -pN (or -p N)"


def _series_strip(name: str, options: list[str], path: Path, line: int) -> int | None:
    """The strip level the words after a series entry's ``name`` give (``None``: none given).

    quilt passes these words to GNU patch as they are (``patch_args`` in its ``patchfns``),
    and patch reads ``-p1`` and ``-p 1`` alike, so both are taken; the last one wins, as in
    patch. Any other option is refused: ``-R`` (quilt applies the patch reversed, with
    ``patch -R``, and ``quilt refresh`` rewrites it forwards and drops the ``-R``) is not
    supported, nor is any other option of patch.

    Raises:
        PatchFormatError: naming the series file, the line and the option.

    >>> _series_strip("a.patch", ["-p", "0"], Path("series"), 1)
    0
    >>> _series_strip("a.patch", ["-p2", "-p1"], Path("series"), 1)
    1
    """
    strip: int | None = None
    name = shown_name(name)
    words = iter(options)
    for option in words:
        match = re.fullmatch(r"-p(\d{1,4})", option)
        if match:
            strip = int(match.group(1))
            continue
        if option == "-p":
            value = next(words, "")
            if not re.fullmatch(r"\d{1,4}", value):
                got = _shown_word(value) if value else "nothing"
                raise PatchFormatError(
                    f"option '-p' after {name} needs a strip level, but is followed by {got}",
                    path=path,
                    line=line,
                    hint=_OPTIONS_HINT,
                )
            strip = int(value)
            continue
        if option == "-R":
            raise PatchFormatError(
                f"option '-R' after {name}: quilt applies this patch reversed (patch -R), "
                "which patchkeeper does not do",
                path=path,
                line=line,
                hint="write the patch forwards (quilt push it, then quilt refresh rewrites it "
                "and drops the -R), and remove -R from the series line",
            )
        raise PatchFormatError(
            f"unknown option {_shown_word(option)} after {name}",
            path=path,
            line=line,
            hint=_OPTIONS_HINT,
        )
    return strip


def _shown_word(word: str) -> str:
    """A word of a series line quoted for a message: ``'-x'``, or in git's quoted form when
    it holds bytes that are not UTF-8 or control characters (``"-p\\351"``), as a name
    is shown (:func:`shown_name`), never as a lone surrogate (``'-p\\udce9'``).

    >>> _shown_word("-x"), _shown_word("-p\\udce9")
    ("'-x'", '"-p\\\\351"')
    """
    shown = shown_name(word)
    return shown if shown != word else f"'{word}'"


#: A C0 control character or DEL.
_CONTROL = re.compile("[\x00-\x1f\x7f]")


def check_series_name(name: str, path: Path, line: int) -> None:
    """Refuse a series entry that would leave the series directory or cannot be a file name.

    A patch name is relative to the series file's directory (quilt's rule); an absolute name,
    a ``..`` component or a control character is refused before anything is read, and so is
    the series file's own name (a series written with ``ls > series`` lists itself; read as a
    patch, it would be reported as a patch holding no diff).

    Raises:
        PatchFormatError: naming the series file and line.

    >>> check_series_name("sub/a.patch", Path("series"), 1)
    >>> try:
    ...     check_series_name("../x.patch", Path("series"), 2)
    ... except PatchFormatError as exc:
    ...     print(exc.message)
    the series entry '../x.patch' leaves the series directory
    """
    if posixpath.normpath(name) == path.name:
        raise PatchFormatError(
            f"the series entry {name!r} is the series file itself",
            path=path,
            line=line,
            hint="remove the line: the series file lists the patches and is not one of them",
        )
    problem = ""
    if name.startswith("/") or ".." in name.split("/"):
        problem = "leaves the series directory"
    elif _CONTROL.search(name):
        problem = "holds a control character"
    if problem:
        raise PatchFormatError(
            f"the series entry {name!r} {problem}",
            path=path,
            line=line,
            hint="name a patch file inside the series directory, relative to it",
        )
    unwritable = name_problem(name)
    if unwritable is not None:  # else every look at the file fails: "it does not exist"
        raise PatchFormatError(
            f"the series entry {name!r} {unwritable}", path=path, line=line, hint=name_hint()
        )


# --------------------------------------------------------------------------- patches


#: Byte order marks of the encodings whose text is not ASCII-compatible, longest first (a
#: UTF-32LE mark begins with UTF-16LE's).
_WIDE_MARKS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def wide_encoding(data: bytes) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when ``data`` is text in that encoding, else ``None``.

    A patch or a series saved by an editor (or PowerShell's ``>``) as "Unicode" is UTF-16:
    every ASCII character is followed (or preceded) by a NUL byte, so no line of it reads
    as a diff line or a patch name. Told by its byte order mark, or, without one, by a NUL
    in every second byte of its start.

    >>> wide_encoding("--- a/f\\n".encode("utf-16")), wide_encoding(b"--- a/f\\n")
    ('UTF-16', None)
    >>> wide_encoding("--- a/f\\n+++ b/f\\n".encode("utf-16-le"))
    'UTF-16'
    """
    for mark, name in _WIDE_MARKS:
        if data.startswith(mark):
            return name
    head = data[:64]
    if len(head) >= 8:
        for offset in (0, 1):
            nuls, others = head[1 - offset :: 2], head[offset::2]
            if nuls.count(0) == len(nuls) and 0 not in others:
                return "UTF-16"
    return None


def refuse_wide_text(data: bytes, path: Path, what: str) -> None:
    """Refuse ``data`` when it is UTF-16 or UTF-32 text (:func:`wide_encoding`).

    Raises:
        PatchFormatError: naming ``path``, line 1, the encoding and the command that
            converts the file.
    """
    encoding = wide_encoding(data)
    if encoding is None:
        return
    raise PatchFormatError(
        f"{what} is {encoding} text; patchkeeper reads UTF-8 (or plain bytes)",
        path=path,
        line=1,
        hint=f"save it as UTF-8: iconv -f {encoding} -t UTF-8 {path} > {path.name}.utf8, "
        f"then move {path.name}.utf8 over it",
    )


#: The magic numbers of the compressions quilt reads a series' patches in (``NAME.gz``,
#: ``.bz2``, ``.xz``, ``.lzma``, ``.lz``, ``.zst``), with the command that writes each
#: decompressed on standard output.
_COMPRESSIONS = (
    (b"\x1f\x8b", "gzip", "gunzip -c"),
    (b"BZh", "bzip2", "bunzip2 -c"),
    (b"\xfd7zXZ\x00", "xz", "unxz -c"),
    (b"\x5d\x00\x00", "lzma", "unlzma -c"),
    (b"LZIP", "lzip", "lzip -dc"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd -c"),
)

#: The file name endings of those compressions.
_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".lzma", ".lz", ".zst")


def compression(data: bytes) -> tuple[str, str] | None:
    """``(the compression, the command that decompresses it to standard output)`` when
    ``data`` is compressed, else ``None``.

    >>> import gzip
    >>> compression(gzip.compress(b"--- a/f\\n")), compression(b"--- a/f\\n")
    (('gzip', 'gunzip -c'), None)
    """
    for magic, kind, undo in _COMPRESSIONS:
        if data.startswith(magic):
            return kind, undo
    return None


def refuse_compressed(data: bytes, path: Path) -> None:
    """Refuse a patch file that is compressed (quilt reads ``NAME.patch.gz`` and the like):
    read as it is, none of its lines is a diff line, and it would pass for a patch that
    holds no diff, applied as a no-op.

    Raises:
        PatchFormatError: naming ``path``, line 1, the compression and how to undo it.
    """
    found = compression(data)
    if found is None:
        return
    kind, undo = found
    name = path.name
    if path.suffix in _COMPRESSED_SUFFIXES:
        plain = path.stem
        then = f"list {plain} in the series in its place"
    else:
        plain = f"{name}.plain"
        then = f"move {plain} over {name}"
    raise PatchFormatError(
        f"the patch file is {kind}-compressed; patchkeeper reads plain patches",
        path=path,
        line=1,
        hint=f"decompress it ({undo} {name} > {plain}), then {then}",
    )


#: git's diffstat summary (``git format-patch``, ``git diff --stat``): `` 2 files changed,
#: 5 insertions(+), 1 deletion(-)``.
_DIFFSTAT_SUMMARY = re.compile(
    rb"^ \d+ files? changed(?:, \d+ insertions?\(\+\))?(?:, \d+ deletions?\(-\))?\r?$"
)


def _cut_off(lines: list[bytes]) -> tuple[int, str] | None:
    """Why a patch with no diff is no whole patch: ``(1-based line, what it says there)``
    for a diffstat summary after the ``---`` line that ends a mail's message (the diff
    should follow: the file was cut off) or for binary data (a NUL byte, which no header
    holds); ``None`` for a patch that holds only a header, as ``quilt new`` writes it."""
    separated = False
    for index, line in enumerate(lines):
        if b"\x00" in line:
            return index + 1, "binary data (a NUL byte), which no patch header holds"
        if line.rstrip(b"\r\n") == b"---":
            separated = True
        elif separated and _DIFFSTAT_SUMMARY.match(line):
            summary = line.strip().decode("ascii")
            return index + 1, f"the diffstat '{summary}', but no diff follows it"
    return None


def _first_diff_index(lines: list[bytes], path: Path) -> int:
    """Return the index of the first line of the first file diff (``len(lines)`` if none).

    The series workflow's (docs/glossary.md) ``--- exported from <commit>`` line and git
    format-patch's ``---`` separator are preamble: a ``--- `` line starts a file diff only when a
    ``+++ `` line follows it.
    """
    count = len(lines)
    for index, line in enumerate(lines):
        nxt = lines[index + 1] if index + 1 < count else b""
        if line.startswith(C.DIFF_GIT):
            return index
        if line.startswith(C.OLD_FILE) and nxt.startswith(C.NEW_FILE):
            return index
        if line.startswith(C.INDEX_LINE) and nxt.startswith(C.INDEX_RULE):
            return index
        if line.startswith(C.DIFF_OTHER) and nxt.startswith(C.OLD_FILE):
            return index
        if C.HUNK_HEADER.match(line):
            raise PatchFormatError(
                "hunk before any file header",
                path=path,
                line=index + 1,
                hint="a hunk must follow '--- a/FILE' and '+++ b/FILE' lines",
            )
    return count


def strip_path(name: str, strip: int, *, path: Path, line: int) -> str | None:
    """Strip ``strip`` leading components from a diff file name (``patch -pN``).

    Returns ``None`` for ``/dev/null``. As GNU patch's ``fetchname`` does, each run of
    slashes counts once, the leading slash of an absolute name included: ``-p1`` turns
    ``/etc/x`` into ``etc/x``, while ``-p0`` keeps it absolute, for the caller to refuse.

    Raises:
        PatchFormatError: the name has too few components for the strip level, or is empty.

    >>> strip_path("a/src/x.py", 1, path=Path("p"), line=1)
    'src/x.py'
    >>> strip_path("/dev/null", 1, path=Path("p"), line=1) is None
    True
    >>> [strip_path(n, s, path=Path("p"), line=1) for n, s in [("/t/x", 1), ("b//x", 1), ("/x", 0)]]
    ['t/x', 'x', '/x']
    """
    name = unquoted_name(name.rstrip("\r").strip())
    if name == C.DEV_NULL:
        return None
    parts = [part for part in name.split("/") if part]
    leading = 1 if name.startswith("/") else 0  # the leading slash is one strip level
    if leading and strip == 0:
        return "/" + "/".join(parts)
    if len(parts) <= strip - leading:
        raise PatchFormatError(
            f"file name {name!r} has fewer than {strip + 1} path components for -p{strip}",
            path=path,
            line=line,
            hint="check the strip level ('strip' in the configuration, or -pN in the series)",
        )
    return "/".join(parts[strip - leading :])


class _LineFeed:
    """Feeds decoded lines to unidiff and remembers the last line number handed out.

    unidiff checks a ``+++`` line after a ``diff --git`` line against its own split of that
    line, at its last `` b/`` (or, without prefixes, its last space), which is not git's
    where a name holds one (``a/x b/y.py``): it then took the ``+++`` line for a header
    without ``---`` and refused a patch git applies. So a ``+++`` line of a git diff header
    that names its two files (:data:`~patchkeeper.constants.DIFF_GIT_NAMES`) reaches unidiff
    as a line of the header's information (:data:`GIT_NAME_LINE` before it), which it keeps
    and does not read; the names of a git diff are read from the patch's own lines, by
    git's rules (:func:`_git_file_lines`, :func:`_git_names`, :func:`_check_git_names`).
    """

    #: What a git diff header's ``+++`` line is fed to unidiff behind (a line no diff
    #: syntax starts with, which :func:`_extended_headers` does not read either).
    GIT_NAME_LINE = "# "

    def __init__(self, lines: list[bytes], offset: int) -> None:
        self.lines = lines
        self.offset = offset
        self.last = offset

    def __iter__(self) -> Iterator[str]:
        in_git_header = False  # after a 'diff --git' line naming two files, before a hunk
        for index, line in enumerate(self.lines, self.offset + 1):
            self.last = index
            text = line.decode(_ENCODING, _ERRORS)
            if line.startswith(C.DIFF_GIT):
                in_git_header = C.DIFF_GIT_NAMES.match(text) is not None
            elif line.startswith(b"@@"):
                in_git_header = False
            elif in_git_header and line.startswith(C.NEW_FILE):
                text = self.GIT_NAME_LINE + text
            yield text


def _encode(text: str) -> bytes:
    return text.encode(_ENCODING, _ERRORS)


def _extended_headers(info: list[str]) -> dict[str, str]:
    """Read git's extended header lines (rename, modes) from unidiff's patch info."""
    out: dict[str, str] = {}
    for raw in info:
        line = raw.rstrip("\r\n")
        if line.startswith(C.RENAME_FROM):
            out["rename_from"] = line[len(C.RENAME_FROM) :]
        elif line.startswith(C.RENAME_TO):
            out["rename_to"] = line[len(C.RENAME_TO) :]
        elif line.startswith(C.COPY_FROM):
            out["copy"] = line
        elif line.startswith("index ") and ".." in line:
            blobs = line[len("index ") :].split()[0].split("..")
            if len(blobs) == 2:
                out["index_old"], out["index_new"] = blobs
        elif line.startswith("Binary files ") or line == "GIT binary patch":
            out["binary"] = line
        for key, pattern in (
            ("old_mode", C.OLD_MODE),
            ("new_mode", C.NEW_MODE),
            ("new_file_mode", C.NEW_FILE_MODE),
            ("deleted_file_mode", C.DELETED_FILE_MODE),
            ("index_mode", C.INDEX_MODE),
        ):
            match = pattern.match(line)
            if match:
                out[key] = match.group(1)
        if line.startswith(C.MODE_LINES) and not any(
            p.match(line) for p in (C.OLD_MODE, C.NEW_MODE, C.NEW_FILE_MODE, C.DELETED_FILE_MODE)
        ):
            out.setdefault("bad_mode", line)
    return out


def _no_newline(texts: list[bytes], path: Path, header_line: int) -> None:
    r"""Apply a ``\ No newline at end of file`` marker to the line before it."""
    if not texts:
        raise PatchFormatError(
            "'\\ No newline' marker with no line before it", path=path, line=header_line
        )
    if texts[-1].endswith(b"\n"):
        texts[-1] = texts[-1][:-1]


def _convert_hunk(
    index: int, path: Path, strip_cr: bool, header_line: int, patch_lines: list[bytes]
) -> Hunk:
    r"""Read the hunk whose header is at 1-based ``header_line`` from the patch's lines.

    unidiff (in its ``metadata_only`` mode) has already checked the body against the
    header's line counts; this walks the same lines as its ``_parse_hunk`` does: a marker
    column of ``-``, ``+`` or space, an empty line as empty context, and ``\`` lines as
    no-newline markers (one after the hunk's last line too).
    """
    raw_header = patch_lines[header_line - 1]
    match = C.HUNK_HEADER.match(raw_header)
    assert match is not None
    old_start = int(match.group(1))
    old_len = int(match.group(2)) if match.group(2) is not None else 1
    new_start = int(match.group(3))
    new_len = int(match.group(4)) if match.group(4) is not None else 1
    kinds: list[str] = []
    texts: list[bytes] = []
    line_nos: list[int] = []
    old_left, new_left = old_len, new_len
    position = header_line  # 0-based index of the next body line
    total = len(patch_lines)
    while (old_left > 0 or new_left > 0) and position < total:
        raw = patch_lines[position]
        position += 1
        marker = raw[:1]
        if marker == b"\\":
            _no_newline(texts, path, header_line)
            continue
        if marker == b"-":
            kind, text = REMOVED, raw[1:]
            old_left -= 1
        elif marker == b"+":
            kind, text = ADDED, raw[1:]
            new_left -= 1
        else:  # " " + text, or an empty line (unidiff's empty context line)
            kind, text = CONTEXT, (raw[1:] if marker == b" " else raw)
            old_left -= 1
            new_left -= 1
        if strip_cr and text.endswith(b"\r\n"):
            text = text[:-2] + b"\n"
        kinds.append(kind)
        texts.append(text)
        line_nos.append(position)
    end = position
    if end < total and patch_lines[end].startswith(C.NO_NEWLINE):
        _no_newline(texts, path, header_line)
    while end < total and patch_lines[end].startswith(b"\\"):
        end += 1
    markers = "".join(kinds)
    pre = tuple([text for kind, text in zip(kinds, texts) if kind != ADDED])
    post = tuple([text for kind, text in zip(kinds, texts) if kind != REMOVED])
    changed = markers.replace(CONTEXT, "")
    if changed:
        prefix = len(markers) - len(markers.lstrip(CONTEXT))
        suffix = len(markers) - len(markers.rstrip(CONTEXT))
    else:
        prefix = suffix = len(markers)
    section = raw_header[match.end() :].strip().decode(_ENCODING, _ERRORS)
    return Hunk(
        index=index,
        old_start=old_start,
        old_len=old_len,
        new_start=new_start,
        new_len=new_len,
        section=section,
        header=raw_header.rstrip(b"\r\n").decode(_ENCODING, _ERRORS),
        line_no=header_line,
        kinds=markers,
        line_nos=tuple(line_nos),
        pre_image=pre,
        post_image=post,
        prefix_context=prefix,
        suffix_context=suffix,
        raw=b"".join(patch_lines[header_line - 1 : end]),
    )


def _stripped_signature(lines: list[bytes], index: int) -> bool:
    """Whether line ``index`` is a mail signature separator whose trailing space mail or an
    editor stripped (``--`` alone, as ``git format-patch`` writes ``-- `` before the git
    version), with no diff after it: GNU patch reads a hunk by its header's counts and
    skips such a tail, so it is not a hunk line."""
    if lines[index].rstrip(b"\r\n") != b"--":
        return False
    return not any(
        line.startswith((C.OLD_FILE, C.NEW_FILE, b"@@", C.DIFF_OTHER))
        for line in lines[index + 1 :]
    )


def _check_after_hunk(lines: list[bytes], hunk: Hunk, file_path: str, path: Path) -> None:
    """Reject a hunk whose body goes on past the line counts of its header."""
    last = max(hunk.line_nos, default=hunk.line_no)
    nxt_index = last  # 0-based index of the line after ``last``
    if nxt_index < len(lines) and lines[nxt_index].startswith(C.NO_NEWLINE):
        nxt_index += 1
    if nxt_index >= len(lines):
        return
    nxt = lines[nxt_index]
    if nxt.startswith((C.OLD_FILE, C.NEW_FILE, *C.SIGNATURE, b"@@", C.DIFF_OTHER)):
        return
    if _stripped_signature(lines, nxt_index):
        return
    if nxt[:1] in (b"+", b"-", b" ") and nxt.strip():
        raise PatchFormatError(
            f"hunk #{hunk.index} of {file_path} ({hunk.header}) has more lines than its "
            f"header counts ({hunk.old_len} old, {hunk.new_len} new): line {nxt_index + 1} "
            "continues it",
            path=path,
            line=nxt_index + 1,
            hint="the hunk was edited by hand; regenerate the patch instead of editing it",
        )


def _convert_file(
    ufile: PatchedFile,
    lines: list[bytes],
    strip: int,
    path: Path,
    first_line: int,
    hunk_headers: Iterator[int],
) -> FileDiff:
    info = list(ufile.patch_info or [])
    headers = _extended_headers(info)
    if "binary" in headers or ufile.is_binary_file:
        raise PatchFormatError(
            f"binary diff for {ufile.path}: patchkeeper applies text diffs only",
            path=path,
            line=first_line,
            hint="ship the binary file as an overlay, or regenerate the diff as text",
        )
    if "bad_mode" in headers:
        raise PatchFormatError(
            f"malformed mode line {headers['bad_mode'][:60]!r}: a git mode is six octal digits",
            path=path,
            line=first_line,
            hint="regenerate the patch with git diff",
        )
    for key in ("old_mode", "new_mode", "new_file_mode", "deleted_file_mode", "index_mode"):
        mode = headers.get(key)
        if mode is not None and not mode.startswith(C.REGULAR_TYPE):
            kind = {"120000": "a symbolic link", "160000": "a submodule"}.get(mode, "not a file")
            raise PatchFormatError(
                f"the diff for {ufile.path} has mode {mode} ({kind}): patchkeeper patches "
                "regular files only",
                path=path,
                line=first_line,
                hint="create the link or submodule outside the series (e.g. in the build)",
            )
    if "copy" in headers:
        raise PatchFormatError(
            f"git copy diff ({headers['copy']}) is not supported",
            path=path,
            line=first_line,
            hint="regenerate the patch with copy detection off (git diff --no-renames)",
        )
    for name, stamp in (
        (ufile.source_file, ufile.source_timestamp),
        (ufile.target_file, ufile.target_timestamp),
    ):
        _refuse_tab_in_name(name, stamp, path, first_line)
    source, source_stamp = _name_and_stamp(ufile.source_file, ufile.source_timestamp)
    target, target_stamp = _name_and_stamp(ufile.target_file, ufile.target_timestamp)
    if lines[first_line - 1].startswith(C.DIFF_GIT) and _has_file_lines(lines, first_line):
        # A git diff's names are its '---'/'+++' lines' (the 'diff --git' line may not
        # split where a name holds " b/"; _check_git_names holds the two to agreeing).
        source, source_stamp, target, target_stamp = _git_file_lines(
            lines, first_line, (source, source_stamp, target, target_stamp)
        )
        # unidiff is not fed the '+++' line of a git header (_LineFeed): its tab is seen here
        _refuse_tab_in_name(target, target_stamp, path, first_line)
    elif lines[first_line - 1].startswith(C.DIFF_GIT):
        # No '---'/'+++' lines (a mode change, an empty file created or deleted): the names
        # are the 'diff --git' line's, split where both name the same file, as git does;
        # a name holding " b/" ("pkg/a b/c.sh") splits there only once.
        names = _git_names(lines[first_line - 1])
        if names is not None:
            (source, source_stamp), (target, target_stamp) = (names[0], None), (names[1], None)
    _check_git_names(lines, first_line, headers, strip, path)
    old_path, old_error = _strip_side(source, source_stamp, strip, path, first_line)
    new_path, new_error = _strip_side(target, target_stamp, strip, path, first_line)
    if old_error is not None and new_error is not None:
        raise old_error
    if "new_file_mode" in headers:
        old_path = None
    if "deleted_file_mode" in headers:
        new_path = None
    if "rename_from" in headers and "rename_to" in headers:
        rename_strip = max(strip - 1, 0)
        old_path = strip_path(headers["rename_from"], rename_strip, path=path, line=first_line)
        new_path = strip_path(headers["rename_to"], rename_strip, path=path, line=first_line)
    elif old_path is not None and new_path is not None and old_path != new_path:
        # Not a git rename: a plain diff whose two names differ (foo.py.orig / foo.py).
        old_path = new_path
    if old_path is None and new_path is None:
        raise PatchFormatError(
            "a file diff with /dev/null on both sides", path=path, line=first_line
        )
    strip_cr = any(_encode(raw).endswith(b"\r\n") for raw in info[:1]) or (
        first_line - 1 < len(lines) and lines[first_line - 1].endswith(b"\r\n")
    )
    hunks = [
        _convert_hunk(number, path, strip_cr, next(hunk_headers), lines)
        for number in range(1, len(ufile) + 1)
    ]
    file_path = new_path or old_path or ""
    for hunk in hunks:
        _check_after_hunk(lines, hunk, file_path, path)
    # GNU patch (pch.c, intuit_diff_type): an empty side (``-0,0`` / ``+0,0`` in the first
    # hunk) whose header carries the epoch as timestamp means "no such file", as
    # ``diff -N`` writes it: the diff creates or deletes the file, like ``/dev/null``.
    if hunks and hunks[0].old_start == 0 and is_epoch(source_stamp):
        old_path = None
    elif old_error is not None:
        raise old_error
    if hunks and hunks[0].new_start == 0 and is_epoch(target_stamp):
        new_path = None
    elif new_error is not None:
        raise new_error
    old_mode = (
        headers.get("old_mode") or headers.get("deleted_file_mode") or headers.get("index_mode")
    )
    new_mode = headers.get("new_mode") or headers.get("new_file_mode") or headers.get("index_mode")
    return FileDiff(
        old_path=old_path,
        new_path=new_path,
        old_mode=old_mode,
        new_mode=new_mode,
        hunks=tuple(hunks),
        line_no=first_line,
        old_empty=_is_empty_blob(headers.get("index_old")),
        new_empty=_is_empty_blob(headers.get("index_new")),
    )


def _strip_side(
    name: str | None, stamp: str | None, strip: int, path: Path, line: int
) -> tuple[str | None, PatchFormatError | None]:
    """One side's name with ``strip`` components removed (``None``: no name, or
    ``/dev/null``), and the error of a name too short to strip when the side carries the
    epoch as timestamp: such a side may be "no file" (``diff -N``, decided once the hunks are
    read), whose name git and GNU patch never use (``--- f<TAB>1970-01-01 ...`` at ``-p1``).

    Raises:
        PatchFormatError: as :func:`strip_path`, for a side without the epoch.
    """
    if not name:
        return None, None
    try:
        return strip_path(name, strip, path=path, line=line), None
    except PatchFormatError as exc:
        if not is_epoch(stamp):
            raise
        return None, exc


#: git's id of the empty blob (``git hash-object /dev/null``).
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def _is_empty_blob(blob: str | None) -> bool:
    """Whether an ``index`` line's (abbreviated) blob id is the empty blob's."""
    return blob is not None and len(blob) >= 7 and EMPTY_BLOB.startswith(blob.lower())


#: A ``diff -u`` timestamp after a name separated by spaces instead of a tab (a header that
#: went through a mailer or an editor): ``--- name   2010-08-18 20:13:31 -0500``, also with
#: fractional seconds or a colon in the zone (git's t4135 "whitespace-damaged" cases).
_SPACED_STAMP = re.compile(
    r"^(?P<name>.*?) +(?P<stamp>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? ?[+-]\d\d:?\d\d)\s*$"
)


def _name_and_stamp(name: str | None, stamp: str | None) -> tuple[str | None, str | None]:
    """A header's file name and timestamp, with a timestamp separated by spaces split off
    (git apply does the same; GNU patch keeps it in the name).

    >>> _name_and_stamp("a/post image.txt   2010-08-18 20:13:31 -0500", None)
    ('a/post image.txt', '2010-08-18 20:13:31 -0500')
    >>> _name_and_stamp("a/f", "2010-08-18 20:13:31 -0500")
    ('a/f', '2010-08-18 20:13:31 -0500')
    """
    if name is None or stamp:
        return name, stamp
    match = _SPACED_STAMP.match(name)
    if match is None:
        return name, stamp
    return match.group("name"), re.sub(r"([+-]\d\d):(\d\d)$", r"\1\2", match.group("stamp"))


#: ``diff -u``'s other timestamp form (``diff --label``-less output of old GNU diff and BSD
#: diff): ``Wed Aug 18 20:13:31 2010``.
_CTIME_STAMP = re.compile(r"^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$")


def _is_timestamp(text: str) -> bool:
    """Whether ``text`` is a ``diff -u`` header timestamp, in either form.

    >>> _is_timestamp("2010-08-18 20:13:31.628002255 -0500"), _is_timestamp("image.txt")
    (True, False)
    """
    text = text.strip()
    return bool(C.DIFF_TIMESTAMP.match(text) or _CTIME_STAMP.match(text))


def _refuse_tab_in_name(name: str | None, stamp: str | None, path: Path, line: int) -> None:
    """Refuse a ``---``/``+++`` name that holds a tab before its timestamp.

    GNU diff writes ``--- a/post<TAB>image.txt<TAB>2010-08-18 ...`` for a file whose name has
    a tab. git apply reads the name up to the timestamp (``post<TAB>image.txt``), GNU patch
    up to the first tab (``post``): the two tools would patch different files, and a name
    with a tab is refused anyway (:func:`patchkeeper.system.patch_paths.name_problem`). A name
    followed by a tab and words that are no timestamp (``+++ b/f<TAB>note``) is read as both
    tools read it: up to the tab.

    Raises:
        PatchFormatError: naming the patch, the file diff's line and both readings.
    """
    if name is None or not stamp or "\t" not in stamp:
        return
    rest, _, last = stamp.rpartition("\t")
    if not _is_timestamp(last):
        return
    whole = f"{name}\t{rest}"
    raise PatchFormatError(
        f"the file name {whole!r} holds a tab: git apply reads {whole!r}, GNU patch "
        f"{name!r}; patchkeeper refuses names with a tab",
        path=path,
        line=line,
        hint="rename the file so that its name has no tab, and regenerate the patch; "
        "nothing was written",
    )


def _refuse_unquoted_tab(lines: list[bytes], start: int, path: Path) -> None:
    """Refuse a ``diff --git`` line whose names hold an unquoted tab.

    git quotes a name with a tab (``"a/post\\tanother"``); an unquoted one comes from a
    hand-made or damaged header, which git apply refuses ("inconsistent new filename").

    Raises:
        PatchFormatError: naming the patch and the line.
    """
    for index in range(start, len(lines)):
        line = lines[index]
        if not line.startswith(C.DIFF_GIT) or b"\t" not in line:
            continue
        text = line.rstrip(b"\r\n").decode(_ENCODING, _ERRORS)
        if "\t" in text:
            raise PatchFormatError(
                f"the 'diff --git' line names a file with an unquoted tab: {text!r}",
                path=path,
                line=index + 1,
                hint='git quotes such names ("a/post\\tanother"); regenerate the patch with '
                "git diff, and rename the file so that its name has no tab",
            )


def _has_file_lines(lines: list[bytes], first_line: int) -> bool:
    """Whether the file diff starting at ``first_line`` (1-based) has a ``---`` or ``+++``
    line before its first hunk or the next file diff."""
    index = first_line
    while index < len(lines) and not lines[index].startswith((b"@@", C.DIFF_OTHER)):
        if lines[index].startswith((C.OLD_FILE, C.NEW_FILE)):
            return True
        index += 1
    return False


def _git_file_lines(
    lines: list[bytes],
    first_line: int,
    names: tuple[str | None, str | None, str | None, str | None],
) -> tuple[str | None, str | None, str | None, str | None]:
    """``names`` (old name, its stamp, new name, its stamp) with each side that the git file
    diff starting at ``first_line`` (1-based) has a ``---``/``+++`` line for read from that
    line, a ``/dev/null`` side (a created or deleted file) left as unidiff read it."""
    out = list(names)
    index = first_line
    while index < len(lines) and not lines[index].startswith((b"@@", C.DIFF_OTHER)):
        for marker, pattern, side in (
            (C.OLD_FILE, C.OLD_FILE_LINE, 0),
            (C.NEW_FILE, C.NEW_FILE_LINE, 2),
        ):
            if not lines[index].startswith(marker):
                continue
            match = pattern.match(lines[index].decode(_ENCODING, _ERRORS))
            if match is None or match.group("filename") == C.DEV_NULL:
                continue
            if out[side] == C.DEV_NULL:
                continue
            name, stamp = _name_and_stamp(match.group("filename"), match.group("timestamp"))
            out[side], out[side + 1] = name, stamp
        index += 1
    return out[0], out[1], out[2], out[3]


def _git_names(line: bytes) -> tuple[str, str] | None:
    """The two names of a ``diff --git a/NAME b/NAME`` line when they are equal after their
    first component (git's rule when no rename header names them), else ``None``; quoted
    names (git's ``"a/caf\\303\\251"``) are split at the first one's closing quote.

    >>> _git_names(b"diff --git a/x y b/x y")
    ('a/x y', 'b/x y')
    >>> _git_names(b'diff --git "a/x b/y" "b/x b/y"')
    ('"a/x b/y"', '"b/x b/y"')
    """
    rest = line[len(C.DIFF_GIT) :].rstrip(b"\r\n").decode(_ENCODING, _ERRORS)
    if rest.startswith('"'):
        # git quotes both names alike: the first ends at its closing, unescaped quote
        index = 1
        while index < len(rest) and rest[index] != '"':
            index += 2 if rest[index] == "\\" else 1
        old, new = rest[: index + 1], rest[index + 2 :]
        if rest[index + 1 : index + 2] != " " or not new.startswith('"'):
            return None
        if unquoted_name(old).split("/", 1)[-1] != unquoted_name(new).split("/", 1)[-1]:
            return None
        return old, new
    for index, char in enumerate(rest):
        if char != " ":
            continue
        old, new = rest[:index], rest[index + 1 :]
        if "/" in old and "/" in new and old.split("/", 1)[1] == new.split("/", 1)[1]:
            return old, new
    return None


def _check_git_names(
    lines: list[bytes], first_line: int, headers: dict[str, str], strip: int, path: Path
) -> None:
    """A git diff with hunks must have both ``---`` and ``+++`` lines, and their names must
    be the ``diff --git`` line's (git apply: "lacks filename information", "inconsistent
    old/new filename").

    Raises:
        PatchFormatError: naming the patch and the line.
    """
    if not lines[first_line - 1].startswith(C.DIFF_GIT):
        return
    names: dict[bytes, tuple[int, str]] = {}
    index = first_line
    while index < len(lines) and not lines[index].startswith((b"@@", C.DIFF_OTHER)):
        for marker in (C.OLD_FILE, C.NEW_FILE):
            if lines[index].startswith(marker) and marker not in names:
                raw = lines[index][len(marker) :].rstrip(b"\r\n").decode(_ENCODING, _ERRORS)
                names[marker] = (index + 1, raw.split("\t", 1)[0])
        index += 1
    has_hunk = index < len(lines) and C.HUNK_HEADER.match(lines[index]) is not None
    if has_hunk and len(names) < 2:
        raise PatchFormatError(
            "the git diff header lacks filename information: no "
            + ("'+++' line" if C.OLD_FILE in names else "'---' line"),
            path=path,
            line=index + 1,
            hint="a hunk must follow '--- a/FILE' and '+++ b/FILE' lines; regenerate the patch",
        )
    git = _git_names(lines[first_line - 1])
    if git is None or "rename_from" in headers or not has_hunk:
        return
    for (marker, (line_no, raw)), expected, side in zip(
        sorted(names.items(), key=lambda item: item[0] != C.OLD_FILE), git, ("old", "new")
    ):
        name, _ = _name_and_stamp(raw, None)
        if name is None or name.strip() == C.DEV_NULL:
            continue
        got = strip_path(name, strip, path=path, line=line_no)
        want = strip_path(expected, strip, path=path, line=first_line)
        if got != want:
            raise PatchFormatError(
                f"inconsistent {side} filename: '{marker.decode().strip()} {name}' names "
                f"{got}, the 'diff --git' line {want}",
                path=path,
                line=line_no,
                hint="the header was edited by hand; regenerate the patch",
            )


def is_epoch(timestamp: str | None) -> bool:
    """True when a ``diff -u`` header timestamp is the Unix epoch, in any time zone.

    >>> is_epoch("1970-01-01 00:00:00.000000000 +0000"), is_epoch("1969-12-31 19:00:00 -0500")
    (True, True)
    >>> is_epoch("2024-05-01 10:00:00.1 +0200"), is_epoch(None)
    (False, False)
    """
    match = C.DIFF_TIMESTAMP.match(timestamp.strip()) if timestamp else None
    if match is None:
        return False
    from datetime import datetime, timedelta  # only diffs with timestamps need it

    year, month, day, hour, minute, second, sign, zone_h, zone_m = match.groups()
    moment = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second))
    zone = (int(zone_h) * 60 + int(zone_m)) * (1 if sign == "+" else -1)
    return moment - timedelta(minutes=zone) == datetime(1970, 1, 1)


#: unidiff's structural errors (``unidiff/patch.py``), in the project's words: the start of
#: unidiff's message -> what is wrong (the offending line follows in quotes).
_UNIDIFF_WORDS = {
    "Target without source": "a '+++' file header without the '---' line before it",
    "Unexpected new file found": "a 'new file mode' line outside a git file header "
    "(a 'diff --git' line and no hunk yet)",
    "Unexpected deleted file found": "a 'deleted file mode' line outside a git file header "
    "(a 'diff --git' line and no hunk yet)",
    "Unexpected marker": "a '\\ No newline at end of file' marker outside a hunk",
    "Unexpected binary patch marker": "a binary patch marker outside a git file header",
    "Unexpected trailing newline character": "an empty line where a hunk line was expected",
}


#: At most this many trailing blank context lines of a patch's last hunk may be missing:
#: GNU patch assumes they were chopped (mail and editors drop trailing blank lines).
CHOPPED_BLANK_LINES = 2


def _restore_chopped_context(lines: list[bytes]) -> list[bytes]:
    """``lines`` with the blank context lines an editor or mail chopped off the end of the
    patch put back, read as GNU patch reads them: when the last hunk ends with the file, short
    of its header's counts by the same one or two lines on both sides (lines only context
    can fill), those lines are blank context lines. Anything else is left as it is (and a
    short hunk is then reported as truncated).

    >>> _restore_chopped_context([b"@@ -1,2 +1,2 @@\\n", b"-a\\n", b"+b\\n"])
    [b'@@ -1,2 +1,2 @@\\n', b'-a\\n', b'+b\\n', b' \\n']
    """
    header = next((i for i in range(len(lines) - 1, -1, -1) if C.HUNK_HEADER.match(lines[i])), None)
    if header is None:
        return lines
    match = C.HUNK_HEADER.match(lines[header])
    assert match is not None
    if any(len(count or b"") > 9 for count in (match.group(2), match.group(4))):
        return lines  # no chopped tail that long: the header's own check reports the counts
    old_len = int(match.group(2)) if match.group(2) is not None else 1
    new_len = int(match.group(4)) if match.group(4) is not None else 1
    old = new = 0
    for line in lines[header + 1 :]:
        marker = line[:1]
        if marker in (b" ", b"\n", b"\r"):
            old, new = old + 1, new + 1
        elif marker == b"-":
            old += 1
        elif marker == b"+":
            new += 1
        elif marker != b"\\":
            return lines  # not a hunk line: something else follows the hunk
    missing = old_len - old
    if missing != new_len - new or not 0 < missing <= CHOPPED_BLANK_LINES:
        return lines
    if not lines[-1].endswith(b"\n"):
        return lines
    return [*lines, *[b" \n"] * missing]


def _unidiff_message(message: str) -> str:
    """unidiff's parse error ``message`` in the project's words, with the line it names
    quoted and no trailing newline (the patch file and line go with it in the error).

    >>> _unidiff_message("Target without source: +++ metrics.py\\n")
    "a '+++' file header without the '---' line before it: '+++ metrics.py'"
    """
    message = message.rstrip("\r\n")
    for start, words in _UNIDIFF_WORDS.items():
        if message.startswith(start):
            rest = message[len(start) :].lstrip(":").strip()
            quoted = rest and start != "Unexpected marker"  # the marker is in the words
            return f"{words}: {rest!r}" if quoted else words
    if message.startswith("Hunk is shorter"):
        return "truncated hunk: the patch ends before the line counts of its header are met"
    if message.startswith("Hunk is longer"):
        return "hunk line counts do not add up: more lines than its header says"
    if message.startswith("Hunk diff line expected"):
        return "hunk line counts do not add up: expected a hunk line (' ', '-', '+'), got " + repr(
            message.split(": ", 1)[-1].rstrip("\n")
        )
    if message.startswith("Unexpected hunk"):
        return "hunk before any file header"
    return message


def _file_start_lines(lines: list[bytes], start: int) -> dict[int, int]:
    """Map the line number unidiff gives a plain ``+++`` header to its ``---`` line."""
    return {
        index + 2: index + 1
        for index in range(start, len(lines) - 1)
        if lines[index].startswith(C.OLD_FILE) and lines[index + 1].startswith(C.NEW_FILE)
    }


#: A context diff's hunk separator and old-range line (``diff -c``; POSIX diff, "Context
#: output format").
_CONTEXT_SEPARATOR = re.compile(rb"^\*{15}(?: .*)?\r?$")
_CONTEXT_OLD_RANGE = re.compile(rb"^\*\*\* \d+(?:,\d+)? \*\*\*\*\r?$")
#: A normal diff's change command (``3,4c3,4``, ``5a6``, ``7d6``) and an ed script's (``3c``).
_NORMAL_COMMAND = re.compile(rb"^\d+(?:,\d+)?[acd]\d+(?:,\d+)?\r?$")
_ED_COMMAND = re.compile(rb"^\d+(?:,\d+)?[acd]\r?$")


def _other_diff_format(lines: list[bytes]) -> tuple[int, str, str] | None:
    """The diff format other than unified that ``lines`` hold, when they hold no unified
    diff: ``(1-based line, the format in words, why it is not read)``, or ``None``.

    GNU patch also reads context diffs, normal diffs and ed scripts; a series in one of them
    is told so, not that its patch "holds no diff". A context diff (``*** a/f`` / ``--- b/f``,
    then ``***************`` and ``*** 1,4 ****``) could be converted; a normal diff or an ed
    script has no context lines, so where it applies could not be checked at all.
    """
    for index, line in enumerate(lines):
        nxt = lines[index + 1] if index + 1 < len(lines) else b""
        after = lines[index + 2] if index + 2 < len(lines) else b""
        if (
            line.startswith(b"*** ")
            and nxt.startswith(C.OLD_FILE)
            and _CONTEXT_SEPARATOR.match(after)
        ) or (_CONTEXT_SEPARATOR.match(line) and _CONTEXT_OLD_RANGE.match(nxt)):
            return (
                index + 1,
                "a context diff (diff -c)",
                "it reads unified diffs ('--- a/FILE', '+++ b/FILE', '@@' hunks)",
            )
        if _NORMAL_COMMAND.match(line) and nxt[:2] in (b"< ", b"> "):
            return (
                index + 1,
                "a normal diff (diff without -u)",
                "it has no context lines, so where it applies cannot be checked",
            )
        if _ED_COMMAND.match(line) and index == 0:
            return (
                index + 1,
                "an ed script (diff -e)",
                "it has no context lines, so where it applies cannot be checked",
            )
    return None


def _check_has_changes(
    files: list[FileDiff], lines: list[bytes], path: Path, allow_empty: bool
) -> None:
    """A patch must change something: GNU patch says "Only garbage was found in the patch
    input", git apply "No valid patches in input". A plain ``---``/``+++`` header with no
    hunk is also refused; git's hunkless headers (new or deleted empty file, rename, mode
    change) are changes.

    With ``allow_empty`` (git apply's ``--allow-empty``), a patch with no diff at all (zero
    bytes, or only a header) is taken: quilt applies such a patch of a series as a no-op
    ("Patch X appears to be empty; applied"), and ``quilt new`` writes them. A diff in
    another format is still refused."""
    if not files:
        other = _other_diff_format(lines)
        if other is not None:
            line, kind, why = other
            raise PatchFormatError(
                f"the patch holds {kind}, which patchkeeper does not read: {why}",
                path=path,
                line=line,
                hint="regenerate it as a unified diff (diff -u, git diff, git format-patch)"
                + (
                    ", or convert it: filterdiff --format=unified (patchutils)"
                    if kind.startswith("a context")
                    else ""
                ),
            )
        cut = _cut_off(lines)
        if cut is not None:
            line, said = cut
            raise PatchFormatError(
                f"the patch holds no diff, yet it has {said}: it is not a whole patch",
                path=path,
                line=line,
                hint="take the patch again from where it came from (its git commit, the source "
                "package), or regenerate it",
            )
        if allow_empty:
            return
        what = "is empty" if not any(line.strip() for line in lines) else "holds no diff"
        raise PatchFormatError(
            f"the patch {what}: no '--- a/FILE' / '+++ b/FILE' or 'diff --git' header with "
            "hunks was found",
            path=path,
            line=1,
            hint="regenerate the patch, or take it out of the series",
        )
    for diff in files:
        if diff.hunks or diff.is_creation or diff.is_deletion or diff.is_rename:
            continue
        if diff.old_mode != diff.new_mode:
            continue
        raise PatchFormatError(
            f"the file header for {diff.path} has no hunk",
            path=path,
            line=diff.line_no,
            hint="regenerate the patch; a file header must be followed by '@@' hunks",
        )


def parse_patch(
    data: bytes, *, name: str, path: Path, strip: int = 1, allow_empty: bool = False
) -> Patch:
    """Parse one patch file.

    Args:
        data: the patch file's bytes.
        name: the series name of the patch.
        path: the patch file, for messages.
        strip: leading path components to remove from file names (``-p``).
        allow_empty: take a patch with no diff at all (zero bytes, or only a header) as an
            empty patch (no file diffs, :attr:`Patch.is_empty`), as a series does; without
            it such a patch is refused, as ``git apply`` refuses it.

    Returns:
        The :class:`Patch`, whose ``raw`` is ``data`` unchanged.

    Raises:
        PatchFormatError: naming ``path`` and the line, for wrong hunk line counts, a
            truncated hunk, a hunk before any file header, a binary diff, or a patch in
            UTF-16 or UTF-32.
    """
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError

    refuse_wide_text(data, path, "the patch")
    refuse_compressed(data, path)
    lines = _restore_chopped_context(split_lines(data))
    start = _first_diff_index(lines, path)
    _check_hunk_numbers(lines, start, path)
    _refuse_unquoted_tab(lines, start, path)
    feed = _LineFeed(lines[start:], start)
    try:
        # unidiff reads the structure and checks every hunk's line counts; the hunk lines
        # themselves are read from ``lines`` (_convert_hunk), which is faster than building
        # unidiff's Line objects and gives the exact bytes.
        patchset = PatchSet(iter(feed), metadata_only=True)
    except UnidiffParseError as exc:
        raise PatchFormatError(
            _unidiff_message(str(exc)),
            path=path,
            line=feed.last,
            hint="regenerate the patch; do not edit hunks by hand",
        ) from None
    plain_starts = _file_start_lines(lines, start)
    # The hunk headers in order: unidiff takes every such line outside a hunk body as one,
    # and no body line can start with "@@" (its first column is a marker).
    hunk_headers = iter(
        [index + 1 for index in range(start, len(lines)) if C.HUNK_HEADER.match(lines[index])]
    )
    files = []
    for ufile in patchset:
        first_line = (ufile.diff_line_no or 0) + start
        first_line = plain_starts.get(first_line, first_line)
        files.append(_convert_file(ufile, lines, strip, path, first_line, hunk_headers))
    _check_has_changes(files, lines, path, allow_empty)
    files, trailer = _attach_raw(files, lines, start)
    return Patch(
        name=name,
        path=path,
        raw=data,
        preamble=b"".join(lines[:start]),
        preamble_lines=start,
        files=tuple(files),
        strip=strip,
        trailer=trailer,
    )


#: How a hunk header starts (``@@ -``, also with its space lost); a line that starts so
#: and is no header is a corrupt one.
_HUNK_HEADER_START = re.compile(rb"@@[ \t]*-")

#: The most characters of a corrupt line a message quotes.
_SHOWN_LINE_CHARS = 60


def _shown_line(line: bytes) -> str:
    r"""``line`` quoted for a message: decoded, without its line end, cut to
    :data:`_SHOWN_LINE_CHARS` characters.

    >>> _shown_line(b"@@ -1438,7 +1438,x @@ class AbstractTable(Item):\r\n")
    "'@@ -1438,7 +1438,x @@ class AbstractTable(Item):'"
    """
    text = line.rstrip(b"\r\n").decode("utf-8", "replace")
    if len(text) > _SHOWN_LINE_CHARS:
        text = text[:_SHOWN_LINE_CHARS] + "..."
    return repr(text)


#: The most digits a hunk header's number may have (a file of 10**12 lines is no source file;
#: Python refuses to convert more than 4,300 digits at all).
MAX_NUMBER_DIGITS = 12


def _check_hunk_numbers(lines: list[bytes], start: int, path: Path) -> None:
    """Refuse a hunk header that cannot be read, or whose line number or count is absurdly
    long.

    A line that starts as a hunk header does (``@@ -``) but is not one (``@@ -1438,7
    +1438,x @@``, the closing ``@@`` lost) is refused, as GNU patch ("malformed patch") and
    ``git apply`` ("corrupt patch") refuse it: read as text between hunks, the hunk it heads
    would be left out and the rest of the patch applied without it. So is ``@@-1438,7``
    (the space lost), which both tools pass over as text, leaving that hunk out unsaid.

    Raises:
        PatchFormatError: naming the patch and the header's line.
    """
    for index in range(start, len(lines)):
        match = C.HUNK_HEADER.match(lines[index])
        if match is None:
            if _HUNK_HEADER_START.match(lines[index]):
                raise PatchFormatError(
                    f"malformed hunk header {_shown_line(lines[index])}: a hunk header is "
                    "'@@ -START[,COUNT] +START[,COUNT] @@'",
                    path=path,
                    line=index + 1,
                    hint="regenerate the patch, or correct the header's numbers and its "
                    "closing '@@'; read as it is, the hunk it heads would be left out",
                )
            continue
        longest = max(len(group) for group in match.groups() if group is not None)
        if longest > MAX_NUMBER_DIGITS:
            raise PatchFormatError(
                f"a hunk header holds a number of {longest} digits (at most "
                f"{MAX_NUMBER_DIGITS} are taken)",
                path=path,
                line=index + 1,
                hint="the header is corrupt; regenerate the patch",
            )


def _hunk_end(lines: list[bytes], hunk: Hunk) -> int:
    r"""The 0-based index just past the hunk's last line (its ``\`` marker included)."""
    end = max(hunk.line_nos, default=hunk.line_no)
    while end < len(lines) and lines[end].startswith(b"\\"):
        end += 1
    return end


#: A mail signature's separator line, as ``git format-patch`` ends a patch (``-- `` then
#: git's version), also with its trailing space stripped by mail.
_SIGNATURE_SEPARATORS = (b"-- \n", b"-- \r\n", b"--\n", b"--\r\n")


def _signature_start(lines: list[bytes], first: int) -> int:
    r"""Where the trailer begins after a last file diff without hunks (a deletion of an
    empty file, a mode change, a pure rename) whose header starts at index ``first``: at a
    mail signature's separator (``-- \n``, then git's version), else at the end. The
    signature is the patch's trailer, as after a hunk, not part of the file's header, which
    a refreshed header replaces.

    >>> _signature_start([b"diff --git a/f b/f\n", b"deleted file mode 100644\n", b"-- \n",
    ...                   b"2.39.5\n"], 0)
    2
    """
    for index in range(first + 1, len(lines)):
        if lines[index] in _SIGNATURE_SEPARATORS:
            return index
    return len(lines)


def _attach_raw(
    files: list[FileDiff], lines: list[bytes], start: int
) -> tuple[list[FileDiff], bytes]:
    """Give every file diff its raw header bytes, so that rendering round-trips (hunks
    carry theirs from :func:`_convert_hunk`); return the file diffs and the trailer."""
    out = []
    cursor = start
    for number, diff in enumerate(files):
        if diff.hunks:
            header_end = diff.hunks[0].line_no - 1
        elif number + 1 < len(files):
            header_end = files[number + 1].line_no - 1
        else:
            header_end = _signature_start(lines, diff.line_no - 1)
        header = b"".join(lines[cursor:header_end])
        cursor = header_end
        if diff.hunks:  # each hunk got its raw bytes in _convert_hunk
            cursor = _hunk_end(lines, diff.hunks[-1])
        out.append(replace(diff, header_raw=header))
    return out, b"".join(lines[cursor:])


def render_patch(patch: Patch) -> bytes:
    """The bytes of ``patch`` from its parts: preamble, file headers, hunks, trailer.

    For a parsed patch this gives back exactly the file's bytes.
    """
    parts = [patch.preamble]
    for diff in patch.files:
        parts.append(diff.header_raw)
        parts.extend(hunk.raw for hunk in diff.hunks)
    parts.append(patch.trailer)
    return b"".join(parts)


def read_patch_bytes(path: Path) -> bytes:
    """The bytes of the patch file ``path``; a named pipe or a device there is refused
    (:func:`patchkeeper.system.regular.read_regular`), not waited on.

    Raises:
        PatchFormatError: the file is missing or unreadable.
    """
    try:
        return read_regular(path)
    except FileNotFoundError:
        raise PatchFormatError(
            "the patch file does not exist",
            path=path,
            hint="restore the file, or remove it from the series",
        ) from None
    except OSError as exc:
        raise PatchFormatError(
            f"cannot read the patch: {exc.strerror}",
            path=path,
            hint="make it a readable patch file, or take its line out of the series",
        ) from None


def read_patch(
    path: Path, *, name: str | None = None, strip: int = 1, allow_empty: bool = False
) -> Patch:
    """Read and parse the patch file at ``path`` (``allow_empty``: as :func:`parse_patch`).

    Raises:
        PatchFormatError: the file is missing, unreadable or malformed.
    """
    data = read_patch_bytes(path)
    return parse_patch(
        data, name=name or path.name, path=path, strip=strip, allow_empty=allow_empty
    )


def load_patches(
    series: Series,
    default_strip: int,
    *,
    cache: bool = True,
    unreadable: list[tuple[str, PatchFormatError]] | None = None,
) -> list[Patch]:
    """Read every patch a series lists, in order.

    With ``cache``, a patch whose exact bytes were parsed before (under the same name and
    strip level) is taken from the parse cache (:mod:`patchkeeper.series.parse_cache`)
    instead of being parsed again, and new parses are added to it.

    With ``unreadable`` (a list), a listed patch that is missing or malformed, or names a
    path ``apply`` refuses in any tree (:func:`refused_path_error`), is left out and
    ``(name, error)`` appended to the list instead of raising, so the rest of the series
    can still be judged (``audit``).

    Raises:
        PatchFormatError: a listed patch is missing (naming the series line) or malformed
            (without ``unreadable``), or a patch is listed twice.
    """
    from patchkeeper.series.parse_cache import ParseCache

    patches = []
    seen: dict[str, int] = {}
    store = ParseCache(series.path) if cache else None
    files = _ListedFiles(series)
    for entry in series.entries:
        if entry.name in seen:
            raise _listed_twice(series, entry, seen[entry.name])
        seen[entry.name] = entry.line_no
        strip = entry.strip if entry.strip is not None else default_strip
        try:
            patch = _load_one(files, entry, strip, store)
            refused = refused_path_error(patch) if unreadable is not None else None
            if refused is not None:
                raise refused
            patches.append(patch)
        except PatchFormatError as exc:
            if unreadable is None:
                raise
            unreadable.append((entry.name, exc))
    if store is not None:
        store.save()
    return patches


def refused_paths(patch: Patch) -> Iterator[tuple[FileDiff, str, str]]:
    """``(file diff, path, why)`` for each path of ``patch`` (old and new name, once each)
    that ``apply`` refuses in any tree (:func:`~patchkeeper.system.patch_paths.path_refusal`:
    it leaves the tree, or the file system cannot be handed the name), in patch order."""
    for diff in patch.files:
        for name in dict.fromkeys(p for p in (diff.old_path, diff.new_path) if p is not None):
            why = path_refusal(name)
            if why:
                yield diff, name, why


def refused_path_error(patch: Patch) -> PatchFormatError | None:
    """The error ``apply`` stops at for the first path of ``patch`` that it refuses in any
    tree (:func:`refused_paths`), at the line of that file's header; ``None`` when there is
    none. Read without a tree (``audit``, ``init``), such a patch is unreadable as a
    malformed one is, and the rest of the series is judged without it."""
    for diff, name, why in refused_paths(patch):
        return PatchFormatError(
            f"the patch path {shown_path(name)} {why}",
            path=patch.path,
            line=diff.line_no,
            hint="rename the file in the patch",
        )
    return None


def _listed_twice(series: Series, entry: SeriesEntry, first: int) -> PatchFormatError:
    """The error of ``entry``, a second line of ``series`` naming the patch of line ``first``."""
    return PatchFormatError(
        f"{shown_name(entry.name)} is listed twice (first on line {first})",
        path=series.path,
        line=entry.line_no,
        hint="a patch applies once: remove one of the two lines",
    )


def refuse_listed_twice(series: Series) -> None:
    """Refuse a series that lists one patch on two lines, as :func:`load_patches` does, for
    a command that reads the series without loading its patches (the ledger, ``retire``):
    a table with the patch's row twice, or a retirement that deletes the file while the
    other line still lists it, would leave the series every other command refuses.

    Raises:
        PatchFormatError: naming the series file, the second line and the first.
    """
    seen: dict[str, int] = {}
    for entry in series.entries:
        if entry.name in seen:
            raise _listed_twice(series, entry, seen[entry.name])
        seen[entry.name] = entry.line_no


def _load_one(
    files: _ListedFiles, entry: SeriesEntry, strip: int, store: ParseCache | None
) -> Patch:
    """One listed patch, parsed (or from the parse cache). Raises: PatchFormatError."""
    from patchkeeper.series.parse_cache import content_key

    path, info = files.path(entry)
    if store is None:
        return parse_patch(
            read_patch_bytes(path), name=entry.name, path=path, strip=strip, allow_empty=True
        )
    remembered = store.unchanged(entry.name, info, strip)
    patch = store.get(remembered, None, entry.name, path, strip) if remembered is not None else None
    if remembered is not None and patch is not None:
        key = remembered
    else:
        data = read_patch_bytes(path)
        key = content_key(data, entry.name, strip)
        patch = store.get(key, data, entry.name, path, strip)
        if patch is None:
            patch = parse_patch(data, name=entry.name, path=path, strip=strip, allow_empty=True)
            store.put(key, patch)
    store.seen(entry.name, info, strip, key)
    return patch


def entry_file_exists(series: Series, entry: SeriesEntry) -> bool:
    """Whether the file a series line names exists (``False`` too when the file system
    cannot even look it up: a name longer than it allows)."""
    try:
        return (series.directory / entry.name).is_file()
    except OSError:
        return False


def entry_problem(series: Series, entry: SeriesEntry) -> str:
    """Why the path a series line names is not a patch file, in words that follow its name
    (``"is a named pipe"``); ``"does not exist"`` only when nothing is there, so that a
    user is not sent to restore a file they can list.

    Meant for a line whose path is not a regular file (:func:`entry_file_exists` is
    false); for a regular file it says so.
    """
    path = series.directory / entry.name
    try:
        info = path.lstat()
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        try:
            info = path.stat()
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return "is a symbolic link that loops back on itself"
            return f"is a symbolic link to a missing file ({shown_name(os.readlink(path))})"
    return f"is {file_kind(info.st_mode)}"


def entry_hint(problem: str, shown: str) -> str:
    """What to do about a series line whose path is not a patch file, for the
    :func:`entry_problem` ``problem``; ``shown`` is that path as the message names it.

    >>> entry_hint("does not exist", "patches/gone.patch")
    'restore patches/gone.patch or remove the line from the series'
    >>> entry_hint("is a directory", "patches/sub.patch")
    'put the patch file at patches/sub.patch in its place, or fix the line'
    """
    if problem == "does not exist":
        return f"restore {shown} or remove the line from the series"
    return f"put the patch file at {shown} in its place, or fix the line"


def listed_patch(
    series: Series, entry: SeriesEntry, real_dirs: dict[str, str] | None = None
) -> Path:
    """The patch file a series line names (relative to the series' directory).

    ``real_dirs`` (directory -> its real path, filled as directories are resolved) lets a
    caller that looks up many patches resolve each directory once.

    Raises:
        PatchFormatError: the file does not exist, cannot be looked at (a name too long for
            the file system), or lies outside the series directory through a symlink (naming
            the series line).
    """
    path = series.directory / entry.name
    check_series_name(entry.name, series.path, entry.line_no)
    real_dirs = {} if real_dirs is None else real_dirs
    try:
        inside = _real_path(path, real_dirs).startswith(
            _real_dir(str(series.directory), real_dirs).rstrip(os.sep) + os.sep
        )
        exists = path.is_file()
    except (OSError, RuntimeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise PatchFormatError(
            f"the series lists {shown_name(entry.name)}, which cannot be read: {reason}",
            path=series.path,
            line=entry.line_no,
            hint="rename the patch file, or fix the line",
        ) from None
    if not inside:
        raise PatchFormatError(
            f"the series entry {shown_name(entry.name)} leads outside the series directory "
            "(a symlink)",
            path=series.path,
            line=entry.line_no,
            hint="copy the patch into the series directory instead of linking it",
        )
    if not exists:
        problem = entry_problem(series, entry)
        hint = entry_hint(problem, shown_name(str(path)))
        if problem != "does not exist":
            problem += ", not a patch file"
        raise PatchFormatError(
            f"the series lists {shown_name(entry.name)}, which {problem}",
            path=series.path,
            line=entry.line_no,
            hint=hint,
        )
    return path


class _ListedFiles:
    """:func:`listed_patch` for every entry of one series: a regular file in a directory
    already found inside the series directory costs one ``lstat``; anything else (a symlink,
    a missing file, a new subdirectory) gets the general checks."""

    def __init__(self, series: Series) -> None:
        self.series = series
        self.directory = str(series.directory)
        # a patch's path is made by joining its name to this one: parsing the whole path
        # again for each of 1,000 patches cost three times as much
        self.directory_path = Path(self.directory)
        self.inside = {self.directory}
        self.real_dirs: dict[str, str] = {}

    def path(self, entry: SeriesEntry) -> tuple[Path, os.stat_result | None]:
        """The patch file of ``entry``, and its ``lstat`` when it is a regular file found the
        fast way (``None`` otherwise: a symlink, a new subdirectory).

        Raises:
            PatchFormatError: as :func:`listed_patch`.
        """
        check_series_name(entry.name, self.series.path, entry.line_no)
        full = os.path.join(self.directory, entry.name)
        try:
            info: os.stat_result | None = os.lstat(full)
        except OSError:
            info = None
        parent = os.path.dirname(full)
        if info is not None and stat.S_ISREG(info.st_mode) and parent in self.inside:
            return self.directory_path / entry.name, info
        path = listed_patch(self.series, entry, self.real_dirs)
        self.inside.add(parent)  # listed_patch raised if it were outside
        return path, None


def _real_dir(directory: str, real_dirs: dict[str, str]) -> str:
    real = real_dirs.get(directory)
    if real is None:
        real = real_dirs[directory] = str(Path(directory).resolve())
    return real


def _real_path(path: Path, real_dirs: dict[str, str]) -> str:
    """``path.resolve()``, the real path of its directory resolved once: the real path of
    ``dir/name`` is ``realpath(dir)/name`` unless ``name`` is itself a symlink.

    Raises:
        RuntimeError: a symlink loop (as :meth:`pathlib.Path.resolve`).
    """
    leaf = os.path.join(_real_dir(str(path.parent), real_dirs), path.name)
    return str(Path(leaf).resolve()) if os.path.islink(leaf) else leaf
