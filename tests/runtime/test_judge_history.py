"""The judge's rules found from the disagreements with the vllm-ascend maintainers, on the
``history`` fixture (plugin ``hplug``, upstream ``hup`` 1.0 -> 2.0): exact decisions and
first evidence sentences."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_trees import audit_fixture

from patchkeeper.runtime.judge import runtime_audit as audit
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.judge.noise import (
    cosmetic_reason,
    outside_copy_reason,
    removal_only_reason,
)


@pytest.fixture
def result(runtime_trees: Path) -> audit.RuntimeAudit:
    return audit_fixture(runtime_trees / "history", "hplug", "hup")


def _decisions(result: audit.RuntimeAudit) -> dict[tuple[str, str | None], tuple[str, str]]:
    return {
        (a.entry.target, a.entry.key): (a.drift.decision, a.drift.evidence[0])
        for a in result.entries
    }


def test_each_rule_on_the_fixture(result) -> None:
    assert _decisions(result) == {
        ("hup.engine.plan", None): (
            "retain",
            "the upstream change (1 hunk(s)) lies only in code the replacement does not copy "
            "(it keeps 17% of the old upstream's lines, none of those upstream changed): "
            "nothing of it reaches the plugin's code",
        ),
        ("hup.engine.schedule", None): (
            "update",
            "upstream hup.engine.schedule changed: body; the downstream change is not in the "
            "new upstream",
        ),
        # self.connector.register_finished is a collaborator's method, not an extension
        # point; the plugin's own step has no banners: its callers' calls still bind to it
        ("hup.engine.Engine.step", None): (
            "retain",
            "upstream changed only the body of the function the plugin replaces by its own "
            "copy (signature and decorators are the same: its callers' calls still bind to "
            "the copy, which runs as the plugin wrote it); merge upstream's change into it "
            "only if the plugin needs it",
        ),
        # make_layer's new parameter pad reaches the original through *args/**kwargs
        ("hup.layers.make_layer", None): (
            "retain",
            "the replacement forwards its extra arguments (*args/**kwargs) to the call it "
            "wraps: upstream's new parameters (pad) pass through, and no parameter it names "
            "was removed upstream",
        ),
        # make_norm's factor, which the replacement names, is ratio in hup 2.0
        ("hup.layers.make_norm", None): (
            "update",
            "upstream hup.layers.make_norm changed: signature: (size, factor=1) -> (size, "
            "ratio=1), body; the downstream change is not in the new upstream",
        ),
        # hup 2.0's admit calls fits_cache, new in 2.0: the copy must carry it
        ("hup.engine.admit", None): (
            "update",
            "upstream hup.engine.admit changed: body; the downstream change is not in the "
            "new upstream",
        ),
        ("hup.utils.ceil_div", None): (
            "update",
            "hup.utils.ceil_div is new upstream at hup.utils.ceil_div (the old release did not "
            "have it): the patch now replaces upstream's own definition; review it against "
            "upstream's (remove it if it was a backport of that change)",
        ),
        ("hup.layers.helper", None): (
            "retain",
            "hup.layers.helper is not defined at that path in either release: the plugin's "
            "assignment adds it there (upstream defines the name at hup.utils.helper (line 1); "
            "if it was meant to replace that, a wrong path)",
        ),
        ("hup.layers.NormFn", None): (
            "retain",
            "hup.layers.NormFn is in neither release: the plugin's assignment adds it (if it "
            "was meant to replace something, a typo or a future name)",
        ),
        # neither hup release has the module hup.ops.cli the plugin assigns into
        ("hup.ops.cli.make_parser", None): (
            "look",
            "hup.ops.cli.make_parser is in neither release, nor is hup.ops.cli, the module or "
            "class it belongs to: the patch can never apply (a typo or a future name; upstream "
            "defines the name at hup.utils.make_parser (line 17): a wrong path)",
        ),
        # nor the class hup.request.Scheduler
        ("hup.request.Scheduler.policy", None): (
            "look",
            "hup.request.Scheduler.policy is in neither release, nor is hup.request.Scheduler, "
            "the module or class it belongs to: the patch can never apply (a typo or a future "
            "name)",
        ),
        # hup.ops.fused is in neither release either, but its import is guarded
        ("hup.ops.fused.fused_norm", None): (
            "retain",
            "hup.ops.fused.fused_norm is in neither release, nor is hup.ops.fused, the module or "
            "class it belongs to, and the patch is guarded by try ... except ImportError at "
            "hplug/patch/patch_names.py:72: a future name, the import fails harmlessly until a "
            "release has it; nothing to do at this one",
        ),
        # hup.request.Request exists in both: an attribute of the plugin's own is fine
        ("hup.request.Request.npu_policy", None): (
            "retain",
            "npu_policy is not defined by upstream under hup.request.Request in the new "
            "version: an attribute the plugin adds or a generated one; nothing upstream to "
            "compare",
        ),
        ("hup.registry.KINDS", "'fp8'"): (
            "retain",
            "the old upstream hup.registry.KINDS had the key 'fp8' too: the plugin overrides "
            "upstream's value on purpose",
        ),
        ("hup.layers.FusedLayer", None): (
            "update",
            "hup.layers.FusedLayer was renamed: retarget to hup.layers.FusedLayerFactory",
        ),
        ("hup.layers._alloc", None): (
            "update",
            "hup.layers._alloc was renamed: retarget to hup.utils.alloc",
        ),
        # hup.ops only imports GroupedOp (a package re-exporting its module's name); hup
        # 2.0's hup.ops imports GroupedOpFactory instead: retarget to where it comes from
        ("hup.ops.GroupedOp", None): (
            "update",
            "hup.ops.GroupedOp was renamed: retarget to hup.ops.kernels.GroupedOpFactory",
        ),
        # the device's pool is installed from a dict of its kernels: an expression the scan
        # cannot name (<expr>); hup 2.0 changed pool's body only
        ("hup.layers.pool", None): (
            "retain",
            "the replacement is an expression, not a copy of upstream's code (nothing to "
            "compare), and upstream changed only the body of hup.layers.pool (signature and "
            "decorators are the same: its callers' calls still fit the replacement); read the "
            "replacement if it copies upstream's body",
        ),
        # patch_inflight.py's advance runs only while Request lacks in_flight; hup 2.0's
        # Request sets self.in_flight in __init__ (advance itself is unchanged)
        ("hup.request.Request.advance", None): (
            "remove",
            "its feature probe is false at 2.0 (hplug/patch/patch_inflight.py:9: not "
            "hasattr(Request, 'in_flight')): upstream's hup.request.Request has in_flight, so "
            "the branch the patch is in no longer runs: dead code there",
        ),
        # its other probe (priority) holds at both releases: no finding from it
        ("hup.request.Request.describe", None): (
            "retain",
            "describe is not defined by upstream under hup.request.Request in the new "
            "version: an attribute the plugin adds or a generated one; nothing upstream to "
            "compare",
        ),
        # DeviceBatch overrides make inside an `if` of its class body: hup 2.0 changed make
        # (a new parameter), so the subclass does not just inherit the change
        ("hup.request.Batch", None): (
            "update",
            "upstream hup.request.Batch changed: body; the downstream change is not in the "
            "new upstream",
        ),
        # DeviceQueue's push calls upstream's (super()), whose body alone changed in hup 2.0
        ("hup.request.Queue", None): (
            "retain",
            "the plugin's class derives from Queue and inherits the upstream change; of the "
            "methods it overrides (push, size), push changed upstream in the body alone and the "
            "override calls upstream's (super()): the change passes through; the others are "
            "unchanged upstream",
        ),
        # DeviceStack's push calls Stack.push, whose signature changed: the call may not fit
        ("hup.request.Stack", None): (
            "update",
            "upstream hup.request.Stack changed: body; the downstream change is not in the new "
            "upstream",
        ),
        # DeviceHeap's push copies upstream's instead of calling it, without banners: the
        # plugin's own copy, which upstream's callers still call the same way
        ("hup.request.Heap", None): (
            "retain",
            "the plugin's class derives from Heap and inherits the upstream change; of the "
            "methods it overrides (push), push changed upstream in the body alone, and the "
            "override is the plugin's own copy, which upstream's callers still call the same "
            "way (merge upstream's change into it only if the plugin needs it); the others "
            "are unchanged upstream",
        ),
        # DeviceDeque binds push by assignment (push = _device_push): an override all the same
        ("hup.request.Deque", None): (
            "update",
            "upstream hup.request.Deque changed: body; the downstream change is not in the new "
            "upstream",
        ),
        # DeviceRing's push calls upstream's, but hup 2.0's push now clamps as the override
        # does before calling it: upstream took that in, the override would clamp twice
        ("hup.request.Ring", None): (
            "update",
            "upstream hup.request.Ring changed: body; the downstream change is not in the new "
            "upstream",
        ),
        # DeviceCache's evict does not call upstream's, nor copy the log call hup 2.0 changed
        ("hup.request.Cache", None): (
            "retain",
            "the plugin's class derives from Cache and inherits the upstream change; of the "
            "methods it overrides (evict), evict changed upstream in the body alone, only in "
            "code the override does not copy, or only by removing lines; the others are "
            "unchanged upstream",
        ),
        # hup 2.0's fold only lost `x = list(x)`, which the device's copy keeps
        ("hup.layers.fold", None): (
            "retain",
            "upstream only removed code (1 line(s), nothing added or changed): the copy, which "
            "keeps them, still does what the old release did; drop them too once upstream's "
            "reason is checked",
        ),
        # hup 2.0's trim only lost `x = scale(x)`, but hup.layers no longer has scale (it
        # moved to hup.utils): the copy's kept line would fail there
        ("hup.layers.trim", None): (
            "update",
            "upstream hup.layers.trim changed: body; the downstream change is not in the new "
            "upstream",
        ),
        # the same shape, but hup 2.0's stride takes a new parameter: its callers changed
        ("hup.layers.stride", None): (
            "update",
            "upstream hup.layers.stride changed: signature: (x, step) -> (x, step, offset=0), "
            "body; the downstream change is not in the new upstream",
        ),
        ("hup.utils.scale", None): (
            "update",
            "hup.utils.scale moved to the patch's path in the new upstream (the old release "
            "defined it elsewhere: hup.layers.scale (line 16)): review the patch against "
            "upstream's definition there",
        ),
        # hup 2.0 ships the DeviceRenderer patch_feature.py defines itself
        ("hup.utils.helper", None): (
            "remove",
            "the new upstream defines DeviceRenderer, which the patch's file carries (defined in it "
            "or in a helper module of the patch directory it imports) and the old release "
            "did not have: upstream took the feature in; remove the file's patches once "
            "upstream's version is checked to cover them",
        ),
        # hup 1.0's Engine has no drain (the old resolution is partial), hup 2.0's has
        ("hup.engine.Engine.drain", None): (
            "remove",
            "the patch's header says it is a backport, and hup.engine.Engine.drain is new "
            "upstream at hup.engine.Engine.drain (the old release did not have it): the "
            "backported change has landed; remove the patch once upstream's version is "
            "checked to do the same",
        ),
    }
    mechanisms = {a.entry.target: a.entry.mechanism.value for a in result.entries}
    assert mechanisms["hup.layers.NormFn"] == "subclass"


def test_a_name_in_neither_release_is_not_called_moved(result) -> None:
    """Issue 10 item 7: moved or removed only when the name was at that path in the old
    release; the owner's absence decides, not the assignment."""
    evidence = {a.entry.target: a.drift.evidence for a in result.entries}
    assert evidence["hup.ops.cli.make_parser"][1:] == (
        "hup.ops.cli.make_parser is not at that path in either release; the name is defined "
        "at hup.utils.make_parser (line 17)",
    )
    assert evidence["hup.layers.helper"] == (
        "hup.layers.helper is not defined at that path in either release: the plugin's "
        "assignment adds it there (upstream defines the name at hup.utils.helper (line 1); if "
        "it was meant to replace that, a wrong path)",
        "hup.layers.helper is not at that path in either release; the name is defined at "
        "hup.utils.helper (line 1)",
    )


def _code(text: str) -> Code:
    return Code("f.py", 1, tuple(text.splitlines(True)))


OLD = "def f(x):\n    a = x + 1\n    b = a * 2\n    return b\n"


@pytest.mark.parametrize(
    ("new", "mine", "expected"),
    [
        # upstream changed `b = ...`, which the plugin replaced with its own line
        (
            "def f(x):\n    a = x + 1\n    b = a * 3\n    return b\n",
            "def f(x):\n    a = x + 1\n    b = a << 1  # the device's shift\n    return b\n",
            "the upstream change (1 hunk(s)) lies only in code the replacement does not copy "
            "(it keeps 75% of the old upstream's lines, none of those upstream changed): "
            "nothing of it reaches the plugin's code",
        ),
        # upstream changed `a = ...`, which the plugin's copy still has
        (
            "def f(x):\n    a = x + 2\n    b = a * 2\n    return b\n",
            "def f(x):\n    a = x + 1\n    b = a << 1\n    return b\n",
            "",
        ),
        # an insertion next to a line the copy keeps reaches it
        (
            "def f(x):\n    a = x + 1\n    a = abs(a)\n    b = a * 2\n    return b\n",
            "def f(x):\n    a = x + 1\n    b = a << 1\n    return b\n",
            "",
        ),
    ],
)
def test_outside_copy_reason(new: str, mine: str, expected: str) -> None:
    assert outside_copy_reason(_code(OLD), _code(new), _code(mine)) == expected


BUILD = (
    "def build(config):\n"
    "    logger.info('building %s', config.name)\n"
    "    size = config.size\n"
    "    return [0] * size\n"
)


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        # a type checker's assert and a log call that logs once: no behaviour changed
        (
            "def build(config):\n"
            "    assert config.size is not None\n"
            "    logger.info_once('building %s', config.name)\n"
            "    size = config.size\n"
            "    return [0] * size\n",
            "only type-narrowing asserts and log calls changed (no value changes)",
        ),
        # an assert that checks a value is upstream's new validation: not cosmetic
        (
            "def build(config):\n"
            "    logger.info('building %s', config.name)\n"
            "    assert config.size <= 64\n"
            "    size = config.size\n"
            "    return [0] * size\n",
            "",
        ),
        # a new cap is a change of behaviour: not cosmetic
        (
            "def build(config):\n"
            "    logger.info('building %s', config.name)\n"
            "    size = min(config.size, 64)\n"
            "    return [0] * size\n",
            "",
        ),
    ],
)
def test_checks_and_log_calls_are_cosmetic(new: str, expected: str) -> None:
    assert cosmetic_reason(_code(BUILD), _code(new)) == expected


STEP = (
    "def step(self, batch: Batch, n: int = 1) -> Output:\n"
    '    """Run one step."""\n'
    "    total: int = 0\n"
    "    for item in batch:\n"
    "        count: int\n"
    "        if current_platform.is_rocm():\n"
    "            item = rocm_fix(item)\n"
    "        total += item.size\n"
    "    return Output(total)\n"
)


@pytest.mark.parametrize(
    ("new", "header", "expected"),
    [
        # annotations gone or changed at every depth (parameters, return, a nested
        # annotated name without a value, an annotated assignment): the same code
        (
            "def step(self, batch, n=1):\n"
            '    """Run one step."""\n'
            "    total = 0\n"
            "    for item in batch:\n"
            "        count: str\n"
            "        if current_platform.is_rocm():\n"
            "            item = rocm_fix(item)\n"
            "        total += item.size\n"
            "    return Output(total)\n",
            "",
            "only type annotations changed",
        ),
        # a changed default is a change, annotations or not
        (STEP.replace("n: int = 1", "n: int = 2"), "", ""),
        # the branch for another platform changed, nothing else
        (
            STEP.replace("rocm_fix(item)", "rocm_fix(item, fast=True)"),
            "",
            "only branches for other platforms changed (is_rocm/is_cuda/is_xpu/...)",
        ),
        # both at once: the fourth rule
        (
            STEP.replace("rocm_fix(item)", "rocm_fix(item, fast=True)").replace(
                "-> Output", "-> Output | None"
            ),
            "",
            "only type annotations and branches for other platforms changed",
        ),
        # a statement mentioning a name the header avoids
        (
            STEP.replace("    return", "    record_metric(batch)\n    return"),
            "Note: skip `metrics.record_metric` on the device.",
            "only code the patch header says it avoids changed (`record_metric`)",
        ),
        # inside a loop, it takes the whole loop along (a compound statement other than
        # def, class and if goes whole): the loop is gone on one side only
        (
            STEP.replace("        total += item.size\n", "        record_metric(item)\n"),
            "Note: skip `metrics.record_metric` on the device.",
            "",
        ),
        # the same statement without the header's sentence: a change
        (STEP.replace("    return", "    record_metric(batch)\n    return"), "", ""),
        # a type-narrowing assert ahead of the docstring's place: the docstring is still
        # the body's first statement once the assert is left out
        (
            STEP.replace(
                '    """Run one step."""\n',
                '    assert batch is not None\n    """Run one step."""\n',
            ),
            "",
            "only type-narrowing asserts and log calls changed (no value changes)",
        ),
    ],
)
def test_cosmetic_rules_at_every_depth(new: str, header: str, expected: str) -> None:
    assert cosmetic_reason(_code(STEP), _code(new), header) == expected


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        # two lines folded into one, or one rewritten: upstream changed code
        (
            "def f(x):\n    # doubled\n    b = (x + 1) * 2\n    return b\n",
            "",
        ),
        (
            "def f(x):\n    a = x + 1\n    # the result\n    return a * 2\n",
            "",
        ),
        # `return b` taken out (a comment would not count): only a removal
        (
            "def f(x):\n    a = x + 1\n    b = a * 2\n",
            "upstream only removed code (1 line(s), nothing added or changed): the copy, which "
            "keeps them, still does what the old release did; drop them too once upstream's "
            "reason is checked",
        ),
        # a removal and a changed line: not only a removal
        ("def f(x):\n    a = x + 1\n    return a * 3\n", ""),
        # nothing removed
        (OLD, ""),
    ],
)
def test_removal_only_reason(new: str, expected: str) -> None:
    assert removal_only_reason(_code(OLD), _code(new)) == expected


def test_removal_of_a_line_naming_what_the_module_lost() -> None:
    """A removed line that calls a helper the module no longer has: the copy, which keeps
    the line, would fail at the new release (no *retain* from the removal)."""
    old = _code("def f(x):\n    x = _clamp(x)\n    return x.total\n")
    new = _code("def f(x):\n    return x.total\n")
    assert removal_only_reason(old, new, frozenset({"_clamp"})) == ""
    # `total` is an attribute, not the module's name: losing a module-level `total` is moot
    assert removal_only_reason(old, new, frozenset({"total"})) == (
        "upstream only removed code (1 line(s), nothing added or changed): the copy, which "
        "keeps them, still does what the old release did; drop them too once upstream's "
        "reason is checked"
    )
