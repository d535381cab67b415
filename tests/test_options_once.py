"""Each option of the command line is spelt in one place under ``src/patchkeeper``: the
``click.option``/``click.Option`` that declares it (``patchkeeper/commands/options.py`` for
an option several commands take, the command's own module for the others), or, for an option
that other code names too, its ``OPTION_...`` constant in ``patchkeeper/constants.py``,
which the declaration and that code both use.

An option's name written anywhere else as a string of its own (``"--to"``) is a second
spelling that can drift from the declaration. :data:`ALLOWED` lists the places that write
another program's option of the same name, each with the reason.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "src" / "patchkeeper"

#: The module that names the options other code names (``OPTION_TO``).
CONSTANTS = "patchkeeper/constants.py"

#: (module, option) -> why the name is written there too: none of them is ours.
ALLOWED: dict[tuple[str, str], str] = {
    ("patchkeeper/start/rpm_spec.py", "-o"): "rpm's %patch option (an output file), not ours",
    ("patchkeeper/start/forms.py", "-o"): "git format-patch's -o (its output directory), not ours",
    ("patchkeeper/ledger/entries.py", "--check"): "git apply's --check, run on a pin, not ours",
    ("patchkeeper/ledger/check_branch.py", "-C"): "git's -C in the command a hint gives, not ours",
    ("patchkeeper/ledger/check_branch.py", "-o"): "git format-patch's -o in that hint, not ours",
    ("patchkeeper/commands/cli.py", "--format"): "other tools' JSON option, answered with --json",
    ("patchkeeper/commands/cli.py", "--output"): "other tools' JSON option, answered with --json",
    ("patchkeeper/commands/cli.py", "-o"): "other tools' JSON option, answered with --json",
}


def _modules() -> dict[str, ast.Module]:
    return {
        path.relative_to(SOURCE.parent).as_posix(): ast.parse(path.read_bytes())
        for path in sorted(SOURCE.rglob("*.py"))
    }


def _constants(tree: ast.Module) -> dict[str, ast.Constant]:
    """The module's top-level ``NAME = "text"`` assignments."""
    out = {}
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            for target in targets:
                if isinstance(target, ast.Name):
                    out[target.id] = value
    return out


def _is_click(call: ast.Call, names: tuple[str, ...]) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in names
        and isinstance(func.value, ast.Name)
        and func.value.id == "click"
    )


def _factories(modules: dict[str, ast.Module]) -> set[str]:
    """The shared options' decorator factories (``output_option``) of
    ``patchkeeper/commands/options.py``."""
    tree = modules["patchkeeper/commands/options.py"]
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.endswith("_option")
    }


def _imported(
    tree: ast.Module, constants: dict[str, dict[str, ast.Constant]]
) -> dict[str, ast.Constant]:
    """The string constants the module ``tree`` imports from another module of the package
    (``from patchkeeper.constants import OPTION_TO``), by the name it uses."""
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found = constants.get(node.module.replace(".", "/") + ".py", {})
            for alias in node.names:
                if alias.name in found:
                    names[alias.asname or alias.name] = found[alias.name]
    return names


def declarations(modules: dict[str, ast.Module]) -> list[tuple[str, str, ast.Constant]]:
    """Every option name a ``click.option(...)``/``click.Option([...])`` (or a shared
    option's factory: ``output_option(..., "-o")``) declares: (module, name, the string
    literal that spells it); a name may be a constant of the module or one it imports
    (``OPTION_TO``)."""
    found = []
    factories = _factories(modules)
    constants = {module: _constants(tree) for module, tree in modules.items()}
    for module, tree in modules.items():
        names = {**_imported(tree, constants), **constants[module]}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            factory = isinstance(node.func, ast.Name) and node.func.id in factories
            if _is_click(node, ("option",)) or factory:
                words = list(node.args)
            elif _is_click(node, ("Option",)) and node.args and isinstance(node.args[0], ast.List):
                words = list(node.args[0].elts)
            else:
                continue
            for word in words:
                literal = names.get(word.id) if isinstance(word, ast.Name) else word
                if (
                    isinstance(literal, ast.Constant)
                    and isinstance(literal.value, str)
                    and literal.value.startswith("-")
                ):
                    found.append((module, literal.value, literal))
    return found


def test_the_declarations_are_found() -> None:
    names = {name for _, name, _ in declarations(_modules())}
    assert {"-C", "--config", "--json", "--to", "--from", "--python", "--patch-dir"} <= names
    assert len(names) == 43


def test_every_option_is_spelt_once() -> None:
    """No name declared twice, and none written as a string of its own elsewhere."""
    modules = _modules()
    declared = declarations(modules)
    declaring = {id(literal) for _, _, literal in declared}
    names = {name for _, name, _ in declared}
    twice = Counter(name for _, name, _ in declared)
    again = sorted(
        (module, node.value, node.lineno)
        for module, tree in modules.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and node.value in names
        and id(node) not in declaring
        and (module, node.value) not in ALLOWED
    )
    assert [name for name, count in twice.items() if count > 1] == []
    assert again == []


def test_the_option_constants_are_declared_with() -> None:
    """Each ``OPTION_...`` of :mod:`patchkeeper.constants` is an option some declaration
    makes with that very constant: one kept there that no option is declared with (or that
    a declaration spells again itself) would be a second spelling."""
    modules = _modules()
    declaring = {id(literal) for _, _, literal in declarations(modules)}
    kept = {
        name: literal
        for name, literal in _constants(modules[CONSTANTS]).items()
        if name.startswith("OPTION_")
    }
    assert sorted(name for name, literal in kept.items() if id(literal) not in declaring) == []
    assert len(kept) == 18  # --releases joined, named by audit's range error; --markdown,
    # named by the error of a command given --format markdown


def test_the_allowed_places_still_spell_the_option() -> None:
    """An entry of :data:`ALLOWED` whose place no longer spells the option goes too."""
    modules = _modules()
    spelt = {
        (module, node.value)
        for module, tree in modules.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert sorted(set(ALLOWED) - spelt) == []


def passed_on_by_name(tree: ast.Module) -> set[str]:
    """Where the module's ``run()`` spells its own parameters again: a call that passes two
    or more of them on under their own names (``to=to, source=source``), named by the
    function called, and a dict literal that maps two or more of them to their names
    (``{"to": to, "source": source}``, an options dict rebuilt for the evidence), named
    ``"options dict"``."""
    found: set[str] = set()
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "run"):
            continue
        args = node.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                same = [
                    k.arg
                    for k in sub.keywords
                    if isinstance(k.value, ast.Name) and k.value.id == k.arg and k.arg in params
                ]
                if len(same) >= 2:
                    found.add(ast.unparse(sub.func))
            elif isinstance(sub, ast.Dict):
                same = [
                    key.value
                    for key, value in zip(sub.keys, sub.values, strict=True)
                    if isinstance(key, ast.Constant)
                    and isinstance(value, ast.Name)
                    and value.id == key.value
                    and value.id in params
                ]
                if len(same) >= 2:
                    found.add("options dict")
    return found


def test_a_command_hands_its_feature_one_request() -> None:
    """A command's ``run()`` takes its feature's request whole; one that declares the
    feature's keywords again and passes them on by name (or rebuilds them into a dict for
    the evidence) spells each option twice more, and is found here."""
    modules = _modules()
    found = {
        module.rpartition("/")[2]: names
        for module, tree in modules.items()
        if module.startswith("patchkeeper/commands/") and (names := passed_on_by_name(tree))
    }
    assert found == {}


def test_the_pass_through_check_finds_one() -> None:
    """The check above on a ``run()`` written the old way (each keyword declared, passed on
    by name and rebuilt for the evidence) and on the same command given a request."""
    old = ast.parse(
        "def run(config, *, to=None, source=None, in_place=False, argv=None):\n"
        "    result = port_series(config, to=to, source=source, in_place=in_place)\n"
        '    values = {"to": to, "source": source}\n'
        "    return result\n"
    )
    new = ast.parse(
        "def run(config, request, *, argv=None):\n"
        "    result = port_series(config, request)\n"
        "    options = request_options(command, request, resume=False)\n"
        "    return result\n"
    )
    assert passed_on_by_name(old) == {"port_series", "options dict"}
    assert passed_on_by_name(new) == set()


#: Parameters a command reads itself instead of passing them on in its request: how the
#: result is shown or kept, and ``--continue``/``--abort``, which choose the request's
#: ``action``.
_OWN_PARAMETERS = frozenset({"as_json", "markdown", "save_evidence", "resume", "abort"})


def requests_built() -> dict[str, tuple[str, list[str], list[str]]]:
    """Each command module that builds its request with ``request_from(ctx, Kind, ...)``:
    module -> (the request's class, its fields no parameter of the command fills and no
    keyword of the call gives, the command's parameters the request has no field for
    besides :data:`_OWN_PARAMETERS`)."""
    import dataclasses
    import importlib

    out = {}
    for module, tree in _modules().items():
        if not module.startswith("patchkeeper/commands/"):
            continue
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "request_from"
                and isinstance(node.args[1], ast.Name)
            ):
                continue
            loaded = importlib.import_module(module.removesuffix(".py").replace("/", "."))
            kind = getattr(loaded, node.args[1].id)
            # Options the command never receives (-C and --config after the command, added when
            # the group loads it) are not its parameters.
            params = {param.name for param in loaded.command.params if param.expose_value}
            fields = {field.name for field in dataclasses.fields(kind)}
            fixed = {keyword.arg for keyword in node.keywords}
            out[module.rpartition("/")[2]] = (
                kind.__name__,
                sorted(fields - params - fixed),
                sorted(params - fields - _OWN_PARAMETERS),
            )
    return out


def test_every_request_field_is_a_parameter() -> None:
    """``request_from`` fills a field from the parameter of its name and leaves a field no
    parameter is named after at its default: a field or a parameter renamed alone would
    drop the option silently. Each request is filled whole, and takes every option."""
    assert requests_built() == {
        "apply.py": ("TargetChoice", [], []),
        "audit.py": ("AuditRequest", [], []),
        "check_branch.py": ("CheckBranchRequest", [], []),
        "export.py": ("ExportRequest", [], []),
        "import_.py": ("ImportRequest", [], []),
        "init.py": ("InitRequest", [], []),
        "ledger.py": ("LedgerRequest", [], []),
        "lint.py": ("LintRequest", [], []),
        "port.py": ("PortRequest", [], []),
        "report.py": ("ReportRequest", [], []),
        "retire.py": ("RetireRequest", [], []),
        "runtime_audit.py": ("RuntimeAuditRequest", [], []),
        "runtime_check.py": ("LiveCheckRequest", [], []),
        "runtime_inventory.py": ("PluginLocation", [], []),
        "runtime_lock.py": ("LockRequest", [], []),
        "runtime_port.py": ("RuntimePortRequest", [], []),
        "status.py": ("VerifyRequest", [], []),
        "unapply.py": ("UnapplyRequest", [], []),
        "upgrade.py": ("UpgradeRequest", [], []),
        "verify.py": ("VerifyRequest", [], []),
    }
