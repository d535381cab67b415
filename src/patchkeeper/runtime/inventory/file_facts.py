"""The facts of one plugin file, as :mod:`patchkeeper.runtime.inventory.scan` finds them.

Plain data: patch entries with the conditions met inside their own scope, the edges to
other plugin objects (imports, calls, references, dotted strings) that the activation
search follows, the functions and classes the file defines, commented-out imports, and
decorator problems. :func:`to_record` / :func:`from_record` turn them into nested tuples of
builtin values for the per-file cache (:mod:`patchkeeper.runtime.store.cache`, stored with
:mod:`marshal`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from patchkeeper.runtime.model import Activation, ActivationStatus, Condition, Mechanism, PatchEntry
from patchkeeper.runtime.syntax.references import PatchFileFacts

MODULE_SCOPE = "<module>"
STDLIB = frozenset(sys.stdlib_module_names) - {"sys"}


class CondSpec(NamedTuple):
    """A condition met inside one scope: ``kind`` (if/else/version/try-import/except),
    ``text``, ``line``; ``param``/``truth`` when the test is a bare parameter name (so a call
    with a constant argument decides it)."""

    kind: str
    text: str
    line: int
    param: str = ""
    truth: bool = True


class Edge(NamedTuple):
    """``scope`` reaches the plugin object ``target`` (a module or ``module.qualname``) by an
    import, a call (``args``: constant arguments by name or position), a reference, or a
    dotted string; under ``conditions``."""

    scope: str
    target: str
    kind: str
    line: int
    conditions: tuple[CondSpec, ...] = ()
    args: tuple[tuple[str, object], ...] = ()


class FunctionInfo(NamedTuple):
    """A function or method: its parameters with constant defaults (``...`` when the default
    is not a constant, absent when there is none); ``line``..``end_line`` its span without
    decorators. (The names its own scope binds once to a literal string, which only the
    scan of a ``sys.modules`` key or an attribute name reads, are found by the scanner
    when such a key asks for them: :meth:`patchkeeper.runtime.inventory.assignment_forms.
    AssignmentForms._constants`.)"""

    qualname: str
    line: int
    params: tuple[str, ...]
    defaults: tuple[tuple[str, object], ...]
    end_line: int = 0


#: The start of the ``syntax_error`` of a file that cannot be read
#: (:func:`patchkeeper.runtime.inventory.plugin.unreadable`).
UNREADABLE = "the file cannot be read"


@dataclass
class FileFacts:
    """Everything the inventory needs from one file.

    ``classes``: qualified name -> base classes as dotted paths (the source text when a base
    is not bound to an import or a definition); ``class_spans``: qualified name -> (first
    line without decorators, last line).
    """

    module: str
    file: str
    entries: list[tuple[PatchEntry, tuple[CondSpec, ...]]] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    class_spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    commented_imports: list[tuple[int, str, tuple[str, ...]]] = field(default_factory=list)
    problems: list[tuple[str, str, int]] = field(default_factory=list)
    syntax_error: str = ""
    #: The module constants
    #: (:func:`patchkeeper.runtime.inventory.module_constants.module_constants`).
    constants: dict[str, str] = field(default_factory=dict)
    #: Entries whose name is a constant of another plugin module, with its dotted path:
    #: ``setattr(Target, NAME, fn)`` (``target`` the object set on) and ``sys.modules[NAME]``
    #: (the computed-key form), resolved by the inventory once every file is read.
    named: list[tuple[PatchEntry, tuple[CondSpec, ...], str]] = field(default_factory=list)
    #: The first line of the decorators of each decorated function and class, by the line
    #: of its ``def``/``class``: where the source of a definition with its decorators starts
    #: (:func:`patchkeeper.runtime.judge.replacement.source_code` parses that much, not the file).
    decorated: dict[int, int] = field(default_factory=dict)
    #: A file of the patch directory: its cross-check facts
    #: (:func:`patchkeeper.runtime.syntax.references.tree_facts` of every package), read
    #: from the tree the scan parsed; ``None`` for other files and files that do not parse.
    references: PatchFileFacts | None = None
    #: The rows of the string tables the module binds by name at its top level
    #: (:func:`patchkeeper.runtime.inventory.computed_imports.named_tables`), for the
    #: computed module names of the modules that import them.
    tables: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    #: Patches made on a parameter of a plugin function (``cls.attr = value``,
    #: ``setattr(cls, "attr", value)``): the entry with the attribute as its ``target``, its
    #: conditions, the function's dotted path, the parameter's index and whether the
    #: function declares it a class or a module (its annotation); named by the inventory
    #: after what the function's callers pass
    #: (:mod:`patchkeeper.runtime.inventory.parameter_patches`).
    through_params: list[tuple[PatchEntry, tuple[CondSpec, ...], str, int, bool]] = field(
        default_factory=list
    )
    #: ``setattr(obj, name, value)`` on an upstream object whose attribute name is a
    #: parameter of the plugin function around it (``def _ensure(name, default):
    #: setattr(ForwardContext, name, default)``): the entry with the object as its
    #: ``target``, its conditions, the function's dotted path and the parameter's index;
    #: named by the inventory after the string literals the function's callers pass
    #: (:func:`patchkeeper.runtime.inventory.parameter_patches.named_by_callers`).
    through_names: list[tuple[PatchEntry, tuple[CondSpec, ...], str, int]] = field(
        default_factory=list
    )
    #: ``setattr(obj, name, value)`` whose object and attribute name are both parameters of
    #: the plugin function around it (``def _wrap(cls, name): setattr(cls, name, wrapped)``):
    #: the entry (its ``target`` empty), its conditions, the function's dotted path, the
    #: two parameters' indexes, and whether the function declares the object a class or a
    #: module (its annotation: ``type``, ``type[...]``, ``ModuleType``); named by the
    #: inventory after the pairs the function's callers pass
    #: (:func:`patchkeeper.runtime.inventory.parameter_patches.named_by_pairs`).
    through_pairs: list[tuple[PatchEntry, tuple[CondSpec, ...], str, int, int, bool]] = field(
        default_factory=list
    )
    #: Every call of a plugin object: its dotted path, its arguments, each
    #: ``(position or keyword, kind, value, module)`` (the kinds of
    #: :mod:`patchkeeper.runtime.inventory.parameter_patches`), and its line; one record per
    #: item of a loop over literal strings whose variable an argument is.
    calls: list[tuple[str, tuple[tuple[str, str, str, str], ...], int]] = field(
        default_factory=list
    )

    def span(self, qualname: str) -> tuple[int, int] | None:
        """(first line, last line) of the function or class ``qualname``, decorators
        excluded, or ``None``."""
        info = self.functions.get(qualname)
        if info is not None:
            return info.line, info.end_line
        return self.class_spans.get(qualname)


@dataclass(frozen=True)
class ScanSettings:
    """``package``: the plugin's import package; ``decorators``: dotted names of the patch
    decorator (empty: any ``patch`` defined inside the plugin package); ``patch_package``:
    the dotted name of the patch directory (``vllm_ascend.patch``): files outside it are
    scanned for edges and definitions only, since their entries are never reported
    (empty: every file is scanned for entries)."""

    package: str
    decorators: tuple[str, ...] = ()
    patch_package: str = ""

    def reports_entries(self, module: str) -> bool:
        """Whether the entries of ``module`` are part of the inventory."""
        return not self.patch_package or is_plugin(module, self.patch_package)


def is_plugin(path: str, package: str) -> bool:
    """Whether a dotted path is the plugin package or inside it."""
    return path == package or path.startswith(package + ".")


def is_external(path: str, package: str) -> bool:
    """Whether a dotted path is outside the plugin and the standard library (``sys`` counts as
    external only for ``sys.modules``)."""
    top = path.split(".")[0]
    if is_plugin(path, package) or top in STDLIB or top in ("builtins", "__future__"):
        return False
    if top == "sys":
        return path.startswith("sys.modules")
    return True


# --------------------------------------------------------------------------- cache records
_ENTRY_FIELDS = (
    "file",
    "line",
    "module",
    "scope",
    "target",
    "mechanism",
    "module_hint",
    "key",
    "replacement",
    "allow_missing",
    "descriptors",
    "temporary",
)


def entry_record(entry: PatchEntry) -> tuple[Any, ...]:
    """A :class:`PatchEntry` without its activation, as a tuple of builtin values."""
    values = [getattr(entry, name) for name in _ENTRY_FIELDS]
    values[5] = entry.mechanism.value
    return tuple(values)


def entry_from_record(record: tuple[Any, ...]) -> PatchEntry:
    """The inverse of :func:`entry_record`."""
    fields = dict(zip(_ENTRY_FIELDS, record, strict=True))
    fields["mechanism"] = Mechanism(fields["mechanism"])
    return PatchEntry(**fields)


def activation_record(activation: Activation | None) -> tuple[Any, ...] | None:
    """An entry's :class:`Activation` as a tuple of builtin values (``None`` kept)."""
    if activation is None:
        return None
    conditions = tuple((c.kind, c.text, c.file, c.line) for c in activation.conditions)
    return (
        activation.status.value,
        activation.chain,
        conditions,
        activation.note,
        activation.untraced,
    )


def activation_from_record(record: tuple[Any, ...] | None) -> Activation | None:
    """The inverse of :func:`activation_record`."""
    if record is None:
        return None
    status, chain, conditions, note, untraced = record
    return Activation(
        ActivationStatus(status),
        tuple(chain),
        tuple(Condition(*c) for c in conditions),
        note,
        untraced,
    )


def _conds(records: tuple[tuple[Any, ...], ...]) -> tuple[CondSpec, ...]:
    return tuple(CondSpec(*c) for c in records)


def to_record(facts: FileFacts) -> tuple[Any, ...]:
    """``facts`` as nested tuples of builtin values (marshal-able)."""
    return (
        facts.module,
        facts.file,
        tuple((entry_record(e), tuple(tuple(c) for c in conds)) for e, conds in facts.entries),
        tuple(
            (e.scope, e.target, e.kind, e.line, tuple(tuple(c) for c in e.conditions), e.args)
            for e in facts.edges
        ),
        tuple(tuple(f) for f in facts.functions.values()),
        tuple(facts.classes.items()),
        tuple(facts.class_spans.items()),
        tuple(facts.commented_imports),
        tuple(facts.problems),
        facts.syntax_error,
        tuple(facts.constants.items()),
        tuple((entry_record(e), tuple(map(tuple, c)), path) for e, c, path in facts.named),
        tuple(facts.decorated.items()),
        facts.references,
        tuple(facts.tables.items()),
        tuple(
            (entry_record(e), tuple(map(tuple, c)), path, index, declared)
            for e, c, path, index, declared in facts.through_params
        ),
        tuple(facts.calls),
        tuple(
            (entry_record(e), tuple(map(tuple, c)), path, index)
            for e, c, path, index in facts.through_names
        ),
        tuple(
            (entry_record(e), tuple(map(tuple, c)), path, first, second, declared)
            for e, c, path, first, second, declared in facts.through_pairs
        ),
    )


def _function_from_record(fields: Any) -> FunctionInfo:
    """A :class:`FunctionInfo` from its record (its pairs may come back as lists)."""
    qualname, line, params, defaults, end_line = fields
    return FunctionInfo(
        qualname, line, tuple(params), tuple((name, value) for name, value in defaults), end_line
    )


def from_record(record: tuple[Any, ...]) -> FileFacts:
    """The inverse of :func:`to_record`."""
    module, file, entries, edges, functions, classes, spans, commented, problems, *rest = record
    error, constants, named, decorated, references, tables, through, calls, *more = rest
    by_name, pairs = more
    return FileFacts(
        module=module,
        file=file,
        entries=[(entry_from_record(e), _conds(c)) for e, c in entries],
        edges=[Edge(s, t, k, n, _conds(c), a) for s, t, k, n, c, a in edges],
        functions={f[0]: _function_from_record(f) for f in functions},
        classes=dict(classes),
        class_spans=dict(spans),
        commented_imports=list(commented),
        problems=list(problems),
        syntax_error=error,
        constants=dict(constants),
        named=[(entry_from_record(e), _conds(c), path) for e, c, path in named],
        decorated=dict(decorated),
        references=references,
        tables={name: tuple(tuple(row) for row in rows) for name, rows in tables},
        through_params=[
            (entry_from_record(e), _conds(c), path, index, declared)
            for e, c, path, index, declared in through
        ],
        calls=[(path, tuple(tuple(arg) for arg in args), line) for path, args, line in calls],
        through_names=[
            (entry_from_record(e), _conds(c), path, index) for e, c, path, index in by_name
        ],
        through_pairs=[
            (entry_from_record(e), _conds(c), path, first, second, declared)
            for e, c, path, first, second, declared in pairs
        ],
    )
