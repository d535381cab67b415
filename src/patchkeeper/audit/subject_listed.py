"""Release-note evidence by subject: does the new release's changelog list the patch's commit?

Many projects write their release notes from ``git shortlog`` or ``git log --oneline``: each
commit of the release is one item, its subject line as written (libxml2's ``NEWS``:
``- [CVE-2022-2309] Reset nsNr in xmlCtxtReset``, ``Fix integer overflow in xmlBufferResize
(Nick Wellnhofer),``). A backport exported with ``git format-patch`` (and kept by
``gbp pq`` or quilt) carries the same subject in its ``Subject`` header, ``[PATCH]`` aside.
When the new release's changelog lists that subject as an item, and the old pin's
changelogs do not, the release holds upstream's commit of that name: the backport is
upstream, whatever upstream's code around it looks like now.

A subject counts only when it is specific: four words or more and 24 characters or more,
tags such as ``[CVE-...]`` aside (``Fix typo`` or ``Update README`` name nothing). A
security team's prefix naming the CVE the backport fixes (``CVE-2024-40767: Change
force_format strategy to catch mismatches``) is such a tag: upstream's commit has the
subject without it. Release notes written in reStructuredText escape some characters (pbr's
``ChangeLog`` lists ``* Change force\\_format strategy to catch mismatches``): a backslash
before punctuation is read as the character it escapes. It must
stand as an item of its own on the line: at its start (after a list marker or a tag) or after
a comma ending the previous item, and followed by nothing but the end of the line, an
author in parentheses or punctuation: ``Fix potential infinite loop in X`` does not list
``Fix infinite loop in X``, nor does ``Fix X and Y`` list ``Fix X``.
"""

from __future__ import annotations

import re

from patchkeeper.audit.mentions import ChangelogLine
from patchkeeper.series.headers import parse_headers
from patchkeeper.series.model import Patch

#: The fewest words, and characters, of a subject that names one commit.
MIN_WORDS = 4
MIN_CHARACTERS = 24

#: Tags before a subject: ``[CVE-2022-40303]``, ``[PATCH 2/3]``, ``[v2]``, and the CVE ids
#: a security team writes before it, ending with a colon (``CVE-2024-40767:``,
#: ``CVE-2024-1234, CVE-2024-1235:``).
_TAGS = re.compile(
    r"^(?:\[[^\]]*\]\s*|CVE-\d{4}-\d{4,7}(?:\s*(?:,|/|and)\s*CVE-\d{4}-\d{4,7})*\s*:\s+)+",
    re.IGNORECASE,
)
#: reStructuredText's escape of a punctuation character: ``force\\_format``.
_ESCAPE = re.compile(r"\\(?=[^\sA-Za-z0-9])")
#: What may stand before an item on a changelog line: nothing, a list marker, a tag, or the
#: comma that ends the previous item.
_BEFORE = re.compile(r"(?:^|[-*+\u2022]|\]|,|;)\s*$")
#: What may follow an item: nothing, an author or a reference in parentheses or brackets,
#: punctuation.
_AFTER = re.compile(r"^\s*(?:$|[(\[,.;:#]|[-\u2013\u2014]\s)")


def _normal(text: str) -> str:
    return " ".join(_ESCAPE.sub("", text).split()).casefold()


def subject_of(patch: Patch) -> str:
    """The patch's subject, tags aside: its ``Subject`` header (``[PATCH]`` and tags such
    as ``[CVE-...]`` left out), else the first line of its DEP-3 ``Description``; ``""``
    when it has neither or the subject is not specific enough to name one commit
    (:data:`MIN_WORDS`, :data:`MIN_CHARACTERS`).

    >>> from pathlib import Path
    >>> preamble = b"Subject: [PATCH] [CVE-2022-2309] Reset nsNr in xmlCtxtReset\\n"
    >>> subject_of(Patch("p.patch", Path("p"), b"", preamble, 1, ()))
    'Reset nsNr in xmlCtxtReset'
    >>> preamble = b"Subject: CVE-2024-40767: Change force_format strategy to catch it\\n"
    >>> subject_of(Patch("p.patch", Path("p"), b"", preamble, 1, ()))
    'Change force_format strategy to catch it'
    >>> subject_of(Patch("p.patch", Path("p"), b"", b"Subject: Fix typo\\n", 1, ()))
    ''
    """
    field = parse_headers(patch.preamble).get("Subject")
    if field is None:
        return ""
    value = field.value
    if field.name.lower() == "description":
        # DEP-3: the first line is the short description, the lines after it the long one
        written = patch.preamble[field.start : field.end].decode("utf-8", "replace")
        value = written.partition(":")[2].splitlines()[0] if ":" in written else ""
    first = value.strip().splitlines()[0] if value.strip() else ""
    subject = " ".join(_TAGS.sub("", first.strip()).split()).rstrip(".")
    if len(subject.split()) < MIN_WORDS or len(subject) < MIN_CHARACTERS:
        return ""
    return subject


def _lists(line: str, subject: str) -> bool:
    """Whether the (normalized) changelog ``line`` lists the (normalized) ``subject`` as
    an item of its own."""
    start = line.find(subject)
    while start >= 0:
        end = start + len(subject)
        if _BEFORE.search(line[:start]) and _AFTER.match(line[end:]):
            return True
        start = line.find(subject, start + 1)
    return False


def _find(subject: str, files: dict[str, str]) -> ChangelogLine | None:
    wanted = _normal(subject)
    for path, text in files.items():
        if wanted not in _normal(text):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if _lists(_normal(line), wanted):
                return ChangelogLine.at(subject, path, number, line)
    return None


def listed_subject(
    patch: Patch, new: dict[str, str], old: dict[str, str] | None
) -> ChangelogLine | None:
    """The line of the new release's changelogs (``new``: path -> text) that lists the
    patch's subject (:func:`subject_of`) as an item, when no changelog of the old pin
    (``old``) lists it; ``None`` otherwise, and always without the old pin's changelogs
    (``old`` is ``None``: a subject the pin already lists would say nothing of the upgrade).
    """
    if old is None:
        return None
    subject = subject_of(patch)
    if not subject:
        return None
    found = _find(subject, new)
    if found is None or _find(subject, old) is not None:
        return None
    return found
