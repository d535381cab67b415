"""The ``sys.modules`` forms of runtime patches, for the file scanner: a name bound to an
item of ``sys.modules`` (``mod = sys.modules["vllm.x"]``, then ``mod.attr = value``), the
module a ``sys.modules`` key names, the loops over literal items or over ``sys.modules``
around a statement (an attribute swapped in every module that binds an original), and
``sys.modules[key] = module`` itself. The other statement forms are
:mod:`patchkeeper.runtime.inventory.assignment_forms`, whose mixin derives from this one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from patchkeeper.runtime.inventory import module_constants
from patchkeeper.runtime.inventory.file_facts import is_plugin
from patchkeeper.runtime.inventory.loop_literals import (
    Item,
    literal_items,
    module_tables,
    module_variable,
    object_items,
    spread_original,
    swap_guards,
    sys_modules_alias,
    unnamed_swap,
)
from patchkeeper.runtime.inventory.own_modules import own_module
from patchkeeper.runtime.inventory.parameter_forms import ParameterForms
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.names import Table


class SysModulesForms(ParameterForms):
    """Mixin of the file scanner: the ``sys.modules`` forms and the loops around a statement."""

    tree: ast.Module
    #: The literal items of the ``for`` loops around the statement (outermost first; an
    #: empty list for a loop over anything else).
    _loops: list[list[Item]]
    #: The variable and elements of each loop around the statement over a display of
    #: objects (:func:`.loop_literals.object_items`; ``None`` for any other loop).
    _object_loops: list[tuple[str, list[ast.expr]] | None]
    #: The loops over ``sys.modules`` around the statement (outermost first): the variable
    #: bound to each module, and the original each of its attributes is compared with.
    _swaps: list[tuple[str, dict[str, ast.expr]]]
    #: The names the module binds once to a display (:func:`.loop_literals.module_tables`).
    _tables: dict[str, ast.expr] | None
    #: Per scope, the names last bound to an item of ``sys.modules``: name -> its key.
    _aliases: dict[str, dict[str, ast.expr]]

    # Defined by :class:`~.assignment_forms.AssignmentForms`, the scanner's form mixin.
    def named_entry(
        self,
        conds: Any,
        line: int,
        scope: str,
        target: str,
        module_hint: str,
        replacement: str,
        mechanism: Mechanism = Mechanism.ASSIGNMENT,
        refs: set[str] | frozenset[str] = frozenset(),
        descriptors: tuple[str, ...] = (),
    ) -> None:
        raise NotImplementedError

    def describe(self, value: ast.expr, table: Table) -> tuple[str, tuple[str, ...], set[str]]:
        raise NotImplementedError

    def _shadowed(self, scope: str) -> tuple[str, ...]:
        raise NotImplementedError

    def _constants(self, scope: str) -> dict[str, str]:
        raise NotImplementedError

    def module_alias(self, stmt: ast.stmt, scope: str, table: Table) -> None:
        """Keep, in scan order, which names of ``scope`` are bound to an item of ``sys.modules``
        (:func:`.loop_literals.sys_modules_alias`): a later ``mod.attr = value`` sets ``attr``
        on the module the key names. Any other binding of the name ends it."""
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            aliases = self._aliases.setdefault(scope, {})
            cleared, alias = sys_modules_alias(stmt, lambda e: self._is_sys_modules(e, table))
            for name in cleared:
                aliases.pop(name, None)
            if alias is not None:
                aliases[alias[0]] = alias[1]

    def aliased(self, expr: ast.expr, scope: str) -> ast.expr | None:
        """The key of the ``sys.modules`` item the name ``expr`` is bound to in ``scope``
        (:meth:`module_alias`), else ``None``."""
        if not isinstance(expr, ast.Name):
            return None
        return self._aliases.get(scope, {}).get(expr.id)

    def module_named(self, key: ast.expr, item: Item, scope: str, table: Table) -> str | None:
        """The upstream module the ``sys.modules`` key ``key`` names: a variable of the
        loop's ``item``, a literal or a module constant; ``None`` otherwise or for a plugin
        module."""
        name: str | None = item.get(key.id) if isinstance(key, ast.Name) else None
        name = name or module_constants.local_value(
            key, table, self._constants(scope), self._shadowed(scope)
        )
        if name is None or is_plugin(name, self.cfg.package):
            return None
        return name

    @contextmanager
    def loop_items(self, stmt: ast.stmt, table: Table) -> Iterator[None]:
        """While the body of the loop ``stmt`` is scanned, its literal items are known, and
        for a loop over ``sys.modules`` its module variable and the originals compared."""
        if self._tables is None:
            self._tables = module_tables(self.tree)
        self._loops.append(literal_items(stmt, self._tables) or [])
        self._object_loops.append(object_items(stmt, self._tables))
        variable = module_variable(stmt, lambda e: self._is_sys_modules(e, table))
        if variable:
            self._swaps.append((variable, swap_guards(stmt, variable)))
        try:
            yield
        finally:
            self._loops.pop()
            self._object_loops.pop()
            if variable:
                self._swaps.pop()

    def _is_sys_modules(self, expr: ast.expr, table: Table) -> bool:
        bound = self.external(expr, table)
        return bound is not None and bound.dotted == "sys.modules"

    def swapped(
        self, expr: ast.expr, attr: str, table: Table, spread: tuple[ast.expr, str] | None = None
    ) -> names.Binding | None:
        """The upstream original that ``expr.attr = value`` swaps in a loop over
        ``sys.modules`` when ``expr`` is the loop's module variable: the one the loop compares
        that attribute with (:func:`.loop_literals.swap_guards`), else, with ``spread`` (the
        value set and the scope), the one the scope set that attribute of to that value
        (:func:`.loop_literals.spread_original`); every module binding it gets the
        replacement. Neither: a ``setattr-name`` problem, ``None``."""
        if not isinstance(expr, ast.Name):
            return None
        for variable, guards in reversed(self._swaps):
            if variable == expr.id:
                original = guards.get(attr)
                bound = self.external(original, table) if original is not None else None
                if bound is None and spread is not None:
                    value = self.describe(spread[0], table)[0]
                    bound = spread_original(self.facts.entries, spread[1], attr, value)
                problem = unnamed_swap(expr.id, attr, expr.lineno)
                if bound is None and problem not in self.facts.problems:
                    self.facts.problems.append(problem)
                return bound
        return None

    def sys_modules_item(
        self, key: ast.expr, replacement: str, line: int, conds: Any, scope: str, table: Table
    ) -> None:
        """An entry for ``sys.modules[key] = module``: the module named by a literal or a
        module constant; a constant of another plugin module waits for the inventory; any
        other key is the computed-key form
        (:mod:`patchkeeper.runtime.inventory.module_constants`). A key that names only the
        plugin's own modules makes no entry (:mod:`.own_modules`)."""
        name = module_constants.local_value(
            key, table, self._constants(scope), self._shadowed(scope)
        )
        fields = dict(scope=scope, line=line, mechanism=Mechanism.SYS_MODULES)
        if own_module(name, self.tree, (scope, key), (self.module, self.cfg.package)):
            return
        if name is not None:
            self.named_entry(
                conds, line, scope, name, name, replacement, mechanism=Mechanism.SYS_MODULES
            )
            return
        computed = PatchEntry(
            file=self.facts.file,
            module=self.module,
            target=module_constants.SYS_MODULES,
            key=ast.unparse(key),
            replacement=replacement,
            **fields,  # type: ignore[arg-type]
        )
        path = module_constants.imported_name(key, table, self.cfg.package)
        if path is not None:
            self.facts.named.append((computed, tuple(conds), path))
        else:
            self.facts.entries.append((computed, tuple(conds)))
