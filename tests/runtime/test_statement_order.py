"""The statements of a scope are read in the order a run reaches their blocks, a later
binding winning: a ``try``'s ``else`` and ``finally`` after its body (a name the ``try``
imports and its ``else`` rebinds is the ``else``'s binding), its ``except`` handlers, the
fallback that runs only when the body fails, before the body (the ``try`` import wins over
``except ImportError``); an ``if``'s ``else`` before its body (the branch written first
wins); a loop's ``else`` after its body. The same for :func:`names.walk_statements` and for
:class:`names.ScopeBindings`."""

from __future__ import annotations

import ast

from patchkeeper.runtime.syntax import names

SOURCE = """try:
    from plug.fast import kernel, backend
except ImportError:
    from plug.slow import kernel, backend
else:
    from plug.checked import kernel
finally:
    done = True
if done:
    from plug.a import helper
else:
    from plug.b import helper
for item in ():
    step = 1
else:
    step = 2
"""


def test_walk_statements_order() -> None:
    tree = ast.parse(SOURCE)
    lines = [node.lineno for node in names.walk_statements(tree.body)]
    assert lines == [1, 4, 2, 6, 8, 9, 12, 10, 13, 14, 16]


def test_scope_bindings_order() -> None:
    tree = ast.parse(SOURCE)
    found = [node.lineno for node in names.ScopeBindings(tree).of(None)]
    assert found == [4, 2, 6, 8, 12, 10, 14, 16]


def test_else_rebinds_the_try_import_and_the_fallback_does_not() -> None:
    tree = ast.parse(SOURCE)
    table = names.scope_table(tree.body, {}, "plug.patch", False)
    assert table["kernel"] == names.Binding("plug.checked.kernel", "plug.checked")
    assert table["backend"] == names.Binding("plug.fast.backend", "plug.fast")
    assert table["helper"] == names.Binding("plug.a.helper", "plug.a")
    from_bindings = names.bindings_table(
        names.ScopeBindings(tree).of(None), {}, "plug.patch", False
    )
    assert from_bindings == table
