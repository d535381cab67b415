"""``patchkeeper runtime port --to NEW``: write the mechanical part of a plugin's update.

From the runtime audit (:mod:`patchkeeper.runtime.judge.runtime_audit`) of the plugin from the old
upstream release to ``NEW``, per entry:

- a full-replacement copy (the plugin's own function or class replacing an upstream one)
  whose upstream definition changed: a three-way merge with ``git merge-file`` (base: the old
  upstream definition; ours: the plugin's copy; theirs: the new upstream definition), the
  upstream spans re-indented to the copy's indentation, the copy's gates cut first; the
  conflict regions that differ only in layout are settled
  (:mod:`patchkeeper.runtime.port.layoutmerge`), the others left marked (diff3 style, as
  ``patchkeeper port`` leaves them); a copy that already holds every line the upstream
  change adds and none it deletes (layout aside: the maintainers took the change from
  upstream's development branch) is not merged again; a copy that holds a version gate
  the new release decides (its branch for the new release was written from upstream code
  newer than the old release) is merged, gates cut, only when that merge is clean and
  repeats no line (else the old release is no base to merge it from: the cut gate is the
  update); the copy a patch statement binds inside such a gate is not merged; of a
  plugin subclass, a method that calls upstream's through ``super()`` and keeps less than
  half of its body extends it and inherits the change (by hand when it misses a parameter
  of upstream's new signature);
- a target that moved: the old module path in the patch statement becomes the new one;
- a version gate whose live branch changes (true at the old release and false at the new
  one, or the reverse): cut in every file port reads, whatever the entries' decisions
  (:mod:`patchkeeper.runtime.port.gatecut`: the dead branch deleted, the live one kept and
  dedented, the statements after a kept block that returns or raises deleted as
  unreachable, the gate helper's import dropped when unused); a gate it cannot cut (written on
  one line) is listed with its edit, left by hand;
- each patch file's header ``Affected versions:`` field gains ``Reviewed against NEW.``; a
  file whose header already says so was ported before: its copies are not merged again
  (the resolution of that port's conflicts would meet a second conflict).

Everything else (*remove*, *migrate*, *investigate*, wrappers whose signature changed, a
conflict) is reported as left by hand. The result is a unified diff of the plugin
(``a/``/``b/`` paths relative to the plugin root); ``--write`` applies it atomically
(:mod:`patchkeeper.runtime.store.writes`). Nothing is written otherwise.
"""

from __future__ import annotations

import ast
import difflib
import re
import tempfile
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from patchkeeper.port.merge import Labels, merge_file
from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
from patchkeeper.runtime.inventory.unparsed import conflict_line, refuse_unparsed
from patchkeeper.runtime.judge import runtime_audit
from patchkeeper.runtime.judge.drift import MIGRATE, REMOVE, RETAIN, UPDATE, Code, codes
from patchkeeper.runtime.judge.runtime_audit import AuditedEntry, RuntimeAudit
from patchkeeper.runtime.judge.samecode import same_ast
from patchkeeper.runtime.lookup.resolve import FOUND, MOVED
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.port.bases import derives_from
from patchkeeper.runtime.port.gatecut import Cut, cut_gates
from patchkeeper.runtime.port.layoutmerge import has_change, kept_share, repeats, settle
from patchkeeper.runtime.port.renames import (
    module_aliases,
    qualified_names,
    qualify,
    rename,
    renamed_parameters,
)
from patchkeeper.runtime.settings import resolve_settings
from patchkeeper.runtime.store.writes import refuse_links_out, write_files
from patchkeeper.runtime.syntax.gates import release_label, release_version

MERGED, CONFLICT, RETARGETED, LEFT, NOTHING, GATE_CUT = (
    "merged",
    "conflict",
    "retargeted",
    "by hand",
    "nothing to do",
    "gate cut",
)
#: The header field that records the reviewed release (the seed's section 5 template).
AFFECTED = re.compile(r"^(?P<lead>\s*#\s*Affected versions:)(?P<rest>.*)$")
#: A comment line that starts another header field (``# Remove at: ...``) or is a banner.
_FIELD_OR_RULE = re.compile(r"^\s*#\s*(?:[A-Z][\w -]*:(?:\s|$)|[-=#*_~]{3,}\s*$)")


def affected_field(lines: list[str]) -> tuple[int, int] | None:
    """The 1-based first and last line of the ``Affected versions:`` field in the first 80
    lines of a patch file: its line and the comment lines that continue its value (up to
    an empty ``#`` line, another field, a banner rule or code); ``None`` when absent.

    >>> affected_field(["# Note: n\\n", "# Affected versions: 0.1 (on 910B),\\n",
    ...                 "#   reviewed at abc.\\n", "#\\n", "# Remove at: r\\n"])
    (2, 3)
    """
    for number, line in enumerate(lines[:80], 1):
        if AFFECTED.match(line.rstrip("\r\n")):
            last = number
            for following in lines[number:80]:
                text = following.strip()
                if not text.startswith("#") or not text[1:].strip():
                    break
                if _FIELD_OR_RULE.match(text):
                    break
                last += 1
            return number, last
    return None


@dataclass(frozen=True)
class PortedEntry:
    """What ``runtime port`` did for one entry: ``action`` (``merged``, ``conflict``,
    ``retargeted``, ``gate cut``, ``by hand``, ``nothing to do``) and a ``detail`` sentence;
    ``conflicts`` the number of conflict regions left in a merge."""

    file: str
    line: int
    target: str
    decision: str
    action: str
    detail: str
    conflicts: int = 0


@dataclass(frozen=True)
class RuntimePort:
    """The result of ``runtime port``: the two upstream versions (or the specs given when
    a tree has no version), the ``diff`` (unified, of the plugin), the per-entry report, the
    files changed, and whether they were written."""

    old: str
    new: str
    entries: tuple[PortedEntry, ...]
    diff: str
    files: tuple[str, ...]
    written: bool = False
    output: str = ""

    @property
    def exit_code(self) -> int:
        """1 when something is left by hand or a conflict is marked, 0 otherwise."""
        left = any(e.action in (LEFT, CONFLICT) for e in self.entries)
        return 1 if left else 0


def _reindent(text: str, indent: str) -> str:
    return textwrap.indent(textwrap.dedent(text), indent, lambda line: bool(line.strip()))


def without_decorators(code: Code) -> str:
    """The definition's text from its ``def``/``class`` line on (the plugin's copy is
    compared without the decorators above it, the patch decorator among them)."""
    node = code.node()
    if node is None:
        return code.text
    return "".join(code.text.splitlines(True)[node.lineno - 1 :])


_HEADER = re.compile(r"^(\s*(?:async\s+)?(?:def|class)\s+)(\w+)")


def _named(text: str, ours_first: str) -> str:
    """``text`` with its ``def``/``class`` name replaced by the copy's (the plugin often
    names its copy differently: the name is not an upstream change to merge)."""
    mine = _HEADER.match(ours_first)
    if mine is None:
        return text
    return _HEADER.sub(lambda m: m.group(1) + mine.group(2), text, count=1)


def merge_copy(
    old: Code,
    new: Code,
    mine_lines: list[str],
    labels: Labels,
    modules: frozenset[str] = frozenset(),
) -> tuple[str, int]:
    """Three-way merge of a full-replacement copy (``mine_lines``: its source lines, with
    their indentation) with the upstream change from ``old`` to ``new``; returns ``(merged
    text in the copy's indentation, number of conflicts left)``: upstream's free names the
    copy writes behind their module (one of ``modules``: the names the copy's file binds to
    upstream's module of the definition) are written so in both upstream sides
    (:func:`~patchkeeper.runtime.port.renames.qualified_names`), a parameter upstream
    renamed is renamed in the base and the copy first
    (:func:`~patchkeeper.runtime.port.renames.renamed_parameters`), and the conflict regions that
    differ only in layout are settled (:func:`~patchkeeper.runtime.port.layoutmerge.settle`)."""
    first = next((x for x in mine_lines if x.strip()), "")
    indent = first[: len(first) - len(first.lstrip())]
    ours = "".join(mine_lines)
    # Upstream's module-level names the copy reaches through their module (it lives in
    # another module): written so in both upstream sides, so only upstream's change merges.
    qualified = qualified_names(without_decorators(old), ours, modules, without_decorators(new))
    base = _named(_reindent(qualify(without_decorators(old), qualified), indent), first)
    theirs = _named(_reindent(qualify(without_decorators(new), qualified), indent), first)
    # A parameter upstream renamed: renamed in the base and the copy first, so the merge
    # carries the copy's own edits of the lines naming it over with the new name.
    renames = renamed_parameters(base, theirs, ours)
    base, ours = rename(base, renames), rename(ours, renames)
    with tempfile.TemporaryDirectory(prefix="patchkeeper-runtime-port-") as scratch:
        merged, conflicts = merge_file(
            base.encode(), ours.encode(), theirs.encode(), labels, Path(scratch)
        )
    text = merged.decode("utf-8", "replace")
    if not conflicts:
        return text, 0
    return settle(text, (labels.new, labels.old, labels.patch))


class _Edits:
    """Pending line replacements per plugin file (1-based inclusive spans).

    Each file is read once and its changing version gates cut first (``versions``: the old
    and new upstream versions; ``None`` cuts nothing): the spans are in the lines of that
    cut text (:meth:`original`); :meth:`line` and :meth:`relocate` carry a line number or
    a copy of the file as read over to them."""

    def __init__(self, root: Path, versions: tuple[str, str] | None = None) -> None:
        self.root = root
        self.versions = versions
        self.read: dict[str, list[str]] = {}
        self.endings: dict[str, list[str]] = {}
        self.lines: dict[str, list[str]] = {}
        self.cuts: dict[str, tuple[Cut, ...]] = {}
        self.spans: dict[str, list[tuple[int, int, str]]] = {}
        self.merges: dict[tuple[str, int, str, str], PortedEntry] = {}
        self._maps: dict[str, dict[int, int]] = {}

    def original(self, file: str) -> list[str]:
        """The file's lines as port starts from them: as read, with the gates cut."""
        if file not in self.lines:
            raw = read_exact(self.root / file)
            refuse_not_utf8(self.root / file, raw)
            self.endings[file] = [_ending(line) for line in _lines(raw)]
            # Worked on with every line end as "\n" (as Python reads text), so upstream's
            # definitions merge with a CRLF copy; result() gives each line its end back.
            text = raw.replace("\r\n", "\n")
            self.read[file] = text.splitlines(True)
            cut, cuts = (text, ()) if self.versions is None else cut_gates(text, *self.versions)
            self.lines[file] = cut.splitlines(True)
            self.cuts[file] = cuts
        return self.lines[file]

    def line(self, file: str, number: int) -> int | None:
        """Line ``number`` of the file as read, in :meth:`original`'s lines (``None``: a
        line a gate cut changed or deleted)."""
        lines = self.original(file)
        if not self.cuts[file]:
            return number
        if file not in self._maps:
            mapping: dict[int, int] = {}
            matcher = difflib.SequenceMatcher(None, self.read[file], lines, autojunk=False)
            for tag, a0, a1, b0, _b1 in matcher.get_opcodes():
                if tag == "equal":
                    for k in range(a1 - a0):
                        mapping[a0 + k + 1] = b0 + k + 1
            self._maps[file] = mapping
        return self._maps[file].get(number)

    def relocate(self, code: Code) -> Code | None:
        """The definition ``code`` (a span of the file as read, from its ``def``/``class``
        line) in :meth:`original`'s lines, its gates cut: the definition that starts on
        the line its first line became, else the one definition of its name (a gate cut
        dedented it); ``None`` when there is none or several."""
        start = self.line(code.name, code.start)
        if start is not None and not self.cuts[code.name]:
            return code
        lines = self.original(code.name)
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            return None
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        defined = [node for node in ast.walk(tree) if isinstance(node, kinds)]
        found = [node for node in defined if node.lineno == start]
        if not found:
            node = code.node()
            name = getattr(node, "name", None)
            found = [other for other in defined if other.name == name]
        if len(found) != 1:
            return None
        first, last = found[0].lineno, found[0].end_lineno
        return Code(code.name, first, tuple(lines[first - 1 : last]))

    def gates_within(self, code: Code) -> list[int]:
        """The lines (of the file as read) of the gates the cut decided inside the span
        ``code`` (a definition of the file as read): empty when none."""
        self.original(code.name)
        last = code.start + len(code.lines) - 1
        return [cut.line for cut in self.cuts[code.name] if code.start <= cut.line <= last]

    def replace(self, file: str, start: int, end: int, text: str) -> bool:
        """Queue ``text`` for lines ``start``..``end`` of :meth:`original`; refuse an
        overlap (``False``)."""
        spans = self.spans.setdefault(file, [])
        if any(not (end < s or start > e) for s, e, _t in spans):
            return False
        self.original(file)
        spans.append((start, end, text))
        return True

    def result(self) -> dict[str, str]:
        """The new text of every file read that port changes (relative path -> text)."""
        out = {}
        for file in self.lines:
            spans = self.spans.get(file, [])
            if not spans and not self.cuts[file]:
                continue
            lines = list(self.original(file))
            for start, end, text in sorted(spans, reverse=True):
                lines[start - 1 : end] = text.splitlines(True)
            out[file] = _restore_endings(self.endings[file], self.read[file], "".join(lines))
        return out


def read_exact(path: Path) -> str:
    """A plugin file's text with its line ends as they are (no newline translation)."""
    with path.open(encoding="utf-8", errors="surrogateescape", newline="") as handle:
        return handle.read()


def refuse_not_utf8(path: Path, text: str) -> None:
    """Refuse a plugin file that is not UTF-8 (``text`` as :func:`read_exact` read it, a byte
    that is not UTF-8 kept as a lone surrogate): its code cannot be parsed or merged as read
    (a Latin-1 file with its ``coding:`` line stopped ``runtime port`` with a traceback).

    Raises:
        TargetError: naming the file and the line of the first such byte.
    """
    from patchkeeper.errors import TargetError

    bad = next((i for i, ch in enumerate(text) if "\udc80" <= ch <= "\udcff"), None)
    if bad is None:
        return
    line = text.count("\n", 0, bad) + 1
    raise TargetError(
        f"not UTF-8 (byte 0x{ord(text[bad]) - 0xDC00:02x}): runtime port reads and writes "
        "patch files as UTF-8, and nothing was written",
        path=path,
        line=line,
        hint="convert the file to UTF-8 (e.g. iconv -f latin-1 -t utf-8, and drop its "
        "'coding:' line), then run the command again",
    )


def _lines(text: str) -> list[str]:
    """``text`` cut after each ``"\\n"`` (a ``"\\r\\n"`` stays whole), as diff and patch
    count lines; the last one may have no line end."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def _ending(line: str) -> str:
    """A line's end: ``"\\r\\n"``, ``"\\n"``, or ``""`` (the last line, without one)."""
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def _restore_endings(endings: list[str], read: list[str], text: str) -> str:
    """``text`` (lines ending ``"\\n"``) with the line ends of the file as read: a line kept
    from it (``read``, its lines as worked on) gets its own end back, a new line the end
    most of the file's lines have. A file whose lines all end in ``"\\n"`` is ``text``."""
    if all(ending in ("\n", "") for ending in endings):
        return text
    crlf = sum(ending == "\r\n" for ending in endings)
    common = "\r\n" if crlf * 2 >= len(endings) else "\n"
    old = _lines("".join(read))
    new = _lines(text)
    out = [line[:-1] + common if line.endswith("\n") else line for line in new]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, a0, a1, b0, _b1 in matcher.get_opcodes():
        if tag != "equal":
            continue
        for k in range(a1 - a0):
            line, ending = new[b0 + k], endings[a0 + k]
            if line.endswith("\n") and ending:
                out[b0 + k] = line[:-1] + ending
    return "".join(out)


def _merge_entry(item: AuditedEntry, result: RuntimeAudit, trees, tree, edits) -> PortedEntry:
    entry, drift = item.entry, item.drift
    base = PortedEntry(entry.file, entry.line, entry.target, drift.decision, LEFT, "")
    old_code, new_code, mine = codes(entry, item.old, item.new, trees, tree)
    if old_code is None or new_code is None or mine is None:
        reason = "the replacement is not a function or class of the plugin: update it by hand"
        return _replace(base, detail=_unreadable_copy(entry.replacement, tree) or reason)
    specs = (result.old, result.new)
    versions = [release_label(s, t.root) for s, t in zip(specs, trees, strict=True)]
    labels = Labels(f"upstream {versions[1]}", f"upstream {versions[0]}", "plugin")
    written, copied = mine.start, mine
    mine = edits.relocate(mine)
    if mine is None:
        reason = "a version gate cut left no single copy of this name: merge it by hand"
        return _replace(base, detail=reason)
    key = (mine.name, mine.start, old_code.text, new_code.text)
    modules = module_aliases("".join(edits.original(mine.name)), item.old.module)
    if key in edits.merges:
        # Two targets bound to one copy, with the same upstream change: merged once.
        first = edits.merges[key]
        detail = f"merged with {first.target} (line {first.line}), the same copy: {first.detail}"
        return _replace(
            first,
            file=entry.file,
            line=entry.line,
            target=entry.target,
            decision=drift.decision,
            conflicts=0,
            detail=detail,
        )
    if edits.line(copied.name, copied.start) is None:
        # The copy sits behind a gate that changes at the new release: the definition
        # of its name left once the gate is cut is the plugin's own version for the
        # releases after the old one (it already follows upstream).
        detail = (
            f"the copy at {mine.name}:{written} sits behind a version gate: the plugin's "
            f"definition for the new release (line {mine.start} once cut) is kept, not merged"
        )
        done = _replace(base, action=MERGED, detail=detail)
    elif gated := edits.gates_within(copied):
        where = (edits, tree, modules)
        done = _merge_adapted(entry, base, (old_code, new_code), mine, written, labels, where)
        if done is None:
            # The copy holds its own branch for the new release, adapted from upstream
            # code newer than the old release: merged from the old release, it conflicts
            # or gets the change a second time; the cut is the update.
            lines = ", ".join(str(n) for n in gated)
            detail = (
                f"the copy at {mine.name}:{written} holds a version gate that changes at the "
                f"new release (line {lines}): its branch for the new release is kept as the "
                "cut left it (merged from the old release, it conflicts or repeats lines)"
            )
            done = _replace(base, action=MERGED, detail=detail)
    elif edits.line(entry.file, entry.line) is None:
        # The patch statement itself sits in a gate that changes at the new release: the
        # replacement it binds was written for the new release (or is dead there).
        detail = (
            f"the patch statement at {entry.file}:{entry.line} sits in a version gate that "
            "changes at the new release: the cut decides it; the copy is not merged"
        )
        done = _replace(base, action=MERGED, detail=detail)
    else:
        where = (edits, tree, modules)
        done = _merge_pieces(entry, base, old_code, new_code, mine, written, labels, where)
    edits.merges[key] = done
    return done


def _merge_adapted(entry, base, codes_, mine, written, labels, where) -> PortedEntry | None:
    """Merge a copy that holds a version gate the new release decides (its gates cut):
    only when every piece merges clean and repeats no logical line
    (:func:`~patchkeeper.runtime.port.layoutmerge.repeats`: the copy already had that part of
    the change); ``None`` otherwise, nothing queued. ``where``: ``(edits, plugin tree, the
    file's names of upstream's module)``."""
    edits, tree, modules = where
    old_code, new_code = codes_
    pieces = _subclass_pieces(entry, old_code, new_code, mine, tree)
    if pieces is None:
        pieces = [(old_code, new_code, mine.start, mine.start + len(mine.lines) - 1)]
    if not pieces:
        return None
    done = []
    for old_piece, new_piece, start, end in pieces:
        lines = edits.original(mine.name)[start - 1 : end]
        merged, found = merge_copy(old_piece, new_piece, lines, labels, modules)
        if found or repeats(merged.splitlines(True), lines, list(new_piece.lines)):
            return None
        if merged != "".join(lines):
            done.append((start, end, merged))
    if not done:
        return None
    for start, end, merged in done:
        if not edits.replace(mine.name, start, end, merged):
            return _replace(base, detail="another entry already rewrites these lines")
    what = f"three-way merge of {mine.name}:{written}"
    if len(pieces) > 1 or pieces[0][2] != mine.start:
        what += f" ({len(pieces)} overridden method(s))"
    detail = f"{what}, its version gates cut: clean"
    return _replace(base, action=MERGED, detail=detail)


def _merge_pieces(entry, base, old_code, new_code, mine, written, labels, where) -> PortedEntry:
    """Merge the copy ``mine`` (or the methods of it that a subclass overrides); ``where``
    is ``(edits, plugin tree, the file's names of upstream's module)``."""
    edits, tree, modules = where
    pieces = _subclass_pieces(entry, old_code, new_code, mine, tree)
    if pieces is None:
        pieces = [(old_code, new_code, mine.start, mine.start + len(mine.lines) - 1)]
    extending = _extending(old_code, new_code, mine)
    names = ", ".join(extending)
    missing = ", ".join(name for name, lacks in extending.items() if lacks)
    by_hand = (
        f"the overridden method(s) {missing} call upstream's through super(), whose new "
        "signature has parameters they do not take: update their parameters by hand"
    )
    if not pieces and missing:
        return _replace(base, detail=by_hand)
    if not pieces and extending:
        detail = (
            f"the overridden method(s) {names} that changed upstream call upstream's through "
            "super(): they inherit the change, nothing to merge"
        )
        return _replace(base, action=NOTHING, detail=detail)
    if not pieces:
        return _replace(base, detail="no method the subclass overrides changed upstream")
    conflicts, had = 0, 0
    for old_piece, new_piece, start, end in pieces:
        lines = edits.original(mine.name)[start - 1 : end]
        if has_change(list(old_piece.lines), list(new_piece.lines), lines):
            had += 1
            continue
        merged, found = merge_copy(old_piece, new_piece, lines, labels, modules)
        if merged == "".join(lines):
            had += 1
            continue  # the merge gives the copy back: it already has this change
        if not edits.replace(mine.name, start, end, merged):
            return _replace(base, detail="another entry already rewrites these lines")
        conflicts += found
    what = f"three-way merge of {mine.name}:{written}"
    if len(pieces) > 1 or pieces[0][2] != mine.start:
        what += f" ({len(pieces)} overridden method(s))"
    if conflicts:
        tail = f"; {by_hand}" if missing else ""
        return _replace(
            base,
            action=CONFLICT,
            detail=f"{what}: {conflicts} conflict(s) marked{tail}",
            conflicts=conflicts,
        )
    if missing:
        state = "nothing to merge" if had == len(pieces) else "clean"
        return _replace(base, detail=f"{what}: {state}; {by_hand}")
    if had == len(pieces):
        detail = f"the copy at {mine.name}:{written} already has the upstream change"
        return _replace(base, action=NOTHING, detail=detail)
    return _replace(base, action=MERGED, detail=f"{what}: clean")


def _unreadable_copy(replacement: str, tree) -> str:
    """Why the replacement (``module:qualname``) could not be read when its module holds
    the conflict markers of an earlier ``--write`` (a copy outside the patch directory,
    e.g. ``plugin/ops/x.py``); ``""`` otherwise."""
    module = replacement.partition(":")[0]
    found = tree.module_file(module) if module else None
    if found is None:
        return ""
    line = conflict_line(found[0])
    if not line:
        return ""
    where = f"{tree.relative(found[0])}:{line}"
    return f"the copy's file has an unresolved conflict region at {where}: resolve it first"


def _span(code: Code, node: ast.stmt) -> Code:
    """The part of ``code`` that is ``node`` (a method of the class ``code`` holds)."""
    lines = code.text.splitlines(True)[node.lineno - 1 : node.end_lineno]
    return Code(code.name, code.start + node.lineno - 1, tuple(lines))


def _extends(node, upstream, old: Code, mine: Code) -> bool:
    """Whether the plugin's override ``node`` (a method of the class in ``mine``) extends
    upstream's method ``upstream`` (a method of the class in ``old``, the old release)
    rather than copying it: it calls upstream's through ``super()`` (:func:`calls_super`)
    and its body keeps less than half of the logical lines of upstream's body
    (:func:`~patchkeeper.runtime.port.layoutmerge.kept_share`; a copy that only falls back to
    ``super()`` on one path keeps most of them)."""
    if not calls_super(node):
        return False
    theirs = old.text.splitlines(True)[upstream.body[0].lineno - 1 : upstream.end_lineno]
    ours = mine.text.splitlines(True)[node.body[0].lineno - 1 : node.end_lineno]
    return kept_share(theirs, ours) < 0.5


def calls_super(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``method`` (a method of a plugin subclass) calls the method it overrides
    through ``super().NAME(...)``: it extends upstream's method and inherits its change,
    it is no copy to merge (as a wrapper that calls the original is not).

    >>> calls_super(ast.parse("def f(self):\\n    return super().f() + 1").body[0])
    True
    >>> calls_super(ast.parse("def f(self):\\n    return super().g()").body[0])
    False
    """
    for node in ast.walk(method):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == method.name
            and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "super"
        ):
            return True
    return False


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names of the method's parameters (``*args``/``**kwargs`` aside)."""
    args = node.args
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def _forwards_rest(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the method takes ``*args`` and ``**kwargs`` (a new upstream parameter
    reaches ``super()`` through them)."""
    return node.args.vararg is not None and node.args.kwarg is not None


def _extending(old: Code, new: Code, mine: Code) -> dict[str, bool]:
    """The methods of the plugin's subclass ``mine`` that changed upstream (from
    ``old`` to ``new``) and extend upstream's through ``super()`` (:func:`_extends`),
    each with whether the override misses a parameter of the new upstream method (it
    names its parameters instead of forwarding ``*args, **kwargs``, and lacks one)."""
    ours, before, after = mine.node(), old.node(), new.node()
    if not all(isinstance(n, ast.ClassDef) for n in (ours, before, after)):
        return {}
    methods = (ast.FunctionDef, ast.AsyncFunctionDef)
    old_methods = {n.name: n for n in before.body if isinstance(n, methods)}
    new_methods = {n.name: n for n in after.body if isinstance(n, methods)}
    found = {}
    for node in ours.body:
        a, b = (
            old_methods.get(getattr(node, "name", "")),
            new_methods.get(getattr(node, "name", "")),
        )
        if not isinstance(node, methods) or a is None or b is None or same_ast(a, b):
            continue
        if _extends(node, a, old, mine):
            missing = _parameters(b) - _parameters(node)
            found[node.name] = bool(missing) and not _forwards_rest(node)
    return found


def _subclass_pieces(entry, old: Code, new: Code, mine: Code, tree):
    """For a plugin class deriving from the upstream class it replaces (directly or
    through the plugin's own classes: :func:`~patchkeeper.runtime.port.bases.derives_from`),
    the methods it overrides whose upstream definition changed, as ``(old method, new
    method, first line, last line in the plugin file)``; ``None`` when the replacement is
    not such a subclass (the whole definition is merged)."""
    ours, before, after = mine.node(), old.node(), new.node()
    if not all(isinstance(n, ast.ClassDef) for n in (ours, before, after)):
        return None
    name = entry.target.rsplit(".", 1)[-1]
    module = (entry.replacement or "").partition(":")[0]
    if not derives_from(tree, module, ours, name):
        return None
    methods = (ast.FunctionDef, ast.AsyncFunctionDef)
    old_methods = {n.name: n for n in before.body if isinstance(n, methods)}
    new_methods = {n.name: n for n in after.body if isinstance(n, methods)}
    pieces = []
    for node in ours.body:
        if not isinstance(node, methods):
            continue
        a, b = old_methods.get(node.name), new_methods.get(node.name)
        if a is None or b is None or same_ast(a, b) or _extends(node, a, old, mine):
            continue
        # From the def line on: decorators stay as the plugin wrote them.
        start, end = mine.start + node.lineno - 1, mine.start + node.end_lineno - 1
        pieces.append((_span(old, a), _span(new, b), start, end))
    return pieces


def _retarget(item: AuditedEntry, edits: _Edits) -> PortedEntry:
    entry = item.entry
    base = PortedEntry(entry.file, entry.line, entry.target, item.drift.decision, LEFT, "")
    if item.new.status != MOVED or len(item.new.candidates) != 1:
        return _replace(base, detail="the target moved to several places: choose one by hand")
    location = item.new.candidates[0].split(" (line")[0]
    old_module = entry.module_hint or entry.target.rsplit(".", 1)[0]
    tail = entry.target[len(old_module) + 1 :]
    if not location.endswith("." + tail):
        return _replace(base, detail=f"the target is now {location}: rename it by hand")
    new_module = location[: -len(tail) - 1]
    lines = edits.original(entry.file)
    first = edits.line(entry.file, entry.line)
    if first is None:
        return _replace(base, detail="a version gate cut rewrote the patch statement")
    for number in range(first, min(first + 4, len(lines) + 1)):
        text = lines[number - 1]
        if old_module in text:
            changed = text.replace(old_module, new_module)
            if edits.replace(entry.file, number, number, changed):
                shown = entry.line + number - first
                return _replace(
                    base, action=RETARGETED, detail=f"{old_module} -> {new_module} at line {shown}"
                )
    return _replace(base, detail=f"{old_module} is not written in the patch statement")


def _replace(entry: PortedEntry, **changes: Any) -> PortedEntry:
    return replace(entry, **changes)


def _gates(result: RuntimeAudit, edits: _Edits, new: str) -> list[PortedEntry]:
    """Every gate port cut (``gate cut``, in each file's order), then every version gate
    whose live branch changes at the new release that it did not cut, left by hand with
    the edit it needs."""
    out, cut = [], set()
    for file in sorted(edits.cuts):
        for found in edits.cuts[file]:
            cut.add((file, found.line))
            detail = _cut_detail(found, new)
            out.append(PortedEntry(file, found.line, found.test, "gate", GATE_CUT, detail))
    for gate in result.gates:
        if gate.edit and (gate.file, gate.line) not in cut:
            out.append(PortedEntry(gate.file, gate.line, gate.test, "gate", LEFT, gate.edit))
    return out


def _cut_detail(found: Cut, new: str) -> str:
    """The sentence of a cut gate: which branch died at ``new`` and what port kept (and the
    lines after it deleted as unreachable,
    :attr:`~patchkeeper.runtime.port.gatecut.Cut.unreachable`)."""
    test = f"`{found.test}`"
    rest = ""
    if found.unreachable:
        rest = (
            f"; it ends in return or raise: the {found.unreachable} line(s) after it in its "
            "block, unreachable, deleted"
        )
    if found.kept == "if":
        return (
            f"the `else` branch of {test} is dead at {new}: cut the test, kept the `if` block{rest}"
        )
    if found.kept == "else":
        return f"the `if` branch of {test} is dead at {new}: cut it, kept the `else` block{rest}"
    if found.kept == "nothing":
        return f"the `if` branch of {test} is dead at {new}: cut it (no `else` block)"
    if found.kept.startswith("test: "):
        rest = found.kept.removeprefix("test: ")
        return f"the version gate in {test} is decided at {new}: the test is now `{rest}`"
    side = "first" if found.kept == "body" else "second"
    return f"{test} is decided at {new}: the conditional expression became its {side} operand"


def _headers(result: RuntimeAudit, new: str, label: str, edits: _Edits) -> list[PortedEntry]:
    """``Affected versions:`` of each audited file gains ``Reviewed against NEW.`` at the end
    of its value (:func:`affected_field`), once; when the
    new release's version is unknown (``new`` is ``""``: a directory without ``PKG-INFO`` or
    a ``version`` in ``pyproject.toml``, such as a checkout), no header is written and one
    entry says what is left by hand, naming the tree by ``label`` (a path in a header would
    name nothing)."""
    files = sorted({a.entry.file for a in result.entries})
    if not new:
        if not files:
            return []
        detail = (
            f"the version of {label} is unknown (no PKG-INFO, no version in "
            "pyproject.toml): add 'Reviewed against VERSION.' to the 'Affected versions:' "
            f"header of {len(files)} file(s) by hand"
        )
        where = result.inventory.patch_directory
        return [PortedEntry(where, 0, "Affected versions:", "header", LEFT, detail)]
    mark = f"Reviewed against {new}."
    for file in files:
        lines = edits.original(file)
        field = affected_field(lines)
        if field is None or mark in "".join(lines[field[0] - 1 : field[1]]):
            continue
        # The mark ends the field's value: after its last continuation line.
        line = lines[field[1] - 1]
        ending = line[len(line.rstrip("\r\n")) :]
        text = f"{line.rstrip()} {mark}{ending}"
        edits.replace(file, field[1], field[1], text)
    return []


def _reviewed_files(result: RuntimeAudit, new: str, edits: _Edits) -> set[str]:
    """The audited files whose header already says ``Reviewed against NEW.`` (written by an
    earlier ``runtime port --write`` to ``new``): their copies were merged then, and resolved
    by hand where they conflicted; merging them again from the old release would conflict
    with that resolution. Empty when ``new`` (the version) is unknown."""
    if not new:
        return set()
    mark = f"Reviewed against {new}."
    found = set()
    for file in sorted({a.entry.file for a in result.entries}):
        lines = edits.original(file)
        field = affected_field(lines)
        if field and mark in "".join(lines[field[0] - 1 : field[1]]):
            found.add(file)
    return found


def _patch_files(result: RuntimeAudit, tree) -> set[str]:
    """The plugin files the patch consists of: each entry's file and the file of each
    replacement definition (``module:qualname``) inside the plugin's root."""
    files = {item.entry.file for item in result.entries}
    for item in result.entries:
        module, sep, _qual = (item.entry.replacement or "").partition(":")
        found = tree.module_file(module) if sep and "<" not in module else None
        if found is not None:
            try:
                files.add(tree.relative(found[0]))
            except ValueError:
                continue  # outside the plugin's root
    return files


def port_plan(result: RuntimeAudit, root: Path, trees, tree) -> tuple[list[PortedEntry], dict]:
    """Per-entry actions and the new text of every changed file (relative path -> text)."""
    versions = tuple(
        release_version(spec, tree_.root) or spec
        for spec, tree_ in zip((result.old, result.new), trees)
    )
    edits = _Edits(root, (versions[0], versions[1]))
    for file in sorted(_patch_files(result, tree)):
        edits.original(file)
    new_version = release_version(result.new, trees[1].root)
    done: list[PortedEntry] = []
    reviewed = _reviewed_files(result, new_version, edits)
    for item in result.entries:
        entry, decision = item.entry, item.drift.decision
        base = PortedEntry(entry.file, entry.line, entry.target, decision, LEFT, "")
        if decision == RETAIN or decision == "not-audited":
            done.append(_replace(base, action=NOTHING, detail=item.drift.evidence[0]))
        elif decision == UPDATE and item.new.status == MOVED:
            done.append(_retarget(item, edits))
        elif decision == UPDATE and item.new.status == FOUND and item.old.status == FOUND:
            unresolved = _unreadable_copy(entry.replacement, tree)
            if entry.file in reviewed and unresolved:
                done.append(_replace(base, detail=unresolved))
            elif entry.file in reviewed:
                detail = (
                    f"not merged again: the file's 'Affected versions:' says 'Reviewed against "
                    f"{new_version}.' (an earlier port merged it; a second merge from the old "
                    "release would conflict with the resolution)"
                )
                done.append(_replace(base, action=NOTHING, detail=detail))
            else:
                done.append(_merge_entry(item, result, trees, tree, edits))
        elif decision in (REMOVE, MIGRATE):
            done.append(_replace(base, detail=item.drift.evidence[0]))
        else:
            done.append(_replace(base, detail=item.drift.evidence[0]))
    label = release_label(result.new, trees[1].root)
    done += _headers(result, new_version, label, edits)
    done += _gates(result, edits, versions[1])
    return done, edits.result()


def unified_diff(root: Path, changed: dict[str, str]) -> str:
    """The unified diff of the changed files, ``a/``/``b/`` paths relative to ``root``."""
    out = []
    for file in sorted(changed):
        before = read_exact(root / file)
        if before == changed[file]:
            continue
        for line in difflib.unified_diff(
            _lines(before), _lines(changed[file]), f"a/{file}", f"b/{file}"
        ):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


#: The plugin's project and configuration files at its root: never an ``--output``.
PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "patchkeeper.toml", "MANIFEST.in")


def _refuse_plugin_output(
    output: Path, root: Path, patch_directory: str, files, source: Path | None = None
) -> None:
    """Refuse an ``--output`` that would overwrite the plugin's own files: a file the diff
    changes, a Python file of the patch directory or of the plugin (a slip such as
    ``--output plugin/patch/patch_x.py`` replaced the patch with its diff), the lock file,
    the configuration ``source`` or a project file at the plugin's root (``--output
    pyproject.toml`` replaced the plugin's configuration with the diff).

    Raises:
        TargetError: naming the file.
    """
    from patchkeeper.errors import TargetError

    target = Path(output).resolve()
    patches = (root / patch_directory).resolve()
    changed = {(root / f).resolve() for f in files}
    own = {(root / name).resolve() for name in PROJECT_FILES}
    own |= {patches / "patchkeeper.lock"}
    if source is not None:
        own.add(source.resolve())
    python = target.suffix == ".py" and (
        target.is_relative_to(patches) or (target.is_file() and target.is_relative_to(root))
    )
    if target in changed or target in own or python:
        raise TargetError(
            "--output names a file of the plugin: the diff would replace its code",
            path=output,
            hint="write the diff outside the patch directory, e.g. --output update.diff",
        )


def _write_output(output: Path, diff: str) -> None:
    """Write the diff to ``output`` through a temporary file renamed into place.

    Raises:
        TargetError: the file cannot be written.
    """
    import os

    from patchkeeper.errors import TargetError

    temporary = output.with_name(output.name + ".patchkeeper-tmp")
    try:
        temporary.write_text(diff, encoding="utf-8", errors="surrogateescape")
        os.replace(temporary, output)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise TargetError(
            f"cannot write the diff: {exc.strerror}", path=output, hint="choose another --output"
        ) from None


def port_runtime(
    config: Any | None,
    *,
    old: str,
    new: str,
    write: bool = False,
    output: Path | None = None,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
) -> RuntimePort:
    """Port the plugin's runtime patches from upstream ``old`` to ``new``.

    Args:
        write: apply the diff to the plugin's files (atomically).
        output: also write the diff to this file.

    Raises:
        ConfigError, FetchError, GitError; TargetError (also when a patch file does not
        parse, e.g. with the conflict markers of an earlier ``--write``: its copies would be
        merged again into the markers).
    """
    settings = resolve_settings(
        config, plugin=plugin, package=package, patch_directory=patch_directory
    )
    scanned = scan_plugin(settings)
    refuse_unparsed(scanned.inventory, settings.root, "runtime port")
    result = runtime_audit.audit_runtime(
        config, old=old, new=new, plugin=plugin, package=package, patch_directory=patch_directory
    )
    tree = scanned.tree
    trees = tuple(
        UpstreamTree(runtime_audit.tree_root(spec), settings.upstream_packages)
        for spec in (old, new)
    )
    entries, changed = port_plan(result, settings.root, trees, tree)
    diff = unified_diff(settings.root, changed)
    files = tuple(sorted(f for f in changed if f"a/{f}" in diff))
    if write:
        refuse_links_out(settings.root, files, "runtime port --write")
    if output is not None:
        _refuse_plugin_output(output, settings.root, settings.patch_directory, files, config.source)
        _write_output(output, diff)
    if write and files:
        data = {
            (settings.root / f).resolve(): changed[f].encode("utf-8", "surrogateescape")
            for f in files
        }
        write_files(settings.root, data)
    labels = [release_label(s, t.root) for s, t in zip((old, new), trees, strict=True)]
    return RuntimePort(
        *labels, tuple(entries), diff, files, write and bool(files), str(output or "")
    )


__all__ = ["Labels", "PortedEntry", "RuntimePort", "merge_copy", "port_plan", "port_runtime"]
