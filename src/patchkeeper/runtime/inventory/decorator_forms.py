"""The patch decorator forms of the runtime audit workflow (steps 2 and 4), for the file scanner.

``@patch(module_path, attribute=None, *, allow_missing=False)`` over a function or class, the
attribute inferred from the replacement's ``__name__`` when omitted, a dotted
``"Class.method"`` meaning a class attribute; the decorator outermost over
``staticmethod``/``classmethod``/``property`` and Triton's ``jit``/``autotune``/``heuristics``
(under them it patches the raw function: a ``decorator-order`` problem); stacked decorators
give one entry each; ``@register_patch(target="vllm.x.Class.attr")`` names the whole path in
one keyword (vllm-rbln); ``patch(m, a)(fn)`` called directly is handled by
:mod:`patchkeeper.runtime.inventory.assignment_forms`, which calls
:meth:`DecoratorForms.decorator_entry`.
A ``@REGISTRY.register(key)`` decorator on an upstream registry is a registry entry.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from patchkeeper.runtime.inventory.file_facts import is_external, is_plugin
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.syntax import names
from patchkeeper.runtime.syntax.names import Table

if TYPE_CHECKING:
    from patchkeeper.runtime.inventory.file_facts import FileFacts, ScanSettings

#: Decorators that make a descriptor or a kernel; the patch decorator must sit above them
#: (seed section 4: "Preserve descriptor semantics, Triton decorator order").
DESCRIPTORS = frozenset(
    {"staticmethod", "classmethod", "property", "jit", "autotune", "heuristics"}
)


def deco_name(node: ast.expr) -> str:
    """The source text of a decorator without its call arguments (``triton.jit``)."""
    if isinstance(node, ast.Call):
        node = node.func
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every expression
        return "?"


def _const(node: ast.AST | None) -> object | None:
    return node.value if isinstance(node, ast.Constant) else None


class DecoratorForms:
    """Mixin of the file scanner: recording entries, and the entries made by decorators."""

    facts: FileFacts
    cfg: ScanSettings
    module: str

    def add(self, conds: Any, **fields: Any) -> None:
        """Record one :class:`PatchEntry` of this file with the local conditions ``conds``."""
        entry = PatchEntry(file=self.facts.file, module=self.module, **fields)
        self.facts.entries.append((entry, tuple(conds)))

    def upstream_entry(
        self,
        conds: Any,
        line: int,
        scope: str,
        bound: names.Binding,
        mechanism: Mechanism,
        replacement: str,
        **fields: Any,
    ) -> None:
        """Record an entry whose target is the upstream object ``bound`` itself (its dotted
        path, and its module as the hint); ``fields``: ``key``, ``descriptors``."""
        self.add(
            conds,
            line=line,
            scope=scope,
            target=bound.dotted,
            module_hint=bound.module,
            mechanism=mechanism,
            replacement=replacement,
            **fields,
        )

    def external(self, expr: ast.expr, table: Table) -> names.Binding | None:
        """The binding of ``expr`` when it names an upstream object (outside the plugin and
        the standard library), else ``None``."""
        bound = names.dotted(expr, table)
        if bound is None or not is_external(bound.dotted, self.cfg.package):
            return None
        return bound

    def decorators(self, node: Any, qual: str, conds: Any, scope: str, table: Table) -> None:
        """Entries for the decorators of a function or class ``node`` (qualified ``qual``)."""
        replacement = f"{self.module}:{qual}"
        seen_descriptor: list[str] = []
        below = tuple(deco_name(d) for d in node.decorator_list)
        for index, deco in enumerate(node.decorator_list):
            call = deco if isinstance(deco, ast.Call) else None
            if call is not None and self.is_patch_decorator(call.func, table):
                descriptors = tuple(
                    n for n in below[index + 1 :] if n.split(".")[-1] in DESCRIPTORS
                )
                if seen_descriptor:
                    self.facts.problems.append(
                        (
                            "decorator-order",
                            f"the patch decorator on {qual} is under {', '.join(seen_descriptor)}: "
                            "it patches the raw function, not the descriptor or kernel",
                            deco.lineno,
                        )
                    )
                self.decorator_entry(
                    call, node.name, replacement, descriptors, deco.lineno, conds, scope
                )
            elif (
                call is not None
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "register"
            ):
                bound = self.external(call.func.value, table)
                if bound is not None:
                    key = ast.unparse(call.args[0]) if call.args else None
                    self.upstream_entry(
                        conds, deco.lineno, scope, bound, Mechanism.REGISTRY, replacement, key=key
                    )
            elif below[index].split(".")[-1] in DESCRIPTORS:
                seen_descriptor.append(below[index])

    def decorator_entry(
        self,
        call: ast.Call,
        name: str,
        replacement: str,
        descriptors: tuple[str, ...],
        line: int,
        conds: Any,
        scope: str,
    ) -> None:
        """One entry for ``patch(module_path, attribute=None, *, allow_missing=False)``; the
        attribute defaults to ``name`` (the replacement's ``__name__``)."""
        args = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        if not call.args and "target" in args:
            self.target_entry(args, replacement, descriptors, line, conds, scope)
            return
        module_node = call.args[0] if call.args else args.get("module_path") or args.get("module")
        attr_node = call.args[1] if len(call.args) > 1 else args.get("attribute")
        module = _const(module_node)
        attribute = _const(attr_node) if attr_node is not None else name
        allow = _const(args.get("allow_missing")) if "allow_missing" in args else False
        if module is None:
            self.facts.problems.append(
                ("decorator-target", "the patch decorator's module is not a constant string", line)
            )
            return
        attribute = attribute if isinstance(attribute, str) else str(attribute)
        self.add(
            conds,
            line=line,
            scope=scope,
            target=f"{module}.{attribute}",
            module_hint=str(module),
            mechanism=Mechanism.DECORATOR,
            replacement=replacement,
            allow_missing=bool(allow),
            descriptors=descriptors,
        )

    def target_entry(
        self,
        args: dict[str, ast.expr],
        replacement: str,
        descriptors: tuple[str, ...],
        line: int,
        conds: Any,
        scope: str,
    ) -> None:
        """One entry for a patch decorator naming its whole target in one string,
        ``@register_patch(target="vllm.x.Class.method", reason=...)`` (vllm-rbln's registry
        of patch descriptors, applied later by ``setattr`` on the longest importable prefix):
        the module part of the path is not known here, upstream's tree decides it."""
        target = _const(args["target"])
        if not isinstance(target, str) or "." not in target:
            self.facts.problems.append(
                (
                    "decorator-target",
                    "the patch decorator's target= is not a constant dotted path "
                    "('package.module.Class.attribute')",
                    line,
                )
            )
            return
        allow = _const(args.get("allow_missing")) if "allow_missing" in args else False
        self.add(
            conds,
            line=line,
            scope=scope,
            target=target,
            mechanism=Mechanism.DECORATOR,
            replacement=replacement,
            allow_missing=bool(allow),
            descriptors=descriptors,
        )

    def is_patch_decorator(self, func: ast.expr, table: Table) -> bool:
        """Whether ``func`` is the configured patch decorator (by default any ``patch`` or
        ``*_patch``, such as vllm-rbln's ``register_patch``, defined inside the plugin
        package)."""
        bound = names.dotted(func, table)
        if bound is None:
            return False
        if self.cfg.decorators:
            return bound.dotted in self.cfg.decorators
        name = bound.dotted.rsplit(".", 1)[-1]
        return (name == "patch" or name.endswith("_patch")) and is_plugin(
            bound.dotted, self.cfg.package
        )
