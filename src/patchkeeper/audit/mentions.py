"""Release-note evidence: does the new release's changelog name the patch's fix?

A backport usually says what it backports: a CVE id, an upstream bug or pull-request number, in
DEP-3's ``Origin``, ``Bug``/``Bug-<Vendor>``, ``Applied-Upstream``, the ledger schema's
``Upstream``, the subject or the file name (``0016-CVE-2024-39614.patch``, ``Fixed #32690 --
...``, ``PR46.patch``: a pull request by its number). Upstream's changelog names the same
id when the release carries the fix. A mention counts only when it is new: the same id in
the old release's changelog is about an earlier release (a CVE fixed twice, a bug number
reused in a list of older releases), so it is no evidence that the new release has the
fix. (A failing patch whose ``Bug`` names an issue the old changelog names is judged by a rule
of its own, ``fixed-before-pin``: upstream fixed that issue before the pin.)

References are read by patterns that hold across trackers: ``CVE-YYYY-NNNN``; ``#NUMBER``,
``gh-NUMBER``, ``bpo-NUMBER``; ``/issues/NUMBER``, ``/pull/NUMBER``, ``/pulls/NUMBER``,
``/merge_requests/NUMBER``, ``ticket/NUMBER``, ``show_bug.cgi?id=NUMBER``. Numbers of Debian's
own tracker (``Bug-Debian``, ``bugs.debian.org``) are not upstream's and are left out.

The free-form description (a ``git format-patch`` message's body, DEP-3's text outside the
fields) is read only after a word a forge takes as closing an issue: ``Fixes #1537``,
``Closes gh-12``, ``Resolved https://.../issues/9``. Such a line says which upstream issue the
change closes; any other number in prose may name anything (a related bug of another
project, the Python bug that motivated a workaround). ``Closes: #N``, with a colon, is
Debian's own changelog syntax for its bug tracker and is not read.

A number is an issue of one tracker. Read from a URL (``https://host/owner/repo/pull/118``),
the reference names its repository; a changelog line names one too when the number is in a
URL on it, or in a link label (reStructuredText's `` `#118`_ ``, Markdown's ``[#118]``) that
the file defines as such a URL. A mention counts only when it is about the same project:
neither names a repository, or both name one on the same host with the same name (an owner
may rename itself; a project that moves to another forge numbers its issues anew). Merge
request 118 of a project's old forge is not pull request 118 of its new one, and another
project's issue is not this project's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from patchkeeper.series.headers import FIELD_LINE, parse_headers
from patchkeeper.series.model import Patch

if TYPE_CHECKING:
    from patchkeeper.upstream.treesearch import TreeSearch

#: Header fields that name upstream's fix (DEP-3, the ledger schema).
FIELDS = ("Origin", "Bug", "Applied-Upstream", "Upstream", "Subject", "Description", "Forwarded")

_CVE = re.compile(r"\bCVE[-_ ](\d{4})[-_](\d{4,7})\b", re.IGNORECASE)
_NUMBER = re.compile(
    r"(?:(?<![\w&])#|\bgh-|\bbpo-|/issues/|/pulls?/|/merge_requests/|ticket/|"
    r"show_bug\.cgi\?id=|\bFixed-|\bRefs-)(\d{2,7})\b",
    re.IGNORECASE,
)
#: A file name that names an upstream pull request by its number: ``PR46.patch``,
#: ``pr-1234-fix.patch``, ``pull-88.diff`` (read in the file name only: in prose "PR" may
#: be anything).
_FILE_PULL = re.compile(r"(?<![A-Za-z])(?:pr|pull)-?(\d{2,7})(?!\d)", re.IGNORECASE)
_VENDOR_HOSTS = re.compile(r"bugs\.debian\.org|launchpad\.net|bugzilla\.redhat|bugs\.gentoo")
#: A closing keyword and the issue it closes, in the free-form description: ``Fixes #1537``
#: (no colon after the keyword: ``Closes: #N`` is Debian's bug tracker).
#: A URL in a header field or a changelog line.
_URL = re.compile(r"https?://[^\s<>`'\"()\[\]{}|]+", re.IGNORECASE)
#: A URL's path segments that end the repository part and start the tracker's.
_TRACKER_SEGMENTS = frozenset(
    {"-", "issues", "issue", "pull", "pulls", "merge_requests", "ticket", "show_bug.cgi"}
)
#: A tracker URL's number: ``/pull/118``, ``/merge_requests/118``, ``show_bug.cgi?id=118``.
_URL_NUMBER = re.compile(
    r"(?:/issues?/|/pulls?/|/merge_requests/|/ticket/|show_bug\.cgi\?id=)(\d{2,7})(?!\d)",
    re.IGNORECASE,
)
#: Link labels on a line: reStructuredText's `` `#118`_ ``, Markdown's ``[#118]`` and
#: ``[text][#118]``.
_LABELS = re.compile(r"`([^`<>]+)`__?|\[([^\]]+)\](?:\[([^\]]*)\])?(?!\()")
#: Link definitions in a file: ``.. _`#118`: URL``, ``.. _issue118: URL``, ``[#118]: URL``.
_DEFINITION = re.compile(
    r"^[ \t]*(?:\.\.[ \t]+_`?([^`\n]+?)`?|\[([^\]\n]+)\]):[ \t]*(https?://\S+)", re.MULTILINE
)
_CLOSING = re.compile(
    r"\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+"
    r"((?:#|gh-|https?://\S+/(?:issues|pulls?)/)\d{2,7})\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Reference:
    """An id a patch names.

    Attributes:
        kind: ``"cve"`` or ``"number"``.
        value: ``"CVE-2024-39614"`` or ``"32690"``.
        source: where it was read (``"Subject"``, ``"file name"``).
        repository: for a number read from a URL, the repository it is an issue of
            (:func:`repository`, ``"github.com/python-cffi/cffi"``); ``""``: none named.
    """

    kind: str
    value: str
    source: str
    repository: str = ""


#: The most characters of a changelog line that evidence keeps.
LINE_TEXT_LIMIT = 160


@dataclass(frozen=True)
class ChangelogLine:
    """A changelog line found for a key: one that names a reference (a CVE id, an issue
    number: :func:`find_mentions`), or lists a patch's subject as an item
    (:mod:`patchkeeper.audit.subject_listed`).

    Attributes:
        reference: what the line was found for (``"CVE-2024-39614"``, ``"812"``, the
            subject ``"Reset nsNr in xmlCtxtReset"``).
        path: the changelog (a path in the release).
        line: its 1-based line.
        text: the line, stripped, at most :data:`LINE_TEXT_LIMIT` characters.
    """

    reference: str
    path: str
    line: int
    text: str

    @classmethod
    def at(cls, reference: str, path: str, line: int, raw: str) -> ChangelogLine:
        """The record of line number ``line`` of ``path``, whose text is ``raw``.

        >>> ChangelogLine.at("812", "NEWS", 7, "  - Fix #812.  ")
        ChangelogLine(reference='812', path='NEWS', line=7, text='- Fix #812.')
        """
        return cls(reference, path, line, raw.strip()[:LINE_TEXT_LIMIT])

    def shown(self, quote: str = "'") -> str:
        """Where the line is and what it says, as evidence quotes it.

        >>> ChangelogLine("812", "NEWS", 7, "- Fix #812.").shown()
        "NEWS line 7: '- Fix #812.'"
        """
        return f"{self.path} line {self.line}: {quote}{self.text}{quote}"


def repository(url: str) -> str:
    """The repository a tracker URL names: its host (``www.`` left out) and the path before
    the tracker's part, lower case; ``""`` when ``url`` is no URL.

    >>> repository("https://github.com/python-cffi/cffi/pull/118")
    'github.com/python-cffi/cffi'
    >>> repository("https://foss.heptapod.net/pypy/cffi/-/merge_requests/118")
    'foss.heptapod.net/pypy/cffi'
    >>> repository("https://code.djangoproject.com/ticket/32690")
    'code.djangoproject.com'
    """
    match = re.match(r"https?://([^/\s?#]+)([^\s?#]*)", url, re.IGNORECASE)
    if match is None:
        return ""
    host = match.group(1).lower().removeprefix("www.")
    segments = []
    for segment in match.group(2).lower().split("/"):
        if segment in _TRACKER_SEGMENTS:
            break
        if segment:
            segments.append(segment.removesuffix(".git"))
    return "/".join([host, *segments])


def same_project(one: str, other: str) -> bool:
    """Whether two repositories (:func:`repository`) are one project's: either is unknown
    (``""``), or both are on one host under one name (the owner may differ: a renamed owner
    keeps its issue numbers; another host numbers them anew).

    >>> same_project("github.com/mitsuhiko/flask", "github.com/pallets/flask")
    True
    >>> same_project("foss.heptapod.net/pypy/cffi", "github.com/python-cffi/cffi")
    False
    >>> same_project("", "github.com/python-cffi/cffi")
    True
    """
    if not one or not other:
        return True
    host, _, path = one.partition("/")
    other_host, _, other_path = other.partition("/")
    return host == other_host and path.rpartition("/")[2] == other_path.rpartition("/")[2]


def _scan(text: str, source: str, out: dict[str, Reference]) -> None:
    for match in _CVE.finditer(text):
        value = f"CVE-{match.group(1)}-{match.group(2)}"
        out.setdefault(value, Reference("cve", value, source))
    for part in re.split(r"[,\s]+(?=https?://)", text):
        if _VENDOR_HOSTS.search(part):
            continue
        url = _URL.match(part)
        for match in _NUMBER.finditer(part):
            value = match.group(1)
            where = repository(url.group(0)) if url and match.start() < url.end() else ""
            known = out.get(value)
            if known is None:
                out[value] = Reference("number", value, source, where)
            elif where and not known.repository:
                # a URL says whose issue the number is, wherever it was read first
                out[value] = Reference("number", value, known.source, where)


def references(patch: Patch) -> tuple[Reference, ...]:
    """The CVE ids and upstream bug/pull numbers ``patch`` names, first seen first.

    >>> from pathlib import Path
    >>> preamble = b"Subject: Fixed #32690 -- x\\nBug-Debian: https://bugs.debian.org/1\\n"
    >>> patch = Patch("0016-CVE-2024-39614.patch", Path("p"), b"", preamble, 2, ())
    >>> [(r.value, r.source) for r in references(patch)]
    [('32690', 'Subject'), ('CVE-2024-39614', 'file name')]
    """
    found: dict[str, Reference] = {}
    headers = parse_headers(patch.preamble)
    for name in FIELDS:
        for field in headers.all(name):
            _scan(field.value, field.name, found)
    for field in headers.fields:
        if field.key.startswith("bug-") and field.key != "bug-debian":
            _scan(field.value, field.name, found)
    name = patch.name.replace("_", "-")
    _scan(name, "file name", found)
    for match in _FILE_PULL.finditer(name.rsplit("/", 1)[-1]):
        found.setdefault(match.group(1), Reference("number", match.group(1), "file name"))
    for line in description_lines(patch.preamble):
        for match in _CLOSING.finditer(line):
            _scan(match.group(1), "description", found)
    return tuple(found.values())


def description_lines(preamble: bytes) -> list[str]:
    """The free-form lines of a patch's header (``preamble``, the bytes before its first
    diff): neither a field, a field's continuation (an indented line) nor the mbox ``From``
    line, up to git's ``---`` separator.

    >>> description_lines(b"Subject: x\\n  more\\n\\nFixes #12.\\n---\\n y\\n")
    ['', 'Fixes #12.']
    """
    end = parse_headers(preamble).end
    return [
        raw.decode("utf-8", "replace")
        for raw in preamble[:end].splitlines()
        if not FIELD_LINE.match(raw)
        and raw[:1] not in (b" ", b"\t")
        and not raw.startswith(b"From ")
    ]


def _pattern(reference: Reference) -> re.Pattern[str]:
    """How a changelog writes the reference: ``CVE-2024-39614`` or Sphinx's
    ``:cve:`2024-39614```; ``#32690``, ``:ticket:`32690```, ``:issue:`32690```, ``gh-32690``,
    ``/pull/32690``."""
    if reference.kind == "cve":
        number = re.escape(reference.value[4:])
        return re.compile(rf"\bcve\W{{0,3}}{number}\b", re.IGNORECASE)
    number = re.escape(reference.value)
    return re.compile(
        rf"(?:(?<![\w&])#|\bgh-|\bbpo-|/issues/|/pulls?/|ticket/|:(?:ticket|issue|pr|pull|gh|bug):`)"
        rf"{number}\b",
        re.IGNORECASE,
    )


def _definitions(text: str) -> dict[str, str]:
    """A file's link definitions: label (lower case, spaces collapsed) -> URL."""
    out: dict[str, str] = {}
    for match in _DEFINITION.finditer(text):
        label = match.group(1) if match.group(1) is not None else match.group(2)
        out.setdefault(" ".join(label.lower().split()), match.group(3))
    return out


def line_repositories(line: str, number: str, definitions: dict[str, str]) -> set[str]:
    """The repositories (:func:`repository`) a changelog line names issue ``number`` of: by
    a URL on the line, else by a link label on it that ``definitions`` (the file's, label ->
    URL) define as such a URL; empty when the line names none.

    >>> line = "* Fix imports under Windows (`#118`_)."
    >>> line_repositories(line, "118", {"#118": "https://github.com/python-cffi/cffi/pull/118"})
    {'github.com/python-cffi/cffi'}
    >>> line_repositories(line, "118", {})
    set()
    """

    def naming(urls: list[str]) -> set[str]:
        return {
            repository(url)
            for url in urls
            if any(m.group(1) == number for m in _URL_NUMBER.finditer(url))
        }

    found = naming(_URL.findall(line))
    if found or not definitions:
        return found
    labels = [
        " ".join(label.lower().split())
        for match in _LABELS.finditer(line)
        for label in match.groups()
        if label
    ]
    return naming([definitions[label] for label in labels if label in definitions])


def find_mentions(
    refs: tuple[Reference, ...], files: dict[str, str], limit: int = 3
) -> dict[str, list[ChangelogLine]]:
    """Per reference, the changelog lines of ``files`` (path -> text) that name it, at most
    ``limit`` each; a line that names the number as an issue of another project than the
    reference's (:func:`line_repositories`, :func:`same_project`) does not count."""
    out: dict[str, list[ChangelogLine]] = {}
    if not refs:
        return out
    patterns = [(ref, ref.value.removeprefix("CVE-"), _pattern(ref)) for ref in refs]
    for path, text in files.items():
        definitions: dict[str, str] | None = None
        for ref, plain, pattern in patterns:
            value = ref.value
            if len(out.get(value, ())) >= limit or plain not in text:
                continue
            if not pattern.search(text):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if pattern.search(line):
                    if ref.repository:
                        if definitions is None:
                            definitions = _definitions(text)
                        named = line_repositories(line, value, definitions)
                        if named and not any(same_project(ref.repository, n) for n in named):
                            continue
                    out.setdefault(value, []).append(ChangelogLine.at(value, path, number, line))
                    if len(out[value]) >= limit:
                        break
    return out


def new_mentions(
    refs: tuple[Reference, ...], new: dict[str, str], old: dict[str, str] | None
) -> tuple[ChangelogLine, ...]:
    """The mentions of ``refs`` in the new release's changelogs whose reference the old
    release's changelogs do not name (all of them when ``old`` is ``None``: unknown)."""
    found = find_mentions(refs, new)
    if old is not None and found:
        before = find_mentions(tuple(r for r in refs if r.value in found), old, limit=1)
        found = {value: items for value, items in found.items() if value not in before}
    return tuple(mention for items in found.values() for mention in items)


def patch_mentions(
    patch: Patch, search: TreeSearch | None, pin: TreeSearch | None
) -> tuple[ChangelogLine, ...]:
    """The lines of the new release's changelogs (``search``) that name a reference of
    ``patch`` (:func:`references`) which the old pin's changelogs (``pin``; ``None``:
    unknown) do not name (:func:`new_mentions`); none without the new release's tree."""
    if search is None:
        return ()
    refs = references(patch)
    if not refs:
        return ()
    old = pin.changelog_text() if pin is not None else None
    return new_mentions(refs, search.changelog_text(), old)
