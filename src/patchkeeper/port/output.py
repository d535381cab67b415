"""What a finished port writes: a new series directory, or the series rewritten in place.

Either way the series file keeps its bytes, except that the line of each patch proposed for
retirement is commented out with the reason (the issue: "proposed for retirement with its
evidence, never silently dropped"), and every carried patch file holds its refreshed bytes.
A new series directory also gets a ``patchkeeper.toml`` naming the new pin, so
``patchkeeper -C DIR apply|verify`` works on it as it is. In place, the change is one
journaled transaction (:mod:`patchkeeper.trees.transaction`), and the configured ``pin`` (and
``pristine``, when set) follow when the configuration holds each on one plain
``key = "..."`` line.

``--retire`` hands each upstreamed patch to :func:`patchkeeper.ledger.table.retire` (issue
"patchkeeper 2"), which takes its line out of the series file, deletes its patch file and
records it in the Retired table.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Literal

from patchkeeper.config import Config
from patchkeeper.errors import PatchkeeperError, TargetError
from patchkeeper.ledger.table import PROPOSED_NOTE
from patchkeeper.port.carried_config import carried_table, carried_text
from patchkeeper.series.model import Series
from patchkeeper.series.parse import split_lines
from patchkeeper.system.atomic import settle_dir
from patchkeeper.system.removal import remove_tree
from patchkeeper.trees.transaction import READ_ONLY, Change, commit
from patchkeeper.trees.tree import safe_path


class OutputExistsError(PatchkeeperError):
    """The new series directory already exists."""


def retire_reason(version: str, dropped: bool = False) -> str:
    """Why the port's to-do proposes a patch for retirement: *upstreamed* or *dropped* in
    ``version`` (:func:`retire_note` without the command that wrote it). The to-do is the
    port's own, and the MCP server says every quoted command line as the tool that runs it:
    "proposed for retirement by 'patchkeeper port'" read there as a call to make
    (``write_port_start``), which starts another port, where the tool to call, if any, is
    the one the to-do names after it.

    >>> retire_reason("2.0", dropped=True)
    'dropped in 2.0: proposed for retirement'
    """
    return f"{'dropped' if dropped else 'upstreamed'} in {version}: proposed for retirement"


def retire_note(version: str, dropped: bool = False) -> str:
    """The comment a retired patch's series line gets: *upstreamed* (the new pin has it), or
    *dropped* (its conflict was resolved by hand to no change: nothing is left to carry, which
    says nothing about upstream having it)."""
    return f"{'dropped' if dropped else 'upstreamed'} in {version}: {PROPOSED_NOTE}"


def series_bytes(
    data: bytes,
    series: Series,
    retiring: Collection[str],
    version: str,
    dropped: Collection[str] = (),
) -> bytes:
    """The series file with the lines of ``retiring`` patches commented out, each with
    :func:`retire_note` (*dropped* for the names in ``dropped``).

    >>> from patchkeeper.series.model import SeriesEntry
    >>> s = Series(Path("series"), (SeriesEntry("a.patch", 1), SeriesEntry("b.patch", 2)))
    >>> lines = series_bytes(b"a.patch\\nb.patch -p0\\n", s, {"b.patch"}, "2.0").splitlines()
    >>> lines[0], lines[1].decode()[:40]
    (b'a.patch', '# b.patch -p0  # upstreamed in 2.0: prop')
    >>> series_bytes(b"a.patch\\n", s, {"a.patch"}, "2.0", {"a.patch"}).decode()[:30]
    '# a.patch  # dropped in 2.0: p'
    """
    lines = split_lines(data)
    for entry in series.entries:
        if entry.name not in retiring:
            continue
        line = lines[entry.line_no - 1]
        body = line.rstrip(b"\r\n")
        ending = line[len(body) :] or b"\n"
        note = retire_note(version, entry.name in dropped).encode()
        lines[entry.line_no - 1] = b"# " + body + b"  # " + note + ending
    return b"".join(lines)


#: How the new series directory was chosen, which the refusal of an existing one words its
#: hint for: ``--output`` given, the default beside the series, or kept by a port started
#: earlier (``--continue`` writes where the start chose).
OutputChoice = Literal["given", "default", "started"]

#: What the new series directory must be, said in each hint.
_OUTPUT_RULE = "a directory that does not exist yet or is empty"


def check_output(path: Path, chosen: OutputChoice = "default") -> None:
    """Refuse a new series directory that exists and is not empty; the hint says what to do
    for how it was ``chosen`` (a user who gave ``--output`` is not told to give it).

    Raises:
        OutputExistsError: naming it.
    """
    if not path.exists() or (path.is_dir() and not any(path.iterdir())):
        return
    hints = {
        "given": f"give --output {_OUTPUT_RULE}, or port --in-place",
        "default": f"remove it, give --output {_OUTPUT_RULE}, or port --in-place",
        "started": "move it away: the port in progress writes its new series there, as "
        "chosen when it started",
    }
    raise OutputExistsError(
        "the new series directory already exists", path=path, hint=hints[chosen]
    )


def pristine_setting(tree: str, base: Path) -> str:
    """The directory ``tree`` (an absolute path) as a ``pristine`` value relative to ``base``
    (the folder of the configuration file that holds it), in POSIX form: the path as given,
    through its symlinks, when it names the same directory from ``base``; else the relative
    path between the two resolved directories."""
    given = os.path.relpath(tree, base)
    if os.path.isdir(base / given) and os.path.samefile(base / given, tree):
        return Path(given).as_posix()
    return Path(os.path.relpath(os.path.realpath(tree), os.path.realpath(base))).as_posix()


def config_text(
    config: Config, version: str, source_version: str | None, pristine: str | None, out: Path
) -> str:
    """The ``patchkeeper.toml`` of the new series directory ``out``: the downstream's whole
    configuration with the new pin (:mod:`patchkeeper.port.carried_config`: every section, paths
    rewritten to name the same files); ``pristine``: the new pin's tree when it is a
    directory, so ``verify`` finds it."""
    if pristine:
        pristine = pristine_setting(os.path.abspath(pristine), Path(os.path.abspath(out)))
    table = carried_table(config, out, version, pristine)
    comment = (
        f"written by 'patchkeeper port': the series ported from {source_version or '?'} "
        f"to {version}"
    )
    return carried_text(table, comment)


def write_directory(
    out: Path,
    files: Mapping[str, bytes],
    series: bytes,
    config: str,
) -> None:
    """Create ``out`` with ``series``, ``patchkeeper.toml`` and the patch files, atomically
    (written beside it, then renamed into place).

    Raises:
        OutputExistsError: ``out`` exists and is not empty.
        TargetError: ``out``'s directory cannot be written.
    """
    check_output(out, "started")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        hint = READ_ONLY["downstream"][1]
        raise TargetError(
            f"cannot write the new series directory ({exc.strerror}); nothing was written",
            path=out,
            hint="pass --output DIR in a directory you can write, or " + hint,
        ) from None
    try:
        settle_dir(scratch)
        (scratch / "series").write_bytes(series)
        (scratch / "patchkeeper.toml").write_text(config, encoding="utf-8")
        for name, data in files.items():
            dest = safe_path(scratch, name)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        if out.exists():
            out.rmdir()
        os.rename(scratch, out)
    except BaseException:
        remove_tree(scratch, ignore_errors=True)
        raise


def _set_key(data: bytes, key: str, old: str, new: str) -> bytes | None:
    """``data`` with its one ``key = "old"`` line set to ``new``, or ``None``."""
    pattern = re.compile(
        rb"^(?P<head>[ \t]*" + re.escape(key.encode()) + rb'[ \t]*=[ \t]*)(?P<q>["\'])'
        rb"(?P<value>[^\"']*)(?P=q)"
    )
    lines = split_lines(data)
    hits = [
        n
        for n, line in enumerate(lines)
        if (m := pattern.match(line)) and m["value"] == old.encode()
    ]
    if len(hits) != 1:
        return None
    match = pattern.match(lines[hits[0]])
    assert match is not None
    quote = match["q"]
    value = new.encode().replace(b"\\", b"\\\\").replace(quote, b"\\" + quote)
    lines[hits[0]] = match["head"] + quote + value + quote + lines[hits[0]][match.end() :]
    return b"".join(lines)


def config_change(config: Config, settings: Mapping[str, tuple[str | None, str]]) -> Change | None:
    """The configuration file with each ``key = "old"`` line (one per key) set to its new
    value, or ``None`` when a key has no such single line (the report then asks for the edit).

    ``settings``: key -> ``(old value, new value)``; a key whose old value is ``None`` is
    not configured and is skipped.
    """
    if config.source is None:
        return None
    data = config.source.read_bytes()
    changed = False
    for key, (old, new) in settings.items():
        if old is None or old == new:
            continue
        edited = _set_key(data, key, old, new)
        if edited is None:
            return None
        data, changed = edited, True
    return Change(config.source, data) if changed else None


def write_in_place(
    series: Series,
    files: Mapping[str, bytes],
    series_data: bytes,
    extra: list[Change],
    journal: Path,
    root: Path,
) -> list[Path]:
    """Rewrite the carried patch files, the series and ``extra`` in one transaction. A patch
    file or a series file that already holds its new bytes is not written: what the port
    reports as written (and ``upgrade`` lists and commits) is what changed.

    Returns the files written.
    """
    changes = [
        Change(path, data)
        for path, data in ((safe_path(series.directory, n), d) for n, d in files.items())
        if not _holds(path, data)
    ]
    if series_data != series.path.read_bytes():
        changes.append(Change(series.path, series_data))
    changes.extend(extra)
    commit(changes, journal, root=root, whose="downstream")
    return [change.path for change in changes]


def _holds(path: Path, data: bytes) -> bool:
    """Whether the regular file ``path`` holds ``data`` already (not a link: a link is
    written over)."""
    try:
        return not path.is_symlink() and path.is_file() and path.read_bytes() == data
    except OSError:
        return False
