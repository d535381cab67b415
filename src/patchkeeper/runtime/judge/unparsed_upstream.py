"""Targets in an upstream module Python cannot parse: unknown, not gone.

A module of an upstream tree that is not valid Python to the running interpreter (syntax of
a newer Python than the one patchkeeper runs on, a damaged or cut-short file) yields no
names to the lookup. Taken at its word, the lookup would read every target in it as gone
from that release (or, at the old release, as new upstream), and the audit would decide on
a fact it never had: a *look* for a removal that did not happen, a *retain* of a marker on
a class it cannot see, a *breaks-at-import* for a name still there. So the audit says what
it could not read instead: the entry is **look**, the file, the parser's message and what
to do first in its evidence; a name the plugin imports from such a module is an
``upstream-unparsed`` finding, not a ``breaks-at-import`` one.
"""

from __future__ import annotations

import sys

from patchkeeper.runtime.judge.drift import LOOK, Drift, with_decision
from patchkeeper.runtime.lookup.resolve import FOUND, Resolution, unparsed_module
from patchkeeper.runtime.lookup.upstream_tree import ModuleSummary, UpstreamTree

#: The finding of a name the plugin uses whose upstream module cannot be parsed.
UPSTREAM_UNPARSED = "upstream-unparsed"


def unparsed_fix() -> str:
    """What to do about an upstream module that cannot be parsed (the running Python named)."""
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    return (
        f"if it uses syntax newer than this Python ({running}), run patchkeeper with a Python "
        "that reads it; if the file is damaged, download the release again or unpack it anew"
    )


def unparsed_fact(summary: ModuleSummary, side: str, name: str) -> str:
    """What is unknown of ``name``, looked up in ``summary``'s module of the ``side``
    (``old``, ``new``) upstream, which could not be parsed."""
    return (
        f"{summary.file} of the {side} upstream cannot be parsed ({summary.syntax_error}): "
        f"whether it defines {name} is unknown"
    )


def unparsed_reason(summary: ModuleSummary, side: str, name: str) -> str:
    """:func:`unparsed_fact` and what to do, as one evidence sentence."""
    return (
        f"{unparsed_fact(summary, side, name)}, so nothing is decided from its absence; "
        f"{unparsed_fix()}"
    )


def unparsed_lookup(
    target: str, found: tuple[Resolution, Resolution], trees: tuple[UpstreamTree, UpstreamTree]
) -> str:
    """Why the lookup of ``target`` proves nothing, or ``""``: ``found`` (its resolution in
    the old and the new tree) misses it, or reaches only a prefix of it, in a tree whose
    module of the target cannot be parsed (:func:`unparsed_module`)."""
    for side, tree, resolution in (("old", trees[0], found[0]), ("new", trees[1], found[1])):
        if resolution.status == FOUND and not resolution.partial:
            continue
        summary = unparsed_module(tree, target)
        if summary is not None:
            return unparsed_reason(summary, side, target)
    return ""


def unparsed_look(
    drift: Drift,
    target: str,
    found: tuple[Resolution, Resolution],
    trees: tuple[UpstreamTree, UpstreamTree],
) -> Drift:
    """``drift``, or **look** with the reason first when the lookup of ``target`` failed in
    a module that cannot be parsed (:func:`unparsed_lookup`)."""
    reason = unparsed_lookup(target, found, trees)
    return with_decision(drift, LOOK, reason) if reason else drift
