"""Evidence that upstream took a patch's change in: the new release now has what the plugin
added, so the patch goes (*remove*).

A careful maintainer deletes a backport, or a feature the plugin carried, once the upstream
release it moves to ships it; and when one part of a patch file has landed upstream, the
file's other patches (parts of the same change) go with it. The evidence, each a fact of
the two upstream trees and the plugin's file:

- **features** (:func:`landed_features`): a class the patch's file defines itself, or that a
  helper module of the patch directory it imports defines (``from plugin.patch.kimi_parser
  import KimiParser``), is defined by the new upstream and not by the old one; or a
  module-level constant the file defines (``SHM_READER_RECHECK_INTERVAL_MS``) is new in the
  module one of its targets lives in;
- **signature** (:func:`signature_landed`, taken by the judge beside its other rules on
  one entry's spans): the patch's header says it is a backport, and the replacement's
  parameters differed from the old upstream target's and equal the new one's (upstream
  gained the parameter the plugin had added: ``is_stale: bool = False``);
- **attribute** (:func:`attribute_landed`): an attribute the plugin adds to an upstream class
  is now set by the new upstream class itself (``self.drop_stale_output = False``) and was
  not by the old one.

:func:`spread` carries such evidence to the other entries of the same patch file when its
header says it is a backport (the file is one change: a backport of one upstream pull
request).
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import replace
from pathlib import Path

from patchkeeper.runtime.judge.drift import REMOVE, Code, Drift
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.store.cache import SummaryCache

#: A class name specific enough to identify a feature (``KimiK3Renderer``): CamelCase, 8
#: characters or more.
_FEATURE_CLASS = re.compile(r"^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]{2,}$")
#: ``class Name`` at the start of a line: a module-level class statement.
_CLASS_LINE = re.compile(r"^class\s+([A-Za-z_]\w*)", re.M)
#: A module-level constant specific enough to identify a feature: upper case, two words or
#: more, 12 characters or more (``SHM_READER_RECHECK_INTERVAL_MS``), assigned at column 0.
_CONSTANT_LINE = re.compile(r"^([A-Z][A-Z0-9]*_[A-Z0-9_]{7,})\s*(?::[^=\n]*)?=(?!=)", re.M)
#: An import of a module at column 0: ``from a.b import c`` or ``import a.b``.
_IMPORT_LINE = re.compile(r"^(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.M)
#: A header that says the patch backports an upstream change.
BACKPORT = re.compile(r"(?i)\bback-?port")
#: The first words of every reason this module gives (what :func:`spread` carries).
TOOK = "upstream took the change in"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _helpers(root: Path, patch_directory: str, text: str) -> list[str]:
    """The texts of the modules of the patch directory that ``text`` imports at column 0
    (helper modules: ``from plugin.patch.platform.kimi_parser import KimiParser``)."""
    prefix = patch_directory.replace("/", ".") + "."
    out = []
    for found in _IMPORT_LINE.finditer(text):
        module = found.group(1) or found.group(2)
        if not module.startswith(prefix):
            continue
        base = root / Path(*module.split("."))
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                out.append(_read(path))
                break
    return out


def _target_modules(tree: UpstreamTree, targets: set[str]) -> set[str]:
    """The upstream modules the dotted ``targets`` live in (their longest module prefix)."""
    out = set()
    for target in targets:
        parts = target.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if tree.module_file(module) is not None:
                out.add(module)
                break
    return out


def landed_features(
    root: Path,
    patch_directory: str,
    entries: list[PatchEntry],
    trees: tuple[UpstreamTree, UpstreamTree],
    store: SummaryCache | None = None,
) -> dict[str, tuple[str, ...]]:
    """Per patch file (relative path): the features it carries that the new upstream now
    has and the old one did not (see the module docstring): classes of the file or of the
    patch directory's helper modules it imports, defined anywhere in the new tree; and
    module-level constants of the file, defined in a module one of its targets lives in
    (also one the file sets there as a target: the old module lacked it). A class named
    like one of the file's targets is its replacement, not a feature, and is left out; so
    are names :data:`_FEATURE_CLASS` finds too generic. The classes of every file are
    looked up in one pass over each tree, and the answer is remembered in ``store`` (the
    drift store of the pair of trees) under a digest of the names: a warm run does not
    walk the trees."""
    own: dict[str, set[str]] = {}
    targets: dict[str, set[str]] = {}
    for entry in entries:
        own.setdefault(entry.file, set()).add(entry.target.rsplit(".", 1)[-1])
        targets.setdefault(entry.file, set()).add(entry.target)
    defined: dict[str, list[str]] = {}
    constants: dict[str, list[str]] = {}
    for file, names_of_targets in own.items():
        data = _read(root / file)
        if not data:
            continue
        texts = [data, *_helpers(root, patch_directory, data)]
        # a class statement at column 0 (a regular expression, not a parse: cheap per run)
        names = [
            name
            for text in texts
            for name in _CLASS_LINE.findall(text)
            if len(name) >= 8 and _FEATURE_CLASS.match(name) and name not in names_of_targets
        ]
        if names:
            defined[file] = list(dict.fromkeys(names))
        # a constant the plugin sets as a target of its own (upstream's module lacked it)
        # counts too: new upstream at that path, it is upstream's now
        found = _CONSTANT_LINE.findall(data)
        if found:
            constants[file] = list(dict.fromkeys(found))
    if not defined and not constants:
        return {}
    material = (sorted(defined.items()), sorted(constants.items()), sorted(targets.items()))
    digest = hashlib.sha256(repr(material).encode()).hexdigest()
    cached = store.get_value("#landed", digest) if store is not None else None
    if cached is not None:
        return {file: tuple(names) for file, names in cached}
    wanted = sorted({name for names in defined.values() for name in names})
    if wanted:
        for tree in trees:
            tree.find_definitions(wanted)
    out: dict[str, tuple[str, ...]] = {}
    for file, names in defined.items():
        new = tuple(n for n in names if trees[1].defined(n) and not trees[0].defined(n))
        if new:
            out[file] = new
    for file, names in constants.items():
        new = tuple(n for n in names if _new_constant(n, targets[file], trees))
        if new:
            out[file] = out.get(file, ()) + new
    if store is not None:
        store.put_value("#landed", digest, [(file, list(names)) for file, names in out.items()])
    return out


def _new_constant(name: str, targets: set[str], trees: tuple[UpstreamTree, UpstreamTree]) -> bool:
    """Whether a module one of ``targets`` lives in defines ``name`` in the new tree and
    not in the old one."""
    for module in _target_modules(trees[1], targets):
        new, old = trees[1].summary(module), trees[0].summary(module)
        if new is not None and name in new.definitions:
            return old is None or name not in old.definitions
    return False


def attribute_landed(attribute: str, old: Code | None, new: Code | None) -> str:
    """Why an attribute the plugin adds to an upstream class is upstream now: the new
    class (``new``, its source span) sets ``self.<attribute>`` and the old one (``old``)
    does not. ``""`` otherwise."""
    if new is None or old is None or not attribute.isidentifier():
        return ""
    assigned = re.compile(rf"\bself\.{re.escape(attribute)}\s*(?::[^=\n]*)?=(?!=)")
    if not assigned.search("".join(new.lines)) or assigned.search("".join(old.lines)):
        return ""
    return (
        f"{TOOK}: the new upstream class sets self.{attribute} itself (the old one did "
        "not): the attribute the patch adds is upstream's now"
    )


def spread(pairs: list[tuple[PatchEntry, Drift]], headers: dict[str, str]) -> list[Drift]:
    """The drifts of ``pairs`` (entries with their judged drift, in order) with the
    evidence that upstream took the change in carried to the other entries of the same
    patch file when the file's header (``headers``: per file) says it is a backport (one
    upstream change, all of which lands at once): each becomes *remove*, naming the entry
    whose change landed. A file of the plugin's own device code keeps its other entries
    (one function of it upstream took in says nothing of the rest)."""
    landed: dict[str, tuple[str, str]] = {}
    for entry, drift in pairs:
        if not BACKPORT.search(headers.get(entry.file, "")):
            continue
        if drift.decision == REMOVE and drift.evidence and drift.evidence[0].startswith(TOOK):
            landed.setdefault(entry.file, (entry.target, drift.evidence[0]))
    out = []
    for entry, drift in pairs:
        source = landed.get(entry.file)
        if source is None or drift.decision == REMOVE:
            out.append(drift)
            continue
        target, reason = source
        why = reason.removeprefix(TOOK + ": ")
        evidence = (
            f"{TOOK} for {target}, patched in the same file ({why}): the file's other "
            "patches are part of the same change"
        )
        out.append(replace(drift, decision=REMOVE, evidence=(evidence, *drift.evidence)))
    return out


def parameters_source(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The parameters of ``node`` as source, without the annotation of a first ``self`` or
    ``cls`` (a plugin's function annotates it with the class it is set on)."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    saved = None
    if positional and positional[0].arg in ("self", "cls"):
        saved, positional[0].annotation = positional[0].annotation, None
    try:
        return ast.unparse(arguments)
    finally:
        if saved is not None:
            positional[0].annotation = saved


def signature_landed(old: Code, new: Code, mine: Code, header: str) -> str:
    """Why the replacement ``mine`` is upstream now: the patch's file ``header`` says it is
    a backport, and its parameters differed from the old upstream definition's and equal
    the new one's (names, kinds, defaults, annotations; the first ``self``'s annotation
    aside). ``""`` otherwise (a copy of the plugin's own, a device kernel that follows
    upstream's parameters ahead of a release, is not upstream's change)."""
    if not BACKPORT.search(header):
        return ""
    nodes = (old.node(), new.node(), mine.node())
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    if not all(isinstance(n, functions) for n in nodes):
        return ""
    before, after, ours = (parameters_source(n) for n in nodes)  # type: ignore[arg-type]
    if before == after or ours != after:
        return ""
    return (
        f"{TOOK}: the replacement's parameters ({ours}) differed from the old upstream's "
        f"({before}) and are the new upstream's: upstream gained what the patch added"
    )
