"""The import graph of ``src/patchkeeper``: no import from a lower layer to a higher one, no cycle.

The layers, low to high, are the ones ``docs/architecture.md`` describes. A module may import
modules of its own layer or of lower ones; two modules of one layer may not import each other
in a circle. Every import counts: at module level and inside functions, ``import a.b``,
``from a import b`` (``b`` a module or a name) and relative imports (``from . import x``).
A module that belongs to no layer fails too, so a new module is placed on purpose.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src" / "patchkeeper"

#: Low to high: (the layer's name, the modules and packages in it).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "base",
        (
            "patchkeeper",
            "patchkeeper.errors",
            "patchkeeper.constants",
            "patchkeeper.progress",
            "patchkeeper.jsonable",
            "patchkeeper.system",
        ),
    ),
    ("config", ("patchkeeper.config",)),
    ("series", ("patchkeeper.series",)),
    ("upstream", ("patchkeeper.upstream",)),
    ("trees", ("patchkeeper.trees",)),
    ("audit", ("patchkeeper.audit",)),
    ("ledger", ("patchkeeper.ledger", "patchkeeper.start")),
    ("port", ("patchkeeper.port",)),
    ("runtime, record", ("patchkeeper.runtime", "patchkeeper.record")),
    ("upgrade", ("patchkeeper.upgrade",)),
    ("render", ("patchkeeper.render",)),
    ("agents", ("patchkeeper.agents",)),
    ("commands", ("patchkeeper.commands",)),
    ("main", ("patchkeeper.main", "patchkeeper.__main__", "patchkeeper.guard")),
)

#: Inside the runtime layer, low to high: its plain data, settings and workers, then its
#: sub-packages, then the remembered JSON the runtime commands start from. Every module of
#: ``patchkeeper.runtime`` is named here (itself or its sub-package), so a new one is placed
#: on purpose; the package ``patchkeeper.runtime`` stands for its ``__init__`` alone.
RUNTIME_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "runtime base",
        (
            "patchkeeper.runtime",
            "patchkeeper.runtime.model",
            "patchkeeper.runtime.settings",
            "patchkeeper.runtime.parallel",
            "patchkeeper.runtime.workers",
            "patchkeeper.runtime.gc_threshold",
        ),
    ),
    ("syntax", ("patchkeeper.runtime.syntax",)),
    ("store", ("patchkeeper.runtime.store",)),
    ("inventory", ("patchkeeper.runtime.inventory",)),
    ("lookup", ("patchkeeper.runtime.lookup",)),
    ("judge", ("patchkeeper.runtime.judge",)),
    ("live", ("patchkeeper.runtime.live",)),
    ("port", ("patchkeeper.runtime.port",)),
    ("remembered", ("patchkeeper.runtime.remembered",)),
)


def module_files(root: Path) -> dict[str, tuple[Path, bool]]:
    """Every module under the package directory ``root``: dotted name -> (file, is a package).

    >>> sorted(module_files(SOURCE))[:2]
    ['patchkeeper', 'patchkeeper.__main__']
    """
    modules: dict[str, tuple[Path, bool]] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules[".".join(parts)] = (path, is_package)
    return modules


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names one import statement may load (a module, or a module's attribute)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join([*base, *([node.module] if node.module else [])])
    else:
        prefix = node.module or ""
    return [f"{prefix}.{alias.name}" for alias in node.names] + [prefix]


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the modules of the same tree it imports (at any depth of its code)."""
    modules = module_files(root)
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in modules.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            names = _targets(module, is_package, node)
            if isinstance(node, ast.ImportFrom):
                # ``from a import b``: the module ``a.b`` where there is one, else ``a``
                found = [name for name in names[:-1] if name in modules]
                names = found if len(found) == len(names) - 1 else [*found, names[-1]]
            for name in names:
                while name not in modules and "." in name:
                    name = name.rsplit(".", 1)[0]
                if name in modules and name != module:
                    edges.add(name)
        graph[module] = edges
    return graph


def layer_of(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS) -> int:
    """The index of the layer holding ``module`` (the longest listed name it is or is under);
    -1 when none does.

    >>> layer_of("patchkeeper.series.hunks"), layer_of("patchkeeper.main"), layer_of("x")
    (2, 13, -1)
    """
    best, best_length = -1, -1
    for index, (_, names) in enumerate(layers):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best_length:
                best, best_length = index, len(name)
    return best


def upward_imports(
    graph: dict[str, set[str]], layers: tuple[tuple[str, tuple[str, ...]], ...] = LAYERS
) -> list[str]:
    """Each import from a lower layer to a higher one, as ``a (layer) -> b (layer)``."""
    found = []
    for module in sorted(graph):
        for target in sorted(graph[module]):
            low, high = layer_of(module, layers), layer_of(target, layers)
            if high > low:
                found.append(f"{module} ({layers[low][0]}) -> {target} ({layers[high][0]})")
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: each strongly connected set of two or more modules, as one circle
    through them (``[a, b, a]``), found with Tarjan's algorithm."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_circle(graph, set(component)) for component in components]


def _circle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """One circle through the component's first module, by a breadth-first search."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target in sorted(graph[node] & component):
            if target == start:
                return [*paths[node], start]
            if target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    raise AssertionError(f"no circle through {start}")


def test_every_module_has_a_layer() -> None:
    unplaced = [m for m in sorted(module_files(SOURCE)) if layer_of(m) == -1]
    assert unplaced == [], f"modules in no layer of LAYERS: {unplaced}"


@pytest.fixture(scope="module")
def source_graph() -> dict[str, set[str]]:
    """The import graph of ``src/patchkeeper``, read once for the tests that only read it."""
    return import_graph(SOURCE)


def test_no_upward_import(source_graph: dict[str, set[str]]) -> None:
    found = upward_imports(source_graph)
    assert found == [], "imports from a lower layer to a higher one:\n" + "\n".join(found)


def test_no_import_cycle(source_graph: dict[str, set[str]]) -> None:
    found = cycles(source_graph)
    assert found == [], "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_at_most_ten_modules_at_the_top() -> None:
    top = sorted(p.name for p in SOURCE.glob("*.py"))
    assert len(top) <= 10, top


def placed_by(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    """The longest name of ``layers`` that ``module`` is or is under (``""``: none).

    >>> placed_by("patchkeeper.runtime.judge.drift", RUNTIME_LAYERS)
    'patchkeeper.runtime.judge'
    """
    names = [n for _, ns in layers for n in ns if module == n or module.startswith(n + ".")]
    return max(names, key=len, default="")


def runtime_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The part of ``graph`` inside ``patchkeeper.runtime``: its modules and the imports
    between them."""
    inside = {m for m in graph if placed_by(m, RUNTIME_LAYERS)}
    return {m: graph[m] & inside for m in sorted(inside)}


def test_every_runtime_module_has_a_runtime_layer() -> None:
    runtime = [m for m in sorted(module_files(SOURCE)) if m.startswith("patchkeeper.runtime.")]
    unplaced = [m for m in runtime if placed_by(m, RUNTIME_LAYERS) in ("", "patchkeeper.runtime")]
    assert runtime and unplaced == [], f"runtime modules in no layer of RUNTIME_LAYERS: {unplaced}"


def test_no_upward_import_inside_runtime(source_graph: dict[str, set[str]]) -> None:
    found = upward_imports(runtime_graph(source_graph), RUNTIME_LAYERS)
    assert found == [], "runtime imports from a lower layer to a higher one:\n" + "\n".join(found)


def test_no_import_cycle_inside_runtime(source_graph: dict[str, set[str]]) -> None:
    found = cycles(runtime_graph(source_graph))
    assert found == [], "runtime import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_runtime_rooms_stay_small() -> None:
    """At most ten modules directly in ``runtime/`` and none anywhere in it over 600 lines:
    a module that grows past that is split along its seams, a new one goes into the
    sub-package whose name says what it holds."""
    runtime = SOURCE / "runtime"
    top = sorted(p.name for p in runtime.glob("*.py"))
    long = {
        str(p.relative_to(runtime)): n
        for p in sorted(runtime.rglob("*.py"))
        if (n := len(p.read_bytes().splitlines())) > 600
    }
    assert (len(top) <= 10, long) == (True, {}), (top, long)


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A package ``pk`` with a function-level upward import and a relative-import cycle."""
    root = tmp_path / "pk"
    (root / "low").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "low" / "__init__.py").write_text("")
    (root / "low" / "a.py").write_text("def f():\n    from pk.high import g\n")
    (root / "low" / "b.py").write_text("from . import c\n")
    (root / "low" / "c.py").write_text("from .b import name\n")
    (root / "high.py").write_text("from pk.low import a\n")
    return root


def test_the_checks_see_function_level_and_relative_imports(tiny: Path) -> None:
    layers = (("low", ("pk", "pk.low")), ("high", ("pk.high",)))
    graph = import_graph(tiny)
    assert graph == {
        "pk": set(),
        "pk.high": {"pk.low.a"},
        "pk.low": set(),
        "pk.low.a": {"pk.high"},
        "pk.low.b": {"pk.low.c"},
        "pk.low.c": {"pk.low.b"},
    }
    assert upward_imports(graph, layers) == ["pk.low.a (low) -> pk.high (high)"]
    assert cycles(graph) == [
        ["pk.high", "pk.low.a", "pk.high"],
        ["pk.low.b", "pk.low.c", "pk.low.b"],
    ]
