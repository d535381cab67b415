"""The scan's shortcuts in a file whose entries are not reported (statements on lines that
cannot hold an edge are not walked, one walk of the tree finds every scope's bindings) give
the facts of the exhaustive walk: on a file written for the edge cases, and on every file of
every vllm-ascend release of the corpus."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from corpus import sdist_tree
from patchkeeper.runtime.inventory.file_facts import ScanSettings, to_record
from patchkeeper.runtime.inventory.scan import scan_source
from patchkeeper.runtime.syntax import names

SETTINGS = ScanSettings("plug", (), "plug.patch")

#: A plugin module outside the patch directory: imports inside functions and a class body,
#: ``if``/``else`` on a parameter, ``try``/``except ImportError`` binding one name twice,
#: ``if TYPE_CHECKING:``, a commented-out import, ``__all__``, relative imports, an alias,
#: a class local to a function, functions with no line naming the plugin, star imports
#: under an ``if`` with no line naming the plugin.
SOURCE = (
    '"""Tools."""\n'
    "from typing import TYPE_CHECKING\n"
    "import torch\n"
    "from . import helpers as h\n"
    "from .base import Base\n"
    "if TYPE_CHECKING:\n"
    "    from plug.typing_only import Hint\n"
    "try:\n"
    "    from plug.fast import kernel\n"
    "except ImportError:\n"
    "    from plug.slow import kernel\n"
    "# from plug.retired import old_kernel\n"
    '__all__ = ["Tool", "make"]\n'
    "run = h.run\n"
    "\n"
    "\n"
    "class Tool(Base, torch.nn.Module):\n"
    "    from plug.inner import Mixin\n"
    "\n"
    "    def forward(self, x):\n"
    "        return torch.relu(x)\n"
    "\n"
    "    def make(self):\n"
    "        return make()\n"
    "\n"
    "\n"
    "def make(flag=False):\n"
    "    import plug.late as late\n"
    "    from .lazy import build\n"
    "    if flag:\n"
    "        late.go()\n"
    "    else:\n"
    "        build()\n"
    "\n"
    "    class Local(h.Mixin):\n"
    "        pass\n"
    "\n"
    "    return Local\n"
    "\n"
    "\n"
    "def quiet(n):\n"
    "    total = 0\n"
    "    for i in range(n):\n"
    "        total += i\n"
    "    return total\n"
    "\n"
    "\n"
    "def pick():\n"
    "    return kernel()\n"
    "\n"
    "\n"
    "if torch.cuda.is_available():\n"
    "    from .extra import *\n"
    "\n"
    "\n"
    "def quiet_import():\n"
    "    if torch.cuda.is_available():\n"
    "        from .more import *\n"
    "    else:\n"
    "        from .other import *\n"
)

#: The vllm-ascend releases of the corpus (``shared/REAL-DATA.md``).
RELEASES = (
    "0.24.0rc1",
    "0.25.1rc1",
    "0.26.0rc1",
    "0.27.1rc1",
    "0.28.0rc1",
    "0.29.0rc1",
    "0.30.0rc1",
    "0.30.0rc2",
)


def _edges(facts) -> list[tuple]:
    return [
        (e.scope, e.target, e.kind, e.line, [c.text for c in e.conditions]) for e in facts.edges
    ]


def test_shortcuts_give_the_facts_of_the_exhaustive_walk_on_the_edge_cases() -> None:
    """Every edge, with its conditions, is the exhaustive walk's; the name bound in both
    the ``try`` body and its ``except ImportError`` is the body's (the later binding of the
    scope's walk); the ``TYPE_CHECKING`` import gives no edge; a star import under an ``if``
    whose lines name nothing of the plugin (at module level, in a function) keeps the
    ``if``'s condition."""
    data = SOURCE.encode()
    fast = scan_source(data, "plug.ops.tools", "plug/ops/tools.py", False, SETTINGS)
    full = scan_source(
        data, "plug.ops.tools", "plug/ops/tools.py", False, SETTINGS, shortcuts=False
    )
    assert to_record(fast) == to_record(full)
    try_import = ["try: ... except ImportError"]
    assert _edges(fast) == [
        ("<module>", "plug.ops", "import", 4, []),
        ("<module>", "plug.ops.helpers", "import", 4, []),
        ("<module>", "plug.ops.base", "import", 5, []),
        ("<module>", "plug.ops.base.Base", "import", 5, []),
        ("<module>", "plug.fast", "import", 9, try_import),
        ("<module>", "plug.fast.kernel", "import", 9, try_import),
        ("<module>", "plug.slow", "import", 11, ["except ImportError"]),
        ("<module>", "plug.slow.kernel", "import", 11, ["except ImportError"]),
        ("<module>", "plug.ops.helpers.run", "ref", 14, []),
        ("<module>", "plug.ops.helpers", "ref", 14, []),
        ("<module>", "plug.ops.base.Base", "ref", 17, []),
        ("<module>", "plug.inner", "import", 18, []),
        ("<module>", "plug.inner.Mixin", "import", 18, []),
        ("Tool.make", "plug.ops.tools.make", "call", 24, []),
        ("make", "plug.late", "import", 28, []),
        ("make", "plug.ops.lazy", "import", 29, []),
        ("make", "plug.ops.lazy.build", "import", 29, []),
        ("make", "plug.late.go", "call", 31, ["flag"]),
        ("make", "plug.late", "ref", 31, ["flag"]),
        ("make", "plug.ops.lazy.build", "call", 33, ["not (flag)"]),
        ("make", "plug.ops.helpers.Mixin", "ref", 35, []),
        ("make", "plug.ops.helpers", "ref", 35, []),
        ("make", "plug.ops.tools.make.Local", "ref", 38, []),
        ("pick", "plug.fast.kernel", "call", 49, []),
        ("<module>", "plug.ops.extra", "import", 53, ["torch.cuda.is_available()"]),
        ("quiet_import", "plug.ops.more", "import", 58, ["torch.cuda.is_available()"]),
        ("quiet_import", "plug.ops.other", "import", 60, ["not (torch.cuda.is_available())"]),
    ]
    assert list(fast.functions) == [
        "Tool.forward",
        "Tool.make",
        "make",
        "quiet",
        "pick",
        "quiet_import",
    ]
    assert fast.classes == {
        "Tool": ("plug.ops.base.Base", "torch.nn.Module"),
        "make.Local": ("plug.ops.helpers.Mixin",),
    }
    assert fast.commented_imports == [
        (12, "# from plug.retired import old_kernel", ("plug.retired", "plug.retired.old_kernel"))
    ]


def test_one_walk_gives_every_scope_the_table_of_its_own_walk() -> None:
    """The name table of each scope built from :class:`names.ScopeBindings` is the one
    :func:`names.scope_table` builds walking that scope's statements."""
    tree = ast.parse(SOURCE)
    bindings = names.ScopeBindings(tree)
    module_table = names.scope_table(tree.body, {}, "plug.ops.tools", False)
    assert names.bindings_table(bindings.of(None), {}, "plug.ops.tools", False) == module_table
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert [f.name for f in functions] == [
        "make",
        "quiet",
        "pick",
        "quiet_import",
        "forward",
        "make",
    ]
    for node in functions:
        expected = names.scope_table(node.body, module_table, "plug.ops.tools", False)
        found = names.bindings_table(bindings.of(node), module_table, "plug.ops.tools", False)
        assert found == expected
    assert sorted(k for k in bindings.classes) == sorted(
        id(n) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
    )


def _modules(root: Path) -> list[tuple[bytes, str, str, bool]]:
    out = []
    for path in sorted((root / "vllm_ascend").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        module = ".".join(parts[:-1] if is_package else parts)
        out.append((path.read_bytes(), module, path.relative_to(root).as_posix(), is_package))
    return out


@pytest.mark.network
@pytest.mark.slow
@pytest.mark.parametrize("release", RELEASES)
def test_shortcuts_give_the_facts_of_the_exhaustive_walk_on_every_vllm_ascend_file(
    release: str,
) -> None:
    """Every module of the release outside ``vllm_ascend/patch`` (where the shortcuts are
    taken) has the record of the exhaustive walk."""
    settings = ScanSettings("vllm_ascend", (), "vllm_ascend.patch")
    compared, differing = 0, []
    for data, module, file, is_package in _modules(sdist_tree(f"vllm-ascend=={release}")):
        if settings.reports_entries(module):
            continue
        fast = scan_source(data, module, file, is_package, settings)
        full = scan_source(data, module, file, is_package, settings, shortcuts=False)
        compared += 1
        if to_record(fast) != to_record(full):
            differing.append(file)
    assert compared > 300
    assert differing == []


def test_an_alias_bound_through_getattr_has_its_lines_walked() -> None:
    """A name bound to ``getattr(m, "name"[, default])`` (or an attribute of it) of a plugin
    module names ``m.name``: the lines using it, which name nothing of the plugin, give
    the exhaustive walk's edges."""
    source = (
        b"def pick():\n"
        b"    from plug import build_info\n"
        b'    kind = getattr(build_info, "kind", None)\n'
        b'    size = getattr(getattr(build_info, "sizes"), "big").value\n'
        b"    if kind is not None:\n"
        b"        return kind, size\n"
    )
    fast = scan_source(source, "plug.ops.pick", "plug/ops/pick.py", False, SETTINGS)
    full = scan_source(
        source, "plug.ops.pick", "plug/ops/pick.py", False, SETTINGS, shortcuts=False
    )
    assert to_record(fast) == to_record(full)
    assert _edges(fast) == [
        ("pick", "plug", "import", 2, []),
        ("pick", "plug.build_info", "import", 2, []),
        ("pick", "plug.build_info", "ref", 3, []),
        ("pick", "plug.build_info.sizes.big.value", "ref", 4, []),
        ("pick", "plug.build_info", "ref", 4, []),
        ("pick", "plug.build_info.kind", "ref", 5, []),
        ("pick", "plug.build_info.kind", "ref", 6, ["kind is not None"]),
        ("pick", "plug.build_info.sizes.big.value", "ref", 6, ["kind is not None"]),
    ]
