"""One plugin file -> its facts: patch entries, import/call edges, definitions.

The facts of a file depend only on its bytes, its module name and the settings, so they
are cached per file (:mod:`patchkeeper.runtime.cache`). Mechanisms are those of the audit
seed's section 2 and of the issue: a patch decorator, attribute assignment, ``setattr``,
registry/dict mutation, ``sys.modules`` redirects, subclass swaps and wrappers that keep
the original.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field

from patchkeeper.runtime import names
from patchkeeper.runtime.model import Mechanism, PatchEntry
from patchkeeper.runtime.names import Binding, Table

MODULE_SCOPE = "<module>"
#: Decorators that make a descriptor or a kernel; the patch decorator must sit above them
#: (seed section 4: "Preserve descriptor semantics, Triton decorator order").
DESCRIPTORS = frozenset(
    {"staticmethod", "classmethod", "property", "jit", "autotune", "heuristics"}
)
VERSION_TEST = re.compile(r"(?i)version|__version__")
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
#: A commented-out import: ``# import vllm_metax.patch.bugfix.x`` or
#: ``# from vllm_metax.patch.bugfix import x``
COMMENTED_IMPORT = re.compile(
    r"^\s*#\s*(?:from\s+(?P<base>\.*[\w.]*)\s+import\s+(?P<names>[\w, ()]+)"
    r"|import\s+(?P<mod>[\w.]+))"
)
DOTTED_STRING = re.compile(r"^[A-Za-z_]\w*(?:\.\w+)+(?::\w+(?:\.\w+)*)?$")
STDLIB = frozenset(sys.stdlib_module_names) - {"sys"}


@dataclass(frozen=True)
class CondSpec:
    """A condition met inside one scope: ``kind`` (if/else/version/try-import/except),
    ``text``, ``line``; ``param``/``truth`` when the test is a bare parameter name (so a call
    with a constant argument decides it)."""

    kind: str
    text: str
    line: int
    param: str = ""
    truth: bool = True


@dataclass(frozen=True)
class Edge:
    """``scope`` reaches the plugin object ``target`` (a module or ``module.qualname``) by an
    import, a call (``args``: constant arguments by name or position), a reference, or a
    dotted string; under ``conditions``."""

    scope: str
    target: str
    kind: str
    line: int
    conditions: tuple[CondSpec, ...] = ()
    args: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class FunctionInfo:
    """A function or method: its parameters with constant defaults (``...`` when the default
    is not a constant, absent when there is none)."""

    qualname: str
    line: int
    params: tuple[str, ...]
    defaults: tuple[tuple[str, object], ...]


@dataclass
class FileFacts:
    """Everything the inventory needs from one file."""

    module: str
    file: str
    entries: list[tuple[PatchEntry, tuple[CondSpec, ...]]] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    commented_imports: list[tuple[int, str, tuple[str, ...]]] = field(default_factory=list)
    problems: list[tuple[str, str, int]] = field(default_factory=list)
    syntax_error: str = ""


@dataclass(frozen=True)
class ScanSettings:
    """``package``: the plugin's import package; ``decorators``: dotted names of the patch
    decorator (empty: any ``patch`` defined inside the plugin package)."""

    package: str
    decorators: tuple[str, ...] = ()


def _is_plugin(path: str, package: str) -> bool:
    return path == package or path.startswith(package + ".")


def is_external(path: str, package: str) -> bool:
    """Whether a dotted path is outside the plugin and the standard library (``sys`` counts as
    external only for ``sys.modules``)."""
    top = path.split(".")[0]
    if _is_plugin(path, package) or top in STDLIB or top in ("builtins", "__future__"):
        return False
    if top == "sys":
        return path.startswith("sys.modules")
    return True


class _Scanner:
    def __init__(self, tree: ast.Module, facts: FileFacts, is_package: bool, cfg: ScanSettings):
        self.facts = facts
        self.cfg = cfg
        self.is_package = is_package
        self.module = facts.module
        base: Table = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                base[node.name] = Binding(f"{self.module}.{node.name}", self.module)
        self.module_table = names.scope_table(tree.body, base, self.module, is_package)
        self.tree = tree
        self._defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] | None = None

    # ----------------------------------------------------------------- scopes
    def run(self) -> None:
        self.block(self.tree.body, (), MODULE_SCOPE, self.module_table, "")

    def block(
        self, body: list[ast.stmt], conds: tuple[CondSpec, ...], scope: str, table: Table, cls: str
    ) -> None:
        for stmt in body:
            self.statement(stmt, conds, scope, table, cls)

    def statement(
        self, stmt: ast.stmt, conds: tuple[CondSpec, ...], scope: str, table: Table, cls: str
    ) -> None:
        if isinstance(stmt, ast.If):
            text = ast.unparse(stmt.test)
            if text in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                self.block(stmt.orelse, conds, scope, table, cls)
                return
            self.expressions(stmt.test, conds, scope, table, stmt)
            kind = "version" if VERSION_TEST.search(text) else "if"
            param, truth = _param_test(stmt.test)
            then = CondSpec(kind, text, stmt.lineno, param, truth)
            other = CondSpec(
                "else" if kind == "if" else kind, f"not ({text})", stmt.lineno, param, not truth
            )
            self.block(stmt.body, (*conds, then), scope, table, cls)
            self.block(stmt.orelse, (*conds, other), scope, table, cls)
        elif isinstance(stmt, ast.Try):
            guarded = any(_catches_import_error(h) for h in stmt.handlers)
            inner = (
                (*conds, CondSpec("try-import", "try: ... except ImportError", stmt.lineno))
                if guarded
                else conds
            )
            self.block(stmt.body, inner, scope, table, cls)
            for handler in stmt.handlers:
                caught = ast.unparse(handler.type) if handler.type else "any exception"
                self.block(
                    handler.body,
                    (*conds, CondSpec("except", f"except {caught}", handler.lineno)),
                    scope,
                    table,
                    cls,
                )
            self.block(stmt.orelse, inner, scope, table, cls)
            self.block(stmt.finalbody, conds, scope, table, cls)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            for part in ("target", "iter", "test", "items"):
                value = getattr(stmt, part, None)
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, ast.AST):
                        self.expressions(item, conds, scope, table, stmt)
            self.block(stmt.body, conds, scope, table, cls)
            self.block(getattr(stmt, "orelse", []), conds, scope, table, cls)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(stmt, conds, scope, table, cls)
        elif isinstance(stmt, ast.ClassDef):
            self.klass(stmt, conds, scope, table, cls)
        else:
            self.simple(stmt, conds, scope, table)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, conds, scope, table, cls):
        qual = f"{cls}.{node.name}" if cls else node.name
        if scope != MODULE_SCOPE and not cls:
            qual = f"{scope}.{node.name}"
        self.facts.functions[qual] = _function_info(qual, node)
        for deco in node.decorator_list:
            self.expressions(deco, conds, scope, table, node)
        self.decorators(node, qual, conds, scope, table)
        local = dict(table)
        for sub in names.walk_statements(node.body):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                local[sub.name] = Binding(f"{self.module}.{qual}.{sub.name}", self.module)
        inner = names.scope_table(node.body, local, self.module, self.is_package)
        self.block(node.body, (), qual, inner, "")

    def klass(self, node: ast.ClassDef, conds, scope, table, cls):
        qual = f"{cls}.{node.name}" if cls else node.name
        bases = []
        for base in node.bases:
            bound = names.dotted(base, table)
            bases.append(bound.dotted if bound else ast.unparse(base))
        self.facts.classes[qual] = tuple(bases)
        for item in (*node.decorator_list, *node.bases, *node.keywords):
            self.expressions(item, conds, scope, table, node)
        self.decorators(node, qual, conds, scope, table)
        self.block(node.body, conds, scope, table, qual)

    # ----------------------------------------------------------------- statements
    def simple(self, stmt: ast.stmt, conds, scope: str, table: Table) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.imports(stmt, conds, scope)
            return
        calls = self.expressions(stmt, conds, scope, table, stmt)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                self.assignment(target, stmt.value, stmt, conds, scope, table)
        for node in calls:
            self.call(node, conds, scope, table)

    def imports(self, stmt: ast.Import | ast.ImportFrom, conds, scope: str) -> None:
        pkg = self.cfg.package
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if _is_plugin(alias.name, pkg):
                    self.edge(scope, alias.name, "import", stmt.lineno, conds)
            return
        base = names.absolute_module(self.module, self.is_package, stmt.level, stmt.module)
        if not _is_plugin(base, pkg):
            return
        self.edge(scope, base, "import", stmt.lineno, conds)
        for alias in stmt.names:
            if alias.name != "*":
                self.edge(scope, f"{base}.{alias.name}", "import", stmt.lineno, conds)

    def expressions(
        self, node: ast.AST, conds, scope: str, table: Table, stmt: ast.AST
    ) -> list[ast.Call]:
        """Edges for every call, reference and dotted string in ``node``; returns the calls
        (outside nested scopes) for the mechanism checks."""
        pkg = self.cfg.package
        called: set[int] = set()
        calls: list[ast.Call] = []
        for sub in _walk_expr(node):
            if isinstance(sub, ast.Call):
                calls.append(sub)
                bound = names.dotted(sub.func, table)
                if bound and _is_plugin(bound.dotted, pkg):
                    called.add(id(sub.func))
                    self.edge(scope, bound.dotted, "call", sub.lineno, conds, _const_args(sub))
            elif isinstance(sub, (ast.Name, ast.Attribute)) and id(sub) not in called:
                if isinstance(sub.ctx, ast.Load):
                    bound = names.dotted(sub, table)
                    if bound and _is_plugin(bound.dotted, pkg) and bound.dotted != self.module:
                        self.edge(scope, bound.dotted, "ref", sub.lineno, conds)
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                text = sub.value
                if DOTTED_STRING.match(text) and _is_plugin(text.split(":")[0], pkg):
                    self.edge(scope, text.replace(":", "."), "string", sub.lineno, conds)
        return calls

    def edge(self, scope, target, kind, line, conds, args=()) -> None:
        self.facts.edges.append(Edge(scope, target, kind, line, tuple(conds), tuple(args)))

    # ----------------------------------------------------------------- mechanisms
    def add(self, conds, **fields) -> None:
        entry = PatchEntry(file=self.facts.file, module=self.module, **fields)
        self.facts.entries.append((entry, tuple(conds)))

    def external(self, expr: ast.expr, table: Table) -> Binding | None:
        bound = names.dotted(expr, table)
        if bound is None or not is_external(bound.dotted, self.cfg.package):
            return None
        return bound

    def assignment(self, target, value, stmt, conds, scope, table) -> None:
        if isinstance(target, ast.Attribute):
            bound = self.external(target, table)
            if bound is None:
                return
            replacement, descriptors, refs = self.describe(value, table)
            mechanism = Mechanism.ASSIGNMENT
            if bound.dotted in refs or self.wraps(replacement, bound.dotted):
                mechanism = Mechanism.WRAPPER
            elif self.subclasses(replacement):
                mechanism = Mechanism.SUBCLASS
            self.add(
                conds,
                line=stmt.lineno,
                scope=scope,
                target=bound.dotted,
                module_hint=bound.module,
                mechanism=mechanism,
                replacement=replacement,
                descriptors=descriptors,
            )
        elif isinstance(target, ast.Subscript):
            bound = self.external(target.value, table)
            if bound is None:
                return
            replacement, descriptors, _ = self.describe(value, table)
            key = target.slice
            if bound.dotted == "sys.modules":
                name = key.value if isinstance(key, ast.Constant) else ast.unparse(key)
                self.add(
                    conds,
                    line=stmt.lineno,
                    scope=scope,
                    target=str(name),
                    module_hint=str(name),
                    mechanism=Mechanism.SYS_MODULES,
                    replacement=replacement,
                )
                return
            self.add(
                conds,
                line=stmt.lineno,
                scope=scope,
                target=bound.dotted,
                module_hint=bound.module,
                mechanism=Mechanism.REGISTRY,
                key=ast.unparse(key),
                replacement=replacement,
                descriptors=descriptors,
            )

    def call(self, node: ast.Call, conds, scope, table) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "setattr" and "setattr" not in table:
            if len(node.args) >= 3 and isinstance(node.args[1], ast.Constant):
                bound = self.external(node.args[0], table)
                if bound is not None:
                    replacement, descriptors, refs = self.describe(node.args[2], table)
                    target = f"{bound.dotted}.{node.args[1].value}"
                    mechanism = Mechanism.WRAPPER if target in refs else Mechanism.SETATTR
                    self.add(
                        conds,
                        line=node.lineno,
                        scope=scope,
                        target=target,
                        module_hint=bound.module,
                        mechanism=mechanism,
                        replacement=replacement,
                        descriptors=descriptors,
                    )
            return
        if isinstance(func, ast.Call) and self.is_patch_decorator(func.func, table):
            if node.args:
                replacement, descriptors, _ = self.describe(node.args[0], table)
                name = replacement.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
                self.decorator_entry(
                    func, name, replacement, descriptors, node.lineno, conds, scope
                )
            return
        if not isinstance(func, ast.Attribute) or func.attr not in ("update", "register"):
            return
        bound = self.external(func.value, table)
        if bound is None or bound.dotted == "sys.modules":
            return
        keys: list[str | None] = []
        value: ast.expr | None = None
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
            self.add(
                conds,
                line=node.lineno,
                scope=scope,
                target=bound.dotted,
                module_hint=bound.module,
                mechanism=Mechanism.REGISTRY,
                key=key,
                replacement=replacement,
            )

    def decorators(self, node, qual: str, conds, scope: str, table: Table) -> None:
        replacement = f"{self.module}:{qual}"
        seen_descriptor: list[str] = []
        below = tuple(_deco_name(d) for d in node.decorator_list)
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
                    self.add(
                        conds,
                        line=deco.lineno,
                        scope=scope,
                        target=bound.dotted,
                        module_hint=bound.module,
                        mechanism=Mechanism.REGISTRY,
                        key=key,
                        replacement=replacement,
                    )
            elif below[index].split(".")[-1] in DESCRIPTORS:
                seen_descriptor.append(below[index])

    def decorator_entry(self, call: ast.Call, name, replacement, descriptors, line, conds, scope):
        args = {kw.arg: kw.value for kw in call.keywords if kw.arg}
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

    def is_patch_decorator(self, func: ast.expr, table: Table) -> bool:
        bound = names.dotted(func, table)
        if bound is None:
            return False
        if self.cfg.decorators:
            return bound.dotted in self.cfg.decorators
        return bound.dotted.rsplit(".", 1)[-1] == "patch" and _is_plugin(
            bound.dotted, self.cfg.package
        )

    # ----------------------------------------------------------------- values
    def describe(self, value: ast.expr, table: Table) -> tuple[str, tuple[str, ...], set[str]]:
        """(replacement, descriptors, dotted paths the value mentions)."""
        refs = {
            b.dotted
            for n in _walk_expr(value)
            if isinstance(n, (ast.Name, ast.Attribute))
            if (b := names.dotted(n, table)) is not None
        }
        descriptors: list[str] = []
        node = value
        while isinstance(node, ast.Call) and node.args:
            wrapper = _deco_name(node.func)
            descriptors.append(wrapper)
            if wrapper.split(".")[-1] not in DESCRIPTORS:
                break
            node = node.args[0]
        if isinstance(node, ast.Lambda):
            return "<lambda>", tuple(descriptors), refs
        if isinstance(node, ast.Call):
            node = node.func
        bound = names.dotted(node, table) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if bound is not None and _is_plugin(bound.dotted, self.cfg.package):
            module = bound.module or self.module
            rest = (
                bound.dotted[len(module) + 1 :]
                if bound.dotted.startswith(module + ".")
                else bound.dotted
            )
            return f"{module}:{rest}", tuple(descriptors), refs
        return "<expr>", tuple(descriptors), refs

    def wraps(self, replacement: str, original: str) -> bool:
        """Whether a function of this module named by ``replacement`` mentions ``original``."""
        module, _, qual = replacement.partition(":")
        if module != self.module or not qual:
            return False
        if self._defs is None:
            self._defs = {}
            for node in ast.walk(self.tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._defs.setdefault(node.name, []).append(node)
        for node in self._defs.get(qual.rsplit(".", 1)[-1], []):
            table = names.scope_table(node.body, self.module_table, module, self.is_package)
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Name, ast.Attribute)):
                    bound = names.dotted(sub, table)
                    if bound is not None and bound.dotted == original:
                        return True
        return False

    def subclasses(self, replacement: str) -> bool:
        module, _, qual = replacement.partition(":")
        bases = self.facts.classes.get(qual) if module == self.module else None
        return any(is_external(b, self.cfg.package) for b in bases or ())


def _walk_expr(node: ast.AST):
    return names.walk_scope([node])


def _const(node: ast.AST | None) -> object | None:
    return node.value if isinstance(node, ast.Constant) else None


def _deco_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every expression
        return "?"


def _const_args(call: ast.Call) -> tuple[tuple[str, object], ...]:
    out: list[tuple[str, object]] = []
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Constant):
            out.append((str(index), arg.value))
    for kw in call.keywords:
        if kw.arg and isinstance(kw.value, ast.Constant):
            out.append((kw.arg, kw.value.value))
    return tuple(out)


def _param_test(test: ast.expr) -> tuple[str, bool]:
    if isinstance(test, ast.Name):
        return test.id, True
    if (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and isinstance(test.operand, ast.Name)
    ):
        return test.operand.id, False
    return "", True


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(ast.unparse(t).split(".")[-1] in IMPORT_ERRORS for t in types)


def _function_info(qual: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> FunctionInfo:
    args = node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    defaults: list[tuple[str, object]] = []
    for name, default in zip(
        positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
    ):
        defaults.append((name, default.value if isinstance(default, ast.Constant) else ...))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if default is not None:
            defaults.append((arg.arg, default.value if isinstance(default, ast.Constant) else ...))
    params = (*positional, *(a.arg for a in args.kwonlyargs))
    return FunctionInfo(qual, node.lineno, params, tuple(defaults))


def scan_source(
    source: bytes, module: str, file: str, is_package: bool, cfg: ScanSettings
) -> FileFacts:
    """Parse one plugin file and return its :class:`FileFacts` (a syntax error is recorded in
    ``syntax_error``, never raised)."""
    facts = FileFacts(module=module, file=file)
    text = source.decode("utf-8", "replace")
    for number, line in enumerate(text.splitlines(), 1):
        match = COMMENTED_IMPORT.match(line)
        if match:
            if match.group("mod"):
                mods: tuple[str, ...] = (match.group("mod"),)
            else:
                base = names.absolute_module(
                    module,
                    is_package,
                    len(match.group("base")) - len(match.group("base").lstrip(".")),
                    match.group("base").lstrip(".") or None,
                )
                listed = [n.strip() for n in match.group("names").strip("()").split(",")]
                mods = (base, *(f"{base}.{n.split()[0]}" for n in listed if n))
            facts.commented_imports.append((number, line.strip(), mods))
    try:
        tree = ast.parse(source, filename=file)
    except SyntaxError as exc:
        facts.syntax_error = f"{exc.msg} (line {exc.lineno})"
        return facts
    _Scanner(tree, facts, is_package, cfg).run()
    return facts
