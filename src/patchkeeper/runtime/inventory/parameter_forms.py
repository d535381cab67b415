"""The scanner's part of the patches made on a parameter of a plugin function
(:mod:`patchkeeper.runtime.inventory.parameter_patches`): keeping each such statement for the
inventory, and what the arguments of every call of a plugin object are."""

from __future__ import annotations

import ast
from typing import Any, cast

from patchkeeper.runtime.inventory.decorator_forms import DecoratorForms
from patchkeeper.runtime.inventory.file_facts import is_external, is_plugin
from patchkeeper.runtime.inventory.loop_literals import Item
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
from patchkeeper.runtime.inventory.unnamed_wrappers import wraps_what_it_replaces
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.names import Table
from patchkeeper.runtime.syntax.unparse import expression_text


class ParameterForms(DecoratorForms):
    """Mixin of the file scanner: patches made on a function's parameter, and calls' arguments."""

    bindings: names.ScopeBindings
    _defs: dict[str, list[names.FunctionDef]] | None
    #: The :func:`.parameter_patches.rebound_names` of each function, by qualified name.
    _rebound: dict[str, frozenset[str]]
    _object_loops: list[tuple[str, list[ast.expr]] | None]

    # Defined by :class:`~.sys_modules_forms.SysModulesForms`, a mixin of the scanner.
    def aliased(self, expr: ast.expr, scope: str) -> ast.expr | None:
        raise NotImplementedError

    def module_named(self, key: ast.expr, item: Item, scope: str, table: Table) -> str | None:
        raise NotImplementedError

    def _is_sys_modules(self, expr: ast.expr, table: Table) -> bool:
        raise NotImplementedError

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
        declared = declares_class_or_module(node, index)
        path = f"{self.module}.{scope}"
        self.facts.through_params.append((entry, tuple(conds), path, index, declared))

    def loop_objects(self, used: list[ast.expr]) -> list[dict[str, ast.expr]]:
        """One mapping per element of the innermost loop around the statement over a
        display of objects (:func:`.loop_literals.object_items`) whose variable is one of
        ``used`` (a call's arguments), the variable to the element; a single empty mapping
        when there is none."""
        given = {arg.id for arg in used if isinstance(arg, ast.Name)}
        for loop in reversed(self._object_loops):
            if loop is not None and loop[0] in given:
                return [{loop[0]: element} for element in loop[1]]
        return [{}]

    def call_arguments(
        self,
        call: ast.Call,
        scope: str,
        table: Table,
        item: Item | None = None,
        element: dict[str, ast.expr] | None = None,
    ) -> tuple[tuple[str, str, str, str], ...]:
        """What each argument of ``call`` is (:mod:`.parameter_patches`): by position
        (``"0"``) or keyword, an :data:`~.parameter_patches.UPSTREAM` object (its dotted
        path and module; a module also as ``sys.modules[name]``, ``sys.modules.get(name)``
        or ``importlib.import_module(name)``, the name a literal, a module constant or a
        variable of the loop's ``item``), a :data:`~.parameter_patches.PARAMETER` of the
        function ``scope`` (its dotted path and the index), a plugin name
        (:data:`~.parameter_patches.OWN`), a string literal
        (:data:`~.parameter_patches.LITERAL`, its text; also a variable of a loop over
        literal strings, the text of its ``item``) or :data:`~.parameter_patches.UNKNOWN`
        (the argument's source text, for the finding that says it cannot be followed); an
        unpacked ``*args`` ends the positions (``"*"``), a ``**kwargs`` is ``"**"``. The
        variable of a loop over a display of objects is read as the loop's ``element``
        (:meth:`loop_objects`)."""
        given = item or {}
        objects = element or {}
        out: list[tuple[str, str, str, str]] = []
        for index, arg in enumerate(call.args):
            if arg.__class__ is ast.Starred:
                out.append(("*", UNKNOWN, expression_text(arg), ""))
                break
            arg = objects.get(arg.id, arg) if isinstance(arg, ast.Name) else arg
            out.append((str(index), *self._argument(arg, scope, table, given)))
        for keyword in call.keywords:
            if keyword.arg is None:
                out.append(("**", UNKNOWN, expression_text(keyword.value), ""))
            else:
                value = keyword.value
                value = objects.get(value.id, value) if isinstance(value, ast.Name) else value
                out.append((keyword.arg, *self._argument(value, scope, table, given)))
        return tuple(out)

    def _argument(
        self, arg: ast.expr, scope: str, table: Table, item: Item
    ) -> tuple[str, str, str]:
        """``(kind, value, module)`` of one argument (:meth:`call_arguments`)."""
        found = self.fixed_parameter(arg, scope)
        if found is not None:
            return PARAMETER, f"{self.module}.{scope}", str(found[0])
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return LITERAL, arg.value, ""
        if isinstance(arg, ast.Name) and arg.id in item:
            return LITERAL, item[arg.id], ""
        found_module = self.module_argument(arg, scope, table, item)
        if found_module is not None:
            if not found_module:
                return UNKNOWN, expression_text(arg), ""
            # the object's module: the one looked up by name (an attribute read of it)
            module = found_module
            while isinstance(arg, ast.Attribute):
                arg = arg.value
                module = module.rpartition(".")[0]
            return UPSTREAM, found_module, module
        # the argument's text is written out only for an argument not followed
        if arg.__class__ is not ast.Name and arg.__class__ is not ast.Attribute:
            return UNKNOWN, expression_text(arg), ""
        bound = names.dotted(arg, table)
        if bound is None:
            return UNKNOWN, expression_text(arg), ""
        if is_plugin(bound.dotted, self.cfg.package):
            return OWN, bound.dotted, ""
        if self.external(arg, table) is not None:
            return UPSTREAM, bound.dotted, bound.module
        return UNKNOWN, expression_text(arg), ""

    def module_argument(self, arg: ast.expr, scope: str, table: Table, item: Item) -> str | None:
        """The upstream module ``arg`` looks up by name: ``sys.modules[name]``,
        ``sys.modules.get(name)``, ``importlib.import_module(name)`` or a name bound to
        ``sys.modules[name]`` in ``scope`` (:meth:`.SysModulesForms.module_alias`), the name
        a literal, a module constant or a variable of the loop's ``item``; or the dotted path
        of an attribute read of one (``sys.modules.get(NAME).Runner``); ``""`` for such a
        lookup whose name is not an upstream module this reader can tell; ``None`` for any
        other expression."""
        if isinstance(arg, ast.Attribute):
            # an attribute of a module looked up by name: sys.modules.get(NAME).Runner
            owner = self.module_argument(arg.value, scope, table, item)
            return f"{owner}.{arg.attr}" if owner else owner
        key: ast.expr | None = self.aliased(arg, scope)
        if key is None and isinstance(arg, ast.Subscript):
            if self._is_sys_modules(arg.value, table):
                key = arg.slice
        elif key is None and isinstance(arg, ast.Call) and len(arg.args) >= 1:
            func = arg.func
            looked = isinstance(func, ast.Attribute) and func.attr == "get"
            if looked and self._is_sys_modules(cast(ast.Attribute, func).value, table):
                key = arg.args[0]
            else:
                bound = names.dotted(func, table)
                if bound is not None and bound.dotted == "importlib.import_module":
                    key = arg.args[0] if len(arg.args) == 1 else None
        if key is None:
            return None
        name = self.module_named(key, item, scope, table)
        if name is None or not is_external(name, self.cfg.package):
            return ""
        return name

    def parameter_pair(
        self,
        node: ast.Call,
        line: int,
        conds: Any,
        scope: str,
        described: tuple[str, tuple[str, ...]],
    ) -> bool:
        """Keep ``setattr(obj, name, value)`` whose ``obj`` and ``name`` are both parameters
        of the plugin function ``scope`` for the inventory, which names it after the pairs
        the function's callers pass (:func:`.parameter_patches.named_by_pairs`). Whether it
        is one."""
        held = self.fixed_parameter(node.args[0], scope)
        named = self.fixed_parameter(node.args[1], scope)
        if held is None or named is None:
            return False
        replacement, descriptors = described
        entry = PatchEntry(
            file=self.facts.file,
            line=line,
            module=self.module,
            scope=scope,
            target="",
            mechanism=Mechanism.SETATTR,
            replacement=replacement,
            descriptors=descriptors,
        )
        # a class or module by its annotation, or by what the value does: a wrapper that
        # calls the original it replaces patches whatever the callers pass
        declared = declares_class_or_module(held[1], held[0]) or wraps_what_it_replaces(
            held[1], node.args[0], node.args[1], node.args[2]
        )
        path = f"{self.module}.{scope}"
        self.facts.through_pairs.append((entry, tuple(conds), path, held[0], named[0], declared))
        return True


#: Annotations that declare a parameter a class or a module (:func:`declares_class_or_module`).
_CLASS_OR_MODULE = frozenset({"type", "Type", "typing.Type", "ModuleType", "types.ModuleType"})


def declares_class_or_module(node: names.FunctionNode, index: int) -> bool:
    """Whether the parameter ``index`` of the function ``node`` is annotated as a class or
    a module (``type``, ``type[X]``, ``Type[X]``, ``ModuleType``, ``X | None`` of one):
    what the function sets on it then changes the class or module for every user, a patch
    even when this reader cannot tell which one the callers pass."""
    args = node.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if index >= len(params):
        return False
    annotation = params[index].annotation
    parts: list[ast.expr] = [annotation] if annotation is not None else []
    while parts:
        part = parts.pop()
        if isinstance(part, ast.BinOp) and isinstance(part.op, ast.BitOr):
            parts += [part.left, part.right]
            continue
        if isinstance(part, ast.Subscript):
            part = part.value
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            text = part.value.split("[")[0].strip()
        else:
            text = expression_text(part)
        if text in _CLASS_OR_MODULE:
            return True
    return False
