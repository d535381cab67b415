"""Cut the version gates whose live branch changes between two upstream releases.

A plugin that supported the old release keeps code for it behind version gates
(:mod:`patchkeeper.runtime.syntax.gates`): ``if vllm_version_is("0.25.1"): <old> else: <new>``,
``x if vllm_version_is("0.25.1") else y``. Moving the plugin to the new release, the branch
live only at the old release is dead: the maintainers delete it and keep the live one
(vllm-ascend does so at every upgrade). :func:`cut_gates` does that to a source text:

- an ``if`` whose test holds at the new release and not at the old one keeps its ``if``
  block, dedented to the ``if``'s own indentation; one that no longer holds keeps its
  ``else`` block (an ``elif`` becomes the ``if``), or is deleted when it has none (``pass``
  when it was the only statement of its block);
- a conditional expression is replaced by its live operand (in parentheses when that spans
  lines);
- a gate that is one operand of ``and``/``or`` (``if is_dsv4 and not vllm_version_is(
  "0.28.0"):``) is replaced by its value and the test reduced: it becomes the other
  operands (``if is_dsv4:``), or decides the whole test (``False and ...``), which is then
  cut as above;
- a gate helper (the function called in a cut test, such as ``vllm_version_is``) that the
  text no longer uses is dropped from its ``from ... import`` statement;
- inside a function, when the block kept of an ``if`` ends in ``return`` or ``raise``
  (``if not vllm_version_is("0.25.1"): return super().f(...)`` followed by the old
  release's code), the statements after the ``if`` in the same block are unreachable at the
  new release: they are deleted too, and the cut says how many lines went
  (:attr:`Cut.unreachable`).

Only gates decided at both releases with different outcomes are cut (the edit
:func:`~patchkeeper.runtime.syntax.gates.gate_edit` names); a gate dead at both releases (an
older version's leftover) or naming a later release stays, and so does an ``if`` written
on one line with its block (``if gate: x``). The text is edited in place, line by line:
formatting and comments outside the cut lines are kept.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from patchkeeper.runtime.syntax.gates import evaluate

#: At most this many gates are cut in one text (a bound, not a limit met in practice).
MAX_CUTS = 500


@dataclass(frozen=True)
class Cut:
    """One gate cut: its ``line`` (1-based, in the text given to :func:`cut_gates`), its
    ``test`` (source, as written), and ``kept``: ``"if"``, ``"else"`` or ``"nothing"``
    for a statement, ``"body"`` or ``"orelse"`` for a conditional expression, or
    ``"test: REST"`` when the gate was one operand of ``and``/``or`` and the test became
    ``REST``."""

    line: int
    test: str
    kept: str
    #: Lines after the ``if`` deleted as unreachable (its kept block ends in ``return`` or
    #: ``raise``): from its end to the end of the last statement of its block, counted in
    #: the text given to :func:`cut_gates`.
    unreachable: int = 0


def _decided(test: ast.expr, old: str, new: str) -> bool | None:
    """The value at ``new`` of a test that is a gate on its own and changes between the
    two releases (known at both, different); ``None`` otherwise."""
    text = ast.unparse(test)
    before, after = evaluate(text, old), evaluate(text, new)
    if before is None or after is None or before == after:
        return None
    return after


def _reduce(test: ast.expr, old: str, new: str, source: str) -> bool | str | None:
    """``test`` with each gate in it that changes between the releases replaced by its
    value at ``new`` and the ``not``/``and``/``or`` around it reduced: ``True``/``False``
    when that decides the test, the remaining test's source (the other operands as
    written) when it only shortens it, ``None`` when no such gate is in it."""
    value = _decided(test, old, new)
    if value is not None:
        return value
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _reduce(test.operand, old, new, source)
        if isinstance(inner, bool):
            return not inner
        return None if inner is None else f"not {_wrap(inner, test.operand)}"
    if not isinstance(test, ast.BoolOp):
        return None
    parts: list[str] = []
    changed = False
    absorbing = isinstance(test.op, ast.Or)  # True absorbs ``or``; False absorbs ``and``
    for operand in test.values:
        reduced = _reduce(operand, old, new, source)
        if reduced is None:
            parts.append(_wrap(ast.get_source_segment(source, operand) or "", operand))
            continue
        changed = True
        if isinstance(reduced, bool):
            if reduced is absorbing:
                return absorbing
            continue  # the neutral value drops out
        parts.append(_wrap(reduced, operand))
    if not changed:
        return None
    if not parts:
        return not absorbing
    return (" or " if absorbing else " and ").join(parts)


def _wrap(text: str, node: ast.expr) -> str:
    """``text`` in parentheses when ``node`` binds looser than an operand of ``and``."""
    loose = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)
    return f"({text})" if isinstance(node, loose) and " " in text else text


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _offset(lines: list[str], lineno: int, col: int) -> int:
    """The character offset in ``"".join(lines)`` of ``(lineno, col)`` (``col`` in UTF-8
    bytes, as :mod:`ast` counts)."""
    before = sum(len(line) for line in lines[: lineno - 1])
    head = lines[lineno - 1].encode("utf-8", "surrogateescape")[:col]
    return before + len(head.decode("utf-8", "surrogateescape"))


def _segment(lines: list[str], node: ast.expr) -> tuple[int, int]:
    start = _offset(lines, node.lineno, node.col_offset)
    end_line = node.end_lineno or node.lineno
    end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return start, _offset(lines, end_line, end_col)


def _block_start(lines: list[str], first: ast.stmt, indent: str) -> int:
    """The first line of a block: its first statement, with the comment lines just above
    it that are indented deeper than ``indent``."""
    start = first.lineno
    while start > 1:
        above = lines[start - 2]
        if above.strip().startswith("#") and len(_indent(above)) > len(indent):
            start -= 1
        else:
            break
    if hasattr(first, "decorator_list") and first.decorator_list:
        start = min(start, first.decorator_list[0].lineno)
    return start


def _dedent(block: list[str], indent: str) -> list[str]:
    """``block`` moved left so that its first line has ``indent``."""
    first = next((line for line in block if line.strip()), "")
    extra = len(_indent(first)) - len(indent)
    if extra <= 0:
        return block
    out = []
    for line in block:
        lead = _indent(line)
        out.append(line[extra:] if len(lead) >= extra else line.lstrip(" \t") or line)
    return out


def _parents(tree: ast.Module) -> dict[int, list[ast.stmt]]:
    """The statement list holding each statement (by ``id``); the lists of statements
    inside a function (at any depth, not in a nested class's body) are also keyed by their
    own ``id`` with the value ``[]`` under ``-id`` (see :func:`_in_function`)."""
    out: dict[int, list[ast.stmt]] = {}
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)

    def visit(node: ast.AST, inside: bool) -> None:
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            if inside:
                out[-id(block)] = []
            for child in block:
                out[id(child)] = block
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, False)
            else:
                visit(child, inside or isinstance(child, functions))

    visit(tree, False)
    return out


#: :func:`_parents`: the statement list holding each statement (by ``id``).
_Parents = dict[int, list[ast.stmt]]


def _in_function(parents: _Parents, block: list[ast.stmt]) -> bool:
    """Whether ``block`` (a statement list from :func:`_parents`) lies in a function."""
    return -id(block) in parents


def _unreachable_end(node: ast.If, kept: list[ast.stmt], parents: _Parents) -> int:
    """The last line of the statements after ``node`` in its block that its kept block
    ``kept`` never lets run (it ends in ``return`` or ``raise``, inside a function); 0 when
    there are none."""
    siblings = parents.get(id(node), [])
    if not kept or not isinstance(kept[-1], (ast.Return, ast.Raise)):
        return 0
    if not _in_function(parents, siblings):
        return 0
    index = next((i for i, s in enumerate(siblings) if s is node), None)
    if index is None or index + 1 == len(siblings):
        return 0
    return siblings[-1].end_lineno or 0


def _cut_if(
    lines: list[str], node: ast.If, live: bool, parents: _Parents
) -> tuple[list[str], str, int] | None:
    """The new lines of the text with the ``if`` statement ``node`` cut (``None``: left),
    how, and how many lines after it went as unreachable (:func:`_unreachable_end`)."""
    if node.body[0].lineno == node.lineno:
        return None  # ``if gate: x`` on one line
    if lines[node.lineno - 1].lstrip().startswith("elif"):
        done = _cut_elif(lines, node, live)
        return None if done is None else (*done, 0)
    indent = _indent(lines[node.lineno - 1])
    start, end = node.lineno, node.end_lineno or node.lineno
    dead = 0
    if live or (node.orelse and not _is_elif(lines, node.orelse)):
        dead = _unreachable_end(node, node.body if live else node.orelse, parents)
    if live:
        first = _block_start(lines, node.body[0], indent)
        last = node.body[-1].end_lineno or node.body[-1].lineno
        kept, how = _dedent(lines[first - 1 : last], indent), "if"
        if dead:
            return _splice(lines, start, dead, kept), how, dead - end
    elif _is_elif(lines, node.orelse):
        first = node.orelse[0].lineno
        kept = lines[first - 1 : end]
        kept = [kept[0].replace("elif", "if", 1), *kept[1:]]
        how = "else"
    elif node.orelse:
        if node.orelse[0].lineno == _else_line(lines, node):
            return None  # ``else: x`` on one line
        first = _block_start(lines, node.orelse[0], indent)
        kept, how = _dedent(lines[first - 1 : end], indent), "else"
        if dead:
            return _splice(lines, start, dead, kept), how, dead - end
    else:
        siblings = parents.get(id(node), [])
        kept = [f"{indent}pass\n"] if len(siblings) == 1 else []
        how = "nothing"
    return _splice(lines, start, end, kept), how, 0


def _is_elif(lines: list[str], orelse: list[ast.stmt]) -> bool:
    return (
        len(orelse) == 1
        and isinstance(orelse[0], ast.If)
        and lines[orelse[0].lineno - 1].lstrip().startswith("elif")
    )


def _rest_of_block(tree: ast.Module, lineno: int, col: int) -> tuple[int, int]:
    """For the ``if`` at ``(lineno, col)`` of ``tree`` (the text as given): its last line
    and the last line of its block (the lines of the statements after it there)."""
    parents = _parents(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (node.lineno, node.col_offset) == (lineno, col):
            siblings = parents.get(id(node), [node])
            return node.end_lineno or lineno, siblings[-1].end_lineno or lineno
    return lineno, lineno


def _cut_elif(lines: list[str], node: ast.If, live: bool) -> tuple[list[str], str] | None:
    """An ``elif`` cut inside its chain: live, it becomes the chain's ``else`` (the
    branches after it die); dead, its test and block go (the branches after it stay)."""
    indent = _indent(lines[node.lineno - 1])
    own_end = node.body[-1].end_lineno
    if live:
        first = _block_start(lines, node.body[0], indent)
        head, block, tail = (
            lines[: node.lineno - 1],
            lines[first - 1 : own_end],
            lines[node.end_lineno :],
        )
        return [*head, f"{indent}else:\n", *block, *tail], "if"
    if _is_elif(lines, node.orelse):
        return lines[: node.lineno - 1] + lines[node.orelse[0].lineno - 1 :], "else"
    if node.orelse:
        else_line = _else_line(lines, node)
        if not else_line:
            return None
        return lines[: node.lineno - 1] + lines[else_line - 1 :], "else"
    return lines[: node.lineno - 1] + lines[own_end:], "nothing"


def _splice(lines: list[str], start: int, end: int, kept: list[str]) -> list[str]:
    """``lines`` with lines ``start``..``end`` replaced by ``kept``; a deletion leaves the
    longer of the two runs of blank lines it joins, not both (none at the top)."""
    if kept:
        return lines[: start - 1] + kept + lines[end:]
    head, tail = lines[: start - 1], lines[end:]
    if not _strip_blank_end(head):
        return head + _strip_blank_start(tail)  # nothing above: no blank line first
    above = len(head) - len(_strip_blank_end(head))
    below = len(tail) - len(_strip_blank_start(tail))
    if above and below:
        blanks = head[len(head) - above :] + tail[:below]
        return _strip_blank_end(head) + blanks[: max(above, below)] + tail[below:]
    return head + tail


def _strip_blank_end(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _strip_blank_start(lines: list[str]) -> list[str]:
    count = 0
    while count < len(lines) and not lines[count].strip():
        count += 1
    return lines[count:]


def _else_line(lines: list[str], node: ast.If) -> int:
    body_end = node.body[-1].end_lineno or node.body[-1].lineno
    for number in range(body_end + 1, node.orelse[0].lineno + 1):
        if re.match(r"\s*else\s*:", lines[number - 1]):
            return number
    return 0


def _cut_ifexp(lines: list[str], node: ast.IfExp, live: bool) -> tuple[list[str], str]:
    text = "".join(lines)
    start, end = _segment(lines, node)
    kept_node = node.body if live else node.orelse
    a, b = _segment(lines, kept_node)
    kept = text[a:b]
    if "\n" in kept:
        kept = f"({kept})"
    new = text[:start] + kept + text[end:]
    return new.splitlines(True), "body" if live else "orelse"


def _candidates(
    tree: ast.Module, source: str, old: str, new: str
) -> Iterator[tuple[ast.If | ast.IfExp, bool | str]]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp)):
            live = _reduce(node.test, old, new, source)
            if live is not None:
                yield node, live


def _retest(lines: list[str], node: ast.If | ast.IfExp, test: str) -> tuple[list[str], str]:
    """The lines with ``node``'s test replaced by ``test`` (the rest of it as written)."""
    text = "".join(lines)
    start, end = _segment(lines, node.test)
    return (text[:start] + test + text[end:]).splitlines(True), f"test: {test}"


def _helpers(test: ast.expr) -> set[str]:
    """Names of the functions a gate test calls by a bare name (``vllm_version_is``)."""
    return {
        n.func.id
        for n in ast.walk(test)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }


def cut_gates(text: str, old: str, new: str) -> tuple[str, tuple[Cut, ...]]:
    """``text`` (a module's source) with every gate that changes between upstream ``old``
    and ``new`` (two PEP 440 versions) cut as the module docstring says, and the cuts made,
    first line first. A text that does not parse is returned as it is, with no cut."""
    lines = text.splitlines(True)
    cuts: list[Cut] = []
    helpers: set[str] = set()
    skipped: set[tuple[int, int, str]] = set()
    limit = (len(lines) + 1, 0)
    try:
        original = ast.parse(text)
    except SyntaxError:
        return text, ()
    for _round in range(MAX_CUTS):
        try:
            tree = ast.parse("".join(lines))
        except SyntaxError:
            break
        parents = _parents(tree)
        source = "".join(lines)
        found = [
            (node, live)
            for node, live in _candidates(tree, source, old, new)
            if (node.lineno, node.col_offset) <= limit
            and (node.lineno, node.col_offset, ast.unparse(node.test)) not in skipped
        ]
        if not found:
            break
        # The last gate first: the lines above it keep their numbers.
        node, live = max(found, key=lambda pair: (pair[0].lineno, pair[0].col_offset))
        key = (node.lineno, node.col_offset, ast.unparse(node.test))
        test = ast.get_source_segment("".join(lines), node.test) or key[2]
        done: tuple[list[str], str, int] | None
        if isinstance(live, str):
            done = (*_retest(lines, node, live), 0)
        elif isinstance(node, ast.If):
            done = _cut_if(lines, node, live, parents)
        else:
            done = (*_cut_ifexp(lines, node, live), 0)
        if done is None:
            skipped.add(key)
            continue
        candidate, how, unreachable = done
        try:
            ast.parse("".join(candidate))
        except SyntaxError:
            skipped.add(key)
            continue
        lines = candidate
        limit = (node.lineno, node.col_offset)
        helpers |= _helpers(node.test)
        if unreachable:
            # The gates cut before in the deleted statements are gone with them.
            first, last = _rest_of_block(original, node.lineno, node.col_offset)
            cuts = [c for c in cuts if not first < c.line <= last]
            unreachable = last - first  # counted in the text as given
        cuts.append(Cut(node.lineno, " ".join(test.split()), how, unreachable))
    if not cuts:
        return text, ()
    lines = _drop_unused(lines, helpers)
    return "".join(lines), tuple(sorted(cuts, key=lambda c: c.line))


def _drop_unused(lines: list[str], names: set[str]) -> list[str]:
    """``lines`` without the ``from ... import`` of each name in ``names`` that the text no
    longer uses (the rest of the import kept as written)."""
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return lines
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    for name in sorted(names - used):
        lines = _drop_import(lines, tree, name)
        tree = ast.parse("".join(lines))
    return lines


def _drop_import(lines: list[str], tree: ast.Module, name: str) -> list[str]:
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        if not any(a.name == name and a.asname is None for a in node.names):
            continue
        rest = [a for a in node.names if not (a.name == name and a.asname is None)]
        last = node.end_lineno or node.lineno
        span = lines[node.lineno - 1 : last]
        if not rest:
            return _splice(lines, node.lineno, last, [])
        if node.lineno == node.end_lineno:
            indent = _indent(span[0])
            ending = span[0][len(span[0].rstrip("\r\n")) :]
            names = ", ".join(
                a.name if a.asname is None else f"{a.name} as {a.asname}" for a in rest
            )
            module = "." * node.level + (node.module or "")
            if "#" in span[0]:
                return lines
            text = f"{indent}from {module} import {names}{ending}"
            return [*lines[: node.lineno - 1], text, *lines[node.end_lineno :]]
        kept = [line for line in span if line.strip().rstrip(",") != name]
        if len(kept) == len(span) - 1:
            return lines[: node.lineno - 1] + kept + lines[node.end_lineno :]
        return lines
    return lines


__all__ = ["Cut", "cut_gates"]
