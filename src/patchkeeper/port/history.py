"""Upstream history as evidence, from a git checkout that has both pins' tags.

Two questions (the series workflow, docs/glossary.md: "each conflict gets its cause from
``git log v<old>..v<new> -- <file>``"):

- does the new pin carry a referenced pull request? A ``PROJECT #NUMBER`` in ``Upstream:`` or
  ``Retires-when:`` (or a pull request or commit URL in DEP-3's ``Origin``,
  ``Applied-Upstream``, ``Bug``, ``Forwarded``) is looked up as a commit whose subject ends in
  ``(#NUMBER)`` (the squash-merge convention) or a merge whose subject starts
  ``Merge pull request #NUMBER``; the answer names the commit and the first tag containing it;
- which upstream commits between the tags changed the lines a failing hunk needs: the hunk's
  pre-image is found in the old pin's file, its range carried to the new pin through
  ``git diff -U0``, and ``git log -L`` over that range lists the commits; when the range
  cannot be followed, ``git log OLD..NEW -- FILE`` lists the commits that changed the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import GitError
from patchkeeper.series.headers import parse_headers
from patchkeeper.series.hunks import closest_match
from patchkeeper.series.model import Hunk, Patch
from patchkeeper.series.parse import split_lines
from patchkeeper.upstream import gitops

#: ``vllm #50021 (open)``, ``upstream PR (syv-ai #94/#110)``
PROJECT_REFERENCE = re.compile(r"(?P<project>[A-Za-z0-9][\w.-]*)\s+(?P<numbers>#\d+(?:/#\d+)*)")
#: ``https://github.com/urllib3/urllib3/pull/3432``
PULL_URL = re.compile(r"/(?P<repo>[\w.-]+)/pull/(?P<number>\d+)")
#: ``https://github.com/urllib3/urllib3/commit/f05b1329126d5be6de501f9d1e3e36738bc08857``
COMMIT_URL = re.compile(r"/(?P<repo>[\w.-]+)/commit/(?P<sha>[0-9a-f]{7,40})\b")
#: Fields whose ``PROJECT #NUMBER`` references are looked up (the ledger schema).
REFERENCE_FIELDS = ("upstream", "retires-when")
#: DEP-3 fields whose URLs are looked up.
URL_FIELDS = ("origin", "applied-upstream", "bug", "forwarded")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

IN_NEW = "in the new pin"
IN_OLD = "already in the old pin"
LATER = "not in the new pin"
NOT_FOUND = "not found"


@dataclass(frozen=True)
class Commit:
    """An upstream commit: full id and subject."""

    id: str
    subject: str


@dataclass(frozen=True)
class Reference:
    """A header's reference to an upstream change, and whether the new pin carries it.

    Attributes:
        field: the header field (``Upstream``).
        text: the reference as written (``vllm #50021``, a URL).
        status: :data:`IN_NEW`, :data:`IN_OLD`, :data:`LATER` or :data:`NOT_FOUND`.
        commit: the matching commit, if found.
        first_tag: the first tag (in version order) that contains it.
    """

    field: str
    text: str
    status: str
    commit: Commit | None = None
    first_tag: str | None = None


@dataclass(frozen=True)
class Cause:
    """The upstream commits between the pins that changed a failing hunk's lines.

    Attributes:
        path: the patch path; hunk, header: the hunk.
        old_range, new_range: ``(first, last)`` 1-based lines in the old and new pin's file.
        commits: commits that changed those lines (``git log -L``).
        file_commits: commits that changed the file, when the lines could not be followed.
        note: why the lines could not be followed, or ``""``.
    """

    path: str
    hunk: int
    header: str
    old_range: tuple[int, int] | None
    new_range: tuple[int, int] | None
    commits: tuple[Commit, ...] = ()
    file_commits: tuple[Commit, ...] = ()
    note: str = ""


def header_fields(preamble: bytes) -> list[tuple[str, str]]:
    """``(lower-case name, unfolded value)`` of every header field of a preamble."""
    return [(item.key, item.value) for item in parse_headers(preamble).fields]


def _written(value: str, match: re.Match[str]) -> str:
    """The URL ``match`` (a :data:`PULL_URL` or :data:`COMMIT_URL` match) is part of, as the
    header writes it: the run of non-blank characters around it, without the punctuation
    that separates it from the next (``https://github.com/o/p/pull/480`` for the match
    ``/p/pull/480``; a ``Bug:`` field lists several, comma-separated).

    >>> value = "see https://github.com/o/pkg/pull/480, and more"
    >>> _written(value, PULL_URL.search(value))
    'https://github.com/o/pkg/pull/480'
    """
    start, end = match.start(), match.end()
    while start > 0 and not value[start - 1].isspace():
        start -= 1
    while end < len(value) and not value[end].isspace():
        end += 1
    return value[start:end].lstrip("<(").rstrip(".,;:)>")


def _same_project(name: str, projects: set[str]) -> bool:
    return name.lower().replace("_", "-") in projects


class UpstreamHistory:
    """Look-ups in an upstream checkout between the tags of two pins.

    Args:
        repo: the checkout.
        old_tag, new_tag: the pins' tags (see :func:`find_tag`).
        directory: where patch paths start inside the checkout (``vllm``, or ``""``).
        projects: names that ``PROJECT #NUMBER`` must use to mean this upstream.
    """

    def __init__(
        self, repo: Path, old_tag: str, new_tag: str, directory: str, projects: set[str]
    ) -> None:
        self.repo = repo
        self.old_tag = old_tag
        self.new_tag = new_tag
        self.directory = directory.strip("/")
        self.projects = {p.lower().replace("_", "-") for p in projects if p}

    @property
    def label(self) -> str:
        return f"{self.repo} ({self.old_tag}..{self.new_tag})"

    def repo_path(self, path: str) -> str:
        return f"{self.directory}/{path}" if self.directory else path

    # ----------------------------------------------------------------- references

    def references(self, patch: Patch) -> list[Reference]:
        """Every reference in ``patch``'s headers, looked up."""
        out = []
        for name, value in header_fields(patch.preamble):
            if name in REFERENCE_FIELDS:
                for match in PROJECT_REFERENCE.finditer(value):
                    if not _same_project(match.group("project"), self.projects):
                        continue
                    for number in re.findall(r"\d+", match.group("numbers")):
                        text = f"{match.group('project')} #{number}"
                        out.append(self._pull(name.capitalize(), text, int(number)))
            if name in URL_FIELDS:
                for match in PULL_URL.finditer(value):
                    if _same_project(match.group("repo"), self.projects):
                        number = int(match.group("number"))
                        text = _written(value, match)
                        out.append(self._pull(name.capitalize(), text, number))
                for match in COMMIT_URL.finditer(value):
                    if _same_project(match.group("repo"), self.projects):
                        text = _written(value, match)
                        out.append(self._commit(name.capitalize(), text, match["sha"]))
        return out

    def _pull(self, field: str, text: str, number: int) -> Reference:
        squash = f"(#{number})"
        merge = f"Merge pull request #{number} "
        log = gitops.run(
            [
                "log",
                "--tags",
                self.new_tag,
                "-F",
                f"--grep={squash}",
                f"--grep={merge}",
                "--format=%H%x00%s",
            ],
            self.repo,
        ).decode("utf-8", "replace")
        found = []
        for line in log.splitlines():
            commit_id, _, subject = line.partition("\0")
            if subject.rstrip().endswith(squash) or subject.startswith(merge):
                found.append(Commit(commit_id, subject))
        return self._placed(field, text, found)

    def _commit(self, field: str, text: str, sha: str) -> Reference:
        done = gitops.call(["rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}"], self.repo)
        if done.returncode != 0:
            return Reference(field, text, NOT_FOUND)
        commit_id = done.stdout.decode().strip()
        subject = gitops.run_text(["log", "-1", "--format=%s", commit_id], self.repo)
        return self._placed(field, text, [Commit(commit_id, subject)])

    def _placed(self, field: str, text: str, found: list[Commit]) -> Reference:
        best: Reference | None = None
        rank = {IN_NEW: 0, IN_OLD: 1, LATER: 2}
        for commit in found:
            if self._contains(self.old_tag, commit.id):
                status = IN_OLD
            elif self._contains(self.new_tag, commit.id):
                status = IN_NEW
            else:
                status = LATER
            tags = gitops.run_text(
                ["tag", "--sort=version:refname", "--contains", commit.id], self.repo
            ).split()
            candidate = Reference(field, text, status, commit, tags[0] if tags else None)
            if best is None or rank[status] < rank[best.status]:
                best = candidate
        return best or Reference(field, text, NOT_FOUND)

    def _contains(self, tag: str, commit: str) -> bool:
        done = gitops.call(["merge-base", "--is-ancestor", commit, tag], self.repo)
        return done.returncode == 0

    # ----------------------------------------------------------------- causes

    def _blob_lines(self, tag: str, path: str) -> list[bytes] | None:
        done = gitops.call(["cat-file", "blob", f"{tag}:{path}"], self.repo)
        return split_lines(done.stdout) if done.returncode == 0 else None

    def _log(self, args: list[str]) -> tuple[Commit, ...]:
        out = gitops.run(["log", "--format=%x01%H%x00%s", *args], self.repo)
        commits = []
        for record in out.decode("utf-8", "replace").split("\x01")[1:]:
            head = record.split("\n", 1)[0]
            commit_id, _, subject = head.partition("\0")
            commits.append(Commit(commit_id, subject))
        return tuple(commits)

    def file_commits(self, path: str) -> tuple[Commit, ...]:
        """``git log OLD..NEW -- FILE``: the commits between the pins that changed the file."""
        return self._log([f"{self.old_tag}..{self.new_tag}", "--", self.repo_path(path)])

    def cause(self, path: str, hunk: Hunk) -> Cause:
        """The commits between the pins that changed the lines ``hunk`` needs in ``path``."""
        repo_path = self.repo_path(path)
        old_lines = self._blob_lines(self.old_tag, repo_path)
        base = Cause(path, hunk.index, hunk.header, None, None)
        if old_lines is None or not hunk.pre_image:
            note = "the old pin has no such file" if old_lines is None else "the hunk adds a file"
            return _with(base, file_commits=self.file_commits(path), note=note)
        closest = closest_match(old_lines, hunk.pre_image, hunk.old_start)
        if closest is None:
            return _with(
                base,
                file_commits=self.file_commits(path),
                note="the hunk's lines are not in the old pin's file",
            )
        old_range = (closest.line, closest.line + len(hunk.pre_image) - 1)
        new_lines = self._blob_lines(self.new_tag, repo_path)
        if new_lines is None:
            return _with(
                base,
                old_range=old_range,
                file_commits=self.file_commits(path),
                note="the file is gone from the new pin",
            )
        new_range = self._carry_range(repo_path, old_range, len(new_lines))
        commits = self._log(
            [
                "-s",
                f"-L{new_range[0]},{new_range[1]}:{repo_path}",
                f"{self.old_tag}..{self.new_tag}",
            ]
        )
        return _with(base, old_range=old_range, new_range=new_range, commits=commits)

    def _carry_range(self, repo_path: str, old: tuple[int, int], length: int) -> tuple[int, int]:
        """Carry a line range of the old pin's file to the new pin's (``git diff -U0``)."""
        diff = gitops.run(
            ["diff", "-U0", *gitops.DIFF_OPTIONS, self.old_tag, self.new_tag, "--", repo_path],
            self.repo,
        )
        hunks = []
        for line in split_lines(diff):
            match = _HUNK.match(line)
            if match:
                a, b, c, d = (int(g) if g is not None else 1 for g in match.groups())
                hunks.append((a, b, c, d))
        first = _carry_line(old[0], hunks, start=True)
        last = _carry_line(old[1], hunks, start=False)
        first = min(max(first, 1), max(length, 1))
        last = min(max(last, first), max(length, 1))
        return first, last


def _carry_line(line: int, hunks: list[tuple[int, int, int, int]], *, start: bool) -> int:
    """Line ``line`` of the old file in the new one, through ``-U0`` hunks ``(a, b, c, d)``.

    A line inside a changed block goes to the block's first (``start``) or last new line;
    others shift by the blocks before them. (``@@ -a,0`` inserts after line a; ``+c,0``
    deletes after new line c: unified diff's convention.)

    >>> _carry_line(10, [(2, 1, 2, 3)], start=True), _carry_line(2, [(2, 1, 2, 3)], start=False)
    (12, 4)
    """
    delta = 0
    for a, b, c, d in hunks:
        if b and a <= line <= a + b - 1:
            if d:
                return c if start else c + d - 1
            return c if start else c + 1
        old_next = a + b if b else a + 1
        if line < old_next:
            break
        delta = (c + d if d else c + 1) - old_next
    return line + delta


def _with(cause: Cause, **changes: object) -> Cause:
    from dataclasses import replace

    return replace(cause, **changes)  # type: ignore[arg-type]


def find_tag(repo: Path, version: str, formats: tuple[str, ...]) -> str:
    """The tag of ``version`` in ``repo``: the first of ``formats`` (``v{pin}``) that exists.

    Raises:
        GitError: ``repo`` is not a checkout, or none of the tags exists.
    """
    tried = []
    for fmt in formats:
        tag = fmt.format(pin=version)
        tried.append(tag)
        done = gitops.call(["rev-parse", "--verify", "--quiet", f"refs/tags/{tag}"], repo)
        if done.returncode == 0:
            return tag
        if done.returncode == 128:
            raise GitError(
                f"{repo} is not a git checkout",
                path=repo,
                hint="pass --upstream-repo the path of an upstream clone with its tags",
            )
    raise GitError(
        f"the upstream checkout has no tag for {version} (tried {', '.join(tried)})",
        path=repo,
        hint="fetch the tags (git fetch --tags), or set pin-tag in [tool.patchkeeper.git]",
    )
