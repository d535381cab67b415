"""``patchkeeper import``: the series -> a branch of topic commits at the pin's tag.

The inverse of :mod:`patchkeeper.ledger.export`. In an upstream checkout, a branch is created at the
pin's tag (``v0.27.1``) with one commit per patch, in series order: subject
``[TAG] <topic>``, body = the patch's preamble up to its ``--- exported from`` line, author
and date from the mail headers (``From:``/``Date:``, as ``git format-patch`` and ``gbp pq``
write them) where present. Each commit gets a git note recording the commit id the file
named, so exporting the branch gives back the same files byte for byte.

Nothing but the new branch (and the notes ref) changes: trees are built in a temporary index
with ``git apply --cached`` (exact context, no fuzz), commits with ``git commit-tree`` (the
message is stored as given, no clean-up; a message that is not UTF-8 is declared Latin-1, so
git keeps its bytes), so the checkout's work tree, index and HEAD stay
as they were. Commits are deterministic: the committer is patchkeeper and every date without
a ``Date:`` header is the pin commit's, so importing the same series twice gives the same ids.
"""

from __future__ import annotations

import email.utils
import re
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from patchkeeper import constants as C
from patchkeeper.config import Config
from patchkeeper.errors import PatchkeeperError
from patchkeeper.ledger.export import content_hash
from patchkeeper.ledger.settings import pin_commit, topic_checkout
from patchkeeper.ledger.table import row_name
from patchkeeper.series.headers import parse_headers
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import load_patches, parse_series, split_lines
from patchkeeper.system.removal import remove_tree
from patchkeeper.upstream import gitops

#: The committer line of a commit object: ``committer Name <mail> 1700000000 +0000``
COMMITTER = re.compile(rb"^committer .* (\d+ [+-]\d{4})$", re.M)


class SeriesImportError(PatchkeeperError):
    """A patch does not apply to the tree built so far, or the branch already exists."""


@dataclass(frozen=True)
class ImportedCommit:
    """One commit made by ``import``: its topic, id, patch file, and recorded origin."""

    topic: str
    commit: str
    patch: Path
    origin: str | None


@dataclass(frozen=True)
class ImportResult:
    """What ``patchkeeper import`` made: ``branch`` at ``base`` plus ``commits``."""

    checkout: Path
    branch: str
    base: str
    commits: tuple[ImportedCommit, ...]

    @property
    def exit_code(self) -> int:
        return 0


def split_patch(patch: Patch) -> tuple[bytes, str | None, bytes]:
    """``(body, exported-from id or None, diff)`` of a patch file.

    The body is the preamble before the ``--- exported from`` line (the whole preamble when
    there is none); the diff is everything from the first file diff on.
    """
    lines = split_lines(patch.preamble)
    for index, line in enumerate(lines):
        match = C.EXPORTED_FROM.match(line.rstrip(b"\r\n"))
        if match:
            return (
                b"".join(lines[:index]),
                match.group("commit").decode(),
                patch.raw[len(patch.preamble) :],
            )
    return patch.preamble, None, patch.raw[len(patch.preamble) :]


def author_environment(body: bytes, default_date: str) -> dict[str, str]:
    """Author name, e-mail and date from the body's ``From:``/``Date:`` headers, if present.

    >>> body = b"From: A B <a@b.c>\\nDate: Thu, 8 Oct 2015 13:19:46 -0700\\n"
    >>> env = author_environment(body, "0 +0000")
    >>> env["GIT_AUTHOR_NAME"], env["GIT_AUTHOR_EMAIL"], env["GIT_AUTHOR_DATE"]
    ('A B', 'a@b.c', '1444335586 -0700')
    """
    env = {"GIT_AUTHOR_DATE": default_date, "GIT_COMMITTER_DATE": default_date}
    headers = parse_headers(body)
    sender = headers.value("From", aliases=False)
    if sender:
        name, address = email.utils.parseaddr(sender)
        if address:
            env["GIT_AUTHOR_NAME"] = name or address
            env["GIT_AUTHOR_EMAIL"] = address
    date = headers.value("Date", aliases=False)
    parsed = email.utils.parsedate_tz(date) if date else None
    if parsed is not None:
        offset = parsed[9] or 0
        sign = "-" if offset < 0 else "+"
        hours, minutes = divmod(abs(offset) // 60, 60)
        env["GIT_AUTHOR_DATE"] = f"{email.utils.mktime_tz(parsed)} {sign}{hours:02d}{minutes:02d}"
    return env


class IndexTree:
    """A temporary index in a checkout, started from a commit's tree.

    Use as a context manager; :meth:`apply` adds a diff, :meth:`add_files` adds bytes,
    :meth:`write_tree` stores the tree. The checkout's own index is never touched.
    """

    def __init__(self, checkout: Path, commit: str) -> None:
        self.checkout = checkout
        self.commit = commit
        self._directory = Path(tempfile.mkdtemp(prefix="patchkeeper-index-"))
        self.env = {"GIT_INDEX_FILE": str(self._directory / "index")}

    def __enter__(self) -> IndexTree:
        gitops.run(["read-tree", self.commit], self.checkout, env=self.env)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        remove_tree(self._directory, ignore_errors=True)

    def apply(self, diff: bytes, *, strip: int, directory: str, name: str, path: Path) -> None:
        """Apply ``diff`` with ``git apply --cached`` (exact context; offsets allowed).

        Raises:
            SeriesImportError: the diff does not apply, with git's reasons.
        """
        args = ["apply", "--cached", f"-p{strip}", "--whitespace=nowarn"]
        if directory:
            args.append(f"--directory={directory}")
        done = gitops.call([*args, "-"], self.checkout, input=diff, env=self.env)
        if done.returncode != 0:
            reasons = done.stderr.decode("utf-8", "replace").strip().replace("\n", "; ")
            raise SeriesImportError(
                f"{name} does not apply: {reasons}",
                path=path,
                hint="the patch is not cut against this tree; check the pin and the order",
            )

    def add_files(self, files: dict[str, bytes], directory: str) -> None:
        """Put ``files`` (``{path relative to directory: bytes}``) into the index."""
        records = []
        for relative, data in sorted(files.items()):
            blob = gitops.run_text(["hash-object", "-w", "--stdin"], self.checkout, input=data)
            full = f"{directory}/{relative}" if directory else relative
            records.append(f"100644 {blob}\t{full}\n")
        if records:
            gitops.run(
                ["update-index", "--add", "--index-info"],
                self.checkout,
                input="".join(records).encode("utf-8", "surrogateescape"),
                env=self.env,
            )

    def write_tree(self) -> str:
        """Store the index as a tree and return its id."""
        return gitops.run_text(["write-tree"], self.checkout, env=self.env)


def _message_encoding(message: bytes) -> list[str]:
    """The ``-c`` option that keeps ``message``'s bytes in the commit: none for UTF-8; for
    other bytes (a Latin-1 name in a Debian patch's description), ``ISO-8859-1``, which every
    byte sequence is. git stores a message in the declared encoding as given, with an
    ``encoding`` header; declared UTF-8, it rewrites the bytes that are not UTF-8 as if they
    were Latin-1 (commit.c, ``verify_utf8``), and the export would no longer give back the
    patch file's bytes."""
    try:
        message.decode("utf-8")
    except UnicodeDecodeError:
        return ["-c", "i18n.commitEncoding=ISO-8859-1"]
    return []


def _committer_date(checkout: Path, commit: str) -> str:
    match = COMMITTER.search(gitops.commit_object(checkout, commit).partition(b"\n\n")[0])
    return match.group(1).decode() if match else "0 +0000"


def _add_note(checkout: Path, ref: str, commit: str, origin: str, body: bytes, diff: bytes) -> None:
    text = f"exported-from {origin}\ncontent-sha256 {content_hash(body, diff)}\n"
    gitops.run(
        ["notes", f"--ref={ref}", "add", "-f", "-F", "-", commit], checkout, input=text.encode()
    )


@dataclass(frozen=True)
class ImportRequest:
    """What ``import`` is asked to do; each field is the option of the same parameter name,
    so the command builds it from click's parsed parameters.

    Attributes:
        checkout: the upstream git checkout (``--checkout``); default ``None``,
            ``[git] checkout``.
        branch: the branch to create (``--branch``); default ``None``, ``[git] branch`` with
            ``{pin}``/``{tag}`` filled.
        tag: the topic tag (``--tag``); default ``None``, ``[git] tag``.
        force: move an existing branch (``--force``); default ``False``.
    """

    checkout: Path | None = None
    branch: str | None = None
    tag: str | None = None
    force: bool = False


def import_series(config: Config, request: ImportRequest = ImportRequest()) -> ImportResult:
    """``patchkeeper import``: make a branch of topic commits from the series, as
    ``request`` says (:class:`ImportRequest`; default: everything from ``[git]``).

    Raises:
        SeriesImportError: the branch exists (without ``force``) or a patch does not apply;
            nothing is changed then.
        ConfigError: no checkout, pin or topic tag.
        GitError: the pin's tag is not in the checkout.
    """
    checkout, branch, tag, force = request.checkout, request.branch, request.tag, request.force
    settings, tag, chosen = topic_checkout(config, "import", checkout, tag)
    root = gitops.toplevel(chosen)
    base_name, base = pin_commit(config, root)
    given = branch
    branch = branch or settings.branch.format(pin=config.pin, tag=tag)
    gitops.check_branch_name(
        branch, root, "pass another --branch" if given else "fix branch in [git], or pass --branch"
    )
    ref = f"refs/heads/{branch}"
    current = gitops.rev_parse(root, ref) if gitops.has_revision(root, ref) else None
    if current is not None and not force:
        raise SeriesImportError(
            f"branch {branch} already exists",
            path=root,
            hint="pass --force to move it, or --branch NAME for another",
        )
    if current is not None:
        # moving the branch a work tree has checked out leaves its index and files behind
        # the new commits: git status would show the old branch's work as staged changes
        for place in gitops.checked_out_at(root, ref):
            raise SeriesImportError(
                f"branch {branch} is checked out in {place}: moving it would leave that work "
                "tree's files and index behind the new commits",
                path=root,
                hint=f"switch {place} to another branch first (git -C "
                f"{shlex.quote(str(place))} switch --detach), or pass --branch NAME for another",
            )
    patches = load_patches(parse_series(config.series), config.strip)
    date = _committer_date(root, base)
    made: list[tuple[ImportedCommit, bytes, bytes]] = []
    parent = base
    with IndexTree(root, base) as index:
        for patch in patches:
            body, origin, diff = split_patch(patch)
            topic = row_name(patch.name)
            if not patch.is_empty:  # an empty patch (no diff) is a commit of no change
                index.apply(
                    diff,
                    strip=patch.strip,
                    directory=config.directory,
                    name=patch.name,
                    path=patch.path,
                )
            tree = index.write_tree()
            message = f"[{tag}] {topic}\n".encode() + (b"\n" + body if body else b"")
            commit = gitops.run_text(
                [*_message_encoding(message), "commit-tree", tree, "-p", parent, "-F", "-"],
                root,
                input=message,
                env=author_environment(body, date),
            )
            made.append((ImportedCommit(topic, commit, patch.path, origin), body, diff))
            parent = commit
    gitops.update_ref(root, ref, parent, current if current is not None else "")
    for item, body, diff in made:
        if item.origin:
            _add_note(root, settings.notes_ref, item.commit, item.origin, body, diff)
    return ImportResult(
        checkout=root, branch=branch, base=base_name, commits=tuple(item for item, _, _ in made)
    )
