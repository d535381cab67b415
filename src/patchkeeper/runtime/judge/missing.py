"""A target the new release does not define where the plugin says (rule 3 of
:mod:`patchkeeper.runtime.judge.judge`): renamed, moved, gone, or in neither release.

The decision follows where the name went: a rename (its leading underscore, a name the
module extends) or a single new place is an *update* (retarget); a name gone without a trace
is an *look* (the trees cannot tell a dropped path from one folded into a caller);
a name in neither release is a typo or a future name (*look*), unless the patch adds
it on purpose (an assignment, a subclass swap, ``allow_missing``) or an ``except
ImportError`` guards it (*retain*); a name it adds to a module the new release moved
follows the module (*update*), one it adds to a module the new release dropped is *look*.
A target whose module the new release dropped (not moved) while ``try: ... except
ImportError`` guards the patch is *retain*: the import fails there and the guard skips the
patch, which still applies at the releases that have the module (a plugin written for
several releases keeps such branches).
An attribute the plugin sets on an upstream class that
the old release did not define (a marker, ``Engine._plugin_patched = True``) is *added by
the plugin*, never said to have existed there; when its class is gone it is *look*, as the
class's other patches are.

A name the new release still defines under its own name elsewhere was not renamed: another
module's name with an underscore more or less is another object (``ModelRegistry``, the
registry instance, beside ``_ModelRegistry``, its class), so no rename is inferred from it.

When the old and the new upstream are the same release, nothing upstream changed: what the
trees say of a target missing at its path was so before the "upgrade", and the upgrade gives
no reason to change the entry. The decision is then *retain*, with the fact in the evidence;
only an entry that can never apply (neither release has the module or class it belongs to)
stays *look* (:func:`same_release`).
"""

from __future__ import annotations

import re

from patchkeeper.runtime.judge.drift import (
    LOOK,
    RETAIN,
    UPDATE,
    Drift,
    with_decision,
)
from patchkeeper.runtime.judge.feature_probes import has_attribute
from patchkeeper.runtime.lookup.resolve import (
    FOUND,
    MOVED,
    REMOVED,
    Resolution,
    defined_statically,
    target_modules,
    without_member,
)
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import Mechanism, PatchEntry


def renamed_names(target: str) -> list[str]:
    """The names a target's last part may have been renamed to by its leading underscore
    (``_alloc`` -> ``alloc``; ``alloc`` -> ``_alloc``)."""
    tail = target.rsplit(".", 1)[-1]
    return [o for o in (tail.lstrip("_"), f"_{tail}") if o and o != tail]


def renamed_to(entry: PatchEntry, new: Resolution, trees: tuple[UpstreamTree, UpstreamTree]) -> str:
    """Where ``entry``'s target went when the new release renamed it (``new``: its
    resolution there), as the retarget of rule 3 names it (:func:`_renamed`); ``""`` when it
    was not renamed."""
    return _renamed(entry, trees, elsewhere=new.status == MOVED)


def _renamed(
    entry: PatchEntry, trees: tuple[UpstreamTree, UpstreamTree], elsewhere: bool = False
) -> str:
    """Where a name went when the new release renamed it, as ``"module.name"``; ``""``.

    In this order: only its leading underscore changed, in the same module
    (``_allocate_kv_cache`` -> ``allocate_kv_cache``) or, when the module no longer has it,
    in one other module of the new release; or the same module newly defines or imports a
    name that extends it (``FusedMoE`` -> ``FusedMoEFactory``, a name of 6 characters or more
    that the old module neither defined nor imported; a package's ``__init__`` re-exports
    the names of its modules by importing them: then the place it imports the name from).
    ``elsewhere``: the new release defines the name itself in another place; a name with an
    underscore more or less in another module is then not taken for it (the same module's
    still is)."""
    module = entry.target.rsplit(".", 1)[0]
    tail = entry.target[len(module) + 1 :]
    old, new = trees[0].summary(module), trees[1].summary(module)
    if not tail or (old is None and new is None):
        return ""  # not a module-level name of an upstream module
    others = [o for o in (tail.lstrip("_"), f"_{tail}") if o != tail]
    if new is not None:
        for other in others:
            if other in new.definitions:
                return f"{module}.{other}"
    for other in others if not elsewhere else ():
        places = sorted({m for m, _line in trees[1].defined(other)})
        if len(places) == 1:
            return f"{places[0]}.{other}"
    if new is None or len(tail) < 6:
        return ""
    before = set(old.definitions) | set(old.imports) if old is not None else set()
    grown = sorted(
        n
        for n in (*new.definitions, *new.imports)
        if n.startswith(tail) and n != tail and "." not in n and n not in before
    )
    if len(set(grown)) != 1:
        return ""
    binding = new.imports.get(grown[0]) if grown[0] not in new.definitions else None
    return binding.dotted if binding is not None else f"{module}.{grown[0]}"


def _import_guard(entry: PatchEntry, innermost: bool = False) -> str:
    """Where ``try: ... except ImportError`` (or whatever else its handler catches that
    takes in an import error, ``Exception``) guards ``entry`` (``"file:line"``; the first
    guard on the way to it, or with ``innermost`` the last), or ``""``."""
    activation = entry.activation
    conditions = activation.conditions if activation is not None else ()
    for condition in reversed(conditions) if innermost else conditions:
        if condition.kind == "try-import":
            guard = condition.text.replace("try: ...", "try ...", 1)
            return f"{guard} at {condition.file}:{condition.line}"
    return ""


def absent_owner(entry: PatchEntry, trees: tuple[UpstreamTree, UpstreamTree]) -> str:
    """The object ``entry`` patches a name of (its target without the last part: a module
    or a class) when neither release defines it (:func:`defined_statically`), else ``""``.
    An assignment adds a new name to an object that exists; to one that does not, it can
    never apply (``vllm.entrypoints.openai.cli_args.make_arg_parser`` while neither vLLM
    0.30.0 nor 0.32.0 has that module): a name in neither release is a typo or a future
    name."""
    owner = entry.target.rpartition(".")[0]
    if not owner or any(defined_statically(tree, owner) for tree in trees):
        return ""
    return owner


#: The endings of a compiled extension module's file (``_C.abi3.so``, ``_C.cp312-win_amd64.pyd``).
_EXTENSION_ENDINGS = (".so", ".pyd")


def _built_at(tree: UpstreamTree, module: str) -> str:
    """Where ``tree`` has ``module`` as a compiled extension module, or ``""``: its file in
    an installed tree (``vllm/_C.abi3.so``), else the line of the tree's ``setup.py`` that
    names it, dotted in quotes (``CMakeExtension(name="vllm._C_stable_libtorch")``) or as
    the file it builds (``"vllm/_C_stable_libtorch.abi3.so"``): an sdist or a checkout holds
    the extension's C++ sources, never its module."""
    folder, _, tail = module.replace(".", "/").rpartition("/")
    directory = tree.root / folder
    if folder and directory.is_dir():
        for file in sorted(directory.glob(f"{tail}.*")):
            if file.name.endswith(_EXTENSION_ENDINGS) and file.is_file():
                return tree.relative(file)
    setup = tree.root / "setup.py"
    try:
        text = setup.read_text(encoding="utf-8", errors="replace") if setup.is_file() else ""
    except OSError:
        return ""
    named = re.compile(
        rf"""["']({re.escape(module)}|{re.escape(f"{folder}/{tail}")}\.[\w.-]*(so|pyd))["']"""
    )
    for number, line in enumerate(text.splitlines(), 1):
        if named.search(line):
            return f"setup.py:{number}"
    return ""


def compiled_extension(
    entry: PatchEntry, trees: tuple[UpstreamTree, UpstreamTree]
) -> tuple[str, str]:
    """``(module, where)`` when ``entry``'s target is, or belongs to, a compiled extension
    module a release builds (``vllm._C_stable_libtorch``, put in ``sys.modules`` by a
    plugin that loads it by its file: vLLM's ``setup.py`` builds it), found by
    :func:`_built_at` in the new tree, else the old; else ``("", "")``. Such a module has no
    Python source, so no tree can say whether it defines the name: not a typo."""
    parts = entry.target.split(".")
    for size in range(len(parts), 1, -1):
        module = ".".join(parts[:size])
        for tree in (trees[1], trees[0]):
            where = _built_at(tree, module)
            if where:
                return module, where
    return "", ""


def _extension_reason(entry: PatchEntry, module: str, where: str) -> str:
    """The reason of a *look* on a target in a compiled extension (:func:`compiled_extension`)."""
    whose = entry.target if module == entry.target else f"{entry.target}: {module}"
    return (
        f"{whose} is a compiled extension module the release builds ({where}), not a "
        "typo: no Python source holds it, so the trees cannot say what it defines; check the "
        "patch against an installed build of the release"
    )


#: How many of the old module's names :func:`_moved_owner` looks up in the new release.
_NAMES_LOOKED_UP = 12


def _moved_owner(
    entry: PatchEntry, trees: tuple[UpstreamTree, UpstreamTree]
) -> tuple[str, str] | None:
    """``(owner, new place)`` when the plugin adds ``entry``'s target by assignment (or a
    subclass swap) to a module of the old release (its owner: the target without its last
    part) that the new release lacks; the new place is the one module of the new release
    with the same last name that defines at least half of the old module's names (up to
    :data:`_NAMES_LOOKED_UP` of them, in name order; ``""`` when no single module does:
    dropped, or split). ``None`` otherwise (the owner is in the new release, or was not an
    upstream module at the old one).

    Upstream moved the whole module (vLLM 0.26.0 moved
    ``vllm.model_executor.layers.fla.ops`` to ``vllm.third_party.flash_linear_attention.ops``):
    a name the plugin adds to it must follow it, or the assignment lands in a module
    nothing imports (or the import of the old path fails)."""
    if entry.mechanism not in (Mechanism.ASSIGNMENT, Mechanism.SETATTR, Mechanism.SUBCLASS):
        return None
    owner = entry.target.rpartition(".")[0]
    place = _module_moved_to(owner, trees) if owner else None
    return (owner, place) if place is not None else None


def _module_moved_to(module: str, trees: tuple[UpstreamTree, UpstreamTree]) -> str | None:
    """Where the new release has ``module``, a module of the old release it lacks: the one
    module of the same last name that defines at least half of the old module's names (up to
    :data:`_NAMES_LOOKED_UP` of them, in name order); ``""`` when no single module does
    (dropped, or split). ``None`` when ``module`` was no module of the old release or the
    new release still has it (a module, or a name its package binds)."""
    before = trees[0].summary(module)
    if before is None or trees[1].summary(module) is not None:
        return None
    if defined_statically(trees[1], module):
        return None
    last = module.rpartition(".")[2]
    names = sorted(before.definitions)[:_NAMES_LOOKED_UP]
    if not names:
        return ""
    trees[1].find_definitions(names)
    counts: dict[str, int] = {}
    for name in names:
        for place in {m for m, _line in trees[1].defined(name)}:
            if place.rpartition(".")[2] == last:
                counts[place] = counts.get(place, 0) + 1
    places = [m for m, n in counts.items() if 2 * n >= len(names)]
    return places[0] if len(places) == 1 else ""


def _dropped_module(
    entry: PatchEntry, old: Resolution, trees: tuple[UpstreamTree, UpstreamTree]
) -> str:
    """The module of ``entry``'s target (the longest prefix of it that is a module of the
    old release) when the old release found the target there and the new release dropped
    the module: it has no module of that name, and none of the same last name defines the
    old one's names (not moved, :func:`_module_moved_to`); ``""`` otherwise."""
    if old.status != FOUND:
        return ""
    modules = target_modules(trees[0], [entry.target])
    if not modules or modules[0] == entry.target:
        return ""
    return modules[0] if _module_moved_to(modules[0], trees) == "" else ""


def _added_to_class(entry: PatchEntry, old: Resolution, tree: UpstreamTree) -> bool:
    """Whether the plugin adds ``entry``'s target to an upstream class: the entry assigns
    it (an assignment, ``setattr``, a subclass swap) and at the old release (``tree``) the
    class was found without the attribute (``old.partial``, one name) in it, its bases or
    its instances (no ``self.<name> =`` in its source)."""
    return (
        entry.mechanism in (Mechanism.ASSIGNMENT, Mechanism.SETATTR, Mechanism.SUBCLASS)
        and old.status == FOUND
        and old.partial.isidentifier()
        and old.definition is not None
        and old.definition.kind == "class"
        and has_attribute(tree, old.location, old.partial) is False
    )


def missing_target(
    entry: PatchEntry,
    drift: Drift,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
    versions: tuple[str, str] = ("", ""),
) -> Drift:
    """The decision for a target the new release does not define where the plugin says
    (``versions``: the old and new upstream releases, ``""`` when unknown; the same release
    twice: :func:`same_release`).

    A renamed name is an *update* (retarget). When the old release did not define the target
    either, the rename is older than the upgrade (the patch has not applied since): the
    evidence says so rather than that this upgrade renamed it."""
    decided = _missing(entry, drift, old, new, trees)
    return same_release(decided, versions) if old.status != FOUND else decided


#: What the evidence of an entry that can never apply says (:func:`_missing`).
NEVER_APPLIES = "the patch can never apply"


def same_release(decided: Drift, versions: tuple[str, str]) -> Drift:
    """``decided`` (the decision for a target neither tree has at its path, or the *look*
    for a ``sys.modules`` entry whose key is computed at run time) when the two
    upstream releases differ or are unknown; for the same release twice, *retain* with
    ``decided``'s evidence kept after the reason, as the fact it is, unless the entry can
    never apply (neither release has the module or class it belongs to: *look*, broken
    before as after).

    Upstream is the same on both sides (a plugin release on the vLLM release of the one
    before it): the target's facts are the same in both trees, and the upgrade gives no
    reason to change the entry (the vllm-mindspore maintainers kept every entry whose
    target is at its path in neither tree from 0.5.0 to 0.5.1, both on vLLM 0.11.0). Which
    module a computed key names is not known statically, but whichever it is, it is the same
    in both trees: the upgrade gives nothing to look at (the vllm-musa maintainers kept the
    computed ``del sys.modules[module_name]`` of its patch loader from 0.1.0 to 0.1.1, both
    on vLLM 0.10.1.1)."""
    old, new = versions
    if not old or old != new or decided.decision not in (UPDATE, LOOK):
        return decided
    if any(NEVER_APPLIES in line for line in decided.evidence[:1]):
        return decided
    return with_decision(
        decided,
        RETAIN,
        f"the old and the new upstream are the same release ({new}): nothing upstream "
        "changed, so nothing calls for changing the entry; what follows of its target holds "
        "in both trees and was so before",
    )


def _missing(
    entry: PatchEntry,
    drift: Drift,
    old: Resolution,
    new: Resolution,
    trees: tuple[UpstreamTree, UpstreamTree],
) -> Drift:
    """:func:`missing_target` for any two releases."""
    renamed = _renamed(entry, trees, elsewhere=new.status == MOVED)
    if renamed and old.status != FOUND:
        return with_decision(
            drift,
            UPDATE,
            f"{entry.target} is not at that path in either release; upstream has the name "
            f"as {renamed} (renamed before the old release: the patch has not applied since): "
            f"retarget to {renamed}",
        )
    if renamed:
        return with_decision(drift, UPDATE, f"{entry.target} was renamed: retarget to {renamed}")
    dropped = _dropped_module(entry, old, trees) if not renamed else ""
    guard = _import_guard(entry, innermost=True) if dropped else ""
    if guard:
        return with_decision(
            drift,
            RETAIN,
            f"{entry.target} existed at the old release; the new one dropped {dropped}, its "
            f"module (no module of that name defines its names), and the patch is guarded by "
            f"{guard}: at this release the import fails and the guard skips the patch, which "
            "still applies at the releases that have the module; nothing to do at this one "
            "(the branch goes when the plugin stops supporting those releases)",
        )
    owner = absent_owner(entry, trees) if old.status != FOUND else ""
    guard = _import_guard(entry) if owner else ""
    if guard:
        return with_decision(
            drift,
            RETAIN,
            f"{entry.target} is in neither release, nor is {owner}, the module or class it "
            f"belongs to, and the patch is guarded by {guard}: a future name, the import "
            "fails harmlessly until a release has it; nothing to do at this one",
        )
    extension = compiled_extension(entry, trees) if owner else ("", "")
    if extension[0]:
        return with_decision(drift, LOOK, _extension_reason(entry, *extension))
    if owner:
        where = (
            f"; upstream defines the name at {', '.join(new.candidates[:3])}: a wrong path"
            if new.candidates
            else ""
        )
        return with_decision(
            drift,
            LOOK,
            f"{entry.target} is in neither release, nor is {owner}, the module or class it "
            f"belongs to: {NEVER_APPLIES} (a typo or a future name{where})",
        )
    moved_owner = _moved_owner(entry, trees) if old.status != FOUND else None
    if moved_owner is not None:
        owner, place = moved_owner
        if place:
            return with_decision(
                drift,
                UPDATE,
                f"{entry.target} is in neither release: the plugin adds it to {owner}, a "
                f"module the new release moved to {place} (it defines the old module's "
                f"names): retarget to {place}.{entry.target.rpartition('.')[2]}",
            )
        return with_decision(
            drift,
            LOOK,
            f"{entry.target} is in neither release: the plugin adds it to {owner}, a module "
            "the old release had and the new one lacks (no module of that name defines its "
            "names there): the assignment has nothing to add it to; find where upstream's "
            "module went before removing it",
        )
    if old.status != FOUND and new.status == REMOVED:
        # a subclass swap of a name upstream never had is an assignment of the plugin's class
        if entry.mechanism in (Mechanism.ASSIGNMENT, Mechanism.SETATTR, Mechanism.SUBCLASS):
            return with_decision(
                drift,
                RETAIN,
                f"{entry.target} is in neither release: the plugin's assignment adds it "
                "(if it was meant to replace something, a typo or a future name)",
            )
        if entry.allow_missing:
            return with_decision(
                drift,
                RETAIN,
                f"{entry.target} is in neither release; the patch adds it on purpose "
                "(allow_missing)",
            )
        extension = compiled_extension(entry, trees)
        if extension[0]:
            return with_decision(drift, LOOK, _extension_reason(entry, *extension))
        return with_decision(
            drift,
            LOOK,
            f"{entry.target} is in neither release: a typo or a future name",
        )
    if old.status != FOUND and new.status == MOVED:
        # as above: a subclass swap is an assignment of the plugin's class
        if entry.mechanism in (Mechanism.ASSIGNMENT, Mechanism.SETATTR, Mechanism.SUBCLASS):
            return with_decision(
                drift,
                RETAIN,
                f"{entry.target} is not defined at that path in either release: the plugin's "
                f"assignment adds it there (upstream defines the name at "
                f"{', '.join(new.candidates[:3])}; if it was meant to replace that, a wrong path)",
            )
        return with_decision(
            drift,
            LOOK,
            f"{entry.target} is not defined at that path in either release; the name is "
            f"defined at {', '.join(new.candidates[:3])}: a wrong path or a future name",
        )
    owners = [without_member(c) for c in new.candidates]
    if new.status == MOVED and old.status == FOUND and not old.partial and all(owners):
        # The old release defines the whole target; the new one has its owner elsewhere,
        # without the member: retargeting would add the member there, which upstream no
        # longer defines nor calls.
        lacks = sorted({o[1] for o in owners if o})
        return with_decision(
            drift,
            LOOK,
            f"{entry.target} is gone from the new upstream: its owner is now at "
            f"{', '.join(o[0] for o in owners[:3] if o)}, which does not define "
            f"{' or '.join(lacks)}; a retargeted patch would add it there and replace nothing: "
            "find what took its place before retargeting or removing the patch",
        )
    if new.status == MOVED:
        return with_decision(
            drift, UPDATE, f"{entry.target} moved: retarget to {', '.join(new.candidates[:3])}"
        )
    if new.status == REMOVED and _added_to_class(entry, old, trees[0]):
        # The plugin's own attribute (a marker it sets on an upstream class): the name never
        # existed upstream, its class did and is gone; the patch must follow the class.
        return with_decision(
            drift,
            LOOK,
            f"{entry.target} is added by the plugin (the old release's {old.location} does "
            f"not define {old.partial}); {old.location}, the class it is set on, is gone from "
            "the new release without a trace: find where upstream's class went before "
            "removing the patch",
        )
    if new.status == REMOVED:
        # Gone without a trace: whether upstream dropped the code path or folded it into a
        # caller (where the plugin must follow it) is not in the trees. The vllm-ascend
        # maintainers kept 3 of 4 such patches and retargeted the fourth: a removal here
        # would lose a fix they still carry.
        return with_decision(
            drift,
            LOOK,
            f"{entry.target} existed at the old release and is gone from the new one "
            "without a trace: the patch no longer replaces anything there; find where "
            "upstream's code went (dropped, or folded into a caller the plugin must now "
            "patch) before removing it",
        )
    return drift
