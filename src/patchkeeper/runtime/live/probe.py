"""The live probe, run by ``runtime check`` in a fresh interpreter (``python probe.py``).

Reads a JSON request on standard input, activates the plugin through its entry points the
way the upstream does (load each entry point, call it; a platform plugin's returned class
path is imported too), checks every entry's live attribute, looks for stale bindings in the
loaded upstream modules, and prints one JSON line. Standard library only: it runs in the
audited environment, not in patchkeeper's.

Upstream objects are read defensively: a lazy placeholder module (vLLM's stand-in for an
optional extra that is not installed raises ``ImportError`` on any attribute, where
``getattr(x, name, default)`` only catches ``AttributeError``) is skipped, never a crash of
the probe. An error is sent whole, with its full traceback.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import importlib.util
import json
import sys
import traceback
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the probe runs on the audited environment's Python
    from types import ModuleType

    #: One entry of the request, or one answer of the probe: JSON objects.
    Json = dict[str, Any]


def _get(obj: object, name: str, default: Any = None) -> Any:
    """``getattr(obj, name, default)`` that also survives an object whose attribute access
    raises something else (a lazy placeholder module raises ``ImportError``)."""
    try:
        return getattr(obj, name, default)
    except Exception:
        return default


def _import_longest(dotted: str) -> tuple[ModuleType, list[str]]:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        return module, parts[cut:]
    raise ImportError(f"no module of {dotted} can be imported")


def _raw(owner: object, name: str) -> Any:
    """The attribute as stored (a class's ``__dict__`` entry keeps the descriptor)."""
    if isinstance(owner, type):
        for klass in owner.__mro__:
            if name in vars(klass):
                return vars(klass)[name]
    return getattr(owner, name)


def _unwrap(obj: object) -> list[object]:
    seen = [obj]
    for attribute in ("__func__", "fget", "fn", "__wrapped__"):
        inner = _get(obj, attribute)
        if inner is not None:
            seen += _unwrap(inner)
            break
    return seen


def _lookup(dotted: str) -> tuple[object, Any]:
    module, rest = _import_longest(dotted)
    owner: object = module
    for index, part in enumerate(rest):
        if index == len(rest) - 1:
            return owner, _raw(owner, part)
        owner = getattr(owner, part)
    return None, module


def _replacement(spec: str) -> list[object]:
    """What a live attribute holding the plugin's ``module:qualname`` is or wraps: the
    object and those it wraps. An object a function makes when it runs (a wrapper defined
    inside the function that installs it, ``mod:install.wrapper``) exists only in the
    attribute it was put in: it is known by its code object, which every function that
    ``def`` statement makes shares."""
    module, _, qual = spec.partition(":")
    obj: Any = importlib.import_module(module)
    parts = qual.split(".")
    for index, part in enumerate(parts):
        code = _get(obj, "__code__")
        if isinstance(code, types.CodeType):
            return [_local_code(code, parts[index:])]
        obj = _raw(obj, part)
    return _unwrap(obj)


def _local_code(code: types.CodeType, names: list[str]) -> types.CodeType:
    """The code object of the function or class ``names`` (outermost first) defined inside
    the function or class body whose code is ``code``."""
    for name in names:
        inner = [c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name]
        if not inner:
            raise LookupError(f"{code.co_name} defines no {name}")
        code = inner[0]
    return code


def _is(live: object, expected: object) -> bool:
    """Whether ``live`` is ``expected``, or a function made from it when it is code."""
    return live is expected or (
        isinstance(expected, types.CodeType) and _get(live, "__code__") is expected
    )


def _literal(entry: Json) -> tuple[bool, Any]:
    """``(True, value)`` when the entry's plugin code assigns a literal (``X.flag = True``):
    the value its attribute holds once the patch ran; else ``(False, None)``."""
    text = entry.get("value")
    if text is None:
        return False, None
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def check_entry(entry: Json, plugin: str) -> tuple[Json, tuple[object, list[object]] | None]:
    out: Json = {"target": entry["target"], "line": entry["line"], "file": entry["file"]}
    try:
        _owner, live = _lookup(entry["target"])
    except Exception as exc:
        out.update(status="missing", detail=f"{type(exc).__name__}: {exc}")
        out["trace"] = traceback.format_exc()
        return out, None
    if entry.get("key") is not None:
        try:
            key = eval(entry["key"], {})
        except Exception:  # a name or f-string of the plugin's code: computed at run time
            out.update(
                status="error",
                detail=f"key {entry['key']} is computed at run time: not checked, look by hand",
            )
            return out, None
        try:
            present = key in live if _get(live, "__contains__") is not None else False
        except Exception as exc:  # a placeholder, or a registry that cannot be searched
            out.update(status="error", detail=f"registry: {type(exc).__name__}: {exc}")
            return out, None
        out.update(
            status="registered" if present else "not-registered",
            detail=f"key {entry['key']} {'in' if present else 'not in'} the registry",
        )
        return out, None
    chain = _unwrap(live)
    if entry["replacement"].count(":") == 1 and "<" not in entry["replacement"]:
        try:
            expected = _replacement(entry["replacement"])
        except Exception as exc:
            out.update(status="error", detail=f"replacement: {type(exc).__name__}: {exc}")
            return out, None
        hit = any(_is(a, b) for a in chain for b in expected)
        made = any(isinstance(b, types.CodeType) for b in expected)
        # a function made inside another carries the names functools.wraps copied onto it
        # (upstream's): it is named by the plugin's code it was made from
        named = f"{_get(live, '__module__', '?')}.{_get(live, '__qualname__', type(live).__name__)}"
        out.update(
            status="replaced" if hit else "original",
            detail=f"live {entry['replacement']}, made when the function around it ran"
            if hit and made
            else f"live {named}",
        )
        return out, (live, chain)
    known, value = _literal(entry)
    if known:
        same = type(live) is type(value) and live == value
        out.update(
            status="replaced" if same else "original",
            detail=f"live value {live!r:.80}"
            + ("" if same else f"; the plugin sets {value!r:.80}"),
        )
        return out, (live, chain)
    modules = {_get(x, "__module__", "") or "" for x in chain} - {""}
    if not modules:  # a plain value (a number, a string, None): it names no module
        out.update(
            status="error",
            detail=f"live value {live!r:.80}: no module tells whether the plugin set it; "
            "not checked, look by hand",
        )
        return out, None
    mine = any(m == plugin or m.startswith(plugin + ".") for m in modules)
    out.update(
        status="replaced" if mine else "original",
        detail=f"live object from {', '.join(sorted(modules))}",
    )
    return out, (live, chain)


def stale(
    entries: list[Json], lives: dict[str, tuple[object, list[object]]], packages: list[str]
) -> list[Json]:
    found: list[Json] = []
    for entry in entries:
        pair = lives.get(entry["target"])
        parent, _, name = entry["target"].rpartition(".")
        if pair is None or parent not in sys.modules:
            continue
        live, chain = pair
        for module_name, module in list(sys.modules.items()):
            if module_name == parent or module_name.split(".")[0] not in packages:
                continue
            try:
                names = list(vars(module).items())
            except TypeError:  # a placeholder object in sys.modules: no namespace
                continue
            for local, value in names:
                if value is live or any(value is c for c in chain):
                    continue
                if _get(value, "__name__") == name and _get(value, "__module__") == parent:
                    found.append(
                        {"target": entry["target"], "importer": module_name, "local": local}
                    )
    return found


def unimportable(names: list[str]) -> list[str]:
    """The names among ``names`` that no finder of this interpreter finds (not installed
    here, or not on its path); nothing is imported."""
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name)
    return missing


def broken(names: list[str]) -> list[Json]:
    """The upstream packages among ``names`` that are found but whose import raises
    ``ImportError`` (a dependency such as ``torch`` missing): each with the error, the module
    it names (``""`` when none) and the file and line it was raised at. They are imported
    here, before the plugin, as the upstream is imported before it loads its plugins."""
    out: list[Json] = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            frames = traceback.extract_tb(exc.__traceback__)
            out.append(
                {
                    "name": name,
                    "error": f"{type(exc).__name__}: {exc}",
                    "module": getattr(exc, "name", "") or "",
                    "file": frames[-1].filename if frames else "",
                    "line": frames[-1].lineno if frames else 0,
                }
            )
    return out


def missing_dependency(exc: ImportError, own: list[str]) -> Json:
    """The module ``exc`` names when it is a third-party one that no finder of this
    interpreter finds (a dependency of the plugin not installed here), with the file and line
    the import was raised at; ``{}`` when it names none, names one of ``own`` (the plugin's
    and the upstream's packages: an error of their code or a name the upstream dropped, which
    is a finding of the check) or the module is there (it failed for another reason)."""
    top = (getattr(exc, "name", "") or "").split(".")[0]
    if not top or top in own:
        return {}
    try:
        if importlib.util.find_spec(top) is not None:
            return {}
    except (ImportError, ValueError):
        pass
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    return {
        "missing": top,
        "file": frames[-1].filename if frames else "",
        "line": frames[-1].lineno if frames else 0,
    }


def main() -> None:
    request: Json = json.loads(sys.stdin.read())
    plugin, packages = request["package"], request["upstream_packages"]
    answer = {"python": sys.executable, "version": sys.version.split()[0]}
    missing = unimportable([plugin, *packages])
    if missing:
        print("PATCHKEEPER-PROBE " + json.dumps({**answer, "unimportable": missing}))
        return
    failing = broken(packages)
    if failing:
        print("PATCHKEEPER-PROBE " + json.dumps({**answer, "broken": failing}))
        return
    result: Json = {
        "python": sys.executable,
        "version": sys.version.split()[0],
        "activation": [],
        "entries": [],
        "stale": [],
        "errors": [],
    }
    for group in request["groups"]:
        for ep in importlib.metadata.entry_points(group=group):
            if ep.value.split(":")[0].split(".")[0] != plugin:
                continue
            record: Json = {"group": group, "name": ep.name, "value": ep.value}
            try:
                returned = ep.load()()
                if isinstance(returned, str) and "." in returned:
                    module, _, attr = returned.rpartition(".")
                    getattr(importlib.import_module(module), attr)
                record["status"] = "ok"
            except ImportError as exc:
                record.update(
                    status="import-error",
                    module=getattr(exc, "name", "") or "",
                    detail=str(exc),
                    trace=traceback.format_exc(),
                    error=f"{type(exc).__name__}: {exc}",
                    **missing_dependency(exc, [plugin, *packages]),
                )
            except Exception as exc:
                record.update(
                    status="error",
                    detail=f"{type(exc).__name__}: {exc}",
                    trace=traceback.format_exc(),
                )
            result["activation"].append(record)
    lives: dict[str, tuple[object, list[object]]] = {}
    for entry in request["entries"]:
        out, pair = check_entry(entry, plugin)
        result["entries"].append(out)
        if pair is not None and out["status"] == "replaced":
            lives[entry["target"]] = pair
    result["stale"] = stale(request["entries"], lives, packages)
    files: dict[str, str | None] = {}
    for name in (plugin, *packages):
        loaded = sys.modules.get(name)
        files[name] = _get(loaded, "__file__") if loaded is not None else None
    result["files"] = files
    result["extensions"] = sorted(
        f"{n}: {_get(m, '__file__', '')}"
        for n, m in list(sys.modules.items())
        if str(_get(m, "__file__", "") or "").endswith((".so", ".pyd"))
        and n.split(".")[0] in (plugin, *packages)
    )
    print("PATCHKEEPER-PROBE " + json.dumps(result))


if __name__ == "__main__":
    main()
