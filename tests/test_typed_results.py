"""The audit record (``src/patchkeeper/record``) and the renderers (``src/patchkeeper/render``)
read results through their types: no ``x.get("field")`` lookup of a result's field, and no
verdict spelled again as a string.

A result read back from the evidence store is decoded into the type that made it
(:mod:`patchkeeper.record.stored_results`), so a field renamed in a result breaks the type
check instead of turning into a silent ``None`` in ``AUDIT.md``; and a verdict is compared
with its own constant (:class:`patchkeeper.audit.verdicts.Verdict`,
:class:`patchkeeper.port.rebase.PortVerdict`, :class:`patchkeeper.constants.DecisionWord`),
so that a verdict is spelt in one place. :data:`ALLOWED_GETS` and :data:`ALLOWED_WORDS` list
the places that read something else than a result (a configuration table, the environment
variables, a file's own envelope) or use a verdict's word for another thing, each with why.
"""

from __future__ import annotations

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "src" / "patchkeeper"
PACKAGES = ("record", "render")

_CONFIG = "a table of the configuration file (TOML), not a result"
_ENVIRON = "an environment variable"
_ENVELOPE = "the store file's own envelope (format, argv, time), decoded into its dataclass here"
_PROBE = "the JSON a probe process prints, decoded into its dataclass here"
_FILE = "another program's metadata file (PKG-INFO, pyproject.toml, the cache's record)"
_RICH = "rich's task fields, not a result"

#: (module, function) -> why a ``.get("...")`` there reads no result's field.
ALLOWED_GETS: dict[tuple[str, str], str] = {
    ("record/build.py", "environment_packages"): _CONFIG,
    ("record/decisions.py", "_decision"): _CONFIG,
    ("record/settings.py", "report_settings"): _CONFIG,
    ("record/evidence_store.py", "enabled"): _CONFIG,
    ("record/evidence_store.py", "load"): _ENVELOPE,
    ("record/report.py", "read_environment"): _ENVELOPE,
    ("record/envprobe.py", "interpreter"): _ENVIRON,
    ("record/import_origins.py", "probe_interpreter"): _PROBE,
    ("record/import_origins.py", "probe_package"): _PROBE,
    ("record/sources.py", "_tree_source"): _FILE,
    ("record/sources.py", "_cached_by_root"): _FILE,
    ("render/console.py", "detect"): _ENVIRON,
    ("render/console.py", "_columns"): _ENVIRON,
    ("render/console.py", "progress_bar"): _ENVIRON,
    ("render/console.py", "render"): _RICH,
}

#: (module, word) -> why a verdict's word is written there as a string.
ALLOWED_WORDS: dict[tuple[str, str], str] = {
    ("record/audit_md.py", "clean"): "a checkout's state (clean or dirty), not a verdict",
    ("record/patch_evidence.py", "target gone"): "a runtime removal's reason (Removal)",
    **{
        ("render/console.py", word): "the terminal colours words where they stand in the "
        "printed text, whichever result printed them, and imports no feature"
        for word in (
            "clean",
            "offset",
            "upstreamed",
            "partially upstreamed",
            "conflict",
            "target gone",
            "blocked",
            "merged",
            "resolved",
            "dropped",
            "retain",
            "update",
            "migrate",
            "remove",
            "look",
        )
    },
}


def _modules() -> dict[str, ast.Module]:
    return {
        path.relative_to(SOURCE).as_posix(): ast.parse(path.read_bytes())
        for package in PACKAGES
        for path in sorted((SOURCE / package).rglob("*.py"))
    }


def keyed_gets(tree: ast.Module) -> list[tuple[str, str, int]]:
    """Every ``x.get("key", ...)`` call: (the function it is in, the key, its line).

    >>> keyed_gets(ast.parse("def f(d):\\n    return d.get('verdict'), d.get(k)\\n"))
    [('f', 'verdict', 2)]
    """
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inside = (
                child.name
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                else function
            )
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr == "get"
                and child.args
                and isinstance(child.args[0], ast.Constant)
                and isinstance(child.args[0].value, str)
            ):
                found.append((function, child.args[0].value, child.lineno))
            visit(child, inside)

    visit(tree, "<module>")
    return found


def verdict_words() -> set[str]:
    """Every word of the audit's, the port's and the decisions' word sets."""
    from patchkeeper.audit.verdicts import Verdict
    from patchkeeper.constants import DecisionWord
    from patchkeeper.port.rebase import PortVerdict

    return {w.value for enum in (Verdict, PortVerdict, DecisionWord) for w in enum}


def spelt_words(tree: ast.Module, words: set[str]) -> list[tuple[str, int]]:
    """Every string literal of ``tree`` that is one of ``words``: (the word, its line)."""
    return sorted(
        (node.value, node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in words
    )


def test_no_result_field_is_read_by_key() -> None:
    found = sorted(
        f"{module}:{line}: {function}() reads .get({key!r})"
        for module, tree in _modules().items()
        for function, key, line in keyed_gets(tree)
        if (module, function) not in ALLOWED_GETS
    )
    assert found == [], "read the typed result's attribute instead:\n" + "\n".join(found)


def test_no_verdict_is_spelt_again() -> None:
    words = verdict_words()
    found = sorted(
        f"{module}:{line}: {word!r}"
        for module, tree in _modules().items()
        for word, line in spelt_words(tree, words)
        if (module, word) not in ALLOWED_WORDS
    )
    assert found == [], "use the verdict's constant instead:\n" + "\n".join(found)


def test_the_allowed_places_still_need_it() -> None:
    """An entry of the lists whose place no longer reads by key or spells the word goes."""
    modules = _modules()
    words = verdict_words()
    gets = {(m, f) for m, tree in modules.items() for f, _, _ in keyed_gets(tree)}
    spelt = {(m, w) for m, tree in modules.items() for w, _ in spelt_words(tree, words)}
    assert (sorted(set(ALLOWED_GETS) - gets), sorted(set(ALLOWED_WORDS) - spelt)) == ([], [])


def test_the_checks_see_a_field_read_and_a_verdict() -> None:
    tree = ast.parse(
        "def summary(result):\n    if result.get('verdict') == 'conflict':\n        return 'port'\n"
    )
    assert keyed_gets(tree) == [("summary", "verdict", 2)]
    assert spelt_words(tree, verdict_words()) == [("conflict", 2)]
