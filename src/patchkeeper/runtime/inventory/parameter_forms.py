"""The scanner's part of the patches made on a parameter of a plugin function
(:mod:`patchkeeper.runtime.inventory.parameter_patches`): keeping each such statement for the
inventory, and what the arguments of every call of a plugin object are."""

from __future__ import annotations

import ast
from typing import Any

from patchkeeper.runtime.inventory.decorator_forms import DecoratorForms
from patchkeeper.runtime.inventory.file_facts import is_plugin
from patchkeeper.runtime.inventory.parameter_patches import (
    LITERAL,
    OWN,
    PARAMETER,
    UNKNOWN,
    UPSTREAM,
    fixed_parameter,
    rebound_names,
    wraps_original,
)
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.names import Table


class ParameterForms(DecoratorForms):
    """Mixin of the file scanner: patches made on a function's parameter, and calls' arguments."""

    bindings: names.ScopeBindings
    _defs: dict[str, list[names.FunctionDef]] | None
    #: The :func:`.parameter_patches.rebound_names` of each function, by qualified name.
    _rebound: dict[str, frozenset[str]]

    def _function_node(self, scope: str) -> names.FunctionNode | None:
        """The ``def`` of the function whose qualified name is ``scope``, else ``None``."""
        if self._defs is None:
            self._defs = self.bindings.functions()
        for node, _outer, path in self._defs.get(scope.rpartition(".")[2], []):
            if path == scope:
                return node
        return None

    def fixed_parameter(self, expr: ast.expr, scope: str) -> tuple[int, names.FunctionNode] | None:
        """The index of the parameter ``expr`` names in the plugin function ``scope`` (no
        method: its callers are not all named) and that function's ``def``, when the function
        never binds the name again (:func:`.parameter_patches.fixed_parameter`)."""
        if not isinstance(expr, ast.Name):
            return None
        info = self.facts.functions.get(scope)
        if info is None or scope.rpartition(".")[0] in self.facts.classes:
            return None
        name = expr.id
        if name not in info.params:
            return None
        node = self._function_node(scope)
        if node is None:
            return None
        rebound = self._rebound.get(scope)
        if rebound is None:  # every call's arguments ask: the function is walked once
            rebound = self._rebound[scope] = rebound_names(node)
        index = fixed_parameter(name, info.params, rebound)
        return None if index is None else (index, node)

    def parameter_patch(
        self,
        obj: ast.expr,
        attr: str,
        value: ast.expr,
        line: int,
        conds: Any,
        scope: str,
        described: tuple[str, tuple[str, ...]],
        mechanism: Mechanism,
    ) -> None:
        """Keep ``param.attr = value`` / ``setattr(param, "attr", value)`` made on a
        parameter of the plugin function ``scope`` for the inventory, which names it after
        what the function's callers pass (:mod:`.parameter_patches`); ``described``: the
        value's replacement and descriptors (:meth:`AssignmentForms.describe`); a *wrapper*
        when the value calls on the original (:func:`.parameter_patches.wraps_original`)."""
        found = self.fixed_parameter(obj, scope)
        if found is None:
            return
        index, node = found
        replacement, descriptors = described
        param = obj.id if isinstance(obj, ast.Name) else ""
        if mechanism is Mechanism.ASSIGNMENT and wraps_original(node, param, attr, value):
            mechanism = Mechanism.WRAPPER
        entry = PatchEntry(
            file=self.facts.file,
            line=line,
            module=self.module,
            scope=scope,
            target=attr,
            mechanism=mechanism,
            replacement=replacement,
            descriptors=descriptors,
        )
        self.facts.through_params.append((entry, tuple(conds), f"{self.module}.{scope}", index))

    def call_arguments(
        self, call: ast.Call, scope: str, table: Table
    ) -> tuple[tuple[str, str, str, str], ...]:
        """What each argument of ``call`` is (:mod:`.parameter_patches`): by position
        (``"0"``) or keyword, an :data:`~.parameter_patches.UPSTREAM` object (its dotted
        path and module), a :data:`~.parameter_patches.PARAMETER` of the function ``scope``
        (its dotted path and the index), a plugin name (:data:`~.parameter_patches.OWN`),
        a string literal (:data:`~.parameter_patches.LITERAL`, its text) or
        :data:`~.parameter_patches.UNKNOWN`; an unpacked ``*args`` ends the positions
        (``"*"``), a ``**kwargs`` is ``"**"``."""
        out: list[tuple[str, str, str, str]] = []
        for index, arg in enumerate(call.args):
            if arg.__class__ is ast.Starred:
                out.append(("*", UNKNOWN, "", ""))
                break
            out.append((str(index), *self._argument(arg, scope, table)))
        for keyword in call.keywords:
            if keyword.arg is None:
                out.append(("**", UNKNOWN, "", ""))
            else:
                out.append((keyword.arg, *self._argument(keyword.value, scope, table)))
        return tuple(out)

    def _argument(self, arg: ast.expr, scope: str, table: Table) -> tuple[str, str, str]:
        """``(kind, value, module)`` of one argument (:meth:`call_arguments`)."""
        found = self.fixed_parameter(arg, scope)
        if found is not None:
            return PARAMETER, f"{self.module}.{scope}", str(found[0])
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return LITERAL, arg.value, ""
        if arg.__class__ is not ast.Name and arg.__class__ is not ast.Attribute:
            return UNKNOWN, "", ""
        bound = names.dotted(arg, table)
        if bound is None:
            return UNKNOWN, "", ""
        if is_plugin(bound.dotted, self.cfg.package):
            return OWN, bound.dotted, ""
        if self.external(arg, table) is not None:
            return UPSTREAM, bound.dotted, bound.module
        return UNKNOWN, "", ""
