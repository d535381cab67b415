"""The statement forms of runtime patches (step 2 of the runtime audit workflow), for the
file scanner.

- ``module.attr = value`` / ``Class.attr = value`` on an upstream object reached through an
  import (*assignment*; *wrapper* when the value mentions the original, directly or in the
  body of the plugin function installed or of a function of its module that body calls,
  :mod:`.wrapped_calls`; the inventory, which sees every file, turns an
  assignment of a plugin class deriving from an upstream class into a *subclass* swap);
- ``setattr(obj, "name", value)``, the name also a module constant of this or another
  plugin module (``setattr(obj, NAME, value)``,
  :mod:`patchkeeper.runtime.inventory.module_constants`), the object also
  ``sys.modules["vllm.x"]``, and the name or the module also a variable of a loop over
  literal strings, or over a module constant or dict of them (one entry per item:
  :mod:`patchkeeper.runtime.inventory.loop_literals`);
- ``mod = sys.modules[m]`` (or ``sys.modules.get(m)``), then ``mod.attr = value`` or
  ``setattr(mod, "attr", value)`` in the same scope: the module ``m`` names (a literal, a
  module constant or a variable of a loop over literal strings, one entry per item), as
  ``sys.modules[m].attr = value`` would be (:meth:`.SysModulesForms.module_alias`);
- ``module.attr = value`` / ``setattr(module, "attr", value)`` in a loop over
  ``sys.modules``, named after the upstream original the loop compares ``module.attr``
  with (:meth:`.SysModulesForms.swapped`; without such a comparison a ``setattr-name``
  finding);
  any other name on an upstream object (a variable set at run time, as in ``for n in
  (...): if hasattr(C, n): name = n``) is a ``setattr-name`` finding at its line, so a patch
  the inventory cannot name is not silently left out;
- ``fn.__globals__["name"] = value`` on an upstream function: it replaces the global
  ``name`` of the function's module, and is named after it (``vllm.x.name``);
- registry and dict mutation: ``TABLE[key] = v``, ``TABLE.update({...})``,
  ``REGISTRY.register(key, v)``, and ``LIST.append(v)`` / ``SET.add(v)`` (one argument, the
  key its source text) on upstream objects; ``LIST.extend([...])``, ``T = T + (...)``,
  ``T = T | frozenset({...})``, ``T += (...)``, ``T |= {...}`` (one entry per item of the
  collection literal added, as ``append`` gives); not ``Class.register(Other)``, an ABC's
  virtual subclass (:func:`.collection_forms.virtual_subclass`): upstream's names and
  registries stay as they were;
- ``sys.modules[name] = module`` (the name a literal or a module constant; any other key
  is the computed-key form: target ``sys.modules``, key its source text); a key naming
  only the plugin's own modules is no entry (:mod:`.own_modules`);
- ``patch(module, attribute)(fn)``, the decorator called directly;
- ``param.attr = value`` or ``setattr(param, "attr", value)`` inside a plugin function
  whose parameter ``param`` every call of that function in the plugin gives an upstream
  module or class (``_apply(vllm.x)``): named by the inventory after each object passed
  (:mod:`patchkeeper.runtime.inventory.parameter_patches`); ``setattr(param, name, value)``
  whose name is a parameter too, named after the (object, literal) pairs each call passes;
- removal from an upstream registry: ``del TABLE[key]``, ``del module.attr``,
  ``TABLE.pop(key)``, ``.remove(x)``, ``.discard(x)`` (replacement ``<removed>``); and
  ``del sys.modules[name]`` and ``sys.modules.pop(name, None)`` (the module is imported
  afresh: a *sys-modules* entry, replacement ``<removed>``), in a loop or a comprehension
  alike.

``X.update(...)`` is a registry entry only in the form of a dict's ``update`` (one mapping
or iterable, and keywords): ``jax.config.update("name", value)`` or ``nnx.update(model,
state)`` is a call of a library function, not a patch.
"""

from __future__ import annotations

import ast
from typing import Any

from patchkeeper.runtime.inventory import guarded_definitions, module_constants
from patchkeeper.runtime.inventory.collection_forms import (
    EXTENDING,
    collection_items,
    dict_update,
    extended,
    virtual_subclass,
)
from patchkeeper.runtime.inventory.decorator_forms import DESCRIPTORS, deco_name
from patchkeeper.runtime.inventory.file_facts import is_plugin
from patchkeeper.runtime.inventory.loop_literals import (
    Item,
    iterations,
)
from patchkeeper.runtime.inventory.sys_modules_forms import SysModulesForms
from patchkeeper.runtime.inventory.unnamed_wrappers import unnamed_wrapper_problem
from patchkeeper.runtime.inventory.wrapped_calls import reaches_original
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax import astwalk, names
from patchkeeper.runtime.syntax.names import Table


class AssignmentForms(SysModulesForms):
    """Mixin of the file scanner: entries made by statements and calls."""

    tree: ast.Module
    bindings: names.ScopeBindings
    module_table: Table
    is_package: bool
    _defs: dict[str, list[names.FunctionDef]] | None
    #: Each function's constants, found when first asked for (:meth:`_constants`).
    _function_defs: module_constants.FunctionConstants

    def removal(self, stmt: ast.Delete, conds: Any, scope: str, table: Table) -> None:
        """Entries for ``del TABLE[key]`` / ``del module.attr`` on upstream objects."""
        for target in stmt.targets:
            if isinstance(target, ast.Subscript):
                bound = self.external(target.value, table)
                if bound is not None and bound.dotted == "sys.modules":
                    # the module is imported afresh next time (a reload of an upstream module)
                    self.sys_modules_item(
                        target.slice, "<removed>", stmt.lineno, conds, scope, table
                    )
                elif bound is not None:
                    key = ast.unparse(target.slice)
                    self.upstream_entry(
                        conds, stmt.lineno, scope, bound, Mechanism.REGISTRY, "<removed>", key=key
                    )
            elif isinstance(target, ast.Attribute):
                bound = self.external(target, table)
                if bound is not None:
                    self.upstream_entry(
                        conds, stmt.lineno, scope, bound, Mechanism.ASSIGNMENT, "<removed>"
                    )

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
        """Record an entry that replaces the upstream object at dotted path ``target``
        (``module_hint``: its longest prefix known to be a module), a *wrapper* when the
        ``replacement`` mentions ``target`` itself (``refs``: the dotted paths it mentions,
        :meth:`describe`) or is a function of this module that reaches the original
        (:meth:`wraps`), as for an attribute assignment, else by ``mechanism``;
        ``descriptors`` as :attr:`PatchEntry.descriptors`."""
        wrapper = target in refs or self.wraps(replacement, target)
        self.add(
            conds,
            line=line,
            scope=scope,
            target=target,
            module_hint=module_hint,
            mechanism=Mechanism.WRAPPER if wrapper else mechanism,
            replacement=replacement,
            descriptors=descriptors,
        )

    def assignment(
        self,
        target: ast.expr,
        value: ast.expr,
        stmt: ast.stmt,
        conds: Any,
        scope: str,
        table: Table,
    ) -> None:
        """An entry for ``target = value`` when ``target`` is an upstream attribute or an
        item of an upstream registry or of ``sys.modules``."""
        if isinstance(target, ast.Attribute):
            bound = self.external(target, table)
            bound = bound or self.swapped(target.value, target.attr, table, (value, scope))
            key = self.aliased(target.value, scope) if bound is None else None
            if key is not None:
                replacement, descriptors, refs = self.describe(value, table)
                for item in iterations(self._loops, [key]):
                    module = self.module_named(key, item, scope, table)
                    if module is not None:
                        self.named_entry(
                            conds, stmt.lineno, scope, f"{module}.{target.attr}", module,
                            replacement, refs=refs, descriptors=descriptors,
                        )  # fmt: skip
                return
            if bound is None:
                replacement, descriptors, _ = self.describe(value, table)
                self.parameter_patch(
                    target.value, target.attr, value, stmt.lineno, conds, scope,
                    (replacement, descriptors), Mechanism.ASSIGNMENT,
                )  # fmt: skip
                self.unnamed_wrapper(target.value, target.attr, value, stmt.lineno, scope)
                return
            added = extended(value, lambda side: names.dotted(side, table), bound.dotted)
            if added:
                self.extension(bound, added, stmt.lineno, conds, scope, table)
                return
            replacement, descriptors, refs = self.describe(value, table)
            mechanism = Mechanism.ASSIGNMENT
            if bound.dotted in refs or self.wraps(replacement, bound.dotted):
                mechanism = Mechanism.WRAPPER
            self.upstream_entry(
                conds, stmt.lineno, scope, bound, mechanism, replacement, descriptors=descriptors
            )
        elif isinstance(target, ast.Subscript):
            self.item_assignment(target, value, stmt, conds, scope, table)

    def extension(
        self,
        bound: names.Binding,
        added: list[ast.expr],
        line: int,
        conds: Any,
        scope: str,
        table: Table,
    ) -> None:
        """A *registry* entry per item ``added`` puts into the upstream collection
        ``bound`` (``T = T + ("a",)``, ``T |= {"a": f}``, ``T.extend(["a"])``): the key each
        item's source text, as for ``LIST.append(item)``; the collection's other items are
        upstream's."""
        for item in added:
            replacement = self.describe(item, table)[0]
            self.upstream_entry(
                conds, line, scope, bound, Mechanism.REGISTRY, replacement, key=ast.unparse(item)
            )

    def augmented(self, stmt: ast.AugAssign, conds: Any, scope: str, table: Table) -> None:
        """Entries for ``T += items`` / ``T |= items`` (a collection literal) on an upstream
        collection or an item of an upstream registry (:meth:`extension`); on a name
        imported from upstream only ``+= [...]``, which extends upstream's list in place
        (a tuple's ``+=`` binds the plugin's own name to a new one)."""
        items = collection_items(stmt.value)
        if not isinstance(stmt.op, EXTENDING) or not items:
            return
        target = stmt.target
        if isinstance(target, ast.Name) and not isinstance(stmt.value, ast.List):
            return
        bound = self.external(target, table)
        if bound is not None:
            self.extension(bound, items, stmt.lineno, conds, scope, table)
            return
        if isinstance(target, ast.Subscript):  # REGISTRY["key"] += (...)
            bound = self.external(target.value, table)
            if bound is not None:
                self.upstream_entry(
                    conds, stmt.lineno, scope, bound, Mechanism.REGISTRY,
                    self.describe(stmt.value, table)[0], key=ast.unparse(target.slice),
                )  # fmt: skip

    def item_assignment(
        self,
        target: ast.Subscript,
        value: ast.expr,
        stmt: ast.stmt,
        conds: Any,
        scope: str,
        table: Table,
    ) -> None:
        if isinstance(target.value, ast.Attribute) and target.value.attr == "__globals__":
            self.globals_item(target.value.value, target.slice, value, stmt, conds, scope, table)
            return
        bound = self.external(target.value, table)
        if bound is None:
            return
        replacement, descriptors, _ = self.describe(value, table)
        key = target.slice
        if bound.dotted == "sys.modules":
            self.sys_modules_item(key, replacement, stmt.lineno, conds, scope, table)
            return
        self.upstream_entry(
            conds,
            stmt.lineno,
            scope,
            bound,
            Mechanism.REGISTRY,
            replacement,
            key=ast.unparse(key),
            descriptors=descriptors,
        )

    def globals_item(
        self,
        function: ast.expr,
        key: ast.expr,
        value: ast.expr,
        stmt: ast.stmt,
        conds: Any,
        scope: str,
        table: Table,
    ) -> None:
        """An entry for ``fn.__globals__["name"] = value``, ``fn`` an upstream function: the
        global ``name`` of ``fn``'s module is replaced (for every function of that module),
        so the entry is named ``module.name``."""
        bound = self.external(function, table)
        if bound is None or not isinstance(key, ast.Constant) or not isinstance(key.value, str):
            return
        module = bound.dotted.rpartition(".")[0]  # a function is read from its module
        target = f"{module}.{key.value}"
        replacement, descriptors, refs = self.describe(value, table)
        self.named_entry(
            conds, stmt.lineno, scope, target, bound.module, replacement, refs=refs,
            descriptors=descriptors,
        )  # fmt: skip

    def call(self, node: ast.Call, conds: Any, scope: str, table: Table) -> None:
        """Entries for ``setattr(...)``, ``patch(m, a)(fn)``, ``X.update(...)`` and
        ``X.register(...)`` on upstream objects."""
        func = node.func
        if isinstance(func, ast.Name) and func.id == "setattr" and "setattr" not in table:
            self.setattr_call(node, conds, scope, table)
            return
        if isinstance(func, ast.Call) and self.is_patch_decorator(func.func, table):
            if node.args:
                replacement, descriptors, _ = self.describe(node.args[0], table)
                name = replacement.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
                self.decorator_entry(
                    func, name, replacement, descriptors, node.lineno, conds, scope
                )
            return
        removing = ("pop", "remove", "discard")
        adding = ("append", "add")
        if not isinstance(func, ast.Attribute) or func.attr not in (
            "update",
            "register",
            "extend",
            *removing,
            *adding,
        ):
            return
        bound = self.external(func.value, table)
        if bound is not None and bound.dotted == "sys.modules":
            if func.attr == "pop" and node.args:  # as ``del sys.modules[name]``
                self.sys_modules_item(node.args[0], "<removed>", node.lineno, conds, scope, table)
            return
        if bound is None:
            return
        if func.attr == "register" and virtual_subclass(node, bound.dotted):
            return  # Class.register(Other): an ABC's virtual subclass, upstream unchanged
        if func.attr == "extend":
            one = len(node.args) == 1 and not node.keywords
            items = collection_items(node.args[0]) if one else None
            if items:  # list.extend(["a", "b"])
                self.extension(bound, items, node.lineno, conds, scope, table)
            elif len(node.args) == 1 and not node.keywords:
                self.extension(bound, node.args, node.lineno, conds, scope, table)
            return
        if func.attr in adding:
            if len(node.args) == 1 and not node.keywords:  # list.append(x), set.add(x)
                replacement = self.describe(node.args[0], table)[0]
                added = ast.unparse(node.args[0])
                self.upstream_entry(
                    conds, node.lineno, scope, bound, Mechanism.REGISTRY, replacement, key=added
                )
            return
        keys: list[str | None] = []
        value: ast.expr | None = None
        if func.attr in removing:
            key = ast.unparse(node.args[0]) if node.args else None
            self.upstream_entry(
                conds, node.lineno, scope, bound, Mechanism.REGISTRY, "<removed>", key=key
            )
            return
        if func.attr == "update" and not dict_update(node):
            return  # jax.config.update("name", value), nnx.update(model, state): a call
        if func.attr == "update":
            for arg in node.args:
                if isinstance(arg, ast.Dict):
                    keys += [ast.unparse(k) if k is not None else None for k in arg.keys]
            keys += [repr(kw.arg) for kw in node.keywords if kw.arg]
        else:
            keys.append(ast.unparse(node.args[0]) if node.args else None)
            value = node.args[1] if len(node.args) > 1 else None
        replacement = self.describe(value, table)[0] if value is not None else "<expr>"
        for key in keys or [None]:
            self.upstream_entry(
                conds, node.lineno, scope, bound, Mechanism.REGISTRY, replacement, key=key
            )

    def _shadowed(self, scope: str) -> tuple[str, ...]:
        """The parameters of the function ``scope`` (they hide the module's constants)."""
        info = self.facts.functions.get(scope)
        return info.params if info is not None else ()

    def _constants(self, scope: str) -> dict[str, str]:
        """The constants a name can stand for in ``scope``: the module's, and those of the
        function ``scope`` itself, which hide the module's of the same name."""
        constants = self._function_defs.of(scope)
        return {**self.facts.constants, **constants} if constants else self.facts.constants

    def setattr_call(self, node: ast.Call, conds: Any, scope: str, table: Table) -> None:
        """Entries for ``setattr(obj, name, value)``: one per item of the loop around it
        when ``obj`` or ``name`` is one of its variables (:meth:`loop_items`)."""
        if len(node.args) < 3:
            return
        key = self.aliased(node.args[0], scope)
        used = [*node.args[:2], *([key] if key is not None else [])]
        for item in iterations(self._loops, used):
            self.setattr_item(node, item, conds, scope, table)

    def setattr_object(
        self, expr: ast.expr, item: Item, scope: str, table: Table
    ) -> names.Binding | None:
        """The upstream object ``expr`` (the first argument of ``setattr``) names:
        ``sys.modules[m]`` is the module ``m`` (a literal, a module constant, or a variable
        of the loop's ``item``), and so is a name bound to it (:meth:`module_alias`)."""
        key = self.aliased(expr, scope)
        if key is not None:
            name = self.module_named(key, item, scope, table)
            return names.Binding(name, name) if name is not None else None
        if isinstance(expr, ast.Subscript):
            bound = self.external(expr.value, table)
            if bound is None or bound.dotted != "sys.modules":
                return None
            name = self.module_named(expr.slice, item, scope, table)
            return names.Binding(name, name) if name is not None else None
        return self.external(expr, table)

    def setattr_item(
        self, node: ast.Call, item: Item, conds: Any, scope: str, table: Table
    ) -> None:
        name_node = node.args[1]
        name: str | None = item.get(name_node.id) if isinstance(name_node, ast.Name) else None
        name = name or module_constants.local_value(
            name_node, table, self._constants(scope), self._shadowed(scope), composed=True
        )
        replacement, descriptors, refs = self.describe(node.args[2], table)
        spread = (node.args[2], scope)
        swapped = self.swapped(node.args[0], name, table, spread) if name is not None else None
        if swapped is not None:  # setattr(module, "Request", new) in a loop over sys.modules
            self.named_entry(
                conds, node.lineno, scope, swapped.dotted, swapped.module or swapped.dotted,
                replacement, mechanism=Mechanism.SETATTR, refs=refs, descriptors=descriptors,
            )  # fmt: skip
            return
        bound = self.setattr_object(node.args[0], item, scope, table)
        if bound is None:
            if name is not None and self.fixed_parameter(node.args[0], scope) is not None:
                self.parameter_patch(
                    node.args[0], name, node.args[2], node.lineno, conds, scope,
                    (replacement, descriptors), Mechanism.SETATTR,
                )  # fmt: skip
            elif name is not None or not self.parameter_pair(
                node, node.lineno, conds, scope, (replacement, descriptors)
            ):
                self.unnamed_wrapper(node.args[0], node.args[1], node.args[2], node.lineno, scope)
            return
        if name is None:
            entry = PatchEntry(
                file=self.facts.file,
                line=node.lineno,
                module=self.module,
                scope=scope,
                target=bound.dotted,
                mechanism=Mechanism.SETATTR,
                module_hint=bound.module,
                replacement=replacement,
                descriptors=descriptors,
            )
            path = module_constants.imported_name(name_node, table, self.cfg.package)
            if path is not None:  # the attribute's name: a constant of another plugin module
                self.facts.named.append((entry, tuple(conds), path))
                return
            by_caller = self.fixed_parameter(name_node, scope)
            if by_caller is not None:  # the name: a parameter; its callers may pass literals
                path = f"{self.module}.{scope}"
                self.facts.through_names.append((entry, tuple(conds), path, by_caller[0]))
                return
            problem = (
                "setattr-name",
                f"setattr on {bound.dotted} with an attribute name this reader cannot tell "
                f"({ast.unparse(name_node)}): that patch is not listed; name the attribute "
                "with a string literal or a module constant",
                node.lineno,
            )
            if problem not in self.facts.problems:
                self.facts.problems.append(problem)
            return
        self.named_entry(
            conds, node.lineno, scope, f"{bound.dotted}.{name}", bound.module, replacement,
            mechanism=Mechanism.SETATTR, refs=refs, descriptors=descriptors,
        )  # fmt: skip

    def unnamed_wrapper(
        self, obj: ast.expr, name: ast.expr | str, value: ast.expr, line: int, scope: str
    ) -> None:
        """Keep the ``setattr-name`` finding of a wrapper set on a class or module the reader
        cannot name (:func:`.unnamed_wrappers.unnamed_wrapper_problem`): ``obj.name =
        value`` (``name`` the attribute) or ``setattr(obj, name, value)`` in the plugin
        function ``scope``."""
        function = self._function_node(scope) if scope else None
        if function is None:
            return
        parameter = self.fixed_parameter(obj, scope) is not None
        problem = unnamed_wrapper_problem(function, obj, name, value, line, parameter=parameter)
        if problem is not None and problem not in self.facts.problems:
            self.facts.problems.append(problem)

    # ----------------------------------------------------------------- values
    def describe(self, value: ast.expr, table: Table) -> tuple[str, tuple[str, ...], set[str]]:
        """(replacement, descriptors, dotted paths the value mentions).

        A value that is only a reading of one object (``old``, bound to ``m.f`` before a
        ``try``; ``m.f`` itself) mentions nothing besides: setting ``m.f`` to it puts back
        what ``m.f`` held, which is no code that calls the original (no *wrapper*). A
        mention is any reading :func:`~patchkeeper.runtime.syntax.names.dotted` follows
        (``getattr(m, "f")``, ``vars(m.C)["f"]``...); ``m.C.f.__func__`` counts as
        ``m.C.f`` (the function of the classmethod or staticmethod saved)."""
        refs = {
            b.dotted.removesuffix(".__func__")
            for n in astwalk.walk_scope([value])
            if isinstance(n, _READINGS)
            if (b := names.dotted(n, table)) is not None
        }
        read = names.dotted(value, table)
        if read is not None:
            refs.discard(read.dotted)
        descriptors: list[str] = []
        node = value
        while isinstance(node, ast.Call) and node.args:
            wrapper = deco_name(node.func)
            descriptors.append(wrapper)
            if wrapper.split(".")[-1] not in DESCRIPTORS:
                break
            node = node.args[0]
        if isinstance(node, ast.Lambda):
            return "<lambda>", tuple(descriptors), refs
        if isinstance(node, ast.Call):
            node = node.func
        bound = names.dotted(node, table) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if bound is None and table is self.module_table:  # a def under a module-level if, try
            bound = guarded_definitions.binding(node, self.tree, self.module)
        if bound is not None and is_plugin(bound.dotted, self.cfg.package):
            module = bound.module or self.module
            rest = (
                bound.dotted[len(module) + 1 :]
                if bound.dotted.startswith(module + ".")
                else bound.dotted
            )
            return f"{module}:{rest}", tuple(descriptors), refs
        return "<expr>", tuple(descriptors), refs

    def wraps(self, replacement: str, original: str) -> bool:
        """Whether a function of this module named by ``replacement`` reaches ``original``:
        mentions it, or calls a module-level function of this module that does
        (:func:`.wrapped_calls.reaches_original`)."""
        if self._defs is None:
            self._defs = self.bindings.functions()
        return reaches_original(
            replacement, original, self.module, self.is_package, self.bindings,
            self.module_table, self._defs, self.facts.constants,
        )  # fmt: skip


#: The nodes :meth:`AssignmentForms.describe` reads as mentions of a dotted path.
_READINGS = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)
