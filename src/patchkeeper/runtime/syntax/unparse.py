""":func:`ast.unparse` of the expressions the scan writes out most, without its visitor.

The scan of a plugin writes out the test of every ``if`` an edge is recorded under (the
condition's text) and each call argument it cannot follow (the text a finding quotes).
:func:`ast.unparse` builds a visitor object per call and dispatches on every node through
it: for a name, a dotted name, a comparison or an ``and`` of a few of them (nearly all such
tests and arguments), most of its time is that machinery. :func:`expression_text` writes
those forms itself, with the parentheses :func:`ast.unparse` writes (its precedence rules,
followed to the letter, ``and``/``or`` operands included: each operand after the first is
written at the next higher precedence, so ``a and b and c < d`` comes out as ``a and b and
(c < d)``), and hands any other form, whole, to :func:`ast.unparse`: the text is the same.
"""

from __future__ import annotations

import ast

# The precedences of ast._Unparser (ast._Precedence), as numbers in the same order.
_TUPLE = 2
_TEST = 4
_OR = 5
_AND = 6
_NOT = 7
_CMP = 8
_EXPR = 9
_FACTOR = 15
_ATOM = 18
_LAST = _ATOM

_COMPARISONS: dict[type, str] = {
    ast.Eq: " == ",
    ast.NotEq: " != ",
    ast.Lt: " < ",
    ast.LtE: " <= ",
    ast.Gt: " > ",
    ast.GtE: " >= ",
    ast.Is: " is ",
    ast.IsNot: " is not ",
    ast.In: " in ",
    ast.NotIn: " not in ",
}
_SIGNS: dict[type, str] = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
#: The constant values written as their ``repr``: a float or complex number is not
#: (infinities and NaNs are spelled otherwise), nor a tuple.
_REPR_CONSTANTS = (str, int, bool, bytes, type(None))


class _Other(Exception):
    """A form :func:`_text` does not write: the whole expression goes to ast.unparse."""


def expression_text(node: ast.AST) -> str:
    """``ast.unparse(node)``, the common forms written directly (see the module's text)."""
    kind = node.__class__
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined,no-any-return]
    try:
        return _text(node, _TEST)
    except _Other:
        return ast.unparse(node)


def negation_text(test: ast.expr) -> str:
    """The text of the condition ``not test``: the operand of a ``not`` as it is (the
    negation of ``not x`` is ``x``: a reader should not undo ``not (not x)``), else
    ``not (TEST)``, the test's text (:func:`expression_text`) in parentheses.

    >>> negation_text(ast.parse("not x.ready()", mode="eval").body)
    'x.ready()'
    >>> negation_text(ast.parse("a or b", mode="eval").body)
    'not (a or b)'
    """
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return expression_text(test.operand)
    return f"not ({expression_text(test)})"


def negated(text: str) -> str:
    """:func:`negation_text` of a test given as its text (``"not x"`` gives ``"x"``); a text
    that is no expression is negated as it is written, ``not (TEXT)``."""
    try:
        test = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return f"not ({text})"
    return negation_text(test)


def _text(node: ast.AST, level: int) -> str:
    """The text of ``node`` written where precedence ``level`` holds (``ast._Unparser``'s
    ``get_precedence`` of it; ``_TEST`` when nothing set it)."""
    kind = node.__class__
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined,no-any-return]
    if kind is ast.Attribute:
        value = node.value  # type: ignore[attr-defined]
        text = _text(value, _ATOM)
        if value.__class__ is ast.Constant and isinstance(value.value, int):
            text += " "
        return f"{text}.{node.attr}"  # type: ignore[attr-defined]
    if kind is ast.Constant:
        value = node.value  # type: ignore[attr-defined]
        if value is ...:
            return "..."
        if not isinstance(value, _REPR_CONSTANTS) or isinstance(value, float):
            raise _Other
        return ("u" if node.kind == "u" else "") + repr(value)  # type: ignore[attr-defined]
    if kind is ast.Call:
        parts = [_text(arg, _TEST) for arg in node.args]  # type: ignore[attr-defined]
        for keyword in node.keywords:  # type: ignore[attr-defined]
            value_text = _text(keyword.value, _TEST)
            parts.append(f"{keyword.arg}={value_text}" if keyword.arg else f"**{value_text}")
        return f"{_text(node.func, _ATOM)}({', '.join(parts)})"  # type: ignore[attr-defined]
    if kind is ast.Starred:
        return "*" + _text(node.value, _EXPR)  # type: ignore[attr-defined]
    if kind is ast.Compare:
        parts = [_text(node.left, _EXPR)]  # type: ignore[attr-defined]
        for op, right in zip(node.ops, node.comparators, strict=True):  # type: ignore[attr-defined]
            parts.append(_COMPARISONS[op.__class__])
            parts.append(_text(right, _EXPR))
        return _parenthesized("".join(parts), level > _CMP)
    if kind is ast.BoolOp:
        own = _AND if node.op.__class__ is ast.And else _OR  # type: ignore[attr-defined]
        joint = " and " if own == _AND else " or "
        parts = []
        inner = own
        for value in node.values:  # type: ignore[attr-defined]
            inner = min(inner + 1, _LAST)
            parts.append(_text(value, inner))
        return _parenthesized(joint.join(parts), level > own)
    if kind is ast.UnaryOp:
        op = node.op.__class__  # type: ignore[attr-defined]
        if op is ast.Not:
            return _parenthesized("not " + _text(node.operand, _NOT), level > _NOT)  # type: ignore[attr-defined]
        sign = _SIGNS[op]
        return _parenthesized(sign + _text(node.operand, _FACTOR), level > _FACTOR)  # type: ignore[attr-defined]
    if kind is ast.Tuple:
        elements = [_text(element, _TEST) for element in node.elts]  # type: ignore[attr-defined]
        if not elements:
            return "()"
        text = elements[0] + "," if len(elements) == 1 else ", ".join(elements)
        return _parenthesized(text, level > _TUPLE)
    raise _Other


def _parenthesized(text: str, wrap: bool) -> str:
    return f"({text})" if wrap else text
