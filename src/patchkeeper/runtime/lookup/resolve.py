"""Resolve a patched target (``vllm.x.Cls.meth``) in an upstream tree.

A failed static lookup does not establish that an upstream target was removed: dynamic
exports, inherited methods and imported aliases lead to definitions elsewhere. So a lookup
follows ``from x import y`` aliases and re-exports, star imports, submodules and base
classes; and when it fails the name is searched in the whole tree: *moved* (with the new
locations) or *removed*. A name the module imports from a package outside the tree's
(``from torch... import libdevice``) is that package's object: *outside*, not searched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from patchkeeper.runtime.lookup.upstream_tree import Definition, ModuleSummary, UpstreamTree

FOUND = "found"
MOVED = "moved"
REMOVED = "removed"
OUTSIDE = "outside"  # not in the audited upstream packages
#: Not found where it was looked up, and not searched elsewhere: nothing depends on where
#: it went (the audit searches the old tree only for targets the new tree has).
NOT_SEARCHED = "not-searched"
#: The most places a *moved* target lists.
MAX_CANDIDATES = 10


def outside_upstream(target: str) -> str:
    """The evidence for a target that is :data:`OUTSIDE` (another library's, or a name that
    is no module's): the upgrade cannot change it."""
    return f"{target} is not part of the upstream being upgraded"


@dataclass(frozen=True)
class Resolution:
    """Where a target is in one tree.

    ``status``: ``found``, ``moved``, ``removed``, ``outside`` or ``not-searched``
    (``outside`` also for a name the module at the path imports from a package outside the
    tree's, such as ``torch``: ``module`` is that module and ``via`` ends with where the
    name comes from). For
    ``found``:
    ``module``/``qualname`` of the definition reached, ``file``/``line``, ``definition``,
    and ``via`` (the steps followed: ``"re-export vllm.x -> vllm.x.y"``, ``"inherited from
    vllm.a.Base"``). ``partial``: a prefix was found but the rest is an attribute of a value
    (an instance), not followed statically. ``candidates``: for ``moved``, where the name
    is defined now (``module.qualname`` with a line).
    """

    target: str
    status: str
    module: str = ""
    qualname: str = ""
    file: str = ""
    line: int = 0
    definition: Definition | None = None
    via: tuple[str, ...] = ()
    partial: str = ""
    candidates: tuple[str, ...] = ()

    @property
    def location(self) -> str:
        return f"{self.module}.{self.qualname}" if self.qualname else self.module


def _split(tree: UpstreamTree, dotted: str) -> tuple[str, list[str]] | None:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if tree.module_file(module) is not None:
            return module, parts[cut:]
    return None


#: The most steps (re-exports, imports, bases) a lookup follows.
MAX_DEPTH = 12


def _lookup(
    tree: UpstreamTree, module: str, parts: list[str], via: tuple[str, ...], depth: int
) -> Resolution | None:
    if depth > MAX_DEPTH:
        return None
    summary = tree.summary(module)
    if summary is None:
        return None
    if not parts:
        return Resolution("", FOUND, module, "", summary.file, 1, None, via)
    name = parts[0]
    definition = summary.definitions.get(name)
    if definition is not None:
        return _member(tree, module, summary.file, definition, parts, via, depth)
    sub = f"{module}.{name}"
    if tree.module_file(sub) is not None:
        return _lookup(tree, sub, parts[1:], via, depth + 1)
    binding = summary.imports.get(name)
    if binding is not None and tree.contains(binding.dotted):
        split = _split(tree, binding.dotted)
        if split is not None:
            target_module, rest = split
            return _lookup(
                tree,
                target_module,
                rest + parts[1:],
                (*via, f"{module}.{name} is imported from {binding.dotted}"),
                depth + 1,
            )
    if binding is not None and not tree.contains(binding.dotted):
        # a name the module imports from another library (``from torch... import
        # libdevice``): the object is that library's, reached through the module
        return Resolution(
            "",
            OUTSIDE,
            module,
            ".".join(parts),
            summary.file,
            0,
            None,
            (*via, f"{module}.{name} is imported from {binding.dotted}"),
        )
    for star in summary.star_imports:
        found = _lookup(tree, star, parts, (*via, f"{module} re-exports * from {star}"), depth + 1)
        if found is not None:
            return found
    return None


def _member(
    tree: UpstreamTree,
    module: str,
    file: str,
    definition: Definition,
    parts: list[str],
    via: tuple[str, ...],
    depth: int,
) -> Resolution | None:
    summary = tree.summary(module)
    assert summary is not None, "the caller found ``definition`` in this module's summary"
    qual = definition.qualname
    rest = parts[1:]
    while rest:
        nested = summary.definitions.get(f"{qual}.{rest[0]}")
        if nested is not None:
            definition, qual, rest = nested, f"{qual}.{rest[0]}", rest[1:]
            continue
        if definition.kind == "class":
            missing = ".".join(rest)
            for base in definition.bases:
                split = _split(tree, base) or _local_base(summary, module, base)
                if split is None:
                    continue
                base_module, base_parts = split
                found = _lookup(
                    tree,
                    base_module,
                    base_parts + rest,
                    (*via, f"{module}.{qual} inherits from {base}"),
                    depth + 1,
                )
                # A base that defines none of ``rest`` (its own lookup ends partial on
                # all of it) does not own the attribute: the class the target names does;
                # nor does a base's module that imports the name from another library.
                if found is not None and found.status != OUTSIDE and found.partial != missing:
                    return found
            return Resolution(
                "",
                FOUND,
                module,
                qual,
                file,
                definition.line,
                definition,
                (*via, f"{missing} is not defined in {qual} or its bases"),
                partial=missing,
            )
        return Resolution(
            "", FOUND, module, qual, file, definition.line, definition, via, partial=".".join(rest)
        )
    return Resolution("", FOUND, module, qual, file, definition.line, definition, via)


def _local_base(summary: ModuleSummary, module: str, base: str) -> tuple[str, list[str]] | None:
    """Where a base a class names without an import is: a class its own module defines
    (``class UniformTypeKVCacheSpecs(KVCacheSpec):`` beside ``class KVCacheSpec:``), written
    as a bare name or a dotted one starting with such a name (a nested class); ``None``
    otherwise (a builtin such as ``object``, or an expression)."""
    first = base.split(".", 1)[0]
    if not first.isidentifier() or first not in summary.definitions:
        return None
    return module, base.split(".")


def _static(tree: UpstreamTree, target: str) -> Resolution | None:
    """The lookup without the tree-wide search: ``None`` when it fails."""
    if not tree.contains(target):
        return Resolution(target, OUTSIDE)
    split = _split(tree, target)
    found = _lookup(tree, split[0], split[1], (), 0) if split else None
    if found is None:
        return None
    return Resolution(
        target,
        found.status,
        found.module,
        found.qualname,
        found.file,
        found.line,
        found.definition,
        found.via,
        found.partial,
    )


def defined_statically(tree: UpstreamTree, dotted: str) -> bool:
    """Whether the lookup of ``dotted`` (a module, a class, any name) reaches something in
    ``tree`` without the tree-wide search: a module, a definition, a name imported or
    re-exported there, or an attribute of a found class or value (``partial``). A name outside
    the tree's packages counts as defined: not this tree's to say. The judge asks it of the
    object a patch assigns into (its *owner*): an assignment adds a name to an object that
    exists, never to one that does not."""
    return _static(tree, dotted) is not None


def same_definition(tree: UpstreamTree, first: str, second: str) -> bool:
    """Whether the static lookups of ``first`` and ``second`` (dotted paths) reach the same
    definition of ``tree``: a module's name imported from another module is that module's
    function (``vllm.engine.arg_utils.f`` and ``vllm.transformers_utils.config.f`` when
    ``arg_utils`` does ``from vllm.transformers_utils.config import f``). A lookup that
    fails, or ends in a value's attribute, proves nothing: ``False``."""
    if first == second:
        return True
    found = [_static(tree, target) for target in (first, second)]
    places = {
        (place.module, place.qualname)
        for place in found
        if place is not None and place.status == FOUND and not place.partial
    }
    return len(places) == 1 and all(
        place is not None and place.status == FOUND and not place.partial for place in found
    )


def resolve(tree: UpstreamTree, target: str) -> Resolution:
    """Resolve ``target`` in ``tree`` (see the module docstring); never raises."""
    return resolve_all(tree, [target])[target]


def resolve_all(
    tree: UpstreamTree, targets: Iterable[str], search: Callable[[str], bool] | None = None
) -> dict[str, Resolution]:
    """:func:`resolve` for many targets, the names of every failed lookup searched in one
    pass over the tree (:meth:`UpstreamTree.find_definitions`); with ``search``, only the
    failed targets it accepts are searched, the others are ``not-searched``."""
    out: dict[str, Resolution] = {}
    failed: list[str] = []
    targets = list(dict.fromkeys(targets))
    read_ahead(tree, targets)
    for target in targets:
        found = _static(tree, target)
        if found is not None:
            out[target] = found
        elif search is None or search(target):
            failed.append(target)
        else:
            out[target] = Resolution(target, NOT_SEARCHED)
    tree.find_definitions(name for target in failed for name in _search_names(tree, target))
    for target in failed:
        out[target] = _search(tree, target)
    return out


def read_ahead(tree: UpstreamTree, targets: list[str]) -> None:
    """Summarize, on every core, the modules the static lookups of ``targets`` will read,
    ahead of them: the lookups are run without parsing (:meth:`UpstreamTree.unread_modules`)
    to learn the modules they reach next (the module a name is imported from, a re-export,
    a base class's module), those are summarized together
    (:meth:`UpstreamTree.prefetch`), and again until the lookups reach no new module (at
    most the lookup's depth limit). Only a speed-up: the lookups that follow read the
    same summaries; where no pool runs nothing is summarized ahead (each module is parsed
    when the lookup asks for it, as before)."""
    inside = [target for target in targets if tree.contains(target)]
    for _ in range(MAX_DEPTH + 1):
        unread = tree.unread_modules(lambda: [_static(tree, target) for target in inside])
        if not unread or tree.prefetch(sorted(unread)) == 0:
            return


def unparsed_module(tree: UpstreamTree, target: str) -> ModuleSummary | None:
    """The summary of the module the lookup of ``target`` starts in (the longest prefix
    with a file) when Python could not parse it (:attr:`ModuleSummary.syntax_error`), else
    ``None``. Such a module's names are unknown, not absent: a lookup that fails there
    proves nothing about the target (a file of syntax newer than the running Python, or
    one damaged)."""
    if not tree.contains(target):
        return None
    split = _split(tree, target)
    if split is None:
        return None
    summary = tree.summary(split[0])
    return summary if summary is not None and summary.syntax_error else None


def target_modules(tree: UpstreamTree, targets: Iterable[str]) -> list[str]:
    """The module each target's lookup starts in (the longest prefix with a file), once
    each: what :meth:`UpstreamTree.prefetch` can summarize ahead of :func:`resolve_all`."""
    found = (_split(tree, target) for target in targets if tree.contains(target))
    return list(dict.fromkeys(split[0] for split in found if split is not None))


def _search_names(tree: UpstreamTree, target: str) -> list[str]:
    """The names :func:`_search` looks for, outermost first: for ``vllm.x.Cls.meth`` where
    ``vllm.x`` exists, ``Cls`` then ``meth``."""
    split = _split(tree, target)
    rest = split[1] if split else target.split(".")[-1:]
    return rest or target.split(".")[-1:]


def _place(definitions: Mapping[str, Definition], module: str, qual: str, rest: list[str]) -> str:
    """``"MODULE.QUAL.REST (line N)"``: where the target would be now that its outer name
    ``qual`` was found in ``module`` (``definitions``: that module's, by qualified name), the
    line that of the innermost part the module defines. A part it does not define (an
    attribute the plugin adds to the class) is said: ``(line 324: Model there, without
    _patched)``, so the place is never given as a definition upstream does not have."""
    defined = qual
    for part in rest:
        if f"{defined}.{part}" not in definitions:
            break
        defined = f"{defined}.{part}"
    location = ".".join([f"{module}.{qual}", *rest])
    line = definitions[defined].line
    missing = ".".join(rest[defined.count(".") - qual.count(".") :])
    if missing:
        return f"{location} (line {line}: {defined} there, without {missing})"
    return f"{location} (line {line})"


def without_member(place: str) -> tuple[str, str] | None:
    """For a place :func:`_place` gives of an owner that lacks the rest of the target
    (``"m.Worker.run (line 3: Worker there, without run)"``): the owner's place as it is
    defined (``"m.Worker (line 3)"``) and the part it lacks (``"run"``); ``None`` for a
    place that defines the whole target.

    >>> without_member("m.Worker.run (line 3: Worker there, without run)")
    ('m.Worker (line 3)', 'run')
    >>> without_member("m.Worker.run (line 4)") is None
    True
    """
    location, _, rest = place.partition(" (line ")
    line, sep, said = rest.partition(": ")
    if not sep or " there, without " not in said:
        return None
    missing = said.rpartition(" there, without ")[2].removesuffix(")")
    return f"{location.removesuffix('.' + missing)} (line {line})", missing


def said_place(place: str) -> str:
    """A place of a *moved* resolution as evidence says it: one that lacks the rest of the
    target names its owner as defined and what it lacks (``"m.Worker (line 3), without
    run"``), never a dotted path upstream does not define."""
    partial = without_member(place)
    return f"{partial[0]}, without {partial[1]}" if partial else place


def now_at(places: tuple[str, ...]) -> str:
    """Where a *moved* target's ``places`` say it is now: ``now defined at PLACES``, or,
    when each has only the target's owner (:func:`without_member`), ``only its owner is
    found, at m.Worker (line 3), without run``: the name itself is defined nowhere."""
    if all(without_member(place) for place in places):
        return "only its owner is found, at " + ", ".join(map(said_place, places))
    return "now defined at " + ", ".join(places)


def _search(tree: UpstreamTree, target: str, names: list[str] | None = None) -> Resolution:
    """Search the whole tree for the target's name (``names``, outermost first; default
    :func:`_search_names`): *moved* or *removed*."""
    candidates: list[str] = []
    names = names or _search_names(tree, target)
    for index, name in enumerate(names):
        for module in dict.fromkeys(module for module, _line in tree.defined(name)):
            if len(candidates) >= MAX_CANDIDATES:
                break  # only that many are reported: parse no further module
            summary = tree.summary(module)
            if summary is None:
                continue
            for qual in summary.definitions:
                if qual.rsplit(".", 1)[-1] == name:
                    place = _place(summary.definitions, module, qual, names[index + 1 :])
                    candidates = list(dict.fromkeys([*candidates, place]))
        if candidates:
            break
    unique = tuple(candidates)[:MAX_CANDIDATES]
    return Resolution(target, MOVED if unique else REMOVED, candidates=unique)


def narrowed(new: Resolution, old: Resolution, tree: UpstreamTree) -> Resolution:
    """``new``, a target's *moved* resolution in the new release ``tree``, with its places
    kept to those that can be what the old release found (``old``); any other resolution as
    it is.

    The tree-wide search (:func:`_search`) lists every definition of the target's last name:
    for a module-level function it lists the methods of that name of unrelated classes too
    (``MMLinearKernel.process_weights_after_loading`` for a loader module's
    ``process_weights_after_loading``). When the old release found a module-level
    definition (a function, a class, a constant, at the target's path or through its
    module's import of it), its places in the new release are the module-level definitions
    of its name, never a method; and when the target's module only imported it, the one
    place is that definition where the new release still has it (it did not move: the module
    that imported it changed). A member of a class is searched for by its qualified name in
    the old release (``Worker`` then ``run``), never by a module name of the target's path.
    No place left: *removed*."""
    if new.status != MOVED or old.status != FOUND or old.partial:
        return new
    name = old.qualname
    if name and "." in name:
        # A member of a class: searched from the class the old release defines it in.
        # The search from the target's parts began at the first part after the longest
        # module the new release has, which for a module it dropped is the module's name
        # (``worker`` of ``vllm.worker.Worker.run``): a function ``worker`` elsewhere was
        # then a place "without Worker.run", retargeted to.
        qualname = name.split(".")
        if _search_names(tree, new.target) == qualname:
            return new
        return _search(tree, new.target, qualname)
    if not name:
        return new  # a module: its search is left as it is
    kept = _static(tree, old.location) if old.location != new.target else None
    if kept is not None and not kept.partial and kept.location == old.location:
        return replace(new, candidates=(f"{old.location} (line {kept.line})",))
    places: list[str] = []
    for module in dict.fromkeys(module for module, _line in tree.defined(name)):
        summary = tree.summary(module)
        definition = summary.definitions.get(name) if summary is not None else None
        if definition is not None:
            places.append(f"{module}.{name} (line {definition.line})")
    unique = tuple(dict.fromkeys(places))[:MAX_CANDIDATES]
    return replace(new, status=MOVED if unique else REMOVED, candidates=unique)
