"""Draft the truth of one pair of plugin releases from the diff of their patch directories.

    python benchmarks/runtime_truth_draft.py vllm-ascend==0.29.0rc1 vllm-ascend==0.30.0rc1

How the truth files under ``benchmarks/runtime_history/`` were started: every entry of the
older release's inventory is looked up in the newer release's inventory by (target, key):

- not there, but the same plugin replacement now patches another target: *update* (the
  maintainers retargeted it);
- not there any more: *remove* (the maintainers deleted it), or *migrate* when the newer
  release gained, anywhere in the plugin, a ``register*(`` call naming the target's class
  or function, or a method of its platform class named like the target (an upstream hook);
- there, with a version gate on its activation changed: *update*;
- there, with its replacement's code changed (AST without docstrings) while the upstream
  target changed between the two vLLM releases (or could not be compared): *update*;
- otherwise *retain*: unchanged, or changed by the plugin for its own reasons while the
  upstream target stayed the same (not an upgrade action), or only moved to another file.

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

from patchkeeper.runtime.drift import upstream_code
from patchkeeper.runtime.inventory import scan_plugin
from patchkeeper.runtime.resolve import FOUND, resolve_all
from patchkeeper.runtime.samecode import find_definition, same_ast
from patchkeeper.runtime.settings import resolve_settings
from patchkeeper.runtime.upstream import UpstreamTree
from patchkeeper.upstream.fetch import fetch_requirement

#: The vLLM release a plugin release is built against: its Dockerfile's ``ARG VLLM_TAG=vX``.
_TAG = re.compile(r"^ARG VLLM_TAG=v(\S+)", re.M)


def pinned_vllm(root: Path) -> str:
    """The vLLM version the plugin release at ``root`` pins (``"0.29.0"``)."""
    found = _TAG.search((root / "Dockerfile").read_text(encoding="utf-8"))
    if found is None:
        raise SystemExit(f"{root}/Dockerfile: no ARG VLLM_TAG line")
    return found.group(1)


def upstream_changed(target: str, trees: tuple[UpstreamTree, UpstreamTree]) -> str:
    """``"changed"``, ``"unchanged"`` or ``"unknown"``: the target's source text in the two
    vLLM releases (a fact for the hand review, not a decision)."""
    spans = []
    for tree in trees:
        found = resolve_all(tree, [target], lambda _t: False)[target]  # no tree-wide search
        code = upstream_code(tree, found) if found.status == FOUND else None
        if code is None:
            return "unknown"
        spans.append(code.node())
    if spans[0] is None or spans[1] is None:
        return "unknown"
    return "unchanged" if same_ast(spans[0], spans[1]) else "changed"


def inventory(requirement: str):
    """The scanned inventory of one plugin release (fetched once into the corpus cache)."""
    root = Path(fetch_requirement(requirement, kind="sdist").root)
    settings = resolve_settings(None, plugin=root, package="vllm_ascend", patch_directory=None)
    return scan_plugin(settings), root


def entry_id(entry, patch_directory: str) -> str:
    """``file-under-the-patch-directory::target[key]``: the name of an entry in a truth file."""
    file = entry.file.removeprefix(patch_directory + "/")
    key = f"[{entry.key}]" if entry.key is not None else ""
    return f"{file}::{entry.target}{key}"


def replacement_node(root: Path, replacement: str) -> ast.stmt | None:
    """The plugin's replacement definition (``module:qualname``), parsed; ``None`` for an
    expression or when it cannot be found."""
    module, _, qual = replacement.partition(":")
    if not qual or "<" in replacement:
        return None
    base = root / Path(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            try:
                tree = ast.parse(path.read_bytes())
            except SyntaxError:
                return None
            return find_definition(tree, qual)
    return None


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
    for path in sorted((root / "vllm_ascend").rglob("*.py")):
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
    for path in sorted((root / "vllm_ascend").rglob("*.py")):
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


def draft(old_req: str, new_req: str) -> tuple[dict, list[tuple[str, str, str]]]:
    """The pair's header and (entry, truth, why) for every entry of the older release."""
    old, old_root = inventory(old_req)
    new, new_root = inventory(new_req)
    pair = {
        "plugin_old": old_req.split("==")[1],
        "plugin_new": new_req.split("==")[1],
        "vllm_old": pinned_vllm(old_root),
        "vllm_new": pinned_vllm(new_root),
    }
    trees = tuple(
        UpstreamTree(Path(fetch_requirement(f"vllm=={pair[k]}", kind="sdist").root), ("vllm",))
        for k in ("vllm_old", "vllm_new")
    )
    patch_dir = old.inventory.patch_directory
    by_target = defaultdict(list)
    for entry in new.inventory.entries:
        by_target[(entry.target, entry.key)].append(entry)
    new_registrations, old_registrations = registrations(new_root), registrations(old_root)
    hooks = platform_methods(new_root)
    hooks = {k: v for k, v in hooks.items() if k not in platform_methods(old_root)}
    by_replacement = defaultdict(list)
    for entry in new.inventory.entries:
        if ":" in entry.replacement and "<" not in entry.replacement:
            by_replacement[entry.replacement].append(entry)
    rows, seen = [], defaultdict(int)
    for entry in old.inventory.entries:
        name = entry_id(entry, patch_dir)
        seen[name] += 1
        if seen[name] > 1:
            name = f"{name}#{seen[name]}"
        matches = by_target.get((entry.target, entry.key), [])
        if not matches and by_replacement.get(entry.replacement):
            moved = by_replacement[entry.replacement][0].target
            rows.append((name, "update", f"retargeted to {moved} (same replacement)"))
            continue
        if not matches:
            hook = migrated_to(entry.target, new_registrations, old_registrations)
            last = entry.target.rsplit(".", 1)[-1]
            if not hook and last in hooks:
                hook = f"the platform method {last} at {hooks[last]}"
            if hook:
                rows.append((name, "migrate", f"entry deleted; the newer release registers {hook}"))
            else:
                rows.append((name, "remove", "the newer release has no entry for this target"))
            continue
        same_file = [m for m in matches if m.file == entry.file] or matches
        other = same_file[0]
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
            rows.append((name, _changed_truth(changed, upstream, entry, other), "; ".join(changed)))
        else:
            rows.append((name, "retain", "replacement and activation unchanged"))
    return pair, rows


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    args = parser.parse_args(argv)
    pair, rows = draft(args.old, args.new)
    print("[pair]")
    for key, value in pair.items():
        print(f"{key} = {json.dumps(value)}")
    print()
    for name, truth, why in rows:
        print("[[entry]]")
        print(f"entry = {json.dumps(name)}")
        print(f"truth = {json.dumps(truth)}")
        print(f"why = {json.dumps(why)}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
