"""The patch's own word that upstream has it: DEP-3's ``Applied-Upstream`` naming a release.

DEP-3 (Debian's patch tagging guidelines): ``Applied-Upstream`` is "the upstream
version(s) where the patch has been merged ... and/or a URL/commit"; Debian writes
``Applied-Upstream: 2.2.3``, ``Applied-Upstream: 1.26.18, https://.../commit/...`` or only a
URL or ``commit:<id>``. A version at or below the audited release is evidence from the patch's
header that the release has the fix, whatever shape upstream gave it since (a later release
may rewrite the code): the audit weighs the content with it as it weighs a changelog that names
the fix (:mod:`patchkeeper.audit.mentions`), and a patch whose content still differs is for a
person to look at, never only to port. A URL or a commit alone names no release: no evidence
here (``port --upstream-repo`` looks commits up in upstream's history). Versions compare in
PEP 440 order, not by date: a fix released on a maintenance branch (3.2.20) after a new
major release (4.0.0) compares lower though 4.0.0 may lack it, which is why the header never
decides alone: the content must bear it out, else the patch is to look at.

The field is read as DEP-3 writes it; a line ``␣Applied-Upstream: 2.2.3`` indented under the
``Description`` (RFC 822 folding makes it part of the description, a slip seen in real series)
is read as the field too, because the name says what it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from patchkeeper.series.headers import parse_headers
from patchkeeper.series.model import Patch

FIELD = "Applied-Upstream"
#: A version token of the value: ``2.2.3``, ``v1.26.18``, ``3.0.0rc1`` (at least one dot, so
#: that a bare commit id or a bug number is not read as a version).
_VERSION = re.compile(r"^v?(?P<version>\d+(?:\.\d+)+[0-9A-Za-z.+!-]*)$")
#: A folded line that is the field: ``  Applied-Upstream: 2.2.3``.
_FOLDED = re.compile(r"^[ \t]+Applied-Upstream:[ \t]*(?P<value>\S.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class AppliedUpstream:
    """The header's claim, held against the audited release.

    Attributes:
        value: the field's value as written (``"2.2.3"``).
        version: the first release it names (``"2.2.3"``).
        target: the audited release (``"3.0.6"``).
    """

    value: str
    version: str
    target: str

    @property
    def text(self) -> str:
        """The evidence in words: ``its header says 'Applied-Upstream: 2.2.3' (at or below
        3.0.6)``."""
        return f"its header says '{FIELD}: {self.value}' (at or below {self.target})"


def header_values(patch: Patch) -> tuple[str, ...]:
    """The values of the patch's ``Applied-Upstream`` fields, in order, a folded one
    (indented under another field) included; ``()`` when it has none."""
    headers = parse_headers(patch.preamble)
    values = [field.value for field in headers.all(FIELD)]
    if values:
        return tuple(values)
    text = patch.preamble[: headers.end].decode("utf-8", "replace")
    for line in text.splitlines():
        folded = _FOLDED.match(line)
        if folded:
            values.append(folded.group("value").strip())
    return tuple(values)


def named_version(value: str) -> str | None:
    """The first release a field value names, else ``None`` (a URL or a commit only).

    >>> named_version("1.26.18, https://example.org/commit/0a1b2c3"), named_version("v2.2.3")
    ('1.26.18', '2.2.3')
    >>> named_version("commit:0a1b2c3d") is None, named_version("https://x/pull/12") is None
    (True, True)
    """
    from packaging.version import InvalidVersion, Version

    for token in re.split(r"[,;\s]+", value):
        match = _VERSION.match(token.rstrip("."))
        if match is None:
            continue
        try:
            Version(match.group("version"))
        except InvalidVersion:
            continue
        return match.group("version")
    return None


def applied_upstream(patch: Patch, target: str | None) -> AppliedUpstream | None:
    """The header's ``Applied-Upstream`` when it names a release at or below ``target`` (PEP
    440 order, :mod:`packaging.version`); ``None`` when it names none, a later one, or
    ``target`` is unknown or no version."""
    if not target:
        return None
    from packaging.version import InvalidVersion, Version

    try:
        audited = Version(target)
    except InvalidVersion:
        return None
    for value in header_values(patch):
        version = named_version(value)
        if version is not None and Version(version) <= audited:
            return AppliedUpstream(value, version, target)
    return None
