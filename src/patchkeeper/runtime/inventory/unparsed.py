"""Patch files of the plugin that Python cannot parse: their entries are unknown.

The inventory reads a file it cannot parse as a ``syntax`` finding and no entry (most often
the conflict markers ``runtime port --write`` left in a copy), and a file it cannot read at
all (a symbolic link leading nowhere) as an ``unreadable`` finding and no entry. A command
that acts on the entries must not take that silence for "no patch here": ``runtime lock``
would lock none of the file's targets (the guard would then watch nothing), ``runtime port``
would merge the copies a second time into the markers. Those commands refuse
(:func:`refuse_unparsed`); ``runtime audit`` and ``runtime check`` report the files as not
read and exit 1.
"""

from __future__ import annotations

import json
from pathlib import Path

from patchkeeper.errors import Finding, TargetError
from patchkeeper.jsonable import JsonReady, from_jsonable
from patchkeeper.runtime.inventory.file_facts import UNREADABLE
from patchkeeper.runtime.model import Inventory
from patchkeeper.runtime.syntax.parsing import NOT_UTF8_FIX

#: Where the markers usually come from, for the hint.
MARKERS_HINT = (
    "fix the file (conflict markers '<<<<<<<' left by 'patchkeeper runtime port --write' are "
    "resolved by editing them away) and run the command again"
)


def unparsed(inventory: Inventory) -> tuple[Finding, ...]:
    """The inventory's ``syntax`` and ``unreadable`` findings, in file order: one per patch
    file Python cannot read or parse (``path`` relative to the plugin root, ``line``
    1-based, ``None`` when unknown)."""
    return tuple(f for f in inventory.findings if f.code in ("syntax", "unreadable"))


def unlisted(inventory: Inventory) -> tuple[Finding, ...]:
    """The inventory's ``setattr-name`` findings, in file order: one per ``setattr`` on an
    upstream object whose attribute name cannot be told (chosen at run time, or a constant
    of a plugin file that could not be read or parsed), and one per wrapper installed on a
    class or module that cannot be told, so no entry lists what it patches:
    ``runtime audit`` counts each as a patch it did not audit, ``runtime lock`` as one it
    does not lock."""
    return tuple(f for f in inventory.findings if f.code == "setattr-name")


def conflict_line(path: Path) -> int:
    """The 1-based line of the first conflict marker (``<<<<<<< ``, as ``git merge-file``
    writes it) in the file at ``path``; 0 when there is none or the file cannot be read."""
    try:
        with path.open("rb") as stream:
            for number, line in enumerate(stream, 1):
                if line.startswith(b"<<<<<<< ") or line.rstrip(b"\r\n") == b"<<<<<<<":
                    return number
    except OSError:
        return 0
    return 0


def describe(finding: Finding, root: Path | None = None) -> str:
    """``FILE:LINE: not valid Python (MESSAGE)``, or without ``:LINE`` when unknown; with
    the plugin ``root``, a file holding conflict markers is said to, at the first marker.

    >>> describe(Finding("syntax", "p/patch_x.py", 12, "invalid syntax"))
    'p/patch_x.py:12: not valid Python (invalid syntax)'
    """
    marker = conflict_line(root / finding.path) if root is not None else 0
    if marker:
        return f"{finding.path}:{marker}: not valid Python (an unresolved conflict region)"
    if finding.message.startswith(UNREADABLE):
        return f"{finding.path}: {finding.message}"
    return f"{finding.where()}: not valid Python ({finding.message})"


def unparsed_audited(audit: JsonReady) -> tuple[Finding, ...]:
    """:func:`unparsed` of the inventory of a runtime audit
    (:class:`patchkeeper.runtime.judge.results.RuntimeAudit`) with its JSON, read from the
    JSON: a remembered audit is not computed again to tell."""
    findings = json.loads(audit.body).get("inventory", {}).get("findings", ())
    return tuple(
        from_jsonable(Finding, f) for f in findings if f.get("code") in ("syntax", "unreadable")
    )


def refuse_unparsed(inventory: Inventory | tuple[Finding, ...], root: Path, command: str) -> None:
    """Stop ``command`` (e.g. ``"runtime lock"``) when a patch file does not parse: one the
    ``inventory`` found, or one of its :func:`unparsed` findings, given.

    Raises:
        TargetError: naming the first such file (under ``root``, the plugin root) and its
            line, and how many others there are.
    """
    found = inventory if isinstance(inventory, tuple) else unparsed(inventory)
    if not found:
        return
    first = found[0]
    more = f" (and {len(found) - 1} more file(s))" if len(found) > 1 else ""
    if first.message.startswith(UNREADABLE):
        raise TargetError(
            f"{first.message}{more}: {command} cannot read this file's patches, and would act "
            "as if it had none",
            path=root / first.path,
            hint="restore the file (a symbolic link must lead to a file that exists) or remove "
            "it from the patch directory, and run the command again",
        )
    marker = conflict_line(root / first.path)
    why = "an unresolved conflict region" if marker else first.message
    encoding = not marker and first.message.startswith("not UTF-8")
    if encoding:  # what to do is in the message: the hint says to run again
        why = first.message.split(": ", 1)[0]
    raise TargetError(
        f"not valid Python ({why}){more}: {command} cannot read this file's patches, and "
        "would act as if it had none",
        path=root / first.path,
        line=marker or first.line,
        hint=f"{NOT_UTF8_FIX}, and run the command again" if encoding else MARKERS_HINT,
    )
