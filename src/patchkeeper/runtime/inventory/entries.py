"""The inventory computed from a plugin's tree: each patch file's entries and findings, the
header and ledger checks, and each entry's activation from the places the plugin is loaded
(:func:`inventory_of`, what :func:`patchkeeper.runtime.inventory.runtime_inventory.
scan_plugin` remembers)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.activation import Reachability
from patchkeeper.runtime.inventory.file_facts import UNREADABLE, FileFacts, is_external
from patchkeeper.runtime.inventory.layout import PatchFile, PluginLayout
from patchkeeper.runtime.inventory.loading import UpstreamFiles, loading
from patchkeeper.runtime.inventory.module_constants import Unnamed, Unread, resolve_named
from patchkeeper.runtime.inventory.parameter_patches import (
    callers_of,
    named_by_callers,
    named_by_pairs,
    parameter_entries,
)
from patchkeeper.runtime.inventory.patch_headers import check_header, ledger_findings
from patchkeeper.runtime.inventory.plugin import PluginTree
from patchkeeper.runtime.inventory.runners import is_test_module, scripts
from patchkeeper.runtime.model import Inventory, Mechanism, PatchEntry
from patchkeeper.runtime.settings import RuntimeSettings
from patchkeeper.runtime.syntax.parsing import plugin_file_tree, plugin_tree_kept

#: One patch file as read: its facts, its entries (each with its local conditions) and its
#: findings.
_Read = tuple[PatchFile, FileFacts, list[tuple[PatchEntry, tuple[Any, ...]]], list[Finding]]


def _order(entry: PatchEntry) -> tuple[str, int, str, str]:
    """The inventory's order of entries: by file, line, target and key."""
    return (entry.file, entry.line, entry.target, entry.key or "")


def upstream_base(tree: PluginTree, module: str, qual: str, depth: int = 0) -> str | None:
    """The first upstream class among the bases of the plugin class ``module:qual``,
    following bases that are plugin classes themselves (``Ours310(OursBase)`` with
    ``OursBase(UpstreamCls)``), depth first in base order; ``None`` when there is none or a
    base is not bound statically (marked ``?`` by the scanner)."""
    facts = tree.facts_of(module)
    if facts is None or depth > 20:
        return None
    for base in facts.classes.get(qual, ()):
        if base.startswith("?"):
            continue
        if is_external(base, tree.settings.package):
            return base
        split = tree.split(base)
        if split is not None and split[1]:
            found = upstream_base(tree, split[0], split[1], depth + 1)
            if found is not None:
                return found
    return None


def _upgrade_subclass(entry: PatchEntry, tree: PluginTree) -> PatchEntry:
    """An assignment of a plugin class deriving (directly or through plugin classes) from an
    upstream class is a subclass swap."""
    if entry.mechanism is not Mechanism.ASSIGNMENT or ":" not in entry.replacement:
        return entry
    module, _, qual = entry.replacement.partition(":")
    split = tree.split(f"{module}.{qual}")
    if split is not None and upstream_base(tree, *split) is not None:
        return replace(entry, mechanism=Mechanism.SUBCLASS)
    return entry


#: Whether two dotted paths name one definition of the upstream tree the plugin runs on
#: (:func:`patchkeeper.runtime.lookup.resolve.same_definition` on that tree: the inventory,
#: below the lookup layer, is handed it).
SameDefinition = Callable[[str, str], bool]


def shared_wrappers(
    entries: list[PatchEntry], same: SameDefinition | None
) -> dict[tuple[str, int, str], Mechanism]:
    """The kind of a plugin function installed on several targets, read per target: a
    function that wraps one target's original (a *wrapper* there) and is assigned to another
    target too wraps that target's original as well when the two names are one upstream
    definition (a module's name imported from the other module), so it is a *wrapper* there
    too, not a copy of it. Keyed by (file, line, target) of each *assignment* or *setattr*
    so read; without an upstream tree, none is: those keep their kind."""
    if same is None:
        return {}
    wrapped: dict[tuple[str, str], set[str]] = {}
    for entry in entries:
        if entry.mechanism is Mechanism.WRAPPER and ":" in entry.replacement:
            wrapped.setdefault((entry.module, entry.replacement), set()).add(entry.target)
    found: dict[tuple[str, int, str], Mechanism] = {}
    for entry in entries:
        originals = wrapped.get((entry.module, entry.replacement), set())
        if entry.mechanism in (Mechanism.ASSIGNMENT, Mechanism.SETATTR) and any(
            same(original, entry.target) for original in sorted(originals)
        ):
            found[entry.file, entry.line, entry.target] = Mechanism.WRAPPER
    return found


def syntax_finding(error: str, file: str) -> Finding:
    """The finding of a plugin file Python cannot parse, at the line of the error: ``error``
    is the scan's ``"invalid syntax (line 2)"``
    (:func:`patchkeeper.runtime.inventory.scan.scan_source`); a file that could not be read
    at all (a symbolic link leading nowhere) is an ``unreadable`` finding, at no line.

    A parse error gets the hint of what to do (a file that is not UTF-8 is told how to save
    or declare it in the message itself):

    >>> syntax_finding("invalid syntax (line 2)", "p/patch_broken.py").hint
    'make it valid Python (python -m py_compile p/patch_broken.py shows the error): until then its patches are not read'
    """  # noqa: E501
    import re

    if error.startswith(UNREADABLE):  # read nothing, so nothing was parsed
        return Finding("unreadable", file, None, error)
    hint = "" if error.startswith(NOT_UTF8) else SYNTAX_FIX.format(file=file)
    match = re.fullmatch(r"(.*) \(line (\d+)\)", error, re.DOTALL)
    if match is None:
        return Finding("syntax", file, None, error, hint)
    return Finding("syntax", file, int(match[2]), match[1], hint)


#: The start of the error of a file that is not UTF-8 and declares no encoding
#: (:func:`patchkeeper.runtime.syntax.parsing.undecodable`), whose message says the fix.
NOT_UTF8 = "not UTF-8"

#: What to do about a plugin file Python cannot parse (``{file}``: its path).
SYNTAX_FIX = (
    "make it valid Python (python -m py_compile {file} shows the error): until then its "
    "patches are not read"
)


def unread_name_finding(unread: Unread) -> Finding:
    """The ``setattr-name`` finding of a ``setattr`` whose attribute name is a constant of a
    plugin file that could not be read or parsed: at the ``setattr``'s file and line, naming
    the constant and that file (with its line for a syntax error), since what the statement
    patches is unknown and no entry lists it (so neither the audit nor the lock sees it).

    >>> from patchkeeper.runtime.inventory.file_facts import FileFacts
    >>> from patchkeeper.runtime.model import Mechanism
    >>> entry = PatchEntry("p/eng.py", 9, "p.eng", "f", "up.Engine", Mechanism.SETATTR)
    >>> broken = FileFacts(module="p.rpc", file="p/rpc.py", syntax_error="invalid syntax (line 2)")
    >>> found = unread_name_finding((entry, "p.rpc.NAME", broken))
    >>> found.where(), found.message.split(", and ")[1].split(": that")[0]
    ('p/eng.py:9', 'p/rpc.py is not valid Python (line 2: invalid syntax)')
    """
    entry, path, facts = unread
    error = syntax_finding(facts.syntax_error, facts.file)
    if error.message.startswith(UNREADABLE):
        why = f"{facts.file} cannot be read ({error.message.removeprefix(UNREADABLE + ': ')})"
    elif error.line is not None:
        why = f"{facts.file} is not valid Python (line {error.line}: {error.message})"
    else:
        why = f"{facts.file} is not valid Python ({error.message})"
    return Finding(
        "setattr-name",
        entry.file,
        entry.line,
        f"setattr on {entry.target} takes its attribute name from {path}, and {why}: that "
        "patch is not listed, audited or locked",
        f"make {facts.file} a readable Python file (UTF-8, no syntax error) and run the "
        "command again",
    )


def unnamed_finding(unnamed: Unnamed) -> Finding:
    """The ``setattr-name`` finding of a ``setattr`` whose attribute name is a name of
    another plugin module that is no module constant there (bound more than once, or not
    to a string literal: :mod:`patchkeeper.runtime.inventory.module_constants`), at the
    ``setattr``'s file and line: what it sets depends on which binding runs, so no entry
    lists it, and the finding says so rather than leaving it out in silence.

    >>> from patchkeeper.runtime.model import Mechanism
    >>> entry = PatchEntry("p/eng.py", 9, "p.eng", "f", "up.Engine", Mechanism.SETATTR)
    >>> found = unnamed_finding((entry, "p.consts.NAME", "p/consts.py"))
    >>> found.where(), found.message.split(": that")[0]
    ('p/eng.py:9', 'setattr on up.Engine takes its attribute name from p.consts.NAME, which \
p/consts.py does not bind once to a string literal at its top level')
    """
    entry, path, file = unnamed
    holder = file or "no plugin file"
    return Finding(
        "setattr-name",
        entry.file,
        entry.line,
        f"setattr on {entry.target} takes its attribute name from {path}, which {holder} "
        "does not bind once to a string literal at its top level: that patch is not listed, "
        "audited or locked",
        f"bind {path.rsplit('.', 1)[-1]} once to a string literal at the top level of "
        f"{file or 'its module'} (or write the attribute's name in the setattr) and run the "
        "command again",
    )


def _add_parameter_entries(read: list[_Read], layout: PluginLayout, tree: PluginTree) -> None:
    """Add to each patch file of ``read`` the entries of its patches made on a parameter of
    a plugin function, named after what the function's callers pass
    (:mod:`patchkeeper.runtime.inventory.parameter_patches`), but those the file's own
    entries already hold (the same line and target)."""
    if not any(
        f.through_params or f.through_names or f.through_pairs
        for _patch, f, _found, _problems in read
    ):
        return
    modules = dict.fromkeys((*layout.package_modules, *(p.module for p, *_ in read)))
    every = [facts for module in modules if (facts := tree.facts_of(module)) is not None]
    # the plugin's calls, read once for every patch file (not once per file and kind)
    callers = callers_of(every, tree.facts_of, tree.split)
    for _patch, facts, found, problems in read:
        have = {(entry.line, entry.target) for entry, _local in found}
        by_name, unnamed = named_by_callers(facts.through_names, callers)
        by_pair, unpaired = named_by_pairs(facts.through_pairs, callers)
        by_object, unfollowed = parameter_entries(facts.through_params, callers)
        for entry, local in [*by_object, *by_name, *by_pair]:
            if (entry.line, entry.target) not in have:
                have.add((entry.line, entry.target))
                found.append((entry, local))
        problems.extend(_parameter_name_finding(entry) for entry in unnamed)
        for entry, why in unpaired:
            finding = _parameter_pair_finding(entry, why)
            if finding not in problems:
                problems.append(finding)
        problems.extend(_parameter_object_findings(unfollowed))


def _parameter_object_findings(unfollowed: list[tuple[PatchEntry, str, str]]) -> list[Finding]:
    """The ``setattr-name`` findings of the patches made on a parameter of a plugin
    function whose callers do not tell which upstream class or module it is (``unfollowed``:
    each statement's entry, the parameter's name and why), one per function and parameter,
    at the first statement's line and naming every line, so that a helper that patches a
    class it is handed at run time (``_install_hooks(type(runner))``) is said, not dropped.

    >>> from patchkeeper.runtime.model import Mechanism
    >>> first = PatchEntry("p/h.py", 7, "p.h", "_install", "step", Mechanism.ASSIGNMENT)
    >>> second = PatchEntry("p/h.py", 9, "p.h", "_install", "load", Mechanism.ASSIGNMENT)
    >>> why = "_install is not called by its name in the plugin"
    >>> [(f.line, f.message.split(": ")[0]) for f in _parameter_object_findings(
    ...     [(first, "runner_cls", why), (second, "runner_cls", why)])]
    [(7, 'the patches on the parameter runner_cls of p.h._install (lines 7, 9)')]
    """
    grouped: dict[tuple[str, str, str], list[tuple[PatchEntry, str]]] = {}
    for entry, param, why in unfollowed:
        grouped.setdefault((entry.file, entry.scope, param), []).append((entry, why))
    out = []
    for (file, scope, param), items in grouped.items():
        first, why = min(items, key=lambda item: item[0].line)
        numbers = sorted({entry.line for entry, _why in items})
        lines = ("lines " if len(numbers) > 1 else "line ") + ", ".join(map(str, numbers))
        out.append(
            Finding(
                "setattr-name",
                file,
                first.line,
                f"the patches on the parameter {param} of {first.module}.{scope} "
                f"({lines}): {why}; they are not listed",
                f'pass an imported upstream class or module (or sys.modules["name"]) in '
                f"every call of {scope.rpartition('.')[2]}, or write the patches where the "
                "class is named",
            )
        )
    return out


def _parameter_pair_finding(entry: PatchEntry, why: str) -> Finding:
    """The ``setattr-name`` finding of a ``setattr(obj, name, value)`` whose object and
    name are both parameters of the plugin function around it, when its callers do not
    tell which upstream object and name it sets (``why``: the first call that does not,
    by file and line, and what it passes): no entry lists it, and the finding says so.

    >>> from patchkeeper.runtime.model import Mechanism
    >>> entry = PatchEntry("p/rw.py", 9, "p.rw", "swap", "", Mechanism.SETATTR)
    >>> found = _parameter_pair_finding(entry, "swap is not called by its name in the plugin")
    >>> found.message.split(": ")[0]
    'setattr whose object and attribute name are parameters of p.rw.swap'
    """
    function = entry.scope.rpartition(".")[2]
    return Finding(
        "setattr-name",
        entry.file,
        entry.line,
        f"setattr whose object and attribute name are parameters of "
        f"{entry.module}.{entry.scope}: {why}; that patch is not listed",
        f'pass an imported upstream module or class (or sys.modules["name"]) and a '
        f"string literal in every call of {function}, or write the patch where the target "
        "is named",
    )


def _parameter_name_finding(entry: PatchEntry) -> Finding:
    """The ``setattr-name`` finding of a ``setattr`` on the upstream object ``entry.target``
    whose attribute name is a parameter of the plugin function around it, when the
    function's callers do not all pass a string literal for it (or it is not only called):
    what it sets is not known, so no entry lists it, and the finding says so.

    >>> from patchkeeper.runtime.model import Mechanism
    >>> entry = PatchEntry("p/ctx.py", 7, "p.ctx", "_ensure", "up.Ctx", Mechanism.SETATTR)
    >>> _parameter_name_finding(entry).message.split(":")[0]
    'setattr on up.Ctx with an attribute name a parameter of p.ctx._ensure'
    """
    return Finding(
        "setattr-name",
        entry.file,
        entry.line,
        f"setattr on {entry.target} with an attribute name a parameter of "
        f"{entry.module}.{entry.scope}: its callers do not all pass a string literal, so "
        "that patch is not listed",
        "pass the attribute's name as a string literal in every call of "
        f"{entry.scope.rpartition('.')[2]}, or write it in the setattr",
    )


def inventory_of(
    settings: RuntimeSettings,
    layout: PluginLayout,
    tree: PluginTree,
    ahead: Callable[[list[str], list[str]], None] | None,
    upstream: UpstreamFiles | None = None,
    unread: str = "",
    same: SameDefinition | None = None,
) -> Inventory:
    """The inventory of ``tree``'s plugin, whose ``layout`` (:attr:`PluginTree.layout`) it
    reads as data and whose files' facts it asks the tree for: every patch file's entries
    (named constants resolved across modules) with their findings, the header checks of the
    files that patch something and the ledger's, and each entry's activation from the places
    the plugin is loaded (:func:`patchkeeper.runtime.inventory.loading.loading`; ``upstream``
    and ``unread`` as :func:`patchkeeper.runtime.inventory.runtime_inventory.scan_plugin`
    takes them; ``same``, with the upstream tree, reads a replacement installed on several
    targets, :func:`shared_wrappers`); ``ahead`` is called with the patched targets before
    the activation search: with the upstream names the patch files use too (the second list: not
    patched by them) once this process has scanned them, then with every target (the
    ones named through constants and parameters too) once every module's facts are in.
    A test module the loading does not import is left out, its file listed in
    :attr:`~patchkeeper.runtime.model.Inventory.tests_left_out`
    (:mod:`patchkeeper.runtime.inventory.runners`)."""
    read: list[_Read] = []

    def early() -> None:
        """``ahead`` of the targets the patch files name themselves and of the upstream
        names they use, once this process has scanned them and before it waits for the
        workers' scan of the other modules: the upstream work is queued behind that scan
        (the targets named through constants and parameters follow below, once every
        module's facts are in)."""
        assert ahead is not None, "called only with ahead"
        scanned = [(patch, tree.facts.get(patch.module)) for patch in layout.patch_files]
        named = {entry.target for _patch, facts in scanned if facts for entry, _c in facts.entries}
        # a test module may be left out below: neither its targets nor its names are read
        kept = [
            facts
            for patch, facts in scanned
            if facts is not None and not is_test_module(patch.module, patch.is_package)
        ]
        targets = [entry.target for facts in kept for entry, _conds in facts.entries]
        used = {
            reference[0]
            for facts in kept
            if facts.references is not None
            for reference in facts.references[0]
        }
        ahead(targets, sorted(used - named))

    first = early if ahead is not None and tree.keep_trees else None
    for patch, facts in tree.patch_facts(layout, first):
        found_findings: list[Finding] = []
        if facts.syntax_error:
            found_findings.append(syntax_finding(facts.syntax_error, facts.file))
        resolved, unreadable, unnamed = resolve_named(facts.named, tree.facts_of, tree.split)
        found = [*facts.entries, *resolved]
        found_findings.extend(unread_name_finding(item) for item in unreadable)
        found_findings.extend(unnamed_finding(item) for item in unnamed)
        found_findings.extend(
            Finding(kind, facts.file, line, message) for kind, message, line in facts.problems
        )
        read.append((patch, facts, found, found_findings))
    _add_parameter_entries(read, layout, tree)
    if ahead is not None:
        # Test modules are mostly left out below: their targets are not worth the work.
        ahead(
            [
                entry.target
                for patch, _facts, found, _problems in read
                if not is_test_module(patch.module, patch.is_package)
                for entry, _local in found
            ],
            [],
        )
    entry_points = layout.entry_points
    loaded = loading(
        settings.package,
        entry_points,
        layout.console_scripts,
        settings.activation,
        upstream,
        unread,
        layout.other_entry_points,
        tuple(
            (module, tree.relative(file), line)
            for module, file, line in scripts(layout.package_files)
        ),
    )
    reach = Reachability(tree, list(loaded.roots), layout.package_modules)
    # A test module the plugin's loading does not import is run by a test runner: what it
    # replaces is no runtime patch of the plugin (:mod:`patchkeeper.runtime.inventory.runners`).
    kept: list[_Read] = []
    raw: list[tuple[PatchEntry, tuple[Any, ...]]] = []
    findings: list[Finding] = []
    left_out: list[str] = []
    for patch, facts, found, problems in read:
        if is_test_module(patch.module, patch.is_package) and not reach.imports(patch.module):
            left_out.append(facts.file)
            continue
        kept.append((patch, facts, found, problems))
        raw.extend(found)
        findings.extend(problems)
    entries = []
    wrappers = shared_wrappers([entry for entry, _local in raw], same)
    for entry, local in raw:
        entry = _upgrade_subclass(entry, tree)
        shared = wrappers.get((entry.file, entry.line, entry.target))
        if shared is not None:
            entry = replace(entry, mechanism=shared)
        activation = reach.activation(entry.module, entry.scope, local, loaded.untraced)
        entries.append(replace(entry, activation=activation))
    entries.sort(key=_order)
    files = [facts.file for _patch, facts, _found, _problems in kept]
    # A header describes the patches of its file: a file that patches nothing (a helper, an
    # initializer, any module of a package scanned whole) needs none.
    for patch, facts, found, _problems in kept:
        if found and settings.header_fields and not facts.syntax_error.startswith(UNREADABLE):
            text = patch.path.read_text(encoding="utf-8", errors="replace")
            # the parse the scan kept, if it did: a docstring is read from it
            parse = plugin_file_tree(patch.path) if plugin_tree_kept(patch.path) else None
            findings.extend(check_header(text, settings.header_fields, facts.file, parse))
    findings.extend(layout.project_problems)
    # The ledger is checked against the entries as the files give them: what it reads of an
    # entry (file, line, target, key, a sys.modules mechanism) the activation search and a
    # subclass swap leave as they are.
    findings.extend(
        ledger_findings(
            settings.root,
            settings.ledger_file,
            settings.patch_directory,
            sorted((entry for entry, _local in raw), key=_order),
            files,
        )
    )
    return Inventory(
        plugin_root=str(settings.root),
        package=settings.package,
        patch_directory=settings.patch_directory,
        entry_points=entry_points,
        files=tuple(files),
        entries=tuple(entries),
        findings=tuple(sorted(findings, key=lambda f: (f.path, f.line or 0, f.code, f.message))),
        counts=count_entries(entries),
        loading=loaded.facts,
        tests_left_out=tuple(left_out),
    )


def count_entries(entries: list[PatchEntry]) -> dict[str, dict[str, int]]:
    """Counts by mechanism and by activation status (keys sorted)."""
    mechanisms = Counter(e.mechanism.value for e in entries)
    activations = Counter(e.activation.status.value for e in entries if e.activation)
    return {
        "mechanism": dict(sorted(mechanisms.items())),
        "activation": dict(sorted(activations.items())),
    }
