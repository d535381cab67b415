"""``patchkeeper check-branch``: the series and the integration branch say the same thing.

The series workflow's invariant (docs/glossary.md): applying the series to the pin's tag yields
exactly the tree of the integration branch, and the rows of the ledger and the commit
subjects on the branch match one to one. Both halves are checked here:

- files: the series is applied in memory by the engine (:mod:`patchkeeper.series.engine`, fuzz 0)
  to the files of the pin's tag, overlays are laid on top, and every path that either the
  series or the branch changes is compared byte for byte with the branch;
- topics: the ``[TAG] <topic>`` subjects of ``TAG..BRANCH``, in order, against the patch
  rows of the ledger table and the series. A commit without such a subject is the series
  patch that ``git format-patch`` wrote from it (``init`` on a git branch) when that patch's
  ``From <commit>`` line names it or its ``Subject:`` is the commit's subject: each patch
  matches one commit, in the series' order.

The downstream's own files (its configuration, ledger, series, patch files and state
directory) are never compared when the downstream lives in the checkout, as it does on a
vendor branch that carries the upstream's files: they are not made by the series, and a
commit that changes nothing else is not one of its patches.

Each difference is reported by file or by topic.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.constants import STATE_DIR
from patchkeeper.errors import ConfigError, GitError
from patchkeeper.jsonable import FILE_NAME
from patchkeeper.ledger.entries import overlay_files
from patchkeeper.ledger.export import split_message, topic_pattern
from patchkeeper.ledger.settings import (
    git_settings,
    ledger_settings,
    pin_commit,
    pin_tag,
    topic_checkout,
)
from patchkeeper.ledger.table import row_name, section_body, table_rows
from patchkeeper.series.engine import FileState, Workspace, apply_series, touched_paths
from patchkeeper.series.parse import load_patches, parse_series
from patchkeeper.upstream import gitops


@dataclass(frozen=True)
class BranchDifference:
    """One way the branch and the series disagree.

    Attributes:
        kind: ``"file"``, ``"topic"`` or ``"ledger"`` (the ledger file is missing or has no
            table; reported once instead of a difference per topic).
        name: the path (relative to the upstream root), the topic, or the ledger file
            (relative to the downstream root).
        detail: what differs.
    """

    kind: str
    name: str = field(metadata=FILE_NAME)
    detail: str


@dataclass(frozen=True)
class CheckBranchResult:
    """What ``patchkeeper check-branch`` found.

    Attributes:
        branch: the integration branch.
        base: the pin's tag.
        topics: the branch's topics in commit order.
        files: how many paths were compared.
        differences: every disagreement; empty when the branch and the files agree.
        hint: what to do about the differences, one sentence (``""`` when there are none,
            or only the ledger file's, which say what to do themselves): write the series
            from the branch, or the branch from the series.
    """

    branch: str
    base: str
    topics: tuple[str, ...]
    files: int
    differences: tuple[BranchDifference, ...]
    hint: str = ""

    @property
    def exit_code(self) -> int:
        return 1 if self.differences else 0


def ledger_names(text: str, begin: str, end: str, path: Path | None = None) -> list[str]:
    """The first cells of the table rows between the markers (:func:`table_rows`: header
    and rule skipped, ``\\|`` read as ``|``).

    Raises:
        PatchFormatError: the markers of ``path`` are not one pair.

    >>> ledger_names("<!-- b -->\\n| patch | kind |\\n|---|---|\\n| a | fix |\\n<!-- e -->\\n",
    ...              "<!-- b", "<!-- e")
    ['a']
    """
    return [row.name for row in table_rows(text, begin, end, path) or ()]


def branch_topics(
    root: Path,
    base: str,
    branch: str,
    tag: str,
    patches: Collection[tuple[str, str, str]] = (),
    own: Callable[[str], bool] = lambda path: False,
) -> tuple[list[str], list[BranchDifference]]:
    """The topics of ``base..branch`` in order, and a difference per commit that is neither a
    topic commit (``[TAG] <topic>``; none when ``tag`` is :data:`NO_TOPIC_TAG`) nor one of
    ``patches`` (``(topic, commit id, subject)`` of the series' ``git format-patch`` files,
    :func:`format_patch_origins`; each matches one commit). A commit that changes only the
    downstream's own files (``own``) is left out."""
    pattern = topic_pattern(tag) if tag != NO_TOPIC_TAG else None
    commits = gitops.rev_list(root, f"{base}..{branch}")
    messages = gitops.cat_file_batch(root, commits)
    unmatched = list(patches)
    topics, problems = [], []
    for commit in commits:
        message = messages[commit].partition(b"\n\n")[2]
        first, _ = split_message(message)
        match = pattern.match(first.decode("utf-8", "replace")) if pattern is not None else None
        if match is not None:
            topics.append(match.group("topic"))
            continue
        text = commit_subject(message)
        origin = next((p for p in unmatched if p[1] == commit), None) or next(
            (p for p in unmatched if p[2] == text), None
        )
        if origin is not None:
            unmatched.remove(origin)
            topics.append(origin[0])
        elif not _only_own(root, commit, own):
            problems.append(BranchDifference("topic", commit[:12], f"not a topic commit: {text!r}"))
    return topics, problems


def _has_topic_commits(root: Path, base: str, branch: str, tag: str) -> bool:
    """Whether a commit of ``base..branch`` is a topic commit (``[TAG] <topic>``): the branch
    is then the one ``import`` writes, whatever form the series' files have."""
    if tag == NO_TOPIC_TAG:
        return False
    pattern = topic_pattern(tag)
    commits = gitops.rev_list(root, f"{base}..{branch}")
    messages = gitops.cat_file_batch(root, commits)
    for commit in commits:
        first, _ = split_message(messages[commit].partition(b"\n\n")[2])
        if pattern.match(first.decode("utf-8", "replace")) is not None:
            return True
    return False


def commit_subject(message: bytes) -> str:
    """A commit's subject as git gives it (``git log --format=%s``, and the ``Subject:``
    that ``git format-patch`` writes): the lines of the message's first paragraph, each
    without the white space at its end, joined by a space.

    >>> commit_subject(b"Return three\\nfrom the core module  \\n\\nThe body.\\n")
    'Return three from the core module'
    """
    lines = []
    for line in message.decode("utf-8", "replace").split("\n"):
        if not line.strip():
            break
        lines.append(line.rstrip())
    return " ".join(lines)


def _only_own(root: Path, commit: str, own: Callable[[str], bool]) -> bool:
    """Whether ``commit`` changes files, all of them the downstream's own."""
    parent = f"{commit}^" if gitops.has_revision(root, f"{commit}^") else gitops.EMPTY_TREE
    changed = gitops.diff_names(root, parent, commit)
    return bool(changed) and all(own(path) for path in changed)


_FROM_LINE = re.compile(rb"^From ([0-9a-f]{40}) ")
_PATCH_PREFIX = re.compile(r"^\[PATCH[^\]]*\]\s*")


def format_patch_origin(data: bytes) -> tuple[str, str] | None:
    """The commit id and the subject of a ``git format-patch`` file (its ``From <id>`` first
    line, its ``Subject:`` header unfolded and its RFC 2047 words decoded, as git writes a
    long or non-ASCII subject, without the ``[PATCH ...]`` prefix), ``None`` for a patch of
    another form.

    >>> format_patch_origin(b"From " + b"ab" * 20 + b" Mon Sep 17 00:00:00 2001\\n"
    ...                     b"Subject: [PATCH] Return\\n two\\n\\ndiff --git a/x b/x\\n")[1]
    'Return two'
    >>> format_patch_origin(b"From " + b"ab" * 20 + b" Mon Sep 17 00:00:00 2001\\n"
    ...                     b"Subject: [PATCH] =?UTF-8?q?Gr=C3=B6=C3=9Fe?=\\n"
    ...                     b" =?UTF-8?q?=20two?=\\n")[1]
    'Größe two'
    >>> format_patch_origin(b"Description: x\\n") is None
    True
    """
    match = _FROM_LINE.match(data)
    if match is None:
        return None
    header = _FOLD.sub("", data.split(b"\n\n", 1)[0].decode("utf-8", "replace"))
    subject = next((line[9:] for line in header.split("\n") if line.startswith("Subject: ")), "")
    return match.group(1).decode(), _PATCH_PREFIX.sub("", _decoded_words(subject)).strip()


#: A header's line break before a continuation line (RFC 5322 unfolding removes it).
_FOLD = re.compile(r"\r?\n(?=[ \t])")


def _decoded_words(value: str) -> str:
    """A header's value with its RFC 2047 encoded words (``=?UTF-8?q?...?=``) decoded, as
    ``git format-patch`` writes a subject that is not ASCII; as it is when a word names a
    charset Python does not know or is malformed."""
    if "=?" not in value:
        return value
    from email.errors import HeaderParseError
    from email.header import decode_header, make_header

    try:
        return str(make_header(decode_header(value)))
    except (LookupError, HeaderParseError, UnicodeDecodeError):
        return value


def format_patch_origins(config: Config) -> list[tuple[str, str, str]]:
    """``(topic, commit id, subject)`` of each series patch that ``git format-patch`` wrote,
    in series order (:func:`format_patch_origin`)."""
    series = parse_series(config.series)
    out = []
    for entry in series.entries:
        try:
            data = (series.directory / entry.name).read_bytes()
        except OSError:  # a missing patch is reported by the file comparison
            continue
        origin = format_patch_origin(data)
        if origin is not None:
            out.append((row_name(entry.name), *origin))
    return out


def own_files(config: Config, root: Path) -> Callable[[str], bool]:
    """Whether a path of the checkout ``root`` is one of the downstream's own files: its
    configuration file, ledger file, series file, the patches the series lists and its
    state directory (:data:`STATE_DIR`). None is when the downstream is not in ``root``."""
    top = root.resolve()
    names: set[str] = set()
    directories: list[str] = []
    series = parse_series(config.series)
    candidates = [
        config.source,
        ledger_settings(config).file,
        config.series,
        *(series.directory / entry.name for entry in series.entries),
    ]
    for path in candidates:
        real = Path(path).resolve()
        if real.is_relative_to(top) and real.name != "pyproject.toml":
            names.add(real.relative_to(top).as_posix())
    state = (config.root / STATE_DIR).resolve()
    if state.is_relative_to(top):
        directories.append(state.relative_to(top).as_posix() + "/")

    def own(path: str) -> bool:
        return path in names or any(path.startswith(d) for d in directories)

    return own


def compare_topics(
    branch: list[str], series: list[str], ledger: list[str] | None
) -> list[BranchDifference]:
    """Topics on the branch against the series and the ledger rows, one to one, in order
    (``ledger`` ``None``: there is no ledger table to compare, said once by the caller)."""
    out = []
    seen: set[str] = set()
    for topic in branch:
        if topic in seen:
            out.append(BranchDifference("topic", topic, "on the branch twice"))
            continue
        seen.add(topic)
        if topic not in series:
            out.append(BranchDifference("topic", topic, "on the branch, not in the series"))
        if ledger is not None and topic not in ledger:
            out.append(BranchDifference("topic", topic, "on the branch, not in the ledger"))
    for topic in series:
        if topic not in branch:
            out.append(BranchDifference("topic", topic, "in the series, not on the branch"))
    for topic in ledger or ():
        if topic not in branch:
            out.append(BranchDifference("topic", topic, "in the ledger, not on the branch"))
    common = [t for t in series if t in branch]
    on_branch = list(dict.fromkeys(t for t in branch if t in series))
    for position, (want, have) in enumerate(zip(common, on_branch, strict=False), 1):
        if want != have:
            out.append(
                BranchDifference(
                    "topic", want, f"series position {position}, but the branch has {have} there"
                )
            )
            break
    return out


def _reader(
    root: Path, rev: str, directory: str, paths: list[str]
) -> Callable[[str], FileState | None]:
    """The files ``paths`` (relative to ``directory``) at ``rev``, with their content and
    permission bits as git records them (``100755``: executable), so that a series' mode
    change (``old mode``/``new mode``) is compared as its content is."""
    prefix = f"{directory}/" if directory else ""
    blobs = gitops.cat_file_batch(root, [f"{rev}:{prefix}{path}" for path in paths])
    try:
        modes = {path: mode for path, (mode, _blob) in gitops.ls_tree(root, rev, directory).items()}
    except GitError:  # no such directory at rev: every file is absent, read as before
        modes = {}

    def read(path: str) -> FileState | None:
        key = f"{rev}:{prefix}{path}"
        mode = _mode_bits(modes.get(path))
        if key in blobs:
            return FileState.from_bytes(blobs[key], mode)
        try:
            return FileState.from_bytes(gitops.show_file(root, rev, f"{prefix}{path}"), mode)
        except GitError:
            return None

    return read


def _mode_bits(mode: str | None) -> int | None:
    """The permission bits of a git mode (``"100755"`` -> ``0o755``), ``None`` when unknown.

    >>> oct(_mode_bits("100755")), _mode_bits(None)
    ('0o755', None)
    """
    return int(mode[-3:], 8) if mode else None


def _mode_difference(expected: FileState, actual: FileState) -> str:
    """How the branch's file differs from the series' in its executable bit, ``""`` when it
    does not (or a mode is unknown: a plain diff that creates a file says none)."""
    if expected.mode is None or actual.mode is None:
        return ""
    if bool(expected.mode & 0o111) == bool(actual.mode & 0o111):
        return ""
    return (
        f"mode {actual.mode:o} on the branch, {expected.mode:o} from the series "
        "(the executable bit differs)"
    )


def compare_files(
    config: Config,
    root: Path,
    base: str,
    branch: str,
    own: Callable[[str], bool] = lambda path: False,
) -> tuple[int, list[BranchDifference]]:
    """Apply the series (and overlays) to ``base`` in memory; compare with ``branch``,
    leaving out the downstream's own files (``own``, :func:`own_files`)."""
    directory = config.directory
    patches = load_patches(parse_series(config.series), config.strip)
    changed = [path for path in gitops.diff_names(root, base, branch) if not own(path)]
    prefix = f"{directory}/" if directory else ""
    out = [
        BranchDifference("file", path, f"changed on the branch outside {directory}/")
        for path in changed
        if not path.startswith(prefix)
    ]
    on_branch = [path[len(prefix) :] for path in changed if path.startswith(prefix)]
    overlays = overlay_files(config)
    paths = list(dict.fromkeys([*touched_paths(patches), *on_branch, *overlays]))
    workspace = Workspace(_reader(root, base, directory, paths))
    for outcome in apply_series(workspace, patches):
        if not outcome.ok:
            where = ", ".join(f"{o.path} hunk #{f.hunk.index}" for o, f in outcome.failures[:3])
            problem = next((o.problem for o in outcome.files if o.problem), None)
            detail = where or problem or "does not apply"
            out.append(
                BranchDifference("topic", row_name(outcome.patch.name), f"does not apply: {detail}")
            )
            return len(paths), out
    for path, data in overlays.items():
        workspace.set(path, FileState.from_bytes(data))
    branch_files = _reader(root, branch, directory, paths)
    for path in paths:
        expected, actual = workspace.get(path), branch_files(path)
        shown = f"{prefix}{path}"
        if expected is None and actual is not None:
            out.append(BranchDifference("file", shown, "on the branch, not made by the series"))
        elif expected is not None and actual is None:
            out.append(BranchDifference("file", shown, "made by the series, not on the branch"))
        elif expected is not None and actual is not None and expected.data != actual.data:
            line = _first_line_difference(expected.data, actual.data)
            out.append(BranchDifference("file", shown, f"differs from the branch at line {line}"))
        elif expected is not None and actual is not None and _mode_difference(expected, actual):
            out.append(BranchDifference("file", shown, _mode_difference(expected, actual)))
    return len(paths), out


def _first_line_difference(a: bytes, b: bytes) -> int:
    left, right = a.split(b"\n"), b.split(b"\n")
    for number, (x, y) in enumerate(zip(left, right, strict=False), 1):
        if x != y:
            return number
    return min(len(left), len(right)) + 1


def _ledger_rows(
    config: Config, entry_names: set[str]
) -> tuple[list[str] | None, BranchDifference | None]:
    """The ledger table's patch rows (entries left out), or ``None`` and the one difference
    that says why there is no table: the file is missing, or has no markers."""
    settings = ledger_settings(config)
    path = settings.file
    shown = path.relative_to(config.root).as_posix() if path.is_relative_to(config.root) else path
    markers = f"{settings.begin_marker} --> and {settings.end_marker}"
    if not path.is_file():
        detail = (
            f"the ledger file does not exist: create it with the lines {markers}, then run "
            "'patchkeeper ledger'"
        )
        return None, BranchDifference("ledger", str(shown), detail)
    # bytes kept as they are, as the ledger writes them (:mod:`patchkeeper.ledger.table`)
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    if section_body(text, settings.begin_marker, settings.end_marker, path) is None:
        detail = (
            f"the ledger file has no table: add the lines {markers} where it goes, then run "
            "'patchkeeper ledger'"
        )
        return None, BranchDifference("ledger", str(shown), detail)
    names = ledger_names(text, settings.begin_marker, settings.end_marker, path)
    return [name for name in names if name not in entry_names], None


@dataclass(frozen=True)
class CheckBranchRequest:
    """What ``check-branch`` is asked to do; each field is the argument or option of the
    same parameter name, so the command builds it from click's parsed parameters.

    Attributes:
        checkout: the upstream git checkout (``--checkout``); default ``None``,
            ``[git] checkout`` (for a series ``git format-patch`` wrote, else the repository
            the downstream lives in when it holds the pin's tag).
        branch: the integration branch (the ``BRANCH`` argument); default ``None``,
            ``[git] branch`` with ``{pin}``/``{tag}`` filled.
        tag: the topic tag (``--tag``); default ``None``, ``[git] tag`` (for a series
            ``git format-patch`` wrote, none is needed).
    """

    checkout: Path | None = None
    branch: str | None = None
    tag: str | None = None


def check_branch(
    config: Config, request: CheckBranchRequest = CheckBranchRequest()
) -> CheckBranchResult:
    """``patchkeeper check-branch [BRANCH]``, as ``request`` says
    (:class:`CheckBranchRequest`; default: everything from ``[git]``).

    Raises:
        ConfigError: no checkout, or no topic tag for a series that ``git format-patch``
            did not write.
        GitError: the pin's tag or the branch is not in the checkout.
        PatchFormatError: the series or a patch is missing or malformed.
    """
    checkout, branch, tag = request.checkout, request.branch, request.tag
    origins = format_patch_origins(config)
    settings = git_settings(config)
    if origins:  # commits are matched by their patches: no topic tag needed
        tag = tag or settings.tag or NO_TOPIC_TAG
        checkout = checkout or settings.checkout or _own_checkout(config)
        if checkout is None:
            raise _no_checkout(config)
    if tag == NO_TOPIC_TAG and checkout is not None:
        chosen = Path(checkout)
    else:
        settings, tag, chosen = topic_checkout(config, "check-branch", checkout, tag)
    root = gitops.toplevel(chosen)
    base, base_id = pin_commit(config, root)
    if branch:
        branch_id = gitops.commit_id(root, branch)
    else:
        branch = settings.branch.format(pin=config.pin, tag=tag)
        branch_id = _configured_branch(root, branch, settings.branch)
    own = own_files(config, root)
    topics, differences = branch_topics(root, base_id, branch_id, tag, origins, own)
    series_topics = [row_name(e.name) for e in parse_series(config.series).entries]
    from patchkeeper.ledger.entries import load_entries

    entry_names = {entry.name for entry in load_entries(config)}
    ledger, problem = _ledger_rows(config, entry_names)
    if problem is not None:
        differences.append(problem)
    differences += compare_topics(
        [t for t in topics if t not in entry_names], series_topics, ledger
    )
    count, files = compare_files(config, root, base_id, branch_id, own)
    found = tuple(differences + files)
    return CheckBranchResult(
        branch=branch,
        base=base,
        topics=tuple(topics),
        files=count,
        differences=found,
        # a ledger file without its table says itself what to do; the others are the
        # branch and the series apart
        # a series git format-patch wrote is matched by its patches; a branch of topic
        # commits is the topic workflow's (import wrote it), which export and import keep in
        # step with the series' own file names (a Debian series exported by gbp pq)
        hint=(
            _format_patch_hint(config, root, base, branch)
            if origins and not _has_topic_commits(root, base_id, branch_id, tag)
            else _sync_hint(root, base, branch, request)
        )
        if any(d.kind != "ledger" for d in found)
        else "",
    )


def _configured_branch(root: Path, branch: str, form: str) -> str:
    """The commit of ``branch``, the integration branch ``[git] branch`` (``form``, default
    ``patchkeeper/{pin}``) names when no BRANCH is given. A checkout without it (a branch
    named otherwise, a series ``init`` wrote from the commits of the checked-out branch) is
    told to name the branch and where the name it looked for came from, with the branch
    checked out there as the likely one.

    Raises:
        GitError: no such branch in ``root``.
    """
    if gitops.has_revision(root, f"{branch}^{{commit}}"):
        return gitops.commit_id(root, branch)
    current = gitops.call(["symbolic-ref", "--quiet", "--short", "HEAD"], root)
    name = current.stdout.decode("utf-8", "surrogateescape").strip()
    given = f"'patchkeeper check-branch {name}'" if name else "'patchkeeper check-branch BRANCH'"
    raise GitError(
        f"no branch {branch!r} in {root}: with no BRANCH given, check-branch reads the "
        f"branch [git] branch names ({form!r})",
        path=root,
        hint=f"name the integration branch: {given}, or set branch in the configuration's "
        "[git] table",
    )


#: The topic tag of a series ``git format-patch`` wrote when none is configured: its commits
#: are matched by their patches, and no subject has this tag (``[]`` holds no name).
NO_TOPIC_TAG = ""


def _own_checkout(config: Config) -> Path | None:
    """The git repository the downstream lives in, when it holds the pin's tag (a vendor
    branch over the upstream's files); ``None`` otherwise, so that the checkout is asked for."""
    try:
        root = gitops.toplevel(config.root)
        pin_commit(config, root)
    except (GitError, ConfigError):
        return None
    return root


def _no_checkout(config: Config) -> ConfigError:
    """The error of a series ``git format-patch`` wrote when no checkout is given or
    configured and the downstream does not live in one (:func:`_own_checkout`): the
    checkout is all that is missing, its commits being matched by their patches."""
    try:
        root = gitops.toplevel(config.root)
    except GitError:
        where = f"the downstream ({config.root}) is in no git repository"
    else:
        where = f"the repository the downstream is in ({root}) has no tag {pin_tag(config)}"
    return ConfigError(
        f"check-branch needs an upstream checkout: none is given or configured, and {where}",
        path=config.source,
        hint="set checkout in [tool.patchkeeper.git], or pass --checkout (a git checkout "
        "of the upstream that holds the pin's tag)",
    )


def _format_patch_hint(config: Config, root: Path, base: str, branch: str) -> str:
    """How to make a series ``git format-patch`` wrote agree with the branch: its patches
    written again as ``init`` wrote them (``git format-patch -N --no-signature``), the
    downstream's own files left out by pathspec when it lives in the checkout (so that a
    commit changing only them is no patch, as it is no commit of the series here), the
    series file listing them, and ``ledger``: ``export --range`` reads ``[TAG] <topic>``
    commits and ``import`` makes them, and such a series has none.
    When the downstream is elsewhere the branch can be made from the series too: its patches
    applied with ``git am`` on the pin's tag."""
    top = root.resolve()
    series = parse_series(config.series)
    directory = series.directory.resolve()
    inside = directory != top and directory.is_relative_to(top)
    output = directory.relative_to(top).as_posix() if inside else str(directory)
    own = [config.source, ledger_settings(config).file, config.root / STATE_DIR]
    if inside:  # the directory is the patches': format-patch writes it
        own.append(directory)
    else:
        own += [config.series, *(series.directory / entry.name for entry in series.entries)]
    excluded: dict[str, None] = {}
    for path in own:
        real = Path(path).resolve() if path is not None else None
        if real is None or real == top or not real.is_relative_to(top) or not real.exists():
            continue
        if real.name != "pyproject.toml":  # the upstream's, as in :func:`own_files`
            excluded[f":^{real.relative_to(top).as_posix()}"] = None
    argv = ["git", "-C", str(root), "format-patch", "-N", "--no-signature", "-o", output]
    argv += [f"{base}..{branch}", *(["--", ".", *excluded] if excluded else [])]
    shown = config.series
    if shown.is_relative_to(config.root):
        shown = shown.relative_to(config.root)
    left_out = " (the commits that change only the downstream's files left out)"
    hint = (
        f"to take the branch's work into the series, write its patches again with git "
        f"format-patch as init does{left_out if excluded else ''}: {shlex.join(argv)}; "
        f"then list the files it writes in {shown} in place of the old ones and run "
        "'patchkeeper ledger'"
    )
    if not config.root.resolve().is_relative_to(top):
        hint += (
            f"; to make the branch from the series, apply the patches that {shown} lists "
            f"with 'git am', in its order, on a branch made at {base}"
        )
    return hint


def _sync_hint(root: Path, base: str, branch: str, request: CheckBranchRequest) -> str:
    """The two ways to make the branch and the series agree, each a command line, with the
    ``--checkout`` and ``--tag`` check-branch was given (the configured ones otherwise); the
    second after switching a work tree that has the branch checked out to another branch
    (``import`` does not move such a branch)."""
    places = gitops.checked_out_at(root, f"refs/heads/{branch}")
    switch = (
        f" after 'git -C {shlex.quote(str(places[0]))} switch --detach' (it has the branch "
        "checked out)"
        if places
        else ""
    )
    given = ""
    if request.checkout is not None:
        given += f" --checkout {shlex.quote(str(request.checkout))}"
    if request.tag is not None:
        given += f" --tag {shlex.quote(request.tag)}"
    span = shlex.quote(f"{base}..{branch}")
    return (
        f"to take the branch's work into the series, run 'patchkeeper export --range {span}"
        f"{given}' and then 'patchkeeper ledger'; to make the branch from the series, "
        f"'patchkeeper import --branch {shlex.quote(branch)} --force{given}'{switch}"
    )
