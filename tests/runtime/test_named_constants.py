"""Patch statements whose name is a constant rather than a literal, found on real plugins:
vllm-hi 0.1.0 sets seven methods with ``setattr(EngineCore, RPC_NAME, fn)``, ``RPC_NAME``
imported from ``vllm_hi.common.rpc``; vllm-ascend's ``patch_structured_output.py`` stores the
original with ``setattr(SamplingParams, _ORIGINAL_VALIDATE_ATTR, ...)``, a constant of the
same file; vllm-ascend 0.24.0rc1's ``hunyuan_vl_processor_compat.py`` redirects
``sys.modules[module_name]`` with a loop variable as the key.

Each plugin here is written by the test in the shape of the real one; the upstream is the
``tinyup`` fixture (1.0 and 2.0) of ``tests/runtime/fixtures``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin

from patchkeeper.runtime.inventory.module_constants import (
    function_constants,
    module_constants,
)

#: vllm-hi's ``common/rpc.py``: the names of the methods the plugin adds, outside the
#: patch directory.
RPC = '''"""RPC names."""

RPC_GET_STATE = "_plug_get_state"
RPC_SET_STATE = "_plug_set_state"
RPC_RENAMED = "_plug_first"
RPC_RENAMED = "_plug_second"


def rpc_name(suffix):
    return "_plug_" + suffix
'''

#: A package ``__init__`` that re-exports one of them, as ``vllm_hi.common`` could.
COMMON_INIT = "from plug.common.rpc import RPC_SET_STATE  # noqa: F401\n"

#: vllm-hi's ``patches/__init__.py:patch_engine_internals`` and vllm-ascend's
#: ``patch_structured_output.py``, on tinyup.
ENGINE = (
    HEADER
    + """
_ORIGINAL_SCHEDULE_ATTR = "_plug_original_schedule"
_MARKER = "_plug_marker"


def get_state(self):
    return {}


def set_state(self, state):
    return None


def patch_engine_internals():
    from tinyup.scheduler import Scheduler

    from plug.common import RPC_SET_STATE
    from plug.common.rpc import RPC_GET_STATE, RPC_RENAMED, rpc_name

    setattr(Scheduler, RPC_GET_STATE, get_state)
    setattr(Scheduler, RPC_SET_STATE, set_state)
    setattr(Scheduler, _ORIGINAL_SCHEDULE_ATTR, Scheduler.schedule)
    setattr(Scheduler, RPC_RENAMED, get_state)
    setattr(Scheduler, rpc_name("x"), get_state)


def mark(_MARKER):
    from tinyup.scheduler import Scheduler

    setattr(Scheduler, _MARKER, True)


def apply():
    patch_engine_internals()
    mark("_plug_other")


apply()
"""
)

#: vllm-ascend 0.24.0rc1's ``hunyuan_vl_processor_compat.py``: modules put in
#: ``sys.modules`` under a loop variable; beside them, keys that are constants.
MODULES = (
    HEADER
    + """import sys
from types import ModuleType

from plug.common.rpc import RPC_GET_STATE

_ALIAS = "tinyup.legacy_sampler"


def install_aliases():
    import tinyup.sampler as sampler

    sys.modules[_ALIAS] = sampler
    sys.modules[RPC_GET_STATE] = sampler
    aliases = {"tinyup.compat_sampler": sampler}
    for module_name, module in aliases.items():
        sys.modules[module_name] = module
    sys.modules[f"tinyup.{_ALIAS}_copy"] = ModuleType("copy")


install_aliases()


def vllm_version_is(version):
    import tinyup

    return tinyup.__version__ == version


if vllm_version_is("1.0"):
    for legacy_name in ("tinyup.compat_engine",):
        sys.modules[legacy_name] = ModuleType(legacy_name)
"""
)


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path`` and a private cache."""
    return copy_releases(tmp_path, monkeypatch)


def _files() -> dict[str, str]:
    return {
        "plug/common/__init__.py": COMMON_INIT,
        "plug/common/rpc.py": RPC,
        "plug/patch/p_engine.py": ENGINE,
        "plug/patch/p_modules.py": MODULES,
    }


def _rows(entries: list[dict]) -> list[tuple]:
    return [
        (e["file"].rsplit("/", 1)[-1], e["line"], e["mechanism"], e["target"], e["key"])
        for e in entries
    ]


def test_module_constants_are_strings_bound_once_at_module_level() -> None:
    source = (
        'A = "a"\nB: str = "b"\nC = "c"\nC = "c2"\nD = 1\nE = "e"\nfor E in []:\n    pass\n'
        'F = "f"\nimport os as F\nG = "g"\n\n\ndef f():\n    global G\n    G = "h"\n'
        'H = "h"\n\n\ndef g():\n    H = "local"\n    return H\n'
        'class K:\n    A = "class attribute"\n'
    )
    tree = ast.parse(source)
    assert module_constants(tree, source.encode()) == {"A": "a", "B": "b", "H": "h"}


def test_inventory_names_the_attribute_a_constant_holds(upstream: Path, cli) -> None:
    root = write_plugin(upstream, _files())
    run = cli("runtime", "inventory", "--json", cwd=root)
    entries = json.loads(run.out)["entries"]
    assert _rows(entries) == [
        # the constant imported from plug.common.rpc (outside the patch directory)
        ("p_engine.py", 23, "setattr", "tinyup.scheduler.Scheduler._plug_get_state", None),
        # through the package that re-exports it
        ("p_engine.py", 24, "setattr", "tinyup.scheduler.Scheduler._plug_set_state", None),
        # a constant of the same file
        ("p_engine.py", 25, "setattr", "tinyup.scheduler.Scheduler._plug_original_schedule", None),
        # _MARKER in mark() is its parameter, not the module constant of that name: the
        # literal its one call passes names the attribute
        ("p_engine.py", 33, "setattr", "tinyup.scheduler.Scheduler._plug_other", None),
        # RPC_RENAMED is assigned twice and rpc_name("x") is a call: neither names one
        # constant, so no entry (each is a setattr-name finding)
        ("p_modules.py", 15, "sys-modules", "tinyup.legacy_sampler", None),
        ("p_modules.py", 16, "sys-modules", "_plug_get_state", None),
        ("p_modules.py", 19, "sys-modules", "sys.modules", "module_name"),
        ("p_modules.py", 20, "sys-modules", "sys.modules", "f'tinyup.{_ALIAS}_copy'"),
        ("p_modules.py", 34, "sys-modules", "sys.modules", "legacy_name"),
    ]
    first = entries[0]
    assert first["replacement"] == "plug.patch.p_engine:get_state"
    assert first["module_hint"] == "tinyup.scheduler"
    assert first["scope"] == "patch_engine_internals"
    assert first["activation"]["status"] == "active"
    assert entries[3]["scope"] == "mark"
    assert entries[4]["module_hint"] == "tinyup.legacy_sampler"
    assert entries[6]["module_hint"] == ""
    text = cli("runtime", "inventory", cwd=root).out.splitlines()
    assert "plug/patch/p_modules.py:19  sys-modules sys.modules[module_name]  <- <expr>" in text


#: vllm-ascend-split-batch 0.1.3's ``cascade_plugin.py``: stub modules put in
#: ``sys.modules`` under a name the function binds once to a literal
#: (``mod_name = "vllm_ascend.spec_decode"``); beside them, names that are no constant of
#: the function: a parameter, a name bound twice, a module constant the function hides.
STUBS = (
    HEADER
    + """import sys
import types

_ALIAS = "tinyup.module_alias"


def install_policy_stub():
    mod_name = "tinyup.compat_policy"
    stub = types.ModuleType(mod_name)
    sys.modules[mod_name] = stub


def install_named(mod_name):
    sys.modules[mod_name] = types.ModuleType(mod_name)


def install_either(flag):
    mod_name = "tinyup.first"
    if flag:
        mod_name = "tinyup.second"
    sys.modules[mod_name] = types.ModuleType(mod_name)


def install_hidden():
    _ALIAS = "tinyup.local_alias"
    sys.modules[_ALIAS] = types.ModuleType(_ALIAS)


def mark_scheduler():
    from tinyup.scheduler import Scheduler

    if True:
        attribute = "_plug_local_mark"
    setattr(Scheduler, attribute, True)


install_policy_stub()
install_named("tinyup.named")
install_either(False)
install_hidden()
mark_scheduler()
"""
)


def test_a_name_a_function_binds_once_to_a_literal_names_the_module(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_stubs.py": STUBS})
    run = cli("runtime", "inventory", "--json", cwd=root)
    assert _rows(json.loads(run.out)["entries"]) == [
        # mod_name = "tinyup.compat_policy" in the function: the module is named
        ("p_stubs.py", 13, "sys-modules", "tinyup.compat_policy", None),
        # a parameter stays computed
        ("p_stubs.py", 17, "sys-modules", "sys.modules", "mod_name"),
        # bound twice: computed
        ("p_stubs.py", 24, "sys-modules", "sys.modules", "mod_name"),
        # the function's own _ALIAS hides the module's
        ("p_stubs.py", 29, "sys-modules", "tinyup.local_alias", None),
        # a literal bound under an if of the function's own scope
        ("p_stubs.py", 37, "setattr", "tinyup.scheduler.Scheduler._plug_local_mark", None),
    ]


def test_function_constants_are_strings_the_function_binds_once() -> None:
    source = (
        "def f(p, *rest, **named):\n"
        '    a = "a"\n'
        '    b: str = "b"\n'
        '    c = "c"\n'
        "    for c in []:\n"
        "        pass\n"
        '    p = "p"\n'
        "    try:\n"
        '        d = "d"\n'
        "    except ValueError as e:\n"
        '        e2 = "e2"\n'
        "    global g\n"
        '    g = "g"\n'
        "    n = 1\n"
        "    def inner():\n"
        '        i = "i"\n'
        '    rest = "r"\n'
    )
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert function_constants(function) == {"a": "a", "b": "b", "d": "d", "e2": "e2"}


def test_audit_says_a_computed_key_is_computed(upstream: Path, cli) -> None:
    root = write_plugin(upstream, _files())
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    audited = {
        (a["entry"]["line"], a["entry"]["target"], a["entry"]["key"]): a["drift"]
        for a in json.loads(run.out)["entries"]
        if a["entry"]["file"].endswith("p_modules.py")
    }
    computed = audited[(19, "sys.modules", "module_name")]
    # Not "not part of the upstream being upgraded" (the variable's name is no module), nor
    # kept: the module it replaces may be upstream's.
    assert computed["decision"] == "look"
    assert computed["evidence"] == [
        "sys.modules[module_name] (plug/patch/p_modules.py:19): the key is computed at run "
        "time, so which module it replaces is not known statically; look at the code by hand"
    ]
    fstring = audited[(20, "sys.modules", "f'tinyup.{_ALIAS}_copy'")]
    assert fstring["decision"] == "look"
    assert fstring["evidence"] == [
        "sys.modules[f'tinyup.{_ALIAS}_copy'] (plug/patch/p_modules.py:20): the key is "
        "computed at run time, so which module it replaces is not known statically; look at "
        "the code by hand"
    ]
    # A removal the judge decided for another reason stands, with the same evidence.
    assert audited[(34, "sys.modules", "legacy_name")]["evidence"] == [
        "its version gate is false at 2.0 (plug/patch/p_modules.py:32: "
        "vllm_version_is('1.0')): dead code there",
        "sys.modules[legacy_name] (plug/patch/p_modules.py:34): the key is computed at run "
        "time, so which module it replaces is not known statically; look at the code by hand",
    ]
    assert audited[(34, "sys.modules", "legacy_name")]["decision"] == "remove"
    # A constant key names its module, looked up as any other.
    assert audited[(15, "tinyup.legacy_sampler", None)]["evidence"] == [
        "tinyup.legacy_sampler is in neither release: a typo or a future name",
        "tinyup.legacy_sampler is not at that path in either release; no definition of the "
        "name anywhere in the new upstream",
    ]
    assert audited[(16, "_plug_get_state", None)]["evidence"] == [
        "_plug_get_state is not part of the upstream being upgraded: this upgrade does not "
        "change it"
    ]


def test_audit_of_attributes_named_by_constants(upstream: Path, cli) -> None:
    root = write_plugin(upstream, _files())
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    drifts = [
        (a["entry"]["target"], a["drift"]["decision"], a["drift"]["evidence"])
        for a in json.loads(run.out)["entries"]
        if a["entry"]["file"].endswith("p_engine.py")
    ]
    assert drifts == [
        (
            f"tinyup.scheduler.Scheduler.{name}",
            "retain",
            [
                f"{name} is not defined by upstream under tinyup.scheduler.Scheduler in the new "
                "version: an attribute the plugin adds or a generated one; nothing upstream to "
                "compare"
            ],
        )
        for name in ("_plug_get_state", "_plug_set_state", "_plug_original_schedule", "_plug_other")
    ]


LEDGER = (
    HEADER
    + """# ** File: p_engine.py **
#   1. `tinyup.scheduler.Scheduler._plug_get_state`
#   2. `tinyup.scheduler.Scheduler._plug_set_state`
#   3. `tinyup.scheduler.Scheduler._plug_original_schedule`
# ** File: p_modules.py **
#   1. `tinyup.legacy_sampler`
#   2. `tinyup.compat_engine`
def apply():
    from plug.patch import p_engine, p_modules  # noqa: F401
"""
)


def test_ledger_neither_wants_nor_misses_a_computed_key(upstream: Path, cli) -> None:
    # The ledger names modules; a key computed at run time cannot be written there, so it
    # is not reported as undocumented (it was: "module_name is patched but not documented").
    root = write_plugin(upstream, _files())
    (root / "plug" / "patch" / "__init__.py").write_text(LEDGER)
    run = cli("runtime", "inventory", "--json", cwd=root)
    findings = [(f["code"], f["message"]) for f in json.loads(run.out)["findings"]]
    assert findings == [
        # No statement names it: the finding stays (the computed key might be it, or not).
        (
            "ledger-missing-code",
            "documented target tinyup.compat_engine is not patched by p_modules.py",
        ),
        # a name bound twice in the module it is imported from and a call name no
        # attribute: said, since no entry lists them
        (
            "setattr-name",
            "setattr on tinyup.scheduler.Scheduler takes its attribute name from "
            "plug.common.rpc.RPC_RENAMED, which plug/common/rpc.py does not bind once to a "
            "string literal at its top level: that patch is not listed, audited or locked",
        ),
        (
            "setattr-name",
            "setattr on tinyup.scheduler.Scheduler with an attribute name this reader cannot "
            "tell (rpc_name('x')): that patch is not listed; name the attribute with a string "
            "literal or a module constant",
        ),
        (
            "ledger-undocumented",
            "tinyup.scheduler.Scheduler._plug_other is patched but not documented under "
            "p_engine.py",
        ),
        (
            "ledger-undocumented",
            "_plug_get_state is patched but not documented under p_modules.py",
        ),
    ]


def test_live_probe_does_not_evaluate_a_computed_key() -> None:
    # The probe evaluated every key as a literal: a computed key (a name of the plugin's
    # code) raised NameError in the audited interpreter and `runtime check` printed nothing.
    from patchkeeper.runtime.live.probe import check_entry

    entry = {
        "file": "plug/patch/p_modules.py",
        "line": 19,
        "target": "sys.modules",
        "key": "module_name",
        "replacement": "<expr>",
    }
    assert check_entry(entry, "plug") == (
        {
            "target": "sys.modules",
            "line": 19,
            "file": "plug/patch/p_modules.py",
            "status": "error",
            "detail": "key module_name is computed at run time: not checked, look by hand",
        },
        None,
    )
    literal = {**entry, "key": "'sys'"}
    assert check_entry(literal, "plug")[0]["status"] == "registered"


def test_file_facts_keep_constants_and_named_entries_through_the_cache_record() -> None:
    from patchkeeper.runtime.inventory.file_facts import ScanSettings, from_record, to_record
    from patchkeeper.runtime.inventory.scan import scan_source

    settings = ScanSettings("plug", patch_package="plug.patch")
    facts = scan_source(
        MODULES.encode(), "plug.patch.p_modules", "plug/patch/p_modules.py", False, settings
    )
    assert facts.constants == {"_ALIAS": "tinyup.legacy_sampler"}
    # The key imported from plug.common.rpc waits for the inventory, in the computed-key form.
    assert [(e.line, e.target, e.key, path) for e, _conds, path in facts.named] == [
        (16, "sys.modules", "RPC_GET_STATE", "plug.common.rpc.RPC_GET_STATE")
    ]
    assert from_record(to_record(facts)) == facts


def test_lock_names_the_setattr_it_cannot_guard(upstream: Path, cli) -> None:
    # the guard watches fewer targets than the plugin patches: the lock says which are left
    root = write_plugin(upstream, _files())
    run = cli("runtime", "lock", "--at", str(upstream / "upstream-1.0"), cwd=root)
    assert (run.code, [line for line in run.out.splitlines() if "a setattr whose" in line]) == (
        1,  # tinyup.legacy_sampler is unguarded
        [
            # RPC_RENAMED, bound twice in plug/common/rpc.py, and rpc_name("x"), a call
            "  plug/patch/p_engine.py:26: a setattr whose attribute name cannot be told statically",
            "  plug/patch/p_engine.py:27: a setattr whose attribute name cannot be told statically",
        ],
    )


#: vllm-hi's ``patch_engine_internals`` alone: the attribute named by a constant of
#: ``plug/common/rpc.py``, outside the patch directory.
ONE_SETATTR = (
    HEADER
    + """

def get_state(self):
    return {}


def patch_engine_internals():
    from tinyup.scheduler import Scheduler

    from plug.common.rpc import RPC_GET_STATE

    setattr(Scheduler, RPC_GET_STATE, get_state)


patch_engine_internals()
"""
)


@pytest.mark.parametrize(
    ("rpc", "said"),
    [
        (b'RPC_GET_STATE = "_plug_get_state"\nif\n', "line 2: invalid syntax"),
        # Python refuses to import it (the parser takes such a byte in a comment): said so
        (
            b'RPC_GET_STATE = "_plug_\xe9tat"\n',
            "line 1: not UTF-8 (byte 0xe9) and no coding line: save it as UTF-8, or declare "
            "its encoding on its first line (# -*- coding: latin-1 -*-)",
        ),
        (None, "cannot be read (a symbolic link to {} that does not exist)"),
    ],
    ids=["syntax-error", "not-utf-8", "dangling-link"],
)
def test_a_setattr_whose_name_file_cannot_be_read_is_not_audited_and_said(
    upstream: Path, cli, rpc: bytes | None, said: str | None
) -> None:
    # the constant's file does not parse: what the setattr patches is unknown, so the audit
    # has no entry for it; it names the statement as a finding and exits 1, as it does for
    # a patch file it cannot read
    files: dict[str, str | bytes] = {
        "plug/common/__init__.py": "",
        "plug/patch/p_engine.py": ONE_SETATTR,
    }
    if rpc is None:  # a symbolic link to a file that is gone
        root = write_plugin(upstream, files)
        (root / "plug/common/rpc.py").symlink_to(upstream / "gone")
        why = f"plug/common/rpc.py {(said or '').format(upstream / 'gone')}"
    else:
        root = write_plugin(upstream, {**files, "plug/common/rpc.py": rpc})
        why = f"plug/common/rpc.py is not valid Python ({said})"
    message = (
        "setattr on tinyup.scheduler.Scheduler takes its attribute name from "
        f"plug.common.rpc.RPC_GET_STATE, and {why}: that patch is not listed, audited or locked"
    )
    hint = (
        "make plug/common/rpc.py a readable Python file (UTF-8, no syntax error) and run the "
        "command again"
    )
    run = cli("runtime", "audit", *versions(upstream), cwd=root)
    assert (run.code, run.err) == (1, "")
    assert run.out.splitlines()[1:3] == [
        "1 finding(s):",
        f"  plug/patch/p_engine.py:15: setattr-name: {message}: {hint}",
    ]
    run = cli("runtime", "audit", "--json", *versions(upstream), cwd=root)
    body = json.loads(run.out)
    assert (run.code, body["exit_code"], body["entries"], body["findings"]) == (
        1,
        1,
        [],
        [
            {
                "code": "setattr-name",
                "path": "plug/patch/p_engine.py",
                "line": 15,
                "message": message,
                "hint": hint,
            }
        ],
    )
    # the lock says it leaves the statement out
    run = cli("runtime", "lock", "--at", str(upstream / "upstream-2.0"), "--json", cwd=root)
    assert run.code == 0
    assert json.loads(run.out)["skipped"] == [
        ["plug/patch/p_engine.py:15", "a setattr whose attribute name cannot be told statically"]
    ]


@pytest.mark.parametrize(
    ("rpc", "why"),
    [
        # bound twice: which value the setattr uses depends on which binding runs last
        ('RPC_GET_STATE = "_plug_get_state"\nRPC_GET_STATE = "_plug_state"\n', "twice"),
        # bound once, but by an import of another library: no string the reader can see
        ("from os import sep as RPC_GET_STATE\n", "import"),
        # a function of the module, not a name at all
        ("def RPC_GET_STATE():\n    return None\n", "function"),
    ],
    ids=["twice", "import", "function"],
)
def test_a_setattr_whose_imported_name_is_no_constant_is_said(
    upstream: Path, cli, rpc: str, why: str
) -> None:
    # vllm-hi's shape: setattr(EngineCore, RPC_NAME, fn) with RPC_NAME imported from
    # another plugin module; there the name is no module constant, so the attribute the
    # setattr sets is unknown: no entry, and a finding at the setattr rather than silence
    root = write_plugin(
        upstream,
        {
            "plug/common/__init__.py": "",
            "plug/common/rpc.py": rpc,
            "plug/patch/p_engine.py": ONE_SETATTR,
        },
    )
    message = (
        "setattr on tinyup.scheduler.Scheduler takes its attribute name from "
        "plug.common.rpc.RPC_GET_STATE, which plug/common/rpc.py does not bind once to a "
        "string literal at its top level: that patch is not listed, audited or locked"
    )
    hint = (
        "bind RPC_GET_STATE once to a string literal at the top level of plug/common/rpc.py "
        "(or write the attribute's name in the setattr) and run the command again"
    )
    run = cli("runtime", "inventory", "--json", cwd=root)
    body = json.loads(run.out)
    assert body["entries"] == []
    assert [f for f in body["findings"] if f["code"] == "setattr-name"] == [
        {
            "code": "setattr-name",
            "path": "plug/patch/p_engine.py",
            "line": 15,
            "message": message,
            "hint": hint,
        }
    ]
    run = cli("runtime", "audit", *versions(upstream), cwd=root)
    assert (run.code, run.err) == (1, "")
    assert run.out.splitlines()[1:3] == [
        "1 finding(s):",
        f"  plug/patch/p_engine.py:15: setattr-name: {message}: {hint}",
    ]
    run = cli("runtime", "lock", "--at", str(upstream / "upstream-2.0"), "--json", cwd=root)
    assert run.code == 0
    assert json.loads(run.out)["skipped"] == [
        ["plug/patch/p_engine.py:15", "a setattr whose attribute name cannot be told statically"]
    ]
