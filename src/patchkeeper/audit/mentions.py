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
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from patchkeeper.series.headers import FIELD_LINE, parse_headers
from patchkeeper.series.model import Patch

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
    """

    kind: str
    value: str
    source: str


@dataclass(frozen=True)
class Mention:
    """A changelog line that names a reference.

    Attributes:
        reference: the id (``"CVE-2024-39614"``).
        path: the changelog (a path in the new release).
        line: its 1-based line.
        text: the line, stripped, at most 160 characters.
    """

    reference: str
    path: str
    line: int
    text: str


def _scan(text: str, source: str, out: dict[str, Reference]) -> None:
    for match in _CVE.finditer(text):
        value = f"CVE-{match.group(1)}-{match.group(2)}"
        out.setdefault(value, Reference("cve", value, source))
    for part in re.split(r"[,\s]+(?=https?://)", text):
        if _VENDOR_HOSTS.search(part):
            continue
        for match in _NUMBER.finditer(part):
            out.setdefault(match.group(1), Reference("number", match.group(1), source))


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


def find_mentions(
    refs: tuple[Reference, ...], files: dict[str, str], limit: int = 3
) -> dict[str, list[Mention]]:
    """Per reference, the changelog lines of ``files`` (path -> text) that name it, at most
    ``limit`` each."""
    out: dict[str, list[Mention]] = {}
    if not refs:
        return out
    patterns = [(ref.value, ref.value.removeprefix("CVE-"), _pattern(ref)) for ref in refs]
    for path, text in files.items():
        for value, plain, pattern in patterns:
            if len(out.get(value, ())) >= limit or plain not in text:
                continue
            if not pattern.search(text):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if pattern.search(line):
                    out.setdefault(value, []).append(
                        Mention(value, path, number, line.strip()[:160])
                    )
                    if len(out[value]) >= limit:
                        break
    return out


def new_mentions(
    refs: tuple[Reference, ...], new: dict[str, str], old: dict[str, str] | None
) -> tuple[Mention, ...]:
    """The mentions of ``refs`` in the new release's changelogs whose reference the old
    release's changelogs do not name (all of them when ``old`` is ``None``: unknown)."""
    found = find_mentions(refs, new)
    if old is not None and found:
        before = find_mentions(tuple(r for r in refs if r.value in found), old, limit=1)
        found = {value: items for value, items in found.items() if value not in before}
    return tuple(mention for items in found.values() for mention in items)
