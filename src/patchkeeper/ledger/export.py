"""``patchkeeper export``: a topic commit in an upstream checkout -> its patch file.

The series workflow (docs/glossary.md): "each contributor keeps the topics as commits (subject
``[qwen38] <topic>``) in that pinned checkout, and ``scripts/export-patch.sh`` turns a commit
into a file whose ``--- exported from`` line names that commit". A patch file is::

    <the commit body: prose and header fields>
    --- exported from <full commit id>
    <git's diff of the commit, paths relative to the configured directory>

The bytes depend only on the commit: every git call goes through :mod:`patchkeeper.upstream.gitops`
(no user configuration, fixed diff options, full blob ids by default), so exporting twice, on
any machine, gives the same file.

Provenance survives ``import``: it records, in a git note on each commit it makes, the
commit id the file named and a hash of the file's content. When the commit is exported
unchanged, the note's id is written again, so ``import`` then ``export`` is byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from patchkeeper import constants as C
from patchkeeper.config import Config
from patchkeeper.errors import ConfigError, Finding, PatchFormatError, PatchkeeperError
from patchkeeper.ledger import patch_form
from patchkeeper.ledger.patch_form import Sides
from patchkeeper.ledger.settings import GitSettings, git_settings, ledger_settings
from patchkeeper.ledger.table import row_name
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import (
    entry_file_exists,
    listed_patch,
    parse_patch,
    parse_series,
    read_patch,
    refuse_listed_twice,
    split_lines,
)
from patchkeeper.system.atomic import write_output
from patchkeeper.system.patch_paths import path_refusal, shown_path
from patchkeeper.trees.downstream import commit_files, locked_downstream
from patchkeeper.trees.transaction import Change
from patchkeeper.upstream import gitops

#: A topic name: ``qwen3_5-embed-quant``, ``kvarn/kvarn-0.32.0`` (no ``..``, no leading ``/``).
TOPIC = r"[A-Za-z0-9][A-Za-z0-9._+-]*(?:/[A-Za-z0-9][A-Za-z0-9._+-]*)*"
#: A note's fields: ``exported-from <id>`` and ``content-sha256 <hex>``.
NOTE_ORIGIN = re.compile(rb"^exported-from ([0-9a-f]{40,64})$", re.M)
NOTE_HASH = re.compile(rb"^content-sha256 ([0-9a-f]{64})$", re.M)


class ExportError(PatchkeeperError):
    """A commit cannot be exported (a merge, a root, files outside the directory, ...)."""


@dataclass(frozen=True)
class ExportedPatch:
    """One written patch file.

    Attributes:
        topic: the topic (``None`` for a single export with ``-o``).
        commit: the commit exported.
        path: the file.
        changed: the file's bytes changed (or it is new).
    """

    topic: str | None
    commit: str
    path: Path
    changed: bool


@dataclass(frozen=True)
class ExportResult:
    """What ``patchkeeper export`` wrote.

    Attributes:
        patches: the files, in commit order.
        series: the series file rewritten by ``--range``, else ``None``.
        dropped: series entries of before that the range no longer has (retire them).
        series_changed: whether the series file's bytes changed (``False``: the same topics
            in the same order left it as it was).
        unlisted: for a single export, the written file's name as the series would list it
            (relative to the series file's directory) when the file is in that directory
            but the series does not list it: ``apply`` leaves it out until it is added.
        series_file: the series file ``unlisted`` is about, else ``None``.
    """

    patches: tuple[ExportedPatch, ...]
    series: Path | None
    dropped: tuple[str, ...] = ()
    root: Path | None = None
    series_changed: bool = True
    unlisted: tuple[str, ...] = ()
    series_file: Path | None = None

    @property
    def exit_code(self) -> int:
        return 0


# --------------------------------------------------------------------------- one commit


def topic_pattern(tag: str) -> re.Pattern[str]:
    """The subject of a topic commit: ``[TAG] <topic>``.

    >>> topic_pattern("qwen38").match("[qwen38] marlin-tune-table").group("topic")
    'marlin-tune-table'
    """
    return re.compile(rf"^\[{re.escape(tag)}\] (?P<topic>{TOPIC})$")


def topic_hint(tag: str, subject: str) -> str:
    """What to write instead of ``subject``, which is not ``[TAG] <topic>``: a topic is one
    word of letters, digits and ``. _ + - /`` (it names the patch file, ``<topic>.patch``);
    a subject that has the tag but a topic of several words gets them joined by ``-``.

    >>> topic_hint("ours", "[ours] rename help").split(": ")[-1]
    "reword the commit as '[ours] rename-help'"
    """
    prefix = f"[{tag}] "
    rule = "a topic is one word (letters, digits and . _ + - /; it names the patch file)"
    if not subject.startswith(prefix):
        return f"every commit of the range needs the subject '[{tag}] <topic>'; {rule}"
    words = re.findall(r"[A-Za-z0-9._+/-]+", subject[len(prefix) :])
    topic = "-".join(words).strip("./-_+")
    if not topic or not re.fullmatch(TOPIC, topic):
        return f"{rule}: reword the commit as '[{tag}] <topic>'"
    return f"{rule}: reword the commit as '[{tag}] {topic}'"


def split_message(message: bytes) -> tuple[bytes, bytes]:
    """Split a commit message into its first line and the body after one blank line.

    >>> split_message(b"[t] a\\n\\nKind: fix\\n")
    (b'[t] a', b'Kind: fix\\n')
    """
    subject, _, rest = message.partition(b"\n")
    body = rest[1:] if rest.startswith(b"\n") else rest
    if body and not body.endswith(b"\n"):
        body += b"\n"
    return subject, body


def content_hash(body: bytes, diff: bytes) -> str:
    """The hash a provenance note keeps: sha256 of the body, a NUL, and the diff."""
    return hashlib.sha256(body + b"\0" + diff).hexdigest()


def provenance(note: bytes | None, body: bytes, diff: bytes) -> str | None:
    """The commit id a note records, if the note's content hash matches ``body``/``diff``."""
    if not note:
        return None
    origin, digest = NOTE_ORIGIN.search(note), NOTE_HASH.search(note)
    if origin is None or digest is None:
        return None
    if digest.group(1).decode() != content_hash(body, diff):
        return None
    return origin.group(1).decode()


def _under(path: str, directory: str) -> bool:
    return not directory or path.startswith(directory.rstrip("/") + "/")


def commit_diff(checkout: Path, commit: str, directory: str, abbrev: int) -> bytes:
    """The diff of a one-parent commit, relative to ``directory``; ``b""`` for a commit of no
    change, which is written as an empty patch (its header alone), as ``import`` commits one.

    Raises:
        ExportError: a merge or root commit, changes outside ``directory``, a file name
            ``apply`` refuses (:func:`~patchkeeper.system.patch_paths.path_refusal`), or a binary
            change.
    """
    parents = gitops.commit_parents(checkout, commit)
    short = commit[:12]
    if len(parents) != 1:
        what = "a merge commit" if parents else "the root commit"
        raise ExportError(
            f"{short} is {what}; a topic commit has exactly one parent",
            path=checkout,
            hint="rebase the topics into a linear branch on the pin's tag",
        )
    names = gitops.diff_names(checkout, parents[0], commit)
    outside = [p for p in names if not _under(p, directory)]
    if outside:
        raise ExportError(
            f"{short} changes files outside {directory}/: {', '.join(outside[:5])}",
            path=checkout,
            hint=f"a patch is relative to {directory}/; move those changes to another commit",
        )
    refused = [(name, why) for name in names if (why := path_refusal(name))]
    if refused:
        name, why = refused[0]
        raise ExportError(
            f"{short} changes {shown_path(name)}, a name apply refuses: it {why}",
            path=checkout,
            hint="rename the file in the commit (git mv) and export again",
        )
    diff = gitops.diff_patch(checkout, parents[0], commit, relative=directory, abbrev=abbrev)
    binary = [f"{directory}/{name}" if directory else name for name in binary_files(diff)]
    if binary:
        raise ExportError(
            f"{short} changes a binary file: {', '.join(binary[:5])}",
            path=checkout,
            hint="carry binary files as an overlay entry, not in a patch",
        )
    return diff


_BINARY_LINE = re.compile(rb"^Binary files (.*) and (.*) differ$")


def binary_files(diff: bytes) -> list[str]:
    """The paths of git's ``Binary files A and B differ`` lines of ``diff`` (the new side's,
    or the old one's for a deletion), without git's ``a/``/``b/`` prefixes.

    >>> binary_files(b"diff --git a/x.bin b/x.bin\\nBinary files /dev/null and b/x.bin differ\\n")
    ['x.bin']
    """
    out = []
    for line in diff.splitlines():
        match = _BINARY_LINE.match(line)
        if match is None:
            continue
        old, new = match.group(1), match.group(2)
        name = new if new != b"/dev/null" else old
        out.append(name.decode("utf-8", "surrogateescape").split("/", 1)[-1])
    return out


def described(subject: bytes, body: bytes) -> bytes:
    r"""``body`` led by a DEP-3 ``Description`` made of ``subject``, for a commit whose subject
    is not a ``[TAG] <topic>`` line (it says what the change is, and would be lost); the body
    follows after a blank line as the long description outside the fields, as ``gbp pq
    export`` writes a commit (``Subject:``, a blank line, the body). A body that has a
    ``Description`` or ``Subject`` field already is kept as it is.

    >>> described(b"Fix the retry cap", b"It grew without bound.\n")
    b'Description: Fix the retry cap\n\nIt grew without bound.\n'
    >>> described(b"Fix it", b"")
    b'Description: Fix it\n'
    """
    from patchkeeper.series.headers import parse_headers

    names = {field.name.lower() for field in parse_headers(body).fields}
    if not subject.strip() or names & {"description", "subject"}:
        return body
    return b"Description: " + subject.strip() + b"\n" + (b"\n" + body if body else b"")


def render_commit(
    checkout: Path,
    commit: str,
    config: Config,
    note: bytes | None = None,
    reference: Patch | None = None,
    describe: bool = False,
) -> tuple[bytes, bytes]:
    """Return ``(subject, patch file bytes)`` of ``commit``.

    ``note`` is the commit's provenance note (see :func:`provenance`), if any. ``reference``
    is the patch file already written for it: its form is kept
    (:mod:`patchkeeper.ledger.patch_form`; an ``--- exported from`` line only if it has one);
    ``None`` writes git's form. With ``describe`` (a subject that is no topic), the subject
    leads the file as its ``Description`` (:func:`described`).
    """
    settings = git_settings(config)
    subject, body = split_message(gitops.commit_message(checkout, commit))
    if describe:
        body = described(subject, body)
    abbrev = settings.index_abbrev
    if reference is not None:
        abbrev = patch_form.index_abbrev(reference) or abbrev
    diff = commit_diff(checkout, commit, config.directory, abbrev)
    origin = provenance(note, body, diff) or commit
    exported = b"--- exported from " + origin.encode("ascii") + b"\n"
    if reference is None:
        return subject, body + exported + diff
    preamble = kept_body(checkout, reference, body)
    if exported_from(reference) is not None:
        preamble += exported
    if not diff:  # a commit of no change: an empty patch, its header alone
        return subject, preamble
    git = parse_patch(diff, name=reference.name, path=reference.path, strip=1)
    sides = commit_sides(checkout, commit, config.directory, [reference, git])
    return subject, patch_form.render_in_form(reference, preamble, git, sides)


def kept_body(checkout: Path, reference: Patch, body: bytes) -> bytes:
    """The reference's description (its preamble before any ``--- exported from`` line) when
    ``body`` differs from it only in what git's message clean-up removes (``git stripspace``:
    trailing white space, repeated and leading/trailing blank lines; ``git commit --amend``
    does that to the blank line before a Debian patch's first ``Index:`` line), else
    ``body``."""
    lines = split_lines(reference.preamble)
    found = exported_from(reference)
    own = b"".join(lines[: found[1] - 1]) if found is not None else reference.preamble
    if own == body:
        return own
    clean = [gitops.run(["stripspace"], checkout, input=text) for text in (own, body)]
    return own if clean[0] == clean[1] else body


def commit_sides(checkout: Path, commit: str, directory: str, patches: list[Patch]) -> Sides:
    """The files the ``patches`` touch in ``commit``'s parent and in ``commit``, read in one
    ``git cat-file --batch`` call; paths are relative to ``directory``."""
    parent = gitops.commit_parents(checkout, commit)[0]
    paths = sorted({path for patch in patches for path in patch.touched_paths})
    prefix = directory.strip("/") + "/" if directory.strip("/") else ""
    names = [f"{rev}:{prefix}{path}" for rev in (parent, commit) for path in paths]
    blobs = gitops.cat_file_batch(checkout, names)
    return Sides(
        before=lambda path: blobs.get(f"{parent}:{prefix}{path}"),
        after=lambda path: blobs.get(f"{commit}:{prefix}{path}"),
    )


def reference_patch(path: Path, strip: int) -> Patch | None:
    """The patch file at ``path`` whose form an export keeps, or ``None`` when there is none
    or it does not parse (it is then written in git's form)."""
    if not path.is_file():
        return None
    try:
        return read_patch(path, strip=strip, allow_empty=True)
    except PatchFormatError:
        return None


def _checkout(config: Config, checkout: Path | None) -> Path:
    chosen = checkout or git_settings(config).checkout
    if chosen is None:
        raise ConfigError(
            "no upstream checkout given",
            path=config.source,
            hint="pass --checkout PATH or set checkout in [tool.patchkeeper.git]",
        )
    return gitops.toplevel(Path(chosen))


def _write(path: Path, data: bytes) -> bool:
    """Write the patch file ``path`` unless it holds ``data`` already; whether it wrote
    (a device or named pipe ``-o`` names is written through:
    :func:`patchkeeper.system.atomic.write_output`).

    Raises:
        ExportError: naming the file that cannot be written.
    """
    if path.is_file() and path.read_bytes() == data:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_output(path, data)
    except OSError as exc:
        raise ExportError(
            f"cannot write the patch file: {exc.strerror or exc}",
            path=path,
            hint="pass -o a file in a directory that exists and can be written",
        ) from None
    return True


def _topic(config: Config, tag: str | None, subject: bytes, commit: str) -> str | None:
    tag = tag or git_settings(config).tag
    if not tag:
        return None
    match = topic_pattern(tag).match(subject.decode("utf-8", "replace"))
    return match.group("topic") if match else None


@dataclass(frozen=True)
class ExportRequest:
    """What ``export`` is asked to do; each field is the argument or option of the same
    parameter name, so the command builds it from click's parsed parameters. Exactly one of
    ``rev`` and ``rev_range`` is given (the command checks).

    Attributes:
        rev: the commit to export (the argument ``REV``); default ``None``.
        rev_range: every topic commit of ``BASE..BRANCH`` (``--range``); default ``None``.
        output: the patch file of a single commit (``-o``/``--output``); default ``None``,
            ``<patches>/<topic>.patch`` from its subject.
        checkout: the upstream git checkout (``--checkout``); default ``None``,
            ``[git] checkout``.
        tag: the topic tag of ``[TAG] <topic>`` subjects (``--tag``); default ``None``,
            ``[git] tag``.
        normalise: write git's form, not the existing file's own (``--normalise``); default
            ``False``.
    """

    rev: str | None = None
    rev_range: str | None = None
    output: Path | None = None
    checkout: Path | None = None
    tag: str | None = None
    normalise: bool = False


def export_topics(config: Config, request: ExportRequest) -> ExportResult:
    """``patchkeeper export``: :func:`export_range` for ``request.rev_range``, else
    :func:`export_commit` for ``request.rev``.

    Raises: as :func:`export_commit` and :func:`export_range`.
    """
    if request.rev_range is not None:
        return export_range(
            config,
            request.rev_range,
            checkout=request.checkout,
            tag=request.tag,
            normalise=request.normalise,
        )
    return export_commit(
        config,
        str(request.rev),
        checkout=request.checkout,
        output=request.output,
        tag=request.tag,
        normalise=request.normalise,
    )


def export_commit(
    config: Config,
    rev: str,
    *,
    checkout: Path | None = None,
    output: Path | None = None,
    tag: str | None = None,
    normalise: bool = False,
) -> ExportResult:
    """``patchkeeper export REV``: write one commit's patch file.

    The file is ``output``, else ``<patches>/<topic>.patch`` from a ``[TAG] <topic>`` subject.
    A subject that is no topic is written as the file's DEP-3 ``Description``
    (:func:`described`). When the file exists its form is kept
    (:mod:`patchkeeper.ledger.patch_form`) unless ``normalise``: then it is written in git's
    form.

    Raises:
        ExportError: the commit cannot be exported, no output is known, or the directory of
            ``output`` does not exist (none is created for ``-o``, as for the other file
            outputs: ``--markdown``, ``runtime port --output``, ``runtime lock --output``).
        GitError: the checkout or the revision does not exist.
    """
    if output is not None:
        output = _through_link(config, output)
    if output is not None and not output.expanduser().absolute().parent.is_dir():
        from patchkeeper.system.regular import not_a_directory

        parent = output.expanduser().absolute().parent
        there = not_a_directory(parent)
        raise ExportError(
            f"cannot write the patch file: {parent} {there}"
            if there
            else f"cannot write the patch file: no such directory: {parent}",
            path=output,
            hint="pass -o a file in a directory that exists (create it first)",
        )
    if output is not None:
        _refuse_own_file(config, output)
    root = _checkout(config, checkout)
    commit = gitops.commit_id(root, rev)
    notes = gitops.notes(root, git_settings(config).notes_ref)
    subject, _ = split_message(gitops.commit_message(root, commit))
    topic = _topic(config, tag, subject, commit)
    if output is None:
        if topic is None:
            raise ExportError(
                f"{commit[:12]} has no '[TAG] <topic>' subject: "
                f"{subject.decode(errors='replace')!r}",
                path=root,
                hint="pass -o FILE, or set the topic tag ([tool.patchkeeper.git] tag or --tag)",
            )
        output = config.patches_dir / file_names(config).get(topic, f"{topic}.patch")
    _refuse_link_out(config, [output])
    strip = _strips(config)(output)
    reference = None if normalise else reference_patch(output, strip)
    _, data = render_commit(
        root, commit, config, notes.get(commit), reference, describe=topic is None
    )
    changed = _write(output, data)
    unlisted = _unlisted(config, output)
    return ExportResult(
        patches=(ExportedPatch(topic, commit, output, changed),),
        series=None,
        root=config.root,
        unlisted=unlisted,
        series_file=config.series if unlisted else None,
    )


def _unlisted(config: Config, output: Path) -> tuple[str, ...]:
    """``(name,)`` when ``output`` is below the series file's directory and the series does
    not list it (``name`` as the series would: relative to that directory), else ``()``: a
    new topic's file is written, but ``apply`` and ``verify`` read the series, not the
    directory. No series file, or a file elsewhere (``-o /tmp/x.patch``): ``()``."""
    if not config.series.exists():
        return ()
    base = config.series.parent.resolve()
    try:
        name = output.expanduser().resolve().relative_to(base).as_posix()
    except ValueError:
        return ()
    listed = {entry.name for entry in parse_series(config.series).entries}
    return () if name in listed else (name,)


def _refuse_link_out(config: Config, outputs: list[Path]) -> None:
    """Refuse to write a patch file the series lists when its entry is a symbolic link
    leading outside the series directory: the link is shared on purpose (two series, one
    patch), and writing the file would read the linked file as its form and replace the
    link with a regular file. apply, audit and lint refuse that line with the same error.

    An output the series does not list that is a symbolic link (``-o`` naming one) is
    written through (:func:`_through_link`).

    Raises:
        PatchFormatError: naming the series file, the line and the entry (nothing written).
    """
    wanted = {os.path.abspath(path.expanduser()) for path in outputs}
    if config.series.exists():
        series = parse_series(config.series)
        for entry in series.entries:
            place = os.path.abspath(series.directory / entry.name)
            if place not in wanted:
                continue
            if entry_file_exists(series, entry):
                listed_patch(series, entry)


def _through_link(config: Config, output: Path) -> Path:
    """The file ``-o`` names: when it is a symbolic link the series does not list, the
    file it leads to, written as ``-o`` naming that file would (its form kept, the link
    left as it is), as a shell's ``>`` and the other file outputs write through a link
    (:func:`patchkeeper.system.atomic.write_output`); else ``output`` (a listed entry that
    is a link is :func:`_refuse_link_out`'s).

    Raises:
        ExportError: the link is a loop (nothing written).
    """
    from patchkeeper.system.atomic import output_path

    place = output.expanduser()
    if not os.path.islink(place):
        return output
    if config.series.exists():
        series = parse_series(config.series)
        absolute = os.path.abspath(place)
        if any(os.path.abspath(series.directory / e.name) == absolute for e in series.entries):
            return output
    try:
        return output_path(place)
    except OSError as exc:
        raise ExportError(
            f"cannot write the patch file: {exc.strerror}",
            path=output,
            hint="pass -o a file, or a link that leads to one",
        ) from None


def _refuse_own_file(config: Config, output: Path) -> None:
    """Refuse ``-o`` naming the configuration, the series file or the ledger file: the
    patch would replace it (``export REV -o patches/series`` replaced the series).

    Raises:
        ExportError: naming the file and what it is.
    """
    own = {config.series.resolve(): "the series file"}
    own[Path(ledger_settings(config).file).resolve()] = "the ledger file"
    if config.source is not None:
        own[config.source.resolve()] = "the configuration file"
    what = own.get(Path(output).resolve())
    if what is not None:
        raise ExportError(
            f"-o names {what}: the patch would replace it",
            path=output,
            hint="pass -o a patch file, e.g. -o patches/NAME.patch",
        )


def file_names(config: Config) -> dict[str, str]:
    """``{topic: series name}`` of the series' entries (``0001-fix.diff`` for topic
    ``0001-fix``): a topic the series lists is written to its file, whatever its suffix
    (:data:`patchkeeper.ledger.table.PATCH_SUFFIXES`); a new topic gets ``<topic>.patch``."""
    if not config.series.exists():
        return {}
    return {row_name(entry.name): entry.name for entry in parse_series(config.series).entries}


def _strips(config: Config) -> Callable[[Path], int]:
    """The strip level of the patch file at a path: the series entry's own (``-p0``) when
    the series lists the file with one, else the configured one. The path and the entries
    are compared resolved (a relative path from the current directory, through symbolic
    links), as :func:`_unlisted` and :func:`_refuse_own_file` compare ``-o``: ``-o`` as
    given (``patches/fix.patch``), absolute, or a link :func:`_through_link` followed is the
    one file, with the one level."""
    if not config.series.exists():
        return lambda path: config.strip
    levels = {
        (config.series.parent / entry.name).resolve(): entry.strip
        for entry in parse_series(config.series).entries
        if entry.strip is not None
    }
    return lambda path: levels.get(path.expanduser().resolve(), config.strip)


# --------------------------------------------------------------------------- a range


def range_topics(root: Path, rev_range: str, tag: str) -> list[tuple[str, str, bytes]]:
    """``(commit, topic, subject)`` for every commit of ``rev_range``, oldest first.

    Raises:
        ExportError: a commit whose subject is not ``[TAG] <topic>``, a merge, or a topic
            carried by two commits.
    """
    pattern = topic_pattern(tag)
    commits = gitops.rev_list(root, rev_range)
    messages = gitops.cat_file_batch(root, commits)
    out: list[tuple[str, str, bytes]] = []
    seen: dict[str, str] = {}
    for commit in commits:
        raw = messages[commit]
        _, _, message = raw.partition(b"\n\n")
        subject, _ = split_message(message)
        match = pattern.match(subject.decode("utf-8", "replace"))
        if match is None:
            raise ExportError(
                f"{commit[:12]} is not a topic commit: {subject.decode(errors='replace')!r}",
                path=root,
                hint=topic_hint(tag, subject.decode("utf-8", "replace")),
            )
        topic = match.group("topic")
        if topic in seen:
            raise ExportError(
                f"topic {topic} is carried by two commits: {seen[topic][:12]} and {commit[:12]}",
                path=root,
                hint="squash them into one commit per topic",
            )
        seen[topic] = commit
        out.append((commit, topic, subject))
    return out


def _series_lines(series: Path) -> tuple[list[bytes], dict[str, list[bytes]]]:
    """The series' leading comment block and ``{name: lines}`` of its entries: the entry's
    line and the comment and blank lines after it, up to the next entry (a commented-out
    entry such as numpy's ``#python3.11.patch`` stays where it was)."""
    if not series.exists():
        return [], {}
    lines = split_lines(series.read_bytes())
    entries = parse_series(series).entries
    first = entries[0].line_no - 1 if entries else len(lines)
    ends = [entry.line_no - 1 for entry in entries[1:]] + [len(lines)] if entries else []
    by_name = {
        entry.name: lines[entry.line_no - 1 : end] for entry, end in zip(entries, ends, strict=True)
    }
    return lines[:first], by_name


def series_bytes(series: Path, names: list[str]) -> tuple[bytes, tuple[str, ...]]:
    """The new series: its comment header, then ``names``; an old entry is kept with its
    options, its comment and the comment lines after it, so the same names in the same order
    give the same bytes. Returns the bytes and the names dropped."""
    head, old = _series_lines(series)
    if list(old) == names:
        return series.read_bytes(), ()
    body = [line for name in names for line in old.get(name, [f"{name}\n".encode()])]
    body = [line if line.endswith(b"\n") else line + b"\n" for line in body]
    dropped = tuple(name for name in old if name not in names)
    return b"".join(head + body), dropped


def export_range(
    config: Config,
    rev_range: str,
    *,
    checkout: Path | None = None,
    tag: str | None = None,
    normalise: bool = False,
) -> ExportResult:
    """``patchkeeper export --range BASE..BRANCH``: every topic commit to
    ``<patches>/<topic>.patch``, and the series rewritten in commit order. A file that
    exists keeps its form unless ``normalise`` (as :func:`export_commit`).

    Nothing is written when a commit is not a topic commit or a topic repeats; the patch
    files and the series are written in one transaction (:mod:`patchkeeper.trees.downstream`).

    Raises:
        ExportError: as :func:`range_topics` and :func:`commit_diff`.
        ConfigError: no topic tag is configured or given.
        PatchFormatError: the series lists a patch twice.
    """
    settings: GitSettings = git_settings(config)
    tag = tag or settings.tag
    if not tag:
        raise ConfigError(
            "no topic tag",
            path=config.source,
            hint='set tag = "NAME" in [tool.patchkeeper.git] or pass --tag NAME',
        )
    if ".." not in rev_range:
        raise ExportError(f"{rev_range!r} is not a range", hint="write BASE..BRANCH")
    if config.series.exists():
        # the rewrite keeps each listed entry's line: one listed twice would stay twice, and
        # the series be called unchanged, as ledger and apply refuse it
        refuse_listed_twice(parse_series(config.series))
    root = _checkout(config, checkout)
    topics = range_topics(root, rev_range, tag)
    notes = gitops.notes(root, settings.notes_ref)
    strips = _strips(config)
    known = file_names(config)
    names = {topic: known.get(topic, f"{topic}.patch") for _, topic, _ in topics}
    _refuse_link_out(config, [config.patches_dir / name for name in names.values()])

    def reference(topic: str) -> Patch | None:
        path = config.patches_dir / names[topic]
        return None if normalise else reference_patch(path, strips(path))

    rendered = [
        (commit, topic, render_commit(root, commit, config, notes.get(commit), reference(topic))[1])
        for commit, topic, _ in topics
    ]
    with locked_downstream(config):
        data, dropped = series_bytes(config.series, [names[topic] for _, topic, _ in rendered])
        changes = [Change(config.patches_dir / names[topic], patch) for _, topic, patch in rendered]
        changed = set(commit_files(config, [*changes, Change(config.series, data)]))
    written = [
        ExportedPatch(topic, commit, change.path, change.path in changed)
        for (commit, topic, _), change in zip(rendered, changes, strict=True)
    ]
    return ExportResult(
        patches=tuple(written),
        series=config.series,
        dropped=dropped,
        root=config.root,
        series_changed=config.series in changed,
    )


# --------------------------------------------------------------------------- lint's check


def exported_from(patch: Patch) -> tuple[str, int] | None:
    """The commit id and 1-based line of a patch's ``--- exported from`` line, if any."""
    for number, line in enumerate(split_lines(patch.preamble), 1):
        match = C.EXPORTED_FROM.match(line.rstrip(b"\r\n"))
        if match:
            return match.group("commit").decode("ascii"), number
    return None


def _first_difference(a: bytes, b: bytes) -> int:
    left, right = split_lines(a), split_lines(b)
    for number, (x, y) in enumerate(zip(left, right, strict=False), 1):
        if x != y:
            return number
    return min(len(left), len(right)) + 1


def reexport_checker(config: Config, checkout: Path) -> Callable[[Patch, str], list[Finding]]:
    """A function ``check(patch, where) -> findings`` comparing a patch with a re-export of
    the commit its ``--- exported from`` line names (PK302), or reporting that the commit is
    not in ``checkout`` (PK303). A commit made by ``import`` stands for the id its note
    records. The re-export keeps the patch's form, as ``export`` does
    (:mod:`patchkeeper.ledger.patch_form`): a changed line of a hunk is found, a section
    kept where it applies at an offset is not."""
    root = gitops.toplevel(checkout)
    notes = gitops.notes(root, git_settings(config).notes_ref)
    by_origin: dict[str, str] = {}
    for commit, note in notes.items():
        origin = NOTE_ORIGIN.search(note)
        if origin:
            by_origin[origin.group(1).decode()] = commit

    def check(patch: Patch, where: str) -> list[Finding]:
        found = exported_from(patch)
        if found is None:
            return []
        named, line = found
        if gitops.has_revision(root, f"{named}^{{commit}}"):
            commit = gitops.commit_id(root, named)
        elif named in by_origin:
            commit = by_origin[named]
        else:
            return [Finding("PK303", where, line, f"commit {named[:12]} is not in {root}")]
        try:
            subject, _ = split_message(gitops.commit_message(root, commit))
            describe = _topic(config, None, subject, commit) is None  # as export wrote it
            _, expected = render_commit(
                root, commit, config, notes.get(commit), patch, describe=describe
            )
        except ExportError as exc:
            message = f"cannot re-export {named[:12]}: {exc.message}"
            return [Finding("PK302", where, line, message, exc.hint or "")]
        if expected == patch.raw:
            return []
        at = _first_difference(patch.raw, expected)
        return [
            Finding("PK302", where, at, f"differs from re-exporting {named[:12]} (edited by hand?)")
        ]

    return check
