"""The scan's own writing of common expressions gives ast.unparse's text exactly."""

from __future__ import annotations

import ast

import pytest

from patchkeeper.runtime.syntax.unparse import expression_text

#: Each expression as written in a source file, and the text ast.unparse gives of it.
CASES = [
    ("x", "x"),
    ("a.b.c", "a.b.c"),
    ("(a).b", "a.b"),
    ("3 .real", "3 .real"),
    ("f(x, *rest, key = 'v', **kw)", "f(x, *rest, key='v', **kw)"),
    ("g()(1)[0]", "g()(1)[0]"),
    ("not x", "not x"),
    ("not (a and b)", "not (a and b)"),
    ("-x", "-x"),
    ("-(a < b)", "-(a < b)"),
    ("~(not a)", "~(not a)"),
    ("a < b <= c", "a < b <= c"),
    ("a is not None and b not in c", "a is not None and b not in c"),
    ("a and b and c < d", "a and b and (c < d)"),
    ("a and (not b)", "a and (not b)"),
    ("(a or b) and c", "(a or b) and c"),
    ("a or b and c", "a or (b and c)"),
    ("(a and b) or c", "a and b or c"),
    ("x == (1, 2)", "x == (1, 2)"),
    ("x == (1,)", "x == (1,)"),
    ("x == ()", "x == ()"),
    ("f((1, 2))", "f((1, 2))"),
    ("a, b", "(a, b)"),
    ("(not a) < b", "(not a) < b"),
    ("(a < b) == c", "(a < b) == c"),
    ("f(a < b, not c)", "f(a < b, not c)"),
    ("[*a]", "[*a]"),
    ("u'text' + b'bytes'", "u'text' + b'bytes'"),
    ("\"it's\" == 'q\"'", "\"it's\" == 'q\"'"),
    ("x is ... or y is None or z is True", "x is ... or y is None or z is True"),
    ("1.5 < x < 1e400", "1.5 < x < 1e309"),
    ("sys.version_info[:2] >= (3, 10)", "sys.version_info[:2] >= (3, 10)"),
    ("f(x for x in y)", "f((x for x in y))"),
    ("a if b else c", "a if b else c"),
    ("lambda: (yield)", "lambda: (yield)"),
    ("f'{x!r}' in s", "f'{x!r}' in s"),
]


@pytest.mark.parametrize(("written", "expected"), CASES)
def test_expression_text_is_unparse(written: str, expected: str) -> None:
    node = ast.parse(written, mode="eval").body
    assert ast.unparse(node) == expected
    assert expression_text(node) == expected
