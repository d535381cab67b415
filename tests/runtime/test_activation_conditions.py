"""Conditions of an entry's activation that are not written as an ``if`` around it: an early
``return`` after a platform check or after ``except ImportError`` makes what follows it in
the function conditional. The plugin is written by the test in the shape of a real one (a
``register()`` that leaves when the platform is not its own)."""

from __future__ import annotations

import ast

import pytest
from plugin_trees import TreeWriter, activation_conditions, patch_plugin

from patchkeeper.runtime.inventory.conditions import if_conditions

PATCH = """import vllm.engine
from vllm.platforms import current_platform


def step(x):
    return x


def run(x):
    return x


def install():
    vllm.engine.early = step
    if not current_platform.is_tpu():
        return
    vllm.engine.step = step
    try:
        import vllm.fast  # noqa: F401
    except ImportError:
        return
    vllm.engine.run = run
"""

FILES = patch_plugin(
    "cplug",
    {"p_exit": PATCH},
    entry="c",
    group="vllm.platform_plugins",
    register="def register():\n    from cplug.patch import p_exit\n\n    p_exit.install()\n",
)


def test_an_early_return_makes_the_rest_of_the_function_conditional(
    plugin_trees: TreeWriter,
) -> None:
    inventory = plugin_trees.write("cplug", FILES).inventory()
    assert activation_conditions(inventory) == [
        ("vllm.engine.early", "active", []),
        (
            "vllm.engine.step",
            "conditional",
            [("else", "current_platform.is_tpu()", 15)],
        ),
        (
            "vllm.engine.run",
            "conditional",
            [
                ("else", "current_platform.is_tpu()", 15),
                ("try-import", "try: ... except ImportError", 18),
            ],
        ),
    ]


#: a registration retried in an ``except`` handler, as vllm-omni's diffusion cache hooks
#: register their block class again when the first ``register`` raises ``ValueError``
HANDLER = """from diffusers.hooks import _helpers


class Block:
    pass


def install():
    try:
        _helpers.TransformerBlockRegistry.register(Block)
    except ValueError:
        _helpers.TransformerBlockRegistry.blocks = [Block]
"""


def test_an_except_handler_is_named_once_in_the_listing(cli, plugin_trees: TreeWriter) -> None:
    """The listing said ``conditional: except except ValueError``: the handler's text
    already starts with its kind."""
    plugin = plugin_trees.write("cplug", {**FILES, "cplug/patch/p_exit.py": HANDLER}).plugin
    run = cli("runtime", "inventory", "--plugin", str(plugin), "--package", "cplug", cwd=plugin)
    listed = [line for line in run.out.splitlines() if "conditional:" in line]
    assert listed == ["    conditional: except ValueError (cplug/patch/p_exit.py:11)"]


#: a patch that rebuilds an upstream method from its source, in the shape of a KV-offload
#: plugin's hybrid-scheduler patch: the import and the rebuild are each guarded by
#: ``except Exception`` whose handler leaves the function
REBUILT = """def install():
    try:
        from vllm.v1.core.sched.scheduler import Scheduler
    except Exception:
        return "no-vllm"
    namespace = {}
    try:
        exec(compile("def split(self): return 0", "<rebuilt>", "exec"), namespace)
    except Exception:
        return "compile-error"
    try:
        import vllm.fast  # noqa: F401
    except (ImportError, AttributeError):
        return "slow"
    Scheduler.split = namespace["split"]
"""


def test_a_guard_is_named_by_what_its_handler_catches(plugin_trees: TreeWriter) -> None:
    """The condition says ``except Exception`` where the handler catches ``Exception``:
    ``except ImportError`` named an ``except`` line the file does not have."""
    files = patch_plugin(
        "kplug",
        {"p_rebuilt": REBUILT},
        entry="k",
        group="vllm.general_plugins",
        register="def register():\n    from kplug.patch import p_rebuilt\n\n    p_rebuilt.install()\n",
    )
    inventory = plugin_trees.write("kplug", files).inventory()
    assert activation_conditions(inventory) == [
        (
            "vllm.v1.core.sched.scheduler.Scheduler.split",
            "conditional",
            [
                ("try-import", "try: ... except Exception", 2),
                ("try-import", "try: ... except Exception", 7),
                ("try-import", "try: ... except (ImportError, AttributeError)", 11),
            ],
        ),
    ]


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ("x", (("if", "x"), ("else", "not (x)"))),
        # the else of a ``not`` runs under its operand, not under ``not (not ...)``
        ("not x", (("if", "not x"), ("else", "x"))),
        ("not (a and b)", (("if", "not (a and b)"), ("else", "a and b"))),
        ("not not x", (("if", "not not x"), ("else", "not x"))),
        # a ``not`` of one operand only: the whole test is negated
        ("not a and b", (("if", "not a and b"), ("else", "not (not a and b)"))),
        (
            "not vllm_version_is('1.0')",
            (("version", "not vllm_version_is('1.0')"), ("version", "vllm_version_is('1.0')")),
        ),
    ],
)
def test_the_else_of_an_if_is_its_test_negated_once(
    test: str, expected: tuple[tuple[str, str], tuple[str, str]]
) -> None:
    statement = ast.parse(f"if {test}:\n    pass\nelse:\n    pass\n").body[0]
    assert isinstance(statement, ast.If)
    then, other = if_conditions(statement)
    assert ((then.kind, then.text), (other.kind, other.text)) == expected
