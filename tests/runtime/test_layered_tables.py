"""An inner scope's name table is layered over the enclosing one (``names.layered_table``),
not a copy of it: the same bindings, so the same records, as the copy the scan made before,
on a file where local imports, assignments and definitions shadow module names, in nested
functions and next to class bodies."""

from __future__ import annotations

import ast

import pytest

from patchkeeper.runtime.inventory.file_facts import ScanSettings, to_record
from patchkeeper.runtime.inventory.scan import scan_source
from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.names import Binding, Overlay

MODULE = "plug.patch.shadow"
SETTINGS = ScanSettings("plug", (), "plug.patch")

SOURCE = (
    "import os\n"
    "from up import worker as w\n"
    "import plug.helpers as h\n"
    "\n"
    "\n"
    "def helper():\n"
    "    return h.scale(os.sep)\n"
    "\n"
    "\n"
    "def local_import():\n"
    "    from up.other import worker as w\n"
    "    w.Worker.run = helper\n"
    "\n"
    "\n"
    "def local_alias():\n"
    "    h = w\n"
    "    h.Worker.stop = helper\n"
    "\n"
    "\n"
    "def local_def():\n"
    "    def helper():\n"
    "        return 1\n"
    "\n"
    "    w.Worker.go = helper\n"
    "\n"
    "\n"
    "def nested():\n"
    "    import up.deep as w\n"
    "\n"
    "    def inner():\n"
    "        w.Deep.x = helper\n"
    "\n"
    "        def innermost():\n"
    "            from up.z import worker as w\n"
    "            w.Z.y = h.scale\n"
    "\n"
    "        return innermost\n"
    "\n"
    "    return inner\n"
    "\n"
    "\n"
    "def plain(x):\n"
    "    y = x.attr\n"
    "    w.Worker.plain = helper\n"
    "    return y\n"
    "\n"
    "\n"
    "def shadowed_setattr():\n"
    "    from up.tools import setattr\n"
    '    setattr(w.Worker, "a", helper)\n'
    "\n"
    "\n"
    "def real_setattr():\n"
    '    setattr(w.Worker, "b", helper)\n'
    "\n"
    "\n"
    "class Holder:\n"
    "    from up.k import worker as w\n"
    "\n"
    "    def method(self):\n"
    "        w.Worker.method = helper\n"
    "\n"
    "\n"
    "w.Worker.top = helper\n"
)


def _copied_table(nodes, outer, current, is_package, own=None):
    """The table as the scan built it before tables were layered: ``outer`` copied, the
    scope's definitions added, then :func:`names.bindings_table` (a second copy)."""
    base = dict(outer)
    base.update(own or {})
    return names.bindings_table(nodes, base, current, is_package)


def _entries(facts) -> list[tuple[int, str, str, str, str]]:
    return [(e.line, e.scope, e.target, e.mechanism.value, e.replacement) for e, _ in facts.entries]


@pytest.mark.parametrize("small", [0, names.SMALL_TABLE])
@pytest.mark.parametrize("module", [MODULE, "plug.ops.shadow"])
def test_layered_tables_give_the_records_of_copied_tables(monkeypatch, module, small) -> None:
    """The same facts (entries, edges, definitions) whether inner tables are layered or
    copied, in a file whose entries are reported and in one whose are not (its shortcuts);
    ``small``: 0 layers every inner table, the default copies this small module's."""
    monkeypatch.setattr(names, "SMALL_TABLE", small)
    data = SOURCE.encode()
    layered = scan_source(data, module, "plug/x/shadow.py", False, SETTINGS)
    monkeypatch.setattr(names, "layered_table", _copied_table)
    copied = scan_source(data, module, "plug/x/shadow.py", False, SETTINGS)
    assert to_record(layered) == to_record(copied)
    assert layered.edges == copied.edges


def test_shadowing_names_bind_in_their_own_scope() -> None:
    """Each entry's target follows the binding of the scope it is written in: a local
    import or alias over the module's ``w``, a local ``def helper`` over the module's,
    a nested function reading its enclosing function's import, a class body's import
    not seen by its method, a local ``setattr`` not taken for the builtin."""
    facts = scan_source(SOURCE.encode(), MODULE, "plug/patch/shadow.py", False, SETTINGS)
    helper = f"{MODULE}:helper"
    assert _entries(facts) == [
        (12, "local_import", "up.other.worker.Worker.run", "assignment", helper),
        (17, "local_alias", "up.worker.Worker.stop", "assignment", helper),
        (24, "local_def", "up.worker.Worker.go", "assignment", f"{MODULE}:local_def.helper"),
        (31, "nested.inner", "up.deep.Deep.x", "assignment", helper),
        (35, "nested.inner.innermost", "up.z.worker.Z.y", "assignment", "plug.helpers:scale"),
        (44, "plain", "up.worker.Worker.plain", "assignment", helper),
        (54, "real_setattr", "up.worker.Worker.b", "setattr", helper),
        (61, "Holder.method", "up.worker.Worker.method", "assignment", helper),
        (64, "<module>", "up.worker.Worker.top", "assignment", helper),
    ]


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def test_a_scope_binding_nothing_shares_the_table_around_it(monkeypatch) -> None:
    """A function binding nothing the table records gets the enclosing table itself; one
    that binds gets an :class:`Overlay` holding its own bindings (and its enclosing
    functions'), one layer over the module's table, equal to the copy; over a module table
    of at most ``SMALL_TABLE`` names, a plain copy."""
    tree = ast.parse(SOURCE)
    bindings = names.ScopeBindings(tree)
    module_table = names.bindings_table(bindings.of(None), {}, MODULE, False)
    found = bindings.of(_functions(tree)["local_alias"])
    copy = names.layered_table(found, module_table, MODULE, False)
    assert copy.__class__ is dict
    assert list(copy.items()) == list(_copied_table(found, module_table, MODULE, False).items())
    monkeypatch.setattr(names, "SMALL_TABLE", len(module_table) - 1)
    functions = _functions(tree)

    plain = names.layered_table(bindings.of(functions["plain"]), module_table, MODULE, False)
    assert plain is module_table

    alias = names.layered_table(bindings.of(functions["local_alias"]), module_table, MODULE, False)
    assert isinstance(alias, Overlay)
    assert alias.outer is module_table
    assert alias.own == {"h": Binding("up.worker", "up")}
    assert dict(alias) == _copied_table(
        bindings.of(functions["local_alias"]), module_table, MODULE, False
    )
    assert alias.get("h") == Binding("up.worker", "up")
    assert alias.get("os") == Binding("os", "os")
    assert alias.get("missing") is None
    assert "h" in alias and "os" in alias and "missing" not in alias
    assert len(alias) == len(module_table)

    nested_own = {"inner": Binding(f"{MODULE}.nested.inner", MODULE)}
    nested_node, inner_node = functions["nested"], functions["inner"]
    nested = names.layered_table(bindings.of(nested_node), module_table, MODULE, False, nested_own)
    inner_own = {"innermost": Binding(f"{MODULE}.nested.inner.innermost", MODULE)}
    inner = names.layered_table(bindings.of(inner_node), nested, MODULE, False, inner_own)
    assert isinstance(inner, Overlay)
    assert inner.outer is module_table
    assert inner.own == {
        "w": Binding("up.deep", "up.deep"),
        "inner": Binding(f"{MODULE}.nested.inner", MODULE),
        "innermost": Binding(f"{MODULE}.nested.inner.innermost", MODULE),
    }
    copied = _copied_table(
        bindings.of(inner_node),
        _copied_table(bindings.of(nested_node), module_table, MODULE, False, nested_own),
        MODULE,
        False,
        inner_own,
    )
    assert dict(inner) == copied
    assert list(inner) == list(copied)


@pytest.mark.parametrize("small", [0, names.SMALL_TABLE])
def test_every_function_table_equals_the_copy(monkeypatch, small) -> None:
    """For every function of the file, nested ones through their enclosing tables, the
    layered table holds exactly the copied table's names and bindings."""
    monkeypatch.setattr(names, "SMALL_TABLE", small)
    tree = ast.parse(SOURCE)
    bindings = names.ScopeBindings(tree)
    module_table = names.bindings_table(bindings.of(None), {}, MODULE, False)

    def visit(body, layered, copied) -> int:
        count = 0
        for node in names.walk_statements(body):
            if isinstance(node, ast.FunctionDef):
                found = bindings.of(node)
                own = {
                    s.name: Binding(f"{MODULE}.{node.name}.{s.name}", MODULE)
                    for s in found
                    if isinstance(s, (ast.FunctionDef, ast.ClassDef))
                }
                inner = names.layered_table(found, layered, MODULE, False, own)
                expected = _copied_table(found, copied, MODULE, False, own)
                assert dict(inner) == expected
                assert list(inner) == list(expected)
                count += 1 + visit(node.body, inner, expected)
            elif isinstance(node, ast.ClassDef):
                count += visit(node.body, layered, copied)
        return count

    assert visit(tree.body, module_table, dict(module_table)) == 12
