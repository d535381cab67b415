"""``patchkeeper runtime check``: the live check, opt-in, in a fresh interpreter.

Imports are tried in a fresh process, as the upstream loads the plugin: the target must
import and its live attribute must be the replacement; the packages' ``__file__``, the
extension modules' paths and the plugin's origin are recorded. The static
inventory gives the entries; :mod:`patchkeeper.runtime.live.probe` runs in ``--python`` with a
timeout, proxies pointed at a closed local port (no network), and reports as JSON.

When the lookups of several entries fail with one and the same error (a platform runtime, a
vendor library, that fails to load whenever an upstream module is imported), that error is
the one finding: it is named once, whole, as the cause (:attr:`LiveCheck.cause`), and those
entries are *not checked*, not each *missing*.
"""

from __future__ import annotations

import ast
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchkeeper.errors import TargetError
from patchkeeper.jsonable import ABSENT_WHEN_NONE
from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
from patchkeeper.runtime.inventory.unparsed import describe, unparsed
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.settings import PluginLocation, located_settings
from patchkeeper.system.probes import (
    ProbeWords,
    answer_after,
    check_interpreter_given,
    probe_failed,
    run_probe,
)

MARKER = "PATCHKEEPER-PROBE "
GOOD = ("replaced", "registered")


@dataclass(frozen=True)
class LiveEntry:
    """One entry's live state: ``status`` is ``replaced``, ``original``, ``missing``,
    ``registered``, ``not-registered``, ``error`` or ``not-checked`` (its lookup failed with
    the error of :attr:`LiveCheck.cause`)."""

    file: str
    line: int
    target: str
    status: str
    detail: str


@dataclass(frozen=True)
class EntryPointActivation:
    """How one of the plugin's entry points loaded in the checked interpreter: it was loaded
    and called, as the upstream does, and a dotted name it returned was imported.

    Attributes:
        group: the entry point's group (``vllm.platform_plugins``).
        name: its name.
        value: what it points to (``module:function``).
        status: ``ok``, ``import-error`` (loading or calling it raised ``ImportError``) or
            ``error`` (it raised another exception).
        module: the module an ``import-error`` names (``""`` when the error names none);
            ``None``, and absent from the JSON, for the other statuses.
        detail: the error's message (``error``: prefixed with its type); ``None``, and
            absent from the JSON, when ``ok``.
        trace: the error's whole traceback; ``None``, and absent from the JSON, when ``ok``.
    """

    group: str
    name: str
    value: str
    status: str
    module: str | None = field(default=None, metadata=ABSENT_WHEN_NONE)
    detail: str | None = field(default=None, metadata=ABSENT_WHEN_NONE)
    trace: str | None = field(default=None, metadata=ABSENT_WHEN_NONE)

    @property
    def loaded(self) -> bool:
        """Whether the entry point loaded and ran without an error (``status`` ``ok``)."""
        return self.status == "ok"


@dataclass(frozen=True)
class StaleLiveBinding:
    """A name in a plugin or upstream module still bound to the original of a replaced
    target, seen live: calls through ``importer.local`` miss the patch.

    Attributes:
        target: the replaced target (``tinyup.engine.step``).
        importer: the module holding the stale name.
        local: the name there.
    """

    target: str
    importer: str
    local: str


@dataclass(frozen=True)
class LiveCheck:
    """The result of ``runtime check``: the interpreter, the activation of each entry point,
    each entry, stale bindings seen live, the file of each upstream and plugin package
    (``package_files``: ``{package: file or None}``, a mapping, so not ``files``, which is a
    list in every ``--json``) and their extension modules."""

    python: str
    version: str
    activation: tuple[EntryPointActivation, ...]
    entries: tuple[LiveEntry, ...]
    stale: tuple[StaleLiveBinding, ...]
    package_files: dict[str, str | None]
    extensions: tuple[str, ...]
    unread: tuple[str, ...] = ()
    other_copy: tuple[str, ...] = ()
    #: The one error every lookup of the ``not-checked`` entries failed with, whole (its
    #: traceback included); ``""`` when none.
    cause: str = ""

    @property
    def exit_code(self) -> int:
        """1 when an entry point failed, an entry is not live, a stale binding exists, a
        patch file could not be read (``unread``: ``FILE:LINE: not valid Python (...)``; its
        entries were not checked) or the interpreter imports another copy of the plugin
        whose patch files differ from the ones the entries come from (``other_copy``)."""
        bad = not all(a.loaded for a in self.activation)
        bad = bad or any(e.status not in GOOD for e in self.entries) or bool(self.stale)
        bad = bad or bool(self.unread) or bool(self.other_copy) or bool(self.cause)
        return 1 if bad else 0


def common_cause(entries: list[dict[str, Any]]) -> str:
    """The error (``detail`` and whole ``trace``) that at least two missing entries of the
    probe's answer share, the most frequent one; ``""`` when none does. A lookup that fails
    for the entry's own reason (the name is not there) differs from entry to entry; one
    failure shared by many is the environment's (a runtime library that does not load)."""
    counts: dict[str, int] = {}
    for entry in entries:
        if entry["status"] == "missing":
            counts[entry["detail"]] = counts.get(entry["detail"], 0) + 1
    shared = [(n, d) for d, n in counts.items() if n >= 2]
    if not shared:
        return ""
    detail = max(shared)[1]
    trace = next((e.get("trace", "") for e in entries if e["detail"] == detail), "")
    return f"{detail}\n{trace}".rstrip() if trace else detail


def other_copy(root: Path, package: str, patch_directory: str, imported: str | None) -> list[str]:
    """The patch files (paths relative to the plugin ``root``) in which the copy of
    ``package`` the interpreter imports (``imported``: its ``__init__.py``, from the probe)
    differs from the plugin directory the entries were read from: changed or missing there,
    or only there. Empty when it imports that directory itself (an editable install), when
    the file is unknown, or when the patch directory is not inside the package.
    """
    if not imported:
        return []
    mine = root / package.replace(".", "/")
    theirs = Path(imported).parent
    patches = root / patch_directory
    try:
        if theirs.resolve() == mine.resolve() or not patches.is_relative_to(mine):
            return []
    except OSError:
        return []
    inside = patches.relative_to(mine)
    names = {p.relative_to(patches) for p in patches.rglob("*.py")}
    if (theirs / inside).is_dir():
        names |= {p.relative_to(theirs / inside) for p in (theirs / inside).rglob("*.py")}
    out = []
    for name in sorted(names):
        try:
            ours = (patches / name).read_bytes() if (patches / name).is_file() else None
            installed = (theirs / inside / name).read_bytes()
        except OSError:
            installed = None
        if ours != installed:
            out.append((Path(patch_directory) / name).as_posix())
    return out


#: How the live check words an interpreter that does not run or answer.
_LIVE_WORDS = ProbeWords(
    missing="no such interpreter",
    run_hint="give --python the interpreter of the audited environment",
    too_slow="the live check took more than {timeout:g} s",
    too_slow_hint="raise --timeout, or look for a blocking import",
)


def _unimportable(python: Path, names: list[str], version: str) -> TargetError:
    """The error of an interpreter whose environment cannot import the plugin or upstream:
    every entry would be "missing", which says nothing about the patches."""
    listed = " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + ", and " + names[-1]
    return TargetError(
        f"{listed} cannot be imported by this interpreter (Python {version}): not installed in "
        "its environment, or not on its path",
        path=python,
        hint=f"install {'it' if len(names) == 1 else 'them'} in that environment ({python} -m "
        f"pip install ...), or give --python the interpreter of the environment where {listed} "
        f"{'is' if len(names) == 1 else 'are'} installed",
    )


def _import_fails(python: Path, broken: list[dict[str, Any]], version: str) -> TargetError:
    """The error of an interpreter that finds an upstream package but whose import of it
    raises ``ImportError`` (a dependency of it not installed there): no patch can be live, so
    an entry point that ran or no entry checked says nothing."""
    first = broken[0]
    name, module = first["name"], first["module"]
    where = f" (raised at {first['file']}:{first['line']})" if first["file"] else ""
    if module and module.split(".")[0] != name:
        fix = f"install {module.split('.')[0]} in that environment ({python} -m pip install ...)"
    else:
        fix = f"make `{python} -c 'import {name}'` work in that environment"
    return TargetError(
        f"{name} is found but cannot be imported by this interpreter (Python {version}): "
        f"{first['error']}{where}",
        path=python,
        hint=f"{fix}, or give --python the interpreter of an environment where {name} imports",
    )


def _dependency_missing(
    python: Path, plugin: str, lacking: list[dict[str, Any]], version: str
) -> TargetError:
    """The error of an interpreter where an entry point of the plugin raises ``ImportError``
    for a third-party module that is not installed there (``lacking``: the probe's records
    of those entry points): the plugin cannot be imported, so no patch can be live, as when
    the upstream cannot be. An ``ImportError`` of the plugin's own modules or of an upstream
    name is not one: it stays the entry point's ``import-error``, a finding."""
    first = lacking[0]
    modules = list(dict.fromkeys(a["missing"] for a in lacking))
    listed = " and ".join(modules) if len(modules) < 3 else ", ".join(modules)
    where = f" (raised at {first['file']}:{first['line']})" if first["file"] else ""
    return TargetError(
        f"{plugin} cannot be imported by this interpreter (Python {version}): its entry point "
        f"{first['group']}:{first['name']} = {first['value']} raises {first['error']}{where}",
        path=python,
        hint=f"install {listed} in that environment ({python} -m pip install ...), or give "
        f"--python the interpreter of an environment where {plugin}'s dependencies are "
        "installed",
    )


@dataclass(frozen=True, kw_only=True)
class LiveCheckRequest(PluginLocation):
    """What ``runtime check`` is asked to do; each field is the option of the same parameter
    name, so the command builds it from click's parsed parameters and the evidence is read
    back from it; the plugin's location as
    :class:`~patchkeeper.runtime.settings.PluginLocation` says.

    Attributes:
        python: the interpreter of the environment where the plugin and upstream are
            installed (``--python``).
        timeout: seconds before the check gives up (``--timeout``); default 120.
    """

    python: Path
    timeout: float = 120.0


def literal_values(root: Path, entries: Iterable[PatchEntry]) -> dict[tuple[str, int], str]:
    """Per ``(file, line)`` of an entry that puts an expression in its target, the source
    of that expression when it is a literal (``EngineArgs._patched = True``, ``setattr(m,
    "flag", 1)``): the value the live attribute holds once the patch ran, which no module
    of the value's own can tell (a module's or a class's name can for other objects).

    >>> import tempfile
    >>> from dataclasses import replace
    >>> from patchkeeper.runtime.model import Mechanism
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / "p.py").write_text("import m\\nm.A._done = True\\nm.B.f = m.g\\n")
    >>> entry = PatchEntry("p.py", 2, "p", "<module>", "m.A._done", Mechanism.ASSIGNMENT)
    >>> literal_values(root, [entry, replace(entry, line=3, target="m.B.f")])
    {('p.py', 2): 'True'}
    """
    wanted: dict[str, set[int]] = {}
    for entry in entries:
        if entry.replacement == "<expr>" and entry.key is None:
            wanted.setdefault(entry.file, set()).add(entry.line)
    found: dict[tuple[str, int], str] = {}
    for file, lines in wanted.items():
        try:
            tree = ast.parse((root / file).read_bytes())
        except (OSError, SyntaxError, ValueError):
            continue  # an unreadable patch file is reported as such (``unread``)
        for node in ast.walk(tree):
            line = getattr(node, "lineno", None)
            if line not in lines:
                continue
            value = _assigned(node)
            if value is None:
                continue
            try:
                ast.literal_eval(value)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            found.setdefault((file, line), ast.unparse(value))
    return found


def _assigned(node: ast.AST) -> ast.expr | None:
    """The value an assignment statement or a ``setattr(obj, name, value)`` call puts."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return node.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "setattr"
        and len(node.args) == 3
    ):
        return node.args[2]
    return None


def check_live(config: Any | None, request: LiveCheckRequest) -> LiveCheck:
    """Check the patches of the plugin ``request`` locates live in the environment of the
    interpreter ``request.python``, within ``request.timeout`` seconds.

    Raises:
        TargetError: the interpreter cannot be run, times out, prints no result, or cannot
            import the plugin or an upstream package (not found, or its import raises
            ``ImportError``; for the plugin, an entry point's ``ImportError`` of a third-party
            module that is not installed there).
    """
    python, timeout = request.python, request.timeout
    check_interpreter_given(python)  # named before the plugin, as a path typed wrong
    settings = located_settings(config, request)
    inventory = scan_plugin(settings).inventory
    active = [
        e
        for e in inventory.entries
        if e.activation is not None and e.activation.status.value == "active"
    ]
    values = literal_values(settings.root, active)
    asked = {
        "package": settings.package,
        "upstream_packages": list(settings.upstream_packages),
        "groups": list(settings.entry_point_groups),
        "entries": [
            {
                "file": e.file,
                "line": e.line,
                "target": e.target,
                "key": e.key,
                "replacement": e.replacement,
                "value": values.get((e.file, e.line)),
            }
            for e in active
        ],
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    closed = "http://127.0.0.1:9"
    env.update(
        PYTHONNOUSERSITE="1",
        HTTP_PROXY=closed,
        HTTPS_PROXY=closed,
        http_proxy=closed,
        https_proxy=closed,
        NO_PROXY="",
        PIP_NO_INDEX="1",
    )
    probe = Path(__file__).with_name("probe.py")
    done = run_probe(
        python,
        [str(probe)],
        _LIVE_WORDS,
        timeout=timeout,
        cwd=tempfile.gettempdir(),
        env=env,
        request=json.dumps(asked),
    )
    data = answer_after(done.stdout, MARKER)
    if data is None:
        raise probe_failed(done, python, "the probe printed no result", _LIVE_WORDS.run_hint)
    if data.get("unimportable"):
        raise _unimportable(python, data["unimportable"], data["version"])
    if data.get("broken"):
        raise _import_fails(python, data["broken"], data["version"])
    lacking = [a for a in data["activation"] if a.get("missing")]
    if lacking:
        raise _dependency_missing(python, settings.package, lacking, data["version"])
    cause = common_cause(data["entries"])
    first = cause.split("\n", 1)[0]

    def live(e: dict[str, Any]) -> LiveEntry:
        if cause and e["status"] == "missing" and e["detail"] == first:
            return LiveEntry(e["file"], e["line"], e["target"], "not-checked", e["detail"])
        return LiveEntry(e["file"], e["line"], e["target"], e["status"], e["detail"])

    return LiveCheck(
        python=data["python"],
        version=data["version"],
        activation=tuple(
            EntryPointActivation(
                a["group"],
                a["name"],
                a["value"],
                a["status"],
                a.get("module"),
                a.get("detail"),
                a.get("trace"),
            )
            for a in data["activation"]
        ),
        entries=tuple(live(e) for e in data["entries"]),
        cause=cause,
        stale=tuple(
            StaleLiveBinding(s["target"], s["importer"], s["local"]) for s in data["stale"]
        ),
        package_files=data["files"],
        extensions=tuple(data["extensions"]),
        unread=tuple(describe(f, settings.root) for f in unparsed(inventory)),
        other_copy=tuple(
            other_copy(
                settings.root,
                settings.package,
                settings.patch_directory,
                data["files"].get(settings.package),
            )
        ),
    )
