"""Upstream changes that need no update of a patch: noise.

An upstream change is *cosmetic* for a patch when the old and new upstream definitions are
the same AST (docstrings removed, :func:`patchkeeper.runtime.judge.samecode.same_ast`) once any of
these is taken away from both:

- type annotations (argument and return annotations; an annotated assignment becomes a
  plain one);
- the bodies of branches taken only on another platform: ``if current_platform.is_rocm():``
  (``is_cuda``, ``is_cuda_alike``, ``is_xpu``, ``is_tpu``, ``is_cpu``, ``is_rocm``, and
  ``or`` of them); the ``else`` branch, which the plugin's platform takes, is kept;
- statements that mention a name the patch's header says it avoids on purpose (a name in
  backquotes in a header sentence that says *avoid*, *skip*, *without*, *drop*, *bypass*
  or *instead of*);
- a type checker's ``assert`` (``assert x is not None``, ``assert isinstance(x, T)``)
  and calls of a logger's methods (``logger.info`` -> ``logger.info_once``): they narrow
  a type or say something and change no value. An ``assert`` that checks a value
  (``assert a.shape == b.shape``) is upstream's new validation, which a copy must not
  suppress (the audit seed): it is not noise.

A change of the body alone also needs no update when it lies wholly in code the plugin's
replacement does not copy (:func:`outside_copy_reason`): the replacement is the plugin's own
code there, so nothing of the upstream change reaches it (the case of a three-way merge in
which only *ours* keeps the base's lines around upstream's edit: ``git merge-file`` has
nothing of upstream's to carry into those lines), or when upstream only took code lines
out (:func:`removal_only_reason`: the copy keeps doing what the old release did); nor does a
change of the parameters
that a replacement forwarding ``*args``/``**kwargs`` passes through
(:func:`forwarded_signature_reason`).
"""

from __future__ import annotations

import ast
import difflib
import re

from patchkeeper.runtime.judge.drift import Code, outside_banners
from patchkeeper.runtime.judge.replacement import holds_version_gate
from patchkeeper.runtime.judge.samecode import View, same_ast
from patchkeeper.runtime.judge.unpassed import without
from patchkeeper.runtime.model import PatchEntry
from patchkeeper.runtime.syntax.gates import evaluate
from patchkeeper.runtime.syntax.names import isinstance_call

#: Platform predicates of upstream's ``current_platform`` that are false on a plugin's device.
OTHER_PLATFORMS = frozenset(
    {"is_cuda", "is_cuda_alike", "is_rocm", "is_xpu", "is_tpu", "is_cpu", "is_neuron", "is_hpu"}
)
#: A header line that says what the patch leaves out on purpose.
AVOIDS = re.compile(r"(?i)\b(avoid|skip|without|drop|instead of|bypass)")
BACKQUOTED = re.compile(r"`([A-Za-z_][\w.]*)(?:\(\))?`")


class _Annotations(View):
    """Type annotations left out: argument and return annotations seen as ``None``, an
    annotated assignment in a statement list (or as the outermost node) seen as a plain one
    (``pass`` when it has no value)."""

    blank = frozenset(
        {(ast.arg, "annotation"), (ast.FunctionDef, "returns"), (ast.AsyncFunctionDef, "returns")}
    )

    def root(self, node: ast.AST) -> ast.AST:
        return _plain(node) if isinstance(node, ast.AnnAssign) else node

    def statements(self, node: ast.AST, field: str, body: list[ast.stmt]) -> list[ast.stmt]:
        if not any(isinstance(stmt, ast.AnnAssign) for stmt in body):
            return body
        return [_plain(stmt) if isinstance(stmt, ast.AnnAssign) else stmt for stmt in body]


def _plain(node: ast.AnnAssign) -> ast.stmt:
    if node.value is None:
        return ast.Pass()
    return ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)


def _other_platform(test: ast.expr) -> bool:
    """Whether ``test`` holds only on another platform (``x.is_rocm()``, ``or`` of such)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return all(_other_platform(v) for v in test.values)
    return (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr in OTHER_PLATFORMS
    )


_PASS: list[ast.stmt] = [ast.Pass()]


class _Platforms(View):
    """The body of an ``if`` whose test holds only on another platform seen as ``pass``
    (its ``else`` kept)."""

    def statements(self, node: ast.AST, field: str, body: list[ast.stmt]) -> list[ast.stmt]:
        if field == "body" and isinstance(node, ast.If) and _other_platform(node.test):
            return _PASS
        return body


class _Both(View):
    """:class:`_Annotations`, then :class:`_Platforms` on what it leaves."""

    blank = _Annotations.blank

    def root(self, node: ast.AST) -> ast.AST:
        return _Annotations().root(node)

    def statements(self, node: ast.AST, field: str, body: list[ast.stmt]) -> list[ast.stmt]:
        return _Platforms().statements(node, field, _Annotations().statements(node, field, body))


class _Dropped(View):
    """Every statement list without the statements :meth:`drops` (``pass`` when none is
    left), each list judged on the original statements, outermost first."""

    def drops(self, stmt: ast.stmt) -> bool:
        return False

    def statements(self, node: ast.AST, field: str, body: list[ast.stmt]) -> list[ast.stmt]:
        kept = [stmt for stmt in body if not self.drops(stmt)]
        return body if len(kept) == len(body) else kept or _PASS


class _Avoided(_Dropped):
    """The statements that mention one of ``names`` left out (a compound statement other
    than ``def``, ``class`` and ``if`` that mentions one anywhere goes whole; those three
    are looked into)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def drops(self, stmt: ast.stmt) -> bool:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If)):
            return False  # a compound statement is looked into, not dropped whole
        for sub in ast.walk(stmt):
            name = sub.attr if isinstance(sub, ast.Attribute) else getattr(sub, "id", None)
            if name in self.names:
                return True
        return False


#: The names a module's logger goes by in upstream code (``logger.info(...)``).
LOGGERS = frozenset({"logger", "logging", "log", "_logger"})


def _narrows_type(test: ast.expr) -> bool:
    """Whether an ``assert``'s test only narrows a type for a type checker: ``x is not
    None``, ``x is None``, ``isinstance(x, T)`` (as
    :func:`~patchkeeper.runtime.syntax.names.isinstance_call` reads it), or an ``and`` of
    those.

    >>> [_narrows_type(ast.parse(t, mode="eval").body) for t in
    ...  ("isinstance(x, A) and y is not None", "isinstance(x, cls=A)", "x == 1")]
    [True, False, False]
    """
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return all(_narrows_type(value) for value in test.values)
    if isinstance(test, ast.Compare):
        return (
            len(test.ops) == 1
            and isinstance(test.ops[0], ast.Is | ast.IsNot)
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        )
    return isinstance_call(test) is not None


def _check_or_log(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is a type checker's ``assert`` (:func:`_narrows_type`) or a bare
    call of a logger's method (``logger.info_once(...)``): no value changes."""
    if isinstance(stmt, ast.Assert):
        return _narrows_type(stmt.test)
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in LOGGERS
    )


class _ChecksAndLogs(_Dropped):
    """``assert`` statements that narrow a type and logger calls left out of every
    statement list."""

    def drops(self, stmt: ast.stmt) -> bool:
        return _check_or_log(stmt)


def avoided_names(header: str) -> set[str]:
    """The names in backquotes in the header's sentences that say the patch avoids them
    (the last part of a dotted name: ``torch.compile`` gives ``compile``)."""
    names: set[str] = set()
    text = " ".join(line.strip() for line in header.splitlines())
    for sentence in re.split(r"(?<=[.;:])\s+", text):
        if AVOIDS.search(sentence):
            names |= {m.split(".")[-1] for m in BACKQUOTED.findall(sentence)}
    return names


def _platform_free(code: Code) -> bool:
    """Whether :class:`_Platforms` sees ``code`` as it is: its ASCII text names none of
    :data:`OTHER_PLATFORMS` (an attribute's name is its own text there)."""
    text = code.text
    return text.isascii() and not any(name in text for name in OTHER_PLATFORMS)


def cosmetic_reason(old: Code, new: Code, header: str = "") -> str:
    """Why the change from ``old`` to ``new`` (upstream definitions) is cosmetic for a patch
    whose file has ``header``; ``""`` when it is not. Each rule compares the two parses
    through a :class:`~patchkeeper.runtime.judge.samecode.View` (nothing is parsed again or
    changed)."""
    a, b = old.parsed, new.parsed
    if a is None or b is None:
        return ""
    if same_ast(a, b, view=_Annotations()):
        return "only type annotations changed"
    # Without a branch for another platform on either side, :class:`_Platforms` sees the
    # parses as they are, and the fourth rule is the first one.
    untouched = _platform_free(old) and _platform_free(new)
    if same_ast(a, b, view=None if untouched else _Platforms()):
        return "only branches for other platforms changed (is_rocm/is_cuda/is_xpu/...)"
    names = avoided_names(header)
    avoided = _Avoided(names) if names else None
    if avoided is not None and same_ast(a, b, view=avoided):
        listed = ", ".join(f"`{n}`" for n in sorted(names))
        return f"only code the patch header says it avoids changed ({listed})"
    if not untouched and same_ast(a, b, view=_Both()):
        return "only type annotations and branches for other platforms changed"
    if same_ast(a, b, view=_ChecksAndLogs()):
        return "only type-narrowing asserts and log calls changed (no value changes)"
    return ""


def _code_line(line: str) -> str:
    """``line`` without its comment and surrounding blanks (``""`` for a comment line)."""
    stripped = line.strip()
    return "" if stripped.startswith("#") else stripped.split("  #", 1)[0].strip()


def _kept(base: list[str], other: list[str]) -> set[int]:
    """Indexes of the non-blank lines of ``base`` that ``other`` keeps unchanged (the
    ``equal`` blocks of :class:`difflib.SequenceMatcher`)."""
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    kept: set[int] = set()
    for tag, i1, i2, _j1, _j2 in matcher.get_opcodes():
        if tag == "equal":
            kept.update(i for i in range(i1, i2) if base[i])
    return kept


def outside_copy_reason(old: Code, new: Code, mine: Code) -> str:
    """Why the upstream change ``old`` -> ``new`` needs no update of the replacement
    ``mine``: every upstream hunk lies in lines of the old upstream that ``mine`` does not
    keep (changed or dropped by the plugin, or a replacement that copies nothing), and no
    upstream insertion touches a line ``mine`` keeps. ``""`` when some hunk reaches the
    copied code, or when the old upstream has no code line at all.

    Lines are compared without comments and surrounding blanks; blank lines are ignored."""
    base = [_code_line(x) for x in old.lines]
    if not any(base):
        return ""
    theirs = [_code_line(x) for x in new.lines]
    kept: set[int] | None = None  # the lines the replacement keeps: found at the first hunk
    hunks = 0
    matcher = difflib.SequenceMatcher(None, base, theirs, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "insert":
            if not any(theirs[j1:j2]):
                continue
            touched = {i1 - 1, i1}
        else:
            changed = [i for i in range(i1, i2) if base[i]]
            if not changed and not any(theirs[j1:j2]):
                continue
            touched = set(changed or [i1 - 1, i1])
        if kept is None:
            kept = _kept(base, [_code_line(x) for x in mine.lines])
        if touched & kept:
            return ""
        hunks += 1
    if not hunks or kept is None:
        return ""
    share = len(kept) / max(sum(1 for x in base if x), 1)
    return (
        f"the upstream change ({hunks} hunk(s)) lies only in code the replacement does not "
        f"copy (it keeps {share:.0%} of the old upstream's lines, none of those upstream "
        "changed): nothing of it reaches the plugin's code"
    )


#: A name in a line of code (an identifier not preceded by a dot: not an attribute).
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def removal_only_reason(old: Code, new: Code, lost: frozenset[str] = frozenset()) -> str:
    """Why the upstream change ``old`` -> ``new`` needs no update of a copy: upstream only
    took code lines out (the new body's code lines are the old one's, in order, with some
    left out; comments and blank lines ignored), so the copy, which keeps them, still does
    what the old release did and upstream added nothing for it to carry. ``""`` when
    upstream added or changed a code line, or removed none, or when a removed line names
    one of ``lost`` (the names the target's module defined or imported at the old release
    and no longer does: the copy's kept line would fail there)."""
    base = [line for line in map(_code_line, old.lines) if line]
    theirs = [line for line in map(_code_line, new.lines) if line]
    if not theirs or len(theirs) >= len(base):
        return ""
    matcher = difflib.SequenceMatcher(None, base, theirs, autojunk=False)
    opcodes = matcher.get_opcodes()
    if any(tag not in ("equal", "delete") for tag, *_ in opcodes):
        return ""
    removed = [line for tag, i1, i2, *_ in opcodes if tag == "delete" for line in base[i1:i2]]
    if lost and any(name in lost for line in removed for name in _NAME.findall(line)):
        return ""
    gone = len(base) - len(theirs)
    return (
        f"upstream only removed code ({gone} line(s), nothing added or changed): the copy, "
        "which keeps them, still does what the old release did; drop them too once upstream's "
        "reason is checked"
    )


def _parameter_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The names of ``node``'s named parameters (``*args``/``**kwargs`` left out)."""
    arguments = node.args
    return [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]


def _forwards_extra(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``node`` takes ``**kwargs`` and passes it on to a call (``f(..., **kwargs)``),
    and passes ``*args`` on too when it takes them."""
    arguments = node.args
    if arguments.kwarg is None:
        return False
    kwargs, args = arguments.kwarg.arg, arguments.vararg.arg if arguments.vararg else None
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call):
            continue
        passes_kwargs = any(
            k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs
            for k in sub.keywords
        )
        passes_args = args is None or any(
            isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == args
            for a in sub.args
        )
        if passes_kwargs and passes_args:
            return True
    return False


def forwards_extra(node: ast.AST | None) -> bool:
    """Whether ``node`` is a function that forwards its extra arguments to a call
    (:func:`_forwards_extra`: ``def f(self, *args, **kwargs): ... original(self, *args,
    **kwargs)``); ``False`` for anything else."""
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _forwards_extra(node)


def forwarded_signature_reason(old: Code, new: Code, mine: Code) -> str:
    """Why a change of upstream's parameters needs no update of a replacement that forwards
    its extra arguments (``def f(a, *args, b=1, **kwargs): ... original(*args, a=a, b=b,
    **kwargs)``): the parameters upstream adds reach the wrapped call through ``*args`` and
    ``**kwargs``, and every parameter the replacement names itself is still upstream's (or
    was never upstream's: its own). ``""`` when upstream removed or renamed a parameter the
    replacement names, or the replacement forwards nothing (Python's call semantics: a
    keyword the function does not name goes to ``**kwargs``)."""
    nodes = (old.parsed, new.parsed, mine.parsed)
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    if not all(isinstance(n, functions) for n in nodes):
        return ""
    before, after, ours = nodes
    if not _forwards_extra(ours):  # type: ignore[arg-type]
        return ""
    gone = set(_parameter_names(before)) - set(_parameter_names(after))  # type: ignore[arg-type]
    named = gone & set(_parameter_names(ours))  # type: ignore[arg-type]
    if named:
        return ""
    added = sorted(set(_parameter_names(after)) - set(_parameter_names(before)))  # type: ignore[arg-type]
    listed = ", ".join(added[:6]) or "none"
    return (
        "the replacement forwards its extra arguments (*args/**kwargs) to the call it wraps: "
        f"upstream's new parameters ({listed}) pass through, and no parameter it names was "
        "removed upstream"
    )


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr | None]:
    """Every named parameter of ``node`` with its default (``None``: none)."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    padded: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    padded += arguments.defaults
    out = {a.arg: d for a, d in zip(positional, padded, strict=True)}
    out.update((a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True))
    return out


def takes_the_calls(
    mine: ast.FunctionDef | ast.AsyncFunctionDef,
    old: ast.FunctionDef | ast.AsyncFunctionDef,
    new: ast.FunctionDef | ast.AsyncFunctionDef,
) -> bool:
    """Whether a call written for upstream's ``new`` definition (``old``: the one before)
    binds to ``mine`` as it does to ``new``: ``mine``'s positional parameters start with
    ``new``'s, in order (or ``mine`` takes ``*args``); each keyword-only parameter of ``new``
    is a parameter of ``mine`` (or ``mine`` takes ``**kwargs``); every parameter ``mine``
    requires (no default) is one of ``new``'s, which its callers pass; ``mine`` takes
    ``*args``/``**kwargs`` where ``new`` does; and a parameter ``new`` added over ``old``
    that ``mine`` has takes upstream's default there (a caller that leaves it out expects
    upstream's value)."""
    ours, theirs = mine.args, new.args
    positional = [a.arg for a in (*ours.posonlyargs, *ours.args)]
    wanted = [a.arg for a in (*theirs.posonlyargs, *theirs.args)]
    if positional[: len(wanted)] != wanted and ours.vararg is None:
        return False
    named = set(positional) | {a.arg for a in ours.kwonlyargs}
    if ours.kwarg is None and any(a.arg not in named for a in theirs.kwonlyargs):
        return False
    kept = _defaults(mine)
    required = {name for name, default in kept.items() if default is None}
    if not required <= set(wanted) | {a.arg for a in theirs.kwonlyargs}:
        return False
    before = _defaults(old)
    for name, default in _defaults(new).items():
        if name in before or name not in kept:
            continue
        mine_default = kept[name]
        if (default is None) != (mine_default is None):
            return False
        if (
            default is not None
            and mine_default is not None
            and ast.dump(default) != ast.dump(mine_default)
        ):
            return False
    return (theirs.vararg is None or ours.vararg is not None) and (
        theirs.kwarg is None or ours.kwarg is not None
    )


def _follows_releases(code: Code) -> bool:
    """Whether the plugin's copy ``code`` tests upstream's release in its own lines (an
    ``if`` or a conditional expression on the release,
    :func:`patchkeeper.runtime.judge.replacement.holds_version_gate`): a copy written to
    follow upstream from release to release. Read only when its module holds such a test
    (:attr:`Code.gated`) or binds one to a name (:attr:`Code.version_flags`: the copy's
    ``if not _IS_RELEASE and ...:`` reads ``_IS_RELEASE = vllm_version_is("0.25.1")``);
    a copy that does not parse counts as following when its module holds such a test (as
    its module says)."""
    if not code.gated and not code.version_flags:
        return False
    node = code.parsed
    if node is None:
        return code.gated
    return holds_version_gate(node, code.version_flags)


def statement_follows_releases(entry: PatchEntry, mine: Code | None = None) -> bool:
    """Whether the patch statement of ``entry`` follows upstream's releases: it sits in a
    test of upstream's release (a condition on its way that
    :func:`patchkeeper.runtime.syntax.gates.evaluate` decides: ``if not
    vllm_version_is("0.28.0"): module.fn = fn``), or the module of its copy ``mine``
    binds the copy, or imports a part of the target (its class or module), inside such a
    test (``if vllm_version_is("0.28.0"): from vllm.a import Model`` before ``Model.forward
    = forward``; ``if ...: def kernel(x): ... else: def kernel(x, scale): ...``,
    :attr:`Code.gated_names`). The plugin binds its copy per release, and the copy follows
    the releases as one that tests them itself does (:func:`callers_fit_reason` is not read
    for it)."""
    if mine is not None and mine.gated_names:
        own = entry.replacement.partition(":")[2].split(".")[:1]
        if set(mine.gated_names) & {*entry.target.split("."), *own}:
            return True
    activation = entry.activation
    if activation is None:
        return False
    return any(evaluate(c.text, "0") is not None for c in activation.conditions)


#: The upstream changes :func:`callers_fit_reason` reads; another one (the decorators, the
#: kind of definition) changes how the function is built or called: an update.
_CALL_CHANGES = ("body", "signature", "return annotation")


def callers_fit_reason(
    old: Code,
    new: Code,
    mine: Code,
    changes: tuple[str, ...],
    lost: frozenset[str] = frozenset(),
    unpassed: frozenset[str] = frozenset(),
) -> str:
    """Why an upstream change of a function the plugin replaces by its own copy needs no
    update: upstream changed the body alone, or also its parameters in a way the copy
    already takes (:func:`takes_the_calls`: a parameter upstream added that the copy has
    already, an annotation), so every call upstream's callers make still binds to the copy,
    which runs as the plugin wrote it. ``""`` when a definition is not a function, when
    upstream changed something else (decorators, the kind of definition), when a call to
    the new signature would not bind to the copy, or when the copy marks its own lines with
    Modification banners (:func:`~patchkeeper.runtime.judge.drift.outside_banners`): such a
    copy says that every line outside them is upstream's, which an upstream change there
    must reach; nor when the copy itself tests upstream's release (:func:`_follows_releases`:
    its module holds such a test, :attr:`Code.gated`, and the copy's own lines do): code
    that follows upstream's releases has each one's change carried into it, while a test
    elsewhere in its module, for another patch, says nothing of this copy (over six
    vllm-ascend releases the maintainers updated every copy holding such a test itself that
    the audit said *update* for, kept all 5 whose module tested a release only for other
    code, and updated 2 of 3 bound per release, :func:`statement_follows_releases`,
    ``benchmarks/runtime_history.py``); nor
    when the copy names one of ``lost`` (the names the target's module defined or imported
    at the old release and no longer does, as
    for :func:`removal_only_reason`: the copy's line may fail there). ``unpassed``: the
    parameters with a default the new upstream added that no upstream call passes
    (:func:`patchkeeper.runtime.judge.unpassed.unpassed_parameters`): the calls bind to
    the copy without them, as they did at the old release.

    The plugin's copy is its own code: what upstream changed inside the function reaches
    the plugin only through a merge a maintainer chooses to make (the upstream diff is in
    the entry's evidence). Over six vllm-ascend
    releases (``benchmarks/runtime_history.py``) its maintainers kept 32 of 36 such copies
    whose upstream body alone changed, and 15 of 19 whose new signature the copy took."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    before, after, ours = old.parsed, new.parsed, mine.parsed
    if not (
        isinstance(before, functions)
        and isinstance(after, functions)
        and isinstance(ours, functions)
    ):
        return ""
    if not changes or not all(c.startswith(_CALL_CHANGES) for c in changes):
        return ""
    if outside_banners(old, mine)[1]:
        return ""  # a copy that marks its own lines says the rest is upstream's to carry
    if _follows_releases(mine):
        return ""  # a copy that follows upstream's releases is updated with each one
    if lost and any(name in lost for line in mine.lines for name in _NAME.findall(line)):
        return ""  # it names what the target's module no longer has: it may fail there
    if changes == ("body",):
        return (
            "upstream changed only the body of the function the plugin replaces by its own "
            "copy (signature and decorators are the same: its callers' calls still bind to "
            "the copy, which runs as the plugin wrote it); merge upstream's change into it "
            "only if the plugin needs it"
        )
    if not takes_the_calls(ours, before, after):
        if not (unpassed and takes_the_calls(ours, before, without(after, unpassed))):
            return ""
        skipped = sorted(unpassed)
        return (
            "upstream changed the signature of the function the plugin replaces by its own "
            f"copy, adding {', '.join(skipped)} (with a default), which no upstream call in "
            "the target's module or the modules importing it passes: every call still binds "
            "to the copy's parameters, and the copy runs as the plugin wrote it; take the new "
            "parameter in when a caller starts passing it"
        )
    return (
        "upstream changed the signature of the function the plugin replaces by its own copy "
        "in a way the copy already takes (every call to the new signature binds to the "
        "copy's parameters), and otherwise its body: the copy runs as the plugin wrote it; "
        "merge upstream's change into it only if the plugin needs it"
    )
