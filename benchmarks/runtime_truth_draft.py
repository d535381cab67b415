"""Draft the truth of one pair of plugin releases from the diff of their patch directories.

    python benchmarks/runtime_truth_draft.py vllm-ascend==0.29.0rc1 vllm-ascend==0.30.0rc1

How the truth files under ``benchmarks/runtime_history/`` were started: every entry of the
older release's inventory is looked up in the newer release's inventory by (target, key):

- not there, but the same plugin replacement now patches another target: *update* (the
  maintainers retargeted it);
- not there any more (an entry of the same target in a file that patched it in the older
  release too is that file's own entry, not this one moved): *remove* (the maintainers
  deleted it), or *migrate* when the newer release gained, anywhere in the plugin, a
  ``register*(`` call naming the target's class
  or function, or a method of its platform class named like the target (an upstream hook);
- there, with a version gate on its activation changed: *update*;
- there, with its replacement's code changed (AST without docstrings) while the upstream
  target changed between the two vLLM releases (or could not be compared): *update*, unless
  the maintainers' change shares nothing with the upstream change (no line it adds or
  drops is one upstream adds or drops, no name it introduces is one upstream introduces,
  and it adds no version check): then their change is their own (a helper renamed, a
  feature of theirs) and the entry is *retain* (:func:`follows_upstream`);
- otherwise *retain*: unchanged, or changed by the plugin for its own reasons while the
  upstream target stayed the same (not an upgrade action), or only moved to another file.

``--review FILE`` applies the draft's rules to an already reviewed truth file: only an
*update* row that :func:`follows_upstream` reads as the plugin's own change is corrected
(to *retain*, saying why); every other row stays as reviewed.

Each row's ``source`` is where the entry is in each release (``0.1.2 a.py:40; 0.1.3 a.py:42``,
``none`` when the newer release has no entry for it): the lines the hand review reads.
The draft is printed as TOML for the hand review; nothing of the plugin is copied (entries
are named by file, target and key only). The plugin is never imported.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import tomllib

from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
from patchkeeper.runtime.judge.drift import upstream_code
from patchkeeper.runtime.judge.samecode import find_definition, same_ast
from patchkeeper.runtime.lookup.resolve import FOUND, resolve_all
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree, strip_docstrings
from patchkeeper.runtime.settings import resolve_settings
from patchkeeper.upstream.fetch import fetch_requirement

#: The plugin package whose registrations and platform methods are read (set per draft).
PACKAGE = ["vllm_ascend"]

#: The vLLM release a plugin release is built against: its Dockerfile's ``ARG VLLM_TAG=vX``.
_TAG = re.compile(r"^ARG VLLM_TAG=v(\S+)", re.M)


def pinned_vllm(root: Path) -> str:
    """The vLLM version the plugin release at ``root`` pins (``"0.29.0"``)."""
    found = _TAG.search((root / "Dockerfile").read_text(encoding="utf-8"))
    if found is None:
        raise SystemExit(f"{root}/Dockerfile: no ARG VLLM_TAG line")
    return found.group(1)


def upstream_nodes(target: str, trees: tuple[UpstreamTree, UpstreamTree]) -> list:
    """The target's parsed definition in each of the two vLLM releases (``None`` where it
    cannot be found or parsed)."""
    nodes = []
    for tree in trees:
        found = resolve_all(tree, [target], lambda _t: False)[target]  # no tree-wide search
        code = upstream_code(tree, found) if found.status == FOUND else None
        nodes.append(code.node() if code is not None else None)
    return nodes


def upstream_changed(target: str, trees: tuple[UpstreamTree, UpstreamTree]) -> str:
    """``"changed"``, ``"unchanged"`` or ``"unknown"``: the target's source text in the two
    vLLM releases (a fact for the hand review, not a decision)."""
    old, new = upstream_nodes(target, trees)
    if old is None or new is None:
        return "unknown"
    return "unchanged" if same_ast(old, new) else "changed"


def _lines(node: ast.AST) -> set[str]:
    """The stripped lines of ``node`` unparsed without docstrings (formatting-neutral)."""
    parsed = ast.parse(ast.unparse(node))
    clean = strip_docstrings(parsed if isinstance(node, ast.Module) else parsed.body[0])
    return {line.strip() for line in ast.unparse(clean).splitlines() if line.strip()}


def _names(node: ast.AST) -> set[str]:
    """Names, attributes, parameters, keywords and short string constants in ``node``."""
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.arg) or (isinstance(sub, ast.keyword) and sub.arg):
            found.add(sub.arg)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and len(sub.value) < 40:
            # a keyword spelled as a string (``kwargs["max_in_flight_tokens"]``) is the name
            found.add(sub.value if sub.value.isidentifier() else repr(sub.value))
    return found


#: A version check in plugin code (the maintainers gating a change on the vLLM release).
_VERSION_CHECK = re.compile(r"vllm_version_is|__version__|Version\(")


def follows_upstream(before, after, old_up, new_up) -> str:
    """What the maintainers' change of a replacement (``before`` -> ``after``) shares with
    the upstream change of its target (``old_up`` -> ``new_up``), all parsed definitions:
    ``"lines: ..."``, ``"names: ..."`` or ``"a version check"`` (one added or dropped: a
    gate on the vLLM release is an upgrade edit); ``""`` when nothing (the change is the
    plugin's own)."""
    added, dropped = _lines(after) - _lines(before), _lines(before) - _lines(after)
    up_added, up_dropped = _lines(new_up) - _lines(old_up), _lines(old_up) - _lines(new_up)
    shared = sorted((added & up_added) | (dropped & up_dropped))
    if shared:
        return f"lines: {shared[0][:60]}"
    names = sorted((_names(after) - _names(before)) & (_names(new_up) - _names(old_up)))
    if names:
        return "names: " + ", ".join(names[:4])
    if any(_VERSION_CHECK.search(line) for line in added | dropped):
        return "a version check"
    return ""


#: The corpus of plugins (``benchmarks/plugin_corpus.py``, reviewed): package, patch
#: directory, and the vLLM release and file kind of each plugin release.
CORPUS = Path(__file__).resolve().parent / "runtime_history" / "plugins.toml"


def corpus_plugin(name: str) -> dict:
    """The corpus's table of plugin ``name`` (``{}`` when it is not there)."""
    if not CORPUS.is_file():
        return {}
    for plugin in tomllib.loads(CORPUS.read_text(encoding="utf-8"))["plugin"]:
        if plugin["name"] == name:
            return plugin
    return {}


def corpus_release(requirement: str) -> tuple[dict, dict]:
    """The corpus's tables of the plugin and of the release ``name==version``."""
    name, _, version = requirement.partition("==")
    plugin = corpus_plugin(name)
    for release in plugin.get("release", []):
        if release["version"] == version:
            return plugin, release
    return plugin, {}


def plugin_root(requirement: str) -> Path:
    """The unpacked release (its sdist, or its wheel where the corpus says so)."""
    _plugin, release = corpus_release(requirement)
    return Path(fetch_requirement(requirement, kind=release.get("kind", "sdist")).root)


def inventory(requirement: str):
    """The scanned inventory of one plugin release (fetched once into the corpus cache)."""
    root = plugin_root(requirement)
    plugin, _release = corpus_release(requirement)
    settings = resolve_settings(
        None,
        plugin=root,
        package=plugin.get("package", "vllm_ascend"),
        patch_directory=plugin.get("patch_directory"),
    )
    return scan_plugin(settings), root


def vllm_trees(pair: dict[str, str]) -> tuple:
    """The pair's old and new vLLM sdist trees (fetched into the cache once)."""
    return tuple(
        UpstreamTree(Path(fetch_requirement(f"vllm=={pair[k]}", kind="sdist").root), ("vllm",))
        for k in ("vllm_old", "vllm_new")
    )


def entries_by_target(scanned) -> dict:
    """The inventory's entries by ``(target, key)`` (a list each: one target may be patched
    in several places)."""
    by_target = defaultdict(list)
    for entry in scanned.inventory.entries:
        by_target[(entry.target, entry.key)].append(entry)
    return by_target


def entry_id(entry, patch_directory: str) -> str:
    """``file-under-the-patch-directory::target[key]``: the name of an entry in a truth file."""
    file = entry.file.removeprefix(patch_directory + "/")
    key = f"[{entry.key}]" if entry.key is not None else ""
    return f"{file}::{entry.target}{key}"


def replacement_node(root: Path, replacement: str, depth: int = 0) -> ast.AST | None:
    """The plugin's replacement definition (``module:qualname``), parsed; ``None`` for an
    expression or when it cannot be found. A replacement the module only imports from
    elsewhere in the plugin is followed there (:func:`_elsewhere`)."""
    module, _, qual = replacement.partition(":")
    if not qual or "<" in replacement or depth > 3:
        return None
    base = root / Path(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            try:
                tree = ast.parse(path.read_bytes())
            except SyntaxError:
                return None
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            found = find_definition(tree, qual)
            return found or _elsewhere(root, tree, package, qual, depth)
    return None


def _defines(node: ast.AST, name: str) -> bool:
    """Whether ``node`` defines ``name`` (a function, class or assigned name) anywhere."""
    for sub in ast.walk(node):
        named = isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if named and sub.name == name:
            return True
        targets = sub.targets if isinstance(sub, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


def _elsewhere(root: Path, tree: ast.Module, package: str, qual: str, depth: int):
    """The definition of ``qual`` that :func:`find_definition` misses in a plugin module:
    imported from another plugin module (followed there); a function nested in another
    (``outer.inner``); defined in a version branch (the whole ``if``/``try`` statement,
    every branch compared); or a module-level object (``kernel = Launcher()``: the
    assignment with the module's definitions it names, as one ``ast.Module``)."""
    head, _, rest = qual.partition(".")
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) != head:
                    continue
                source = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parent = ".".join(parts[: len(parts) - node.level + 1])
                    source = f"{parent}.{source}".rstrip(".")
                if not source.startswith(PACKAGE[0]):
                    return None
                target = ".".join([alias.name, rest]) if rest else alias.name
                return replacement_node(root, f"{source}:{target}", depth + 1)
    outer = find_definition(tree, head)
    if outer is not None and rest:
        for sub in ast.walk(outer):
            named = isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            if named and sub.name == rest.rpartition(".")[2]:
                return sub
            # ``get_state_dtype = _get_state_dtype`` in a class: the function it names
            if (
                isinstance(sub, ast.Assign)
                and isinstance(sub.value, ast.Name)
                and any(isinstance(t, ast.Name) and t.id == rest for t in sub.targets)
            ):
                return find_definition(tree, sub.value.id)
        return None
    for kinds in ((ast.If, ast.Try), (ast.Assign,)):
        for node in tree.body:
            if isinstance(node, kinds) and _defines(node, head):
                return ast.Module(body=_with_helpers(tree, node), type_ignores=[])
    return None


def _with_helpers(tree: ast.Module, node: ast.stmt) -> list[ast.stmt]:
    """``node`` with the module-level functions and classes it names, and those they name
    (a launcher object and its kernel), in file order."""
    wanted = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    kept: list[ast.stmt] = []
    while True:
        more = [
            other
            for other in tree.body
            if isinstance(other, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and other.name in wanted
            and other not in kept
        ]
        if not more:
            return sorted([*kept, node], key=lambda stmt: stmt.lineno)
        kept += more
        for other in more:
            wanted |= {n.id for n in ast.walk(other) if isinstance(n, ast.Name)}


def activation_text(entry) -> str:
    """The entry's activation status and conditions as one comparable string."""
    act = entry.activation
    if act is None:
        return ""
    return act.status.value + ";" + ";".join(f"{c.kind}:{c.text}" for c in act.conditions)


#: A registration call in the plugin: ``Factory.register_engine(``, ``register_backend(``.
_REGISTER = re.compile(r"\b[\w.]*register\w*\(")
#: A class name (``WeightTransferEngineFactory``) or a long function name: a part of a
#: target specific enough to identify it in a registration.
_SPECIFIC = re.compile(r"^(?:[A-Z]\w*[a-z]\w*|\w+_\w+_\w+)$")


def registrations(root: Path) -> dict[str, str]:
    """Every line of the plugin package (patch directory included) that calls a
    ``register*`` function, normalized, mapped to ``file:line``."""
    found: dict[str, str] = {}
    for path in sorted((root / PACKAGE[0]).rglob("*.py")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, 1):
            if _REGISTER.search(line) and not line.lstrip().startswith(("#", "def ")):
                found.setdefault(line.strip(), f"{path.relative_to(root)}:{number}")
    return found


def migrated_to(target: str, new_registrations: dict[str, str], old: dict[str, str]) -> str:
    """A registration the newer release gained that names the target's class or function
    (``WeightTransferEngineFactory.register_engine(`` for
    ``vllm.distributed.weight_transfer.factory.WeightTransferEngineFactory``); ``""``."""
    names = [part for part in target.split(".")[1:] if _SPECIFIC.match(part)]
    for line, where in new_registrations.items():
        if line in old:
            continue
        if any(re.search(rf"\b{re.escape(name)}\b", line) for name in names):
            return f"{where}: {line[:80]}"
    return ""


def platform_methods(root: Path) -> dict[str, str]:
    """Methods of the plugin's platform classes (``class NPUPlatform(Platform)``): name ->
    ``file:line``; an upstream platform hook the plugin implements."""
    found: dict[str, str] = {}
    for path in sorted((root / PACKAGE[0]).rglob("*.py")):
        if "/patch/" in path.as_posix():
            continue
        try:
            tree = ast.parse(path.read_bytes())
        except SyntaxError:
            continue
        for node in tree.body:
            bases = [ast.unparse(b) for b in getattr(node, "bases", [])]
            if isinstance(node, ast.ClassDef) and any(b.endswith("Platform") for b in bases):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        found[item.name] = f"{path.relative_to(root)}:{item.lineno}"
    return found


def draft(old_req: str, new_req: str) -> tuple[dict, list[tuple[str, str, str, str]]]:
    """The pair's header and (entry, truth, why, source) for every entry of the older
    release; ``source`` names the entry's file and line in each release (``file:line``
    under the patch directory, ``none`` in the newer release when it has no entry for the
    target). The n-th entry of one target in one file is compared with the n-th entry of
    that target in the same file of the newer release (the last one when it has fewer)."""
    old, old_root = inventory(old_req)
    new, new_root = inventory(new_req)
    plugin, old_release = corpus_release(old_req)
    _plugin, new_release = corpus_release(new_req)
    PACKAGE[0] = plugin.get("package", PACKAGE[0])
    pair = {
        "plugin_old": old_req.split("==")[1],
        "plugin_new": new_req.split("==")[1],
        "vllm_old": old_release.get("vllm") or pinned_vllm(old_root),
        "vllm_new": new_release.get("vllm") or pinned_vllm(new_root),
    }
    if plugin and plugin["name"] != "vllm-ascend":
        pair = {"plugin": plugin["name"], "package": plugin["package"], **pair}
    trees = vllm_trees(pair)
    patch_dir = old.inventory.patch_directory
    by_target = entries_by_target(new)
    new_registrations, old_registrations = registrations(new_root), registrations(old_root)
    hooks = platform_methods(new_root)
    hooks = {k: v for k, v in hooks.items() if k not in platform_methods(old_root)}
    by_replacement = defaultdict(list)
    for entry in new.inventory.entries:
        if ":" in entry.replacement and "<" not in entry.replacement:
            by_replacement[entry.replacement].append(entry)
    rows, seen = [], defaultdict(int)
    used: dict[tuple, int] = defaultdict(int)  # (target, key, file) -> entries compared
    old_version, new_version = pair["plugin_old"], pair["plugin_new"]

    def where(found) -> str:
        return f"{found.file.removeprefix(patch_dir + '/')}:{found.line}"

    old_files = defaultdict(set)  # (target, key) -> the older release's files patching it
    for entry in old.inventory.entries:
        old_files[(entry.target, entry.key)].add(entry.file)
    for entry in old.inventory.entries:
        name = entry_id(entry, patch_dir)
        seen[name] += 1
        if seen[name] > 1:
            name = f"{name}#{seen[name]}"
        # an entry in another file that already patched the target is that file's own
        # entry, not this one moved there
        already = old_files[(entry.target, entry.key)] - {entry.file}
        matches = [m for m in by_target.get((entry.target, entry.key), []) if m.file not in already]
        source = f"{old_version} {where(entry)}; {new_version} "
        if not matches and by_replacement.get(entry.replacement):
            moved = by_replacement[entry.replacement][0]
            rows.append(
                (
                    name,
                    "update",
                    f"retargeted to {moved.target} (same replacement)",
                    source + where(moved),
                )
            )
            continue
        if not matches:
            hook = migrated_to(entry.target, new_registrations, old_registrations)
            last = entry.target.rsplit(".", 1)[-1]
            if not hook and last in hooks:
                hook = f"the platform method {last} at {hooks[last]}"
            if hook:
                why = f"entry deleted; the newer release registers {hook}"
                rows.append((name, "migrate", why, source + "none"))
            else:
                why = "the newer release has no entry for this target"
                rows.append((name, "remove", why, source + "none"))
            continue
        same_file = [m for m in matches if m.file == entry.file]
        if same_file:
            nth = used[(entry.target, entry.key, entry.file)]
            used[(entry.target, entry.key, entry.file)] += 1
            other = same_file[min(nth, len(same_file) - 1)]
        else:
            other = matches[0]
        source += where(other)
        before = replacement_node(old_root, entry.replacement)
        after = replacement_node(new_root, other.replacement)
        changed = []
        if (before is None) != (after is None) or (
            before is not None and after is not None and not same_ast(before, after)
        ):
            changed.append("replacement code changed")
        if activation_text(entry) != activation_text(other):
            changed.append("activation changed")
        if other.file != entry.file:
            changed.append(f"moved to {other.file.removeprefix(patch_dir + '/')}")
        if changed:
            upstream = upstream_changed(entry.target, trees)
            changed.append(f"upstream target {upstream}")
            truth = _changed_truth(changed, upstream, entry, other)
            if truth == "update" and upstream == "changed" and before is not None and after:
                shared = follows_upstream(before, after, *upstream_nodes(entry.target, trees))
                if not shared:
                    truth = "retain"
                    changed.append(OWN_CHANGE)
            rows.append((name, truth, "; ".join(changed), source))
        else:
            rows.append((name, "retain", UNCHANGED, source))
    return pair, rows


#: Why an entry whose replacement changed alongside its upstream target is *retain*.
OWN_CHANGE = (
    "the maintainers' change shares no line, name or version check with the upstream "
    "change: their own change, not an update to follow upstream"
)


def _changed_truth(changed: list[str], upstream: str, entry, other) -> str:
    """*update* when the maintainers changed the entry to follow upstream: its code changed
    while the upstream target changed (or could not be compared), or a version gate on its
    activation changed; *retain* for the plugin's own changes (upstream target unchanged)
    and for a file move or an import reorganisation alone."""
    code = "replacement code changed" in changed
    gates = {c.text for c in entry.activation.conditions if "version" in c.text}
    gates_after = {c.text for c in other.activation.conditions if "version" in c.text}
    if gates != gates_after:
        return "update"
    if code and upstream != "unchanged":
        return "update"
    return "retain"


#: Why an entry is *retain* when the draft finds nothing changed.
UNCHANGED = "replacement and activation unchanged"

#: Why such a row is corrected to *update* (the draft once read only the patch file).
ELSEWHERE = (
    "the replacement, defined outside the patch file, changed with the upstream change "
    "of the target"
)


def _followed_elsewhere(entry, by_target: dict, roots: tuple, trees: tuple) -> str:
    """What the change of ``entry``'s replacement between the two plugin releases (``roots``)
    shares with the upstream change of its target (:func:`follows_upstream`), for a row
    reviewed as unchanged: ``""`` when the replacement did not change, cannot be found, or
    changed for the plugin's own reasons, or when the target did not change upstream."""
    matches = by_target.get((entry.target, entry.key), []) if entry else []
    if not matches:
        return ""
    other = ([m for m in matches if m.file == entry.file] or matches)[0]
    before = replacement_node(roots[0], entry.replacement)
    after = replacement_node(roots[1], other.replacement)
    if before is None or after is None or same_ast(before, after):
        return ""
    nodes = upstream_nodes(entry.target, trees)
    if None in nodes or same_ast(*nodes):
        return ""
    return follows_upstream(before, after, *nodes)


def review(truth_file: Path) -> list[str]:
    """Correct a reviewed truth file in place where the draft's rules now read the
    maintainers' commit differently: an *update* row drafted from "replacement code changed;
    ... upstream target changed" whose change :func:`follows_upstream` finds to be the
    plugin's own becomes *retain*, its ``why`` saying so (:data:`OWN_CHANGE`); a *retain*
    row drafted as unchanged whose replacement, followed outside the patch file, changed
    with the upstream change of its target becomes *update* (:data:`ELSEWHERE`). Every other
    row (the hand-checked ones included) is left as it is. Returns the corrected entries."""
    text = truth_file.read_text(encoding="utf-8")
    pair = tomllib.loads(text)["pair"]
    old, old_root = inventory(f"vllm-ascend=={pair['plugin_old']}")
    new, new_root = inventory(f"vllm-ascend=={pair['plugin_new']}")
    trees = vllm_trees(pair)
    roots = (old_root, new_root)
    patch_dir = old.inventory.patch_directory
    by_target = entries_by_target(new)
    entries, seen = {}, defaultdict(int)
    for entry in old.inventory.entries:
        name = entry_id(entry, patch_dir)
        seen[name] += 1
        entries[name if seen[name] == 1 else f"{name}#{seen[name]}"] = entry
    blocks = text.split("\n[[entry]]\n")
    corrected = []
    for index, block in enumerate(blocks[1:], 1):
        row = tomllib.loads(block)
        why = row["why"]
        if row["truth"] == "retain" and why == UNCHANGED:
            shared = _followed_elsewhere(entries.get(row["entry"]), by_target, roots, trees)
            if shared:
                fact = f"{why}; corrected: {ELSEWHERE} ({shared})"
                blocks[index] = (
                    f'entry = {json.dumps(row["entry"])}\ntruth = "update"\n'
                    f"why = {json.dumps(fact)}\n"
                )
                corrected.append(row["entry"])
            continue
        if row["truth"] != "update" or "replacement code changed" not in why:
            continue
        if "upstream target changed" not in why or OWN_CHANGE in why:
            continue
        entry = entries.get(row["entry"])
        matches = by_target.get((entry.target, entry.key), []) if entry else []
        if not matches:
            continue
        other = ([m for m in matches if m.file == entry.file] or matches)[0]
        before = replacement_node(old_root, entry.replacement)
        after = replacement_node(new_root, other.replacement)
        nodes = upstream_nodes(entry.target, trees)
        if None in (before, after, *nodes) or follows_upstream(before, after, *nodes):
            continue
        blocks[index] = (
            f'entry = {json.dumps(row["entry"])}\ntruth = "retain"\n'
            f"why = {json.dumps(f'{why}; corrected: {OWN_CHANGE}')}\n"
        )
        corrected.append(row["entry"])
    truth_file.write_text("\n[[entry]]\n".join(blocks), encoding="utf-8")
    return corrected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="vllm-ascend==OLD, or a truth file with --review")
    parser.add_argument("new", nargs="?")
    parser.add_argument("--review", action="store_true", help="correct the truth file OLD")
    args = parser.parse_args(argv)
    if args.review:
        for entry in review(Path(args.old)):
            print(f"corrected: {entry}")
        return 0
    pair, rows = draft(args.old, args.new)
    print("[pair]")
    for key, value in pair.items():
        print(f"{key} = {json.dumps(value)}")
    print()
    for name, truth, why, source in rows:
        print("[[entry]]")
        print(f"entry = {json.dumps(name)}")
        print(f"truth = {json.dumps(truth)}")
        print(f"why = {json.dumps(why)}")
        print(f"source = {json.dumps(source)}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
