"""The parsed-tree and result caches follow the files; subclass swaps through plugin bases;
stale bindings under ``if TYPE_CHECKING:``; the name-index helpers on written text."""

from __future__ import annotations

import os
from pathlib import Path

from patchkeeper.config import load_config
from patchkeeper.runtime.inventory import runtime_inventory as inventory
from patchkeeper.runtime.inventory.file_facts import ScanSettings
from patchkeeper.runtime.inventory.scan import scan_source
from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.lookup import nameindex
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.store.cache import SummaryCache, cache_root
from patchkeeper.runtime.store.plugin_stores import parse_store


def _config(plugin: Path):
    return load_config(plugin / "pyproject.toml")


def _activation(result, file: str) -> list[str]:
    return [e.activation.status.value for e in result.entries if e.file.endswith(file)]


def test_edited_file_changes_the_next_inventory(runtime_trees: Path) -> None:
    plugin = runtime_trees / "plugin"
    first = inventory.take_inventory(_config(plugin))
    assert _activation(first, "fix_disabled.py") == ["never-imported"]
    stores = sorted(p.name for p in (cache_root() / "runtime").iterdir())
    assert stores and all(name.endswith(".marshal") for name in stores)
    init = plugin / "metaplug/patch/bugfix/__init__.py"
    init.write_text(
        init.read_text().replace(
            "# import metaplug.patch.bugfix.fix_disabled",
            "import metaplug.patch.bugfix.fix_disabled  # noqa: F401",
        )
    )
    second = inventory.take_inventory(_config(plugin))
    assert _activation(second, "fix_disabled.py") == ["active"]
    third = inventory.take_inventory(_config(plugin))  # from the result cache
    assert third == second


def test_unchanged_plugin_inventory_comes_from_the_cache_unchanged(runtime_trees: Path) -> None:
    plugin = runtime_trees / "plugin"
    first = inventory.take_inventory(_config(plugin))
    for path in (cache_root() / "runtime").iterdir():
        os.utime(path, (1, 1))  # the store is read, not rewritten, on a warm run
    second = inventory.take_inventory(_config(plugin))
    assert second == first
    assert all(p.stat().st_mtime == 1 for p in (cache_root() / "runtime").iterdir())


def test_subclass_swap_through_a_plugin_base_class(runtime_trees: Path) -> None:
    plugin = runtime_trees / "plugin"
    (plugin / "metaplug/bases.py").write_text(
        "from tinyup.scheduler import Scheduler\n\n\n"
        "class OurScheduler(Scheduler):\n    pass\n\n\n"
        "class Generic310(dict[str, int]):\n    pass\n"
    )
    (plugin / "metaplug/device.py").write_text(
        "from metaplug.bases import OurScheduler\n\n\nclass Scheduler310(OurScheduler):\n    pass\n"
    )
    (plugin / "metaplug/patch/enhancement/swap.py").write_text(
        "import tinyup.scheduler\n"
        "import tinyup.registry\n\n"
        "from metaplug.bases import Generic310\nfrom metaplug.device import Scheduler310\n\n"
        "tinyup.scheduler.Scheduler = Scheduler310\n"
        "tinyup.registry.Table = Generic310\n"
    )
    result = inventory.take_inventory(_config(plugin))
    swaps = [(e.line, e.mechanism.value, e.replacement) for e in result.entries if "swap" in e.file]
    assert swaps == [
        (7, "subclass", "metaplug.device:Scheduler310"),
        (8, "assignment", "metaplug.bases:Generic310"),
    ]


def test_imports_under_type_checking_are_not_stale(runtime_trees: Path) -> None:
    engine = runtime_trees / "upstream-2.0/tinyup/engine.py"
    text = engine.read_text()
    engine.write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from tinyup.sampler import sample as typed_sample\n"
        "try:\n    from tinyup.sampler import sample as tried_sample\n"
        "except ImportError:\n    pass\n\n\n"
        "def later():\n    from tinyup.sampler import sample as local_sample\n\n\n" + text
    )
    plugin = runtime_trees / "plugin"
    result = audit.audit_runtime(
        _config(plugin),
        old=str(runtime_trees / "upstream-1.0"),
        new=str(runtime_trees / "upstream-2.0"),
    )
    assert [(s.importer, s.local, s.line) for s in result.stale] == [
        ("tinyup.engine", "sample", 15),
        ("tinyup.engine", "tried_sample", 6),
    ]


def test_module_level_reads_block_headers() -> None:
    lines = [
        "import os\n",
        "if os.name:\n",
        "    try:\n",
        "        from a import b\n",
        "    except ImportError:\n",
        "        pass\n",
        "def f():\n",
        "    if x:\n",
        "        from a import c\n",
        "x = (\n",
        "    1)\n",
        "        from a import d\n",
    ]
    assert nameindex.module_level(lines, 4, 8) is True
    assert nameindex.module_level(lines, 9, 8) is False
    assert nameindex.module_level(lines, 12, 8) is None


def test_from_imports_and_definitions_from_text() -> None:
    data = (
        b"from .x import (a,\n    b as c)  # two\n"
        b"x = 'from y import z'\n"
        b"    from vllm.q import r\n"
        b"class K:\n    def a(self):\n        pass\n"
        b"a: int = 3\nundef a\n"
    )
    assert nameindex.from_imports(data) == [
        (".x", "a", "a", 1, 0),
        (".x", "b", "c", 1, 0),
        ("vllm.q", "r", "r", 4, 4),
    ]
    assert nameindex.definitions(data) == [("x", 3), ("K", 5), ("a", 6), ("a", 8)]
    patterns = nameindex.definition_pattern(["a"])
    assert nameindex.definitions(data, patterns) == [("a", 6), ("a", 8)]
    # The prefilter's names: every name definitions() reports, and matches that do not
    # start a line (``undef a``: the name ``a`` again; ``'from y import z'`` none).
    assert nameindex.defined_names(data) == b"\nK\na\nx\n"
    assert nameindex.defined_names(b"x = 1\ny == 2\nasync def f(): pass\n") == b"\nf\nx\n"
    assert nameindex.defined_names(b"print(1)\n") == b"\n"
    assert nameindex.name_search([b"a"])(b"\nK\na\nx\n")
    assert not nameindex.name_search([b"K2", b"k", b"K."])(b"\nK\na\nx\n")
    assert not nameindex.name_search([])(b"\nK\na\nx\n")


def test_build_index_reads_each_file_once_for_both_indexes(tmp_path: Path) -> None:
    """Files in path-component order (``a/b.py`` before ``a-c/x.py``, unlike string
    order); per file its names; the importer index with the from-module absolute."""
    for rel, text in {
        "pkg/__init__.py": "from .a.b import f\n",
        "pkg/a/__init__.py": "",
        "pkg/a/b.py": "def f():\n    pass\n",
        "pkg/a-c/x.py": "class C:\n    pass\n",
        "pkg/notes.txt": "def g(): pass\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    files = nameindex.python_files(tmp_path / "pkg")
    root = str(tmp_path)
    assert [f[len(root) + 1 :] for f in files] == [
        "pkg/__init__.py",
        "pkg/a/__init__.py",
        "pkg/a/b.py",
        "pkg/a-c/x.py",
    ]
    sets, importers = nameindex.build_index(tmp_path, files, importers=True)
    assert sets == [b"\n", b"\n", b"\nf\n", b"\nC\n"]
    assert importers == {"f": [("pkg", "pkg.a.b", "f", 1, 0)]}
    assert nameindex.build_index(tmp_path, files) == (sets, None)


def test_build_index_in_chunks_on_every_core_equals_one_process(
    tmp_path: Path, monkeypatch
) -> None:
    """Chunks of files indexed by workers and merged give the indexes one process builds:
    names in file order, importers in file order then line order."""
    from patchkeeper.runtime import parallel

    for index in range(7):
        (tmp_path / f"pkg/m{index}.py").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f"pkg/m{index}.py").write_text(
            f"from pkg.base import f\nfrom pkg.m{index} import g\nclass C{index}:\n"
            "    from pkg.base import f as h\n"
        )
    files = nameindex.python_files(tmp_path / "pkg")
    expected = nameindex.build_index(tmp_path, files, importers=True)
    assert len(expected[1]["f"]) == 14
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    monkeypatch.setattr(nameindex, "INDEX_CHUNK", 3)
    assert nameindex.build_index(tmp_path, files, importers=True) == expected


def test_stale_bindings_follow_re_exports_from_the_patched_module(runtime_trees: Path) -> None:
    """``engine`` imports ``sample`` from ``sampler``; ``api`` imports it from ``engine``.
    Patching ``sampler.sample`` leaves both with the original; patching only the re-export
    ``engine.sample`` leaves ``api`` with it, not ``engine`` (it never had that binding)."""
    (runtime_trees / "upstream-2.0/tinyup/api.py").write_text(
        "from tinyup.engine import sample as run_sample\n"
    )
    plugin = runtime_trees / "plugin"
    (plugin / "metaplug/patch/enhancement/reexport.py").write_text(
        "import tinyup.engine\n\n\ndef quiet(logits):\n    return logits\n\n\n"
        "tinyup.engine.sample = quiet\n"
    )
    init = plugin / "metaplug/patch/enhancement/__init__.py"
    init.write_text(init.read_text() + "\nimport metaplug.patch.enhancement.reexport  # noqa\n")
    result = audit.audit_runtime(
        _config(plugin),
        old=str(runtime_trees / "upstream-1.0"),
        new=str(runtime_trees / "upstream-2.0"),
    )
    assert [(s.target, s.importer, s.local, s.patched_by) for s in result.stale] == [
        ("tinyup.engine.sample", "tinyup.api", "run_sample", ""),
        ("tinyup.sampler.sample", "tinyup.api", "run_sample", ""),
        (
            "tinyup.sampler.sample",
            "tinyup.engine",
            "sample",
            "metaplug/patch/enhancement/reexport.py:8",
        ),
    ]


def test_cold_function_body_keeps_its_import_edges_and_conditions() -> None:
    """A function body with no line naming the plugin (a cold body) is not walked
    expression by expression, but its import statements still give edges (a relative star
    import names nothing the hot-line search looks for) under the conditions met on the
    way; ``if TYPE_CHECKING:`` blocks give none; a body naming the plugin is walked."""
    source = (
        b"from plug.helpers import Base\n"  # 1
        b"\n"
        b"def quiet(flag=True):\n"  # 3
        b"    import torch\n"
        b"    try:\n"  # 5
        b"        from .extra import *\n"
        b"    except ImportError:\n"  # 7
        b"        from .fallback import *\n"
        b"    if TYPE_CHECKING:\n"  # 9
        b"        from .typing_only import *\n"
        b"    for _ in range(2):\n"  # 11
        b"        torch.ones(1)\n"
        b"\n"
        b"def loud():\n"  # 14
        b"    return Base()\n"
    )
    settings = ScanSettings("plug", (), "plug.patch")
    facts = scan_source(source, "plug.ops", "plug/ops.py", False, settings)
    edges = [
        (e.scope, e.target, e.kind, e.line, [c.text for c in e.conditions]) for e in facts.edges
    ]
    assert edges == [
        ("<module>", "plug.helpers", "import", 1, []),
        ("<module>", "plug.helpers.Base", "import", 1, []),
        ("quiet", "plug.extra", "import", 6, ["try: ... except ImportError"]),
        ("quiet", "plug.fallback", "import", 8, ["except ImportError"]),
        ("loud", "plug.helpers.Base", "call", 15, []),
    ]
    assert list(facts.functions) == ["quiet", "loud"]
    assert facts.functions["quiet"].defaults == (("flag", True),)


def test_audit_result_is_remembered_until_an_upstream_file_changes(runtime_trees: Path) -> None:
    """A second audit of the same plugin and trees is the remembered result (no store
    rewritten); a file of the new tree edited in place is read again."""
    plugin = runtime_trees / "plugin"
    api = runtime_trees / "upstream-2.0/tinyup/api.py"
    api.write_text("import os\n")
    trees = {"old": str(runtime_trees / "upstream-1.0"), "new": str(runtime_trees / "upstream-2.0")}
    first = audit.audit_runtime(_config(plugin), **trees)
    assert [s.importer for s in first.stale if s.importer == "tinyup.api"] == []
    api.write_text("from tinyup.sampler import sample as run_sample\n")
    second = audit.audit_runtime(_config(plugin), **trees)
    assert [
        (s.target, s.importer, s.local) for s in second.stale if s.importer == "tinyup.api"
    ] == [("tinyup.sampler.sample", "tinyup.api", "run_sample")]
    for path in (cache_root() / "runtime").iterdir():
        os.utime(path, (1, 1))
    third = audit.audit_runtime(_config(plugin), **trees)
    assert third == second
    assert all(p.stat().st_mtime == 1 for p in (cache_root() / "runtime").iterdir())


def test_name_search_finds_ascii_and_other_names(tmp_path: Path) -> None:
    """The per-file names prefilter ASCII names; a name with other characters is
    looked for in every file, and both are found where they are defined."""
    (tmp_path / "up").mkdir()
    (tmp_path / "up/__init__.py").write_text("")
    (tmp_path / "up/a.py").write_text("def café_x():\n    pass\n\n\nclass Plain:\n    pass\n")
    (tmp_path / "up/b.py").write_text("café_x = 1\nPlainer = 2\n")
    tree = UpstreamTree(tmp_path, ("up",))
    tree.find_definitions(["café_x", "Plain"])
    assert tree.defined("café_x") == [("up.a", 1), ("up.b", 1)]
    assert tree.defined("Plain") == [("up.a", 5)]
    assert tree.defined("Missing") == []


def test_remembered_folder_listing_notices_added_and_removed_files(tmp_path: Path) -> None:
    """The listing of a tree's Python files comes from the store while no folder changed,
    and equals a fresh walk after a file is added, a file removed or a folder added."""
    (tmp_path / "up/sub").mkdir(parents=True)
    (tmp_path / "up/__init__.py").write_text("")
    (tmp_path / "up/sub/a.py").write_text("")
    (tmp_path / "up/sub/notes.txt").write_text("")
    store = SummaryCache(tmp_path, "listing")
    up = str(tmp_path / "up")
    assert store.python_folders(tmp_path / "up") == [(up, ["__init__.py"]), (f"{up}/sub", ["a.py"])]
    store.save()
    again = SummaryCache(tmp_path, "listing")
    assert again.python_folders(tmp_path / "up") == [
        (up, ["__init__.py"]),
        (f"{up}/sub", ["a.py"]),
    ]
    assert not again.dirty  # from the store: no folder read, nothing to save
    (tmp_path / "up/sub/b.py").write_text("")
    (tmp_path / "up/__init__.py").unlink()
    (tmp_path / "up/new").mkdir()
    (tmp_path / "up/new/c.py").write_text("")
    assert again.python_folders(tmp_path / "up") == [
        (up, []),
        (f"{up}/new", ["c.py"]),
        (f"{up}/sub", ["a.py", "b.py"]),
    ]


def test_prefetched_plugin_facts_equal_facts_scanned_one_by_one(
    runtime_trees: Path, monkeypatch
) -> None:
    """The facts the worker processes send back (records) are the facts one process scans,
    and a module prefetched but never asked for stays out of ``facts``."""
    from patchkeeper.runtime import parallel
    from patchkeeper.runtime.inventory.plugin import PluginTree
    from patchkeeper.runtime.settings import resolve_settings

    settings = resolve_settings(_config(runtime_trees / "plugin"))
    alone = PluginTree(settings, parse_store(settings))
    modules = list(alone.layout.package_modules)
    expected = {module: alone.facts_of(module) for module in modules}
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    # nothing saved by the first: no record of a file
    pooled = PluginTree(settings, parse_store(settings))
    assert [key for key in pooled.cache.entries if not key.startswith("#")] == []
    pooled.prefetch(modules)
    assert pooled.facts == {}
    assert sorted(key for key in pooled.cache.entries if not key.startswith("#")) == sorted(
        alone.relative(alone.module_file(module)[0]) for module in modules
    )
    assert {module: pooled.facts_of(module) for module in modules} == expected


def test_prefetched_upstream_summaries_equal_summaries_parsed_one_by_one(
    runtime_trees: Path, monkeypatch
) -> None:
    """The summaries the worker processes send back equal the ones :meth:`summary` parses
    in this process, for every module the lookups of the targets start in."""
    from patchkeeper.runtime import parallel
    from patchkeeper.runtime.lookup.resolve import target_modules

    root = runtime_trees / "upstream-2.0"
    alone = UpstreamTree(root, ("tinyup",))
    targets = ["tinyup.gone.run", "tinyup.sampler.sample", "tinyup.ops.kernels.k", "os.path"]
    modules = target_modules(alone, targets)
    assert modules == ["tinyup", "tinyup.sampler", "tinyup.ops.kernels"]
    expected = {module: alone.summary(module) for module in modules}
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    pooled = UpstreamTree(root, ("tinyup",))  # nothing saved by the first: an empty store
    pooled.prefetch(modules)
    assert pooled.summaries == {}
    assert {module: pooled.summary(module) for module in modules} == expected


def test_audit_on_every_core_equals_the_audit_in_one_process(
    runtime_trees: Path, monkeypatch
) -> None:
    """Entries compared and judged by forked workers give the result one process gives,
    and the drift and judgement stores the parent writes serve the next run alike."""
    from patchkeeper.runtime import parallel

    plugin = runtime_trees / "plugin"
    trees = {"old": str(runtime_trees / "upstream-1.0"), "new": str(runtime_trees / "upstream-2.0")}
    alone = audit.judge_entries
    keys = iter(range(10))  # a new key each run: the whole result is never remembered
    monkeypatch.setattr(audit, "result_key", lambda *args: f"run {next(keys)}")
    monkeypatch.setattr(parallel, "MIN_ITEMS", 10**9)
    expected = audit.audit_runtime(_config(plugin), **trees)
    for path in (cache_root() / "runtime").iterdir():
        path.unlink()
    monkeypatch.setattr(parallel, "MIN_FILES", 1)
    monkeypatch.setattr(parallel, "MIN_ITEMS", 1)
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    calls = []
    monkeypatch.setattr(audit, "judge_entries", lambda *a: calls.append(1) or alone(*a))
    pooled = audit.audit_runtime(_config(plugin), **trees)
    assert pooled == expected and calls == [1]
    again = audit.audit_runtime(_config(plugin), **trees)  # drift and judgements from the store
    assert again == expected and calls == [1, 1]


def test_plugin_layout_holds_patch_files_and_entry_points(
    runtime_trees: Path,
) -> None:
    """The tree's layout: the patch files in path order with their module names, the entry
    points of the configured groups and the console scripts of the plugin's package, both
    from the one project file that declares them (a script of another package left out)."""
    from patchkeeper.runtime.inventory.layout import PatchFile
    from patchkeeper.runtime.inventory.plugin import PluginTree
    from patchkeeper.runtime.model import EntryPoint
    from patchkeeper.runtime.settings import resolve_settings

    plugin = runtime_trees / "plugin"
    pyproject = plugin / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace(
            "[tool.setuptools",
            '[project.scripts]\nmp = "metaplug.cli:main"\nother = "elsewhere:main"\n\n'
            "[tool.setuptools",
            1,
        ),
        encoding="utf-8",
    )
    settings = resolve_settings(_config(plugin))
    layout = PluginTree(settings, parse_store(settings)).layout
    patch = plugin / "metaplug" / "patch"
    assert [(p.relative, p.module, p.is_package) for p in layout.patch_files] == [
        ("metaplug/patch/__init__.py", "metaplug.patch", True),
        ("metaplug/patch/bugfix/__init__.py", "metaplug.patch.bugfix", True),
        ("metaplug/patch/bugfix/fix_disabled.py", "metaplug.patch.bugfix.fix_disabled", False),
        ("metaplug/patch/bugfix/fix_sampler.py", "metaplug.patch.bugfix.fix_sampler", False),
        ("metaplug/patch/bugfix/fix_scheduler.py", "metaplug.patch.bugfix.fix_scheduler", False),
        ("metaplug/patch/enhancement/__init__.py", "metaplug.patch.enhancement", True),
        ("metaplug/patch/enhancement/backends.py", "metaplug.patch.enhancement.backends", False),
        ("metaplug/patch/performance/__init__.py", "metaplug.patch.performance", True),
        ("metaplug/patch/performance/kernels.py", "metaplug.patch.performance.kernels", False),
        ("metaplug/patch/utils.py", "metaplug.patch.utils", False),
    ]
    assert layout.patch_files[-1] == PatchFile(
        patch / "utils.py", "metaplug/patch/utils.py", "metaplug.patch.utils", False
    )
    assert layout.entry_points == (
        EntryPoint("tinyup.general_plugins", "metaplug", "metaplug:register", "pyproject.toml"),
    )
    assert layout.console_scripts == (
        EntryPoint("console_scripts", "mp", "metaplug.cli:main", "pyproject.toml"),
    )
    assert "metaplug.patch.utils" in layout.package_modules
    assert len(layout.signature) == 64
