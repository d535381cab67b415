"""astwalk: ast.walk's nodes in ast.walk's order, and which of them run at import."""

from __future__ import annotations

import ast

from patchkeeper.runtime.syntax.astwalk import (
    calls,
    leveled_statements,
    nodes,
    scoped_nodes,
    statements,
)

SOURCE = '''
import os
from vllm.config import VllmConfig as Config

@register("x")
def patched(self, a: int = os.sep, *args, **kwargs) -> None:
    """Doc."""
    if self.flag:
        total = [i for i in args if i]
    else:
        total = lambda y: y.attr
    try:
        return Config.build(total)
    except (KeyError, ValueError) as exc:
        raise RuntimeError(exc) from None

class Holder(Base, metaclass=Meta):
    value: int = vllm.envs.VALUE if vllm.envs.ON else 0
    match value:
        case {"k": 1}:
            pass
'''


def test_nodes_are_ast_walks_nodes_in_its_order() -> None:
    tree = ast.parse(SOURCE)
    walked = list(ast.walk(tree))
    found = nodes(tree)
    assert len(found) == len(walked) == 109
    assert all(a is b for a, b in zip(found, walked, strict=True))


def test_calls_are_ast_walks_calls() -> None:
    tree = ast.parse(SOURCE + "print(f(g(1), *h(), k=m()), [n() for _ in o()])\n")
    walked = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    found = calls(tree)
    assert len(found) == len(walked) == 10
    assert {id(node) for node in found} == {id(node) for node in walked}
    assert sorted(ast.unparse(node.func) for node in found) == [
        "Config.build",
        "RuntimeError",
        "f",
        "g",
        "h",
        "m",
        "n",
        "o",
        "print",
        "register",
    ]


def test_statements_are_ast_walks_statements_in_its_order() -> None:
    tree = ast.parse(SOURCE)
    kinds = (ast.stmt, ast.excepthandler, ast.match_case)
    walked = [node for node in ast.walk(tree) if isinstance(node, kinds)]
    found = list(statements(tree))
    assert found[0] is tree
    assert len(found[1:]) == len(walked) == 16
    assert all(a is b for a, b in zip(found[1:], walked, strict=True))


def test_scoped_nodes_say_what_runs_at_import() -> None:
    tree = ast.parse(SOURCE)
    scoped = scoped_nodes(tree)
    assert [node for node, _ in scoped] == nodes(tree)
    at_import = {
        ast.unparse(node) for node, now in scoped if now and isinstance(node, ast.Attribute)
    }
    later = {
        ast.unparse(node) for node, now in scoped if not now and isinstance(node, ast.Attribute)
    }
    # the class body runs at import; everything under a def or lambda counts as later (its
    # defaults and decorators too: the cross-check has always counted them so)
    assert at_import == {"vllm.envs", "vllm.envs.VALUE", "vllm.envs.ON"}
    assert later == {"os.sep", "self.flag", "y.attr", "Config.build"}


def test_leveled_statements_are_statements_with_their_depth() -> None:
    tree = ast.parse(SOURCE)
    leveled = list(leveled_statements(tree))
    assert [node for _depth, node in leveled] == list(statements(tree))
    depths = [depth for depth, _node in leveled]
    assert depths == sorted(depths)
    kinds = [(depth, type(node).__name__) for depth, node in leveled]
    assert kinds[:4] == [(0, "Module"), (1, "Import"), (1, "ImportFrom"), (1, "FunctionDef")]
    assert (3, "ExceptHandler") in kinds and (4, "Raise") in kinds
    assert (3, "match_case") in kinds and (4, "Pass") in kinds
