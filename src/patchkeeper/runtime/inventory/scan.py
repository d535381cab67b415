"""One plugin file -> its facts: patch entries, import/call edges, definitions.

The facts of a file depend only on its bytes, its module name and the settings, so they
are cached per file (:mod:`patchkeeper.runtime.store.cache`). This module walks scopes and
statements, keeps the conditions met on the way (``if``, version tests, ``try/except
ImportError``) and records the edges the activation search follows; the mechanisms of the
runtime audit workflow's step 2 are recognised by
:mod:`patchkeeper.runtime.inventory.decorator_forms` and
:mod:`patchkeeper.runtime.inventory.assignment_forms`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import cast

from patchkeeper.runtime.inventory import computed_imports
from patchkeeper.runtime.inventory.assignment_forms import AssignmentForms
from patchkeeper.runtime.inventory.conditions import (
    Conds,
    IfTest,
    Pending,
    early_exit,
    if_conditions,
    is_type_checking,
    run_once,
    try_parts,
    wrapper_markers,
)
from patchkeeper.runtime.inventory.edge_lines import hot_lines, line_counts, plugin_names
from patchkeeper.runtime.inventory.file_facts import (
    MODULE_SCOPE,
    CondSpec,
    Edge,
    FileFacts,
    FunctionInfo,
    ScanSettings,
    is_plugin,
)
from patchkeeper.runtime.inventory.loop_literals import iterations
from patchkeeper.runtime.inventory.module_constants import FunctionConstants, module_constants
from patchkeeper.runtime.inventory.temporary_swaps import mark_temporary, restored_targets
from patchkeeper.runtime.syntax import astwalk, names
from patchkeeper.runtime.syntax.names import Binding, ScopeBindings, Table
from patchkeeper.runtime.syntax.parsing import keep_plugin_tree, parse_file, undecodable
from patchkeeper.runtime.syntax.references import tree_facts
from patchkeeper.runtime.syntax.unparse import expression_text

#: A commented-out import: ``# import vllm_metax.patch.bugfix.x`` or
#: ``# from vllm_metax.patch.bugfix import x``
COMMENTED_IMPORT = re.compile(
    r"^\s*#\s*(?:from\s+(?P<base>\.*[\w.]*)\s+import\s+(?P<names>[\w, ()]+)"
    r"|import\s+(?P<mod>[\w.]+))"
)
#: What every line :data:`COMMENTED_IMPORT` matches holds: a ``#``, whitespace or none,
#: then ``from`` or ``import`` and a whitespace character.
COMMENTED_IMPORT_START = re.compile(r"#\s*(?:from|import)\s")
#: A dotted string naming a plugin object: ``"vllm_ascend.platform.NPUPlatform"``
DOTTED_STRING = re.compile(r"^[A-Za-z_]\w*(?:\.\w+)+(?::\w+(?:\.\w+)*)?$")

_LOOPS = frozenset({ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith})
_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_Function = ast.FunctionDef | ast.AsyncFunctionDef
_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_Loop = ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith
#: Statements :meth:`_Scanner.block` hands on whatever their lines hold: compound
#: statements (definitions and edges inside) and imports (edges whatever their lines hold).
_ALWAYS_WALKED = frozenset({ast.If, ast.Try, ast.Import, ast.ImportFrom, *_LOOPS, *_DEFINITIONS})


class _Scanner(AssignmentForms):
    def __init__(
        self,
        tree: ast.Module,
        facts: FileFacts,
        is_package: bool,
        cfg: ScanSettings,
        hot: list[int] | None = None,
        bindings: ScopeBindings | None = None,
    ):
        self.facts = facts
        self.cfg = cfg
        self.is_package = is_package
        self.module = facts.module
        #: The binding statements of every scope, from one walk of the tree.
        self.bindings = bindings if bindings is not None else ScopeBindings(tree)
        base: dict[str, Binding] = {}
        for node in tree.body:
            if node.__class__ in _DEFINITIONS:
                name = cast(_Definition, node).name
                base[name] = Binding(f"{self.module}.{name}", self.module)
        self.module_table = names.bindings_table(
            self.bindings.of(None), base, self.module, is_package
        )
        self.tree = tree
        self._defs = None
        self._rebound = {}
        self._function_defs = FunctionConstants()
        self._loops = []
        self._object_loops = []
        self._swaps = []
        self._aliases = {}
        self._tables = None
        #: The rows of the file's string tables, read at its first computed module name.
        self._rows: list[tuple[str, ...]] | None = None
        #: The file's :func:`wrapper_markers`, read at the first marker guard that needs them.
        self._markers: frozenset[str] | None = None
        self.entries = cfg.reports_entries(self.module)
        #: Lines that may hold an edge (:mod:`patchkeeper.runtime.inventory.edge_lines`), as
        #: :func:`~patchkeeper.runtime.inventory.edge_lines.line_counts`; ``None``: every line.
        self.hot = hot

    def markers(self) -> frozenset[str]:
        """The marker attributes the file sets on a function or class it defines
        (:func:`wrapper_markers`), read once."""
        if self._markers is None:
            self._markers = wrapper_markers(self.tree)
        return self._markers

    # ----------------------------------------------------------------- scopes
    def run(self) -> None:
        self.block(self.tree.body, (), MODULE_SCOPE, self.module_table, "")

    def block(self, body: list[ast.stmt], conds: Conds, scope: str, table: Table, cls: str) -> None:
        counts = self.hot
        start = len(self.facts.entries)
        for index, stmt in enumerate(body):
            # A simple statement none of whose lines can hold an edge records nothing (its
            # entries are not reported where lines are told apart): not even dispatched.
            if (
                counts is not None
                and stmt.__class__ not in _ALWAYS_WALKED
                and counts[stmt.end_lineno or stmt.lineno] == counts[stmt.lineno - 1]
            ):
                continue
            self.statement(stmt, conds, scope, table, cls)
            if self.entries and isinstance(stmt, ast.Try) and stmt.finalbody:
                restored = restored_targets(stmt.finalbody, lambda e: self.external(e, table))
                mark_temporary(self.facts.entries, start, scope, stmt, restored)
            if stmt.__class__ is ast.If or stmt.__class__ is ast.Try:
                conds = (
                    *conds,
                    *early_exit(stmt, self.hot is not None, body, index, self.markers),
                )

    def statement(self, stmt: ast.stmt, conds: Conds, scope: str, table: Table, cls: str) -> None:
        kind = stmt.__class__
        if kind is ast.If:
            self.if_statement(cast(ast.If, stmt), conds, scope, table, cls)
        elif kind is ast.Try:
            for body, under in try_parts(cast(ast.Try, stmt), conds):
                self.block(body, under, scope, table, cls)
        elif kind in _LOOPS:
            for part in ("target", "iter", "test", "items"):
                value = getattr(stmt, part, None)
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, ast.AST):
                        self.expressions(item, conds, scope, table)
            with self.loop_items(stmt, table):
                self.block(cast(_Loop, stmt).body, conds, scope, table, cls)
                self.block(getattr(stmt, "orelse", []), conds, scope, table, cls)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            self.function(cast(_Function, stmt), conds, scope, table, cls)
        elif kind is ast.ClassDef:
            self.klass(cast(ast.ClassDef, stmt), conds, scope, table, cls)
        else:
            self.simple(stmt, conds, scope, table)

    def _once(self, test: ast.expr, body: list[ast.stmt]) -> Callable[[], bool]:
        """Whether an ``if`` on ``test`` is a run-once guard on its ``body``
        (:func:`run_once`), asked when an edge is recorded under it (:class:`Pending`)."""
        return lambda: run_once(test, False, body, self.markers)

    def cold(self, node: ast.AST) -> bool:
        """Whether no line of ``node`` can hold an edge (so none is recorded inside it)."""
        counts = self.hot
        if counts is None:
            return False
        first = getattr(node, "lineno", None)
        if first is None:
            return False
        return bool(counts[getattr(node, "end_lineno", None) or first] == counts[first - 1])

    def if_statement(self, stmt: ast.If, conds: Conds, scope: str, table: Table, cls: str) -> None:
        if is_type_checking(stmt.test):
            self.block(stmt.orelse, conds, scope, table, cls)
            return
        if self.hot is not None:
            # Lines told apart (no entries): most tests hold no edge under them, so their
            # text is written out only for an edge recorded under them.
            test = IfTest(stmt)
            self.expressions(stmt.test, conds, scope, table)
            guard = self._once(stmt.test, stmt.body)
            self.block(stmt.body, (*conds, Pending(test, 0, guard)), scope, table, cls)
            self.block(stmt.orelse, (*conds, Pending(test, 1)), scope, table, cls)
            return
        then, other = if_conditions(stmt)
        self.expressions(stmt.test, conds, scope, table)
        # an ``if`` on a flag its body sets (a run-once guard) puts no condition on it
        once = run_once(stmt.test, False, stmt.body, self.markers)
        self.block(stmt.body, conds if once else (*conds, then), scope, table, cls)
        self.block(stmt.orelse, (*conds, other), scope, table, cls)

    def function(self, node: _Function, conds: Conds, scope: str, table: Table, cls: str) -> None:
        qual = f"{cls}.{node.name}" if cls else node.name
        if scope != MODULE_SCOPE and not cls:
            qual = f"{scope}.{node.name}"
        self.facts.functions[qual] = _function_info(qual, node)
        self._function_defs.met(qual, node)
        if node.decorator_list:
            self.facts.decorated[node.lineno] = node.decorator_list[0].lineno
        for deco in node.decorator_list:
            self.expressions(deco, conds, scope, table)
        if self.entries:
            self.decorators(node, qual, conds, scope, table)
        if not self.entries and self.cold_body(node):
            self.outline(node.body, (), qual, self._inner_table(node, qual, lambda: table), "")
            return
        inner = self._inner_table(node, qual, lambda: table)()
        self.block(node.body, (), qual, inner, "")

    def _inner_table(
        self, node: _Function, qual: str, outer: Callable[[], Table]
    ) -> Callable[[], Table]:
        """A function computing, once, the name table of ``node``'s body: ``outer()`` plus
        the functions and classes the body defines, its imports and aliases (layered over
        ``outer()``, not a copy of it: :func:`~patchkeeper.runtime.syntax.names.layered_table`)."""
        memo: list[Table] = []

        def table() -> Table:
            if not memo:
                found = self.bindings.of(node)
                local: dict[str, Binding] = {}
                for sub in found:
                    if sub.__class__ in _DEFINITIONS:
                        name = cast(_Definition, sub).name
                        local[name] = Binding(f"{self.module}.{qual}.{name}", self.module)
                memo.append(
                    names.layered_table(found, outer(), self.module, self.is_package, local)
                )
            return memo[0]

        return table

    def cold_body(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """Whether no line of the body of ``node`` can hold an edge (see :meth:`cold`)."""
        counts = self.hot
        if counts is None:
            return False
        first = node.body[0].lineno
        return counts[node.end_lineno or first] == counts[first - 1]

    # ----------------------------------------------------------------- cold bodies
    def outline(
        self,
        body: list[ast.stmt],
        conds: Conds,
        scope: str,
        table: Callable[[], Table],
        cls: str,
    ) -> None:
        """:meth:`block` over statements none of whose lines can hold an edge, in a file
        whose entries are not reported: what :meth:`block` would record there (the edges of
        import statements, recorded whatever their lines hold, under the same conditions),
        without walking expressions or building the scope's name table (``table``: a
        function giving it)."""
        for index, stmt in enumerate(body):
            kind = stmt.__class__
            # A statement after an early exit runs only when the exit was not taken.
            here, conds = conds, (*conds, *early_exit(stmt, True, body, index, self.markers))
            if kind is ast.Import or kind is ast.ImportFrom:
                self.imports(cast("ast.Import | ast.ImportFrom", stmt), here, scope)
            elif kind is ast.If:
                branch = cast(ast.If, stmt)
                if is_type_checking(branch.test):
                    self.outline(branch.orelse, here, scope, table, cls)
                    continue
                test = IfTest(branch)
                guard = self._once(branch.test, branch.body)
                self.outline(branch.body, (*here, Pending(test, 0, guard)), scope, table, cls)
                self.outline(branch.orelse, (*here, Pending(test, 1)), scope, table, cls)
            elif kind is ast.Try:
                for part, under in try_parts(cast(ast.Try, stmt), here):
                    self.outline(part, under, scope, table, cls)
            elif kind in (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith):
                self.outline(cast(_Loop, stmt).body, here, scope, table, cls)
                self.outline(getattr(stmt, "orelse", []), here, scope, table, cls)
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                # Not met in a cold body (a function or class defined in a function is
                # bound there, so its own line is hot); walked in full if it were.
                self.statement(stmt, here, scope, table(), cls)

    def klass(self, node: ast.ClassDef, conds: Conds, scope: str, table: Table, cls: str) -> None:
        qual = f"{cls}.{node.name}" if cls else node.name
        if scope != MODULE_SCOPE and not cls:
            qual = f"{scope}.{node.name}"  # as a function's local class is named in its scope
        bases = []
        for base in node.bases:
            bound = names.dotted(base, table)
            # "?" marks a base not bound to an import or definition (``Generic[T]``).
            bases.append(bound.dotted if bound else "?" + expression_text(base))
        self.facts.classes[qual] = tuple(bases)
        self.facts.class_spans[qual] = (node.lineno, node.end_lineno or node.lineno)
        if node.decorator_list:
            self.facts.decorated[node.lineno] = node.decorator_list[0].lineno
        for item in (*node.decorator_list, *node.bases, *node.keywords):
            self.expressions(item, conds, scope, table)
        if self.entries:
            self.decorators(node, qual, conds, scope, table)
        self.block(node.body, conds, scope, table, qual)

    # ----------------------------------------------------------------- statements
    def simple(self, stmt: ast.stmt, conds: Conds, scope: str, table: Table) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.imports(stmt, conds, scope)
            return
        calls = self.expressions(stmt, conds, scope, table)
        if not self.entries:
            return
        if isinstance(stmt, ast.Delete):
            self.removal(stmt, conds, scope, table)
        if isinstance(stmt, ast.AugAssign):
            self.augmented(stmt, conds, scope, table)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                self.assignment(target, stmt.value, stmt, conds, scope, table)
            self.module_alias(stmt, scope, table)
        for node in calls:
            self.call(node, conds, scope, table)

    def imports(self, stmt: ast.Import | ast.ImportFrom, conds: Conds, scope: str) -> None:
        pkg = self.cfg.package
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if is_plugin(alias.name, pkg):
                    self.edge(scope, alias.name, "import", stmt.lineno, conds)
            return
        base = names.absolute_module(self.module, self.is_package, stmt.level, stmt.module)
        if not is_plugin(base, pkg):
            return
        self.edge(scope, base, "import", stmt.lineno, conds)
        for alias in stmt.names:
            if alias.name != "*":
                self.edge(scope, f"{base}.{alias.name}", "import", stmt.lineno, conds)

    def expressions(self, node: ast.AST, conds: Conds, scope: str, table: Table) -> list[ast.Call]:
        """Edges for every call, reference and dotted string in ``node``; returns the calls
        (outside nested scopes) for the mechanism checks."""
        if self.cold(node):
            return []
        pkg = self.cfg.package
        called: set[int] = set()
        inner: set[int] = set()  # the parts of a computed name already read
        calls: list[ast.Call] = []
        for sub in astwalk.walk_scope([node]):
            kind = sub.__class__
            if kind is ast.Call:
                call = cast(ast.Call, sub)
                calls.append(call)
                if call.func.__class__ is ast.Attribute and self.computed_name(
                    call, conds, scope, table
                ):
                    inner.add(id(call.func.value))
                bound = self.plugin_binding(call.func, table)
                if bound is not None:
                    called.add(id(call.func))
                    self.edge(scope, bound.dotted, "call", call.lineno, conds, _const_args(call))
                    used = [*call.args, *(keyword.value for keyword in call.keywords)]
                    for item in iterations(self._loops, used):
                        for element in self.loop_objects(used):
                            arguments = self.call_arguments(call, scope, table, item, element)
                            self.facts.calls.append((bound.dotted, arguments, call.lineno))
            elif kind is ast.Name or kind is ast.Attribute:
                ref = cast("ast.Name | ast.Attribute", sub)
                if id(ref) not in called and ref.ctx.__class__ is ast.Load:
                    bound = self.plugin_binding(ref, table)
                    if bound is not None and bound.dotted != self.module:
                        self.edge(scope, bound.dotted, "ref", ref.lineno, conds)
            elif kind is ast.Constant:
                constant = cast(ast.Constant, sub)
                text = constant.value
                if text.__class__ is not str:
                    continue
                if pkg in text and DOTTED_STRING.match(text) and is_plugin(text.split(":")[0], pkg):
                    self.edge(scope, text.replace(":", "."), "string", constant.lineno, conds)
                elif "{" in text and text.startswith(pkg) and id(sub) not in inner:
                    # a template of module names, filled by a ``format`` elsewhere
                    self.computed_name(constant, conds, scope, table)
            elif (kind is ast.JoinedStr or kind is ast.BinOp) and id(sub) not in inner:
                expr = cast("ast.JoinedStr | ast.BinOp", sub)
                if self.computed_name(expr, conds, scope, table):
                    inner.update(computed_imports.parts_read(expr))
        return calls

    def computed_name(self, node: ast.expr, conds: Conds, scope: str, table: Table) -> bool:
        """Edges for a computed name of plugin modules (an f-string, a sum, a ``format`` or
        ``%`` of a string: :mod:`patchkeeper.runtime.inventory.computed_imports`): its
        pattern, and each module name the file's string tables give it, reached under the
        condition it is asked for. Whether ``node`` is one."""
        text = computed_imports.pattern(node, self.cfg.package)
        if not text:
            return False
        self.edge(scope, text, "pattern", node.lineno, conds)
        if self._rows is None:
            self._rows = computed_imports.table_rows(self.tree)
        names_taken = computed_imports.table_names(text, self._rows)
        lazy = CondSpec(
            computed_imports.CONDITION,
            f"{expression_text(node)} names it (imported when that name is asked for)",
            node.lineno,
        )
        for name in names_taken:
            self.edge(scope, name, "computed", node.lineno, (*conds, lazy))
        # The tables of other plugin modules this scope imports by name: their rows are
        # read by the activation search (the facts of one file hold only its own).
        for bound in table.values():
            dotted = bound.dotted
            if (
                bound.module
                and bound.module != self.module
                and dotted.rpartition(".")[0] == bound.module
                and is_plugin(dotted, self.cfg.package)
            ):
                args = (("table", dotted),)
                self.edge(scope, text, "table", node.lineno, (*conds, lazy), args)
        return True

    def plugin_binding(self, expr: ast.expr, table: Table) -> Binding | None:
        """``names.dotted(expr)`` when it is a plugin path, else ``None``; a chain whose root
        name is bound outside the plugin is rejected without building its path (most names
        of a file are: ``self``, ``torch``, upstream imports)."""
        root: ast.expr = expr
        while root.__class__ is ast.Attribute:
            root = root.value
        pkg = self.cfg.package
        if root.__class__ is ast.Name:
            bound = table.get(root.id)
            if bound is None:
                return None
            if not is_plugin(bound.dotted, pkg) and not pkg.startswith(bound.dotted + "."):
                return None
        elif root.__class__ is not ast.Call:
            return None
        found = names.dotted(expr, table)
        return found if found is not None and is_plugin(found.dotted, pkg) else None

    def edge(
        self,
        scope: str,
        target: str,
        kind: str,
        line: int,
        conds: Conds,
        args: tuple[tuple[str, object], ...] = (),
    ) -> None:
        specs = tuple(
            spec
            for c in conds
            if (spec := c if c.__class__ is CondSpec else cast(Pending, c).spec()) is not None
        )
        self.facts.edges.append(Edge(scope, target, kind, line, specs, args))


def _const_args(call: ast.Call) -> tuple[tuple[str, object], ...]:
    out: list[tuple[str, object]] = []
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Constant):
            out.append((str(index), arg.value))
    for kw in call.keywords:
        if kw.arg and isinstance(kw.value, ast.Constant):
            out.append((kw.arg, kw.value.value))
    return tuple(out)


def _function_info(qual: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> FunctionInfo:
    args = node.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    defaults: list[tuple[str, object]] = []
    for name, default in zip(
        positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
    ):
        defaults.append((name, default.value if isinstance(default, ast.Constant) else ...))
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if kw_default is not None:
            value = kw_default.value if isinstance(kw_default, ast.Constant) else ...
            defaults.append((arg.arg, value))
    params = (*positional, *(a.arg for a in args.kwonlyargs))
    return FunctionInfo(qual, node.lineno, params, tuple(defaults), node.end_lineno or node.lineno)


#: The line ends :meth:`str.splitlines` knows besides ``"\n"``.
OTHER_LINE_ENDS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _import_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(number, line)`` of every line of ``text`` (as :meth:`str.splitlines` numbers
    them) holding ``"import"``; found with :meth:`str.find` rather than by splitting the
    whole text where ``"\n"`` is the only line end."""
    if OTHER_LINE_ENDS.search(text):
        for number, line in enumerate(text.splitlines(), 1):
            if "import" in line:
                yield number, line
        return
    number, counted = 1, 0
    position = text.find("import")
    while position != -1:
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        if end == -1:
            end = len(text)
        number += text.count("\n", counted, start)
        counted = start
        yield number, text[start:end]
        position = text.find("import", end)


def commented_imports(
    text: str, module: str, is_package: bool
) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """``(line, text, modules)`` for every commented-out import of a file. A file without
    :data:`COMMENTED_IMPORT_START` (most files) holds none: its lines holding "import"
    are not read one by one."""
    if not COMMENTED_IMPORT_START.search(text):
        return
    for number, line in _import_lines(text):
        match = COMMENTED_IMPORT.match(line)
        if not match:
            continue
        if match.group("mod"):
            mods: tuple[str, ...] = (match.group("mod"),)
        else:
            written = match.group("base")
            base = names.absolute_module(
                module,
                is_package,
                len(written) - len(written.lstrip(".")),
                written.lstrip(".") or None,
            )
            listed = [n.strip() for n in match.group("names").strip("()").split(",")]
            mods = (base, *(f"{base}.{n.split()[0]}" for n in listed if n))
        yield number, line.strip(), mods


def scan_source(
    source: bytes,
    module: str,
    file: str,
    is_package: bool,
    cfg: ScanSettings,
    *,
    shortcuts: bool = True,
    path: str | None = None,
    keep: bool = False,
) -> FileFacts:
    """Parse one plugin file and return its :class:`FileFacts` (a syntax error is recorded in
    ``syntax_error``, never raised). In a file whose entries are not reported, only the
    statements on lines that can hold an edge are walked (:mod:`~patchkeeper.runtime.
    edge_lines`); ``shortcuts=False`` walks every statement (the same facts, slower: the
    reference the shortcuts are tested against). ``path``: where the file is, for the parse
    log (:mod:`~patchkeeper.runtime.syntax.parsing`; ``file`` when not given); ``keep``:
    keep the parse for later reads of the file in this process
    (:func:`~patchkeeper.runtime.syntax.parsing.keep_plugin_tree`, under ``path``)."""
    facts = FileFacts(module=module, file=file)
    text = source.decode("utf-8", "replace")
    facts.commented_imports.extend(commented_imports(text, module, is_package))
    facts.syntax_error = undecodable(source)
    if facts.syntax_error:
        return facts
    try:
        tree = parse_file(source, file if path is None else path, filename=file)
    except (SyntaxError, ValueError) as exc:  # ValueError: a NUL byte, before Python 3.12
        line = getattr(exc, "lineno", None) or source[: source.find(b"\0")].count(b"\n") + 1
        facts.syntax_error = f"{getattr(exc, 'msg', None) or exc} (line {line})"
        return facts
    if keep:
        keep_plugin_tree(file if path is None else path, tree)
    facts.constants = module_constants(tree, source)
    facts.tables = computed_imports.named_tables(tree)
    bindings = ScopeBindings(tree)
    hot = None
    if shortcuts and not cfg.reports_entries(module):
        needles = plugin_names(bindings, module, is_package, cfg.package) | {cfg.package}
        hot = line_counts(hot_lines(text, needles), text)
    _Scanner(tree, facts, is_package, cfg, hot, bindings).run()
    if cfg.patch_package and is_plugin(module, cfg.patch_package):
        # the audit's cross-checks read these from this tree rather than parse the file again
        facts.references = tree_facts(tree, module, is_package)
    return facts
