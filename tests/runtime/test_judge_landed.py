"""Changes upstream took in (:mod:`patchkeeper.runtime.judge.landed`), on the ``landed`` fixture
(plugin ``lplug``, upstream ``lup`` 1.0 -> 2.0): exact decisions and first evidence
sentences, found on the vllm-ascend history (a backport whose parameter landed, an
attribute upstream now sets itself, a constant and a helper module's class upstream now
defines)."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import audit_fixture

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.judge.landed import attribute_landed, signature_landed

STALE = (
    "the replacement's parameters (self, request, tokens, is_stale: bool=False) differed "
    "from the old upstream's (self, request, tokens) and are the new upstream's: upstream "
    "gained what the patch added"
)
DROP = (
    "the new upstream class sets self.drop_stale itself (the old one did not): the "
    "attribute the patch adds is upstream's now"
)


def test_landed_changes_on_the_fixture(runtime_trees: Path) -> None:
    result = audit_fixture(runtime_trees / "landed", "lplug", "lup")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        "lup.sched.Scheduler.update": ("remove", f"upstream took the change in: {STALE}"),
        # the wrapper in the same backport file (its header says so) goes with it
        "lup.sched.Scheduler.finish": (
            "remove",
            "upstream took the change in for lup.sched.Scheduler.update, patched in the same "
            f"file ({STALE}): the file's other patches are part of the same change",
        ),
        "lup.request.Request.drop_stale": ("remove", f"upstream took the change in: {DROP}"),
        # patch_request.py is not a backport: its other attribute is the plugin's own
        "lup.request.Request.device_slot": (
            "retain",
            "device_slot is not defined by upstream under lup.request.Request in the new "
            "version: an attribute the plugin adds or a generated one; nothing upstream to "
            "compare",
        ),
        "lup.queue.Queue.wait": (
            "remove",
            "the new upstream defines QUEUE_RECHECK_INTERVAL_MS, which the patch's file carries (defined in it "
            "or in a helper module of the patch directory it imports) and the old release "
            "did not have: upstream took the feature in; remove the file's patches once "
            "upstream's version is checked to cover them",
        ),
        # a constant the plugin sets on lup.queue itself, which lup 2.0 defines there
        "lup.queue.QUEUE_DEPTH_LIMIT_DEFAULT": (
            "remove",
            "the new upstream defines QUEUE_DEPTH_LIMIT_DEFAULT, which the patch's file carries (defined in it "
            "or in a helper module of the patch directory it imports) and the old release "
            "did not have: upstream took the feature in; remove the file's patches once "
            "upstream's version is checked to cover them",
        ),
        "lup.queue.Queue.depth": (
            "remove",
            "the new upstream defines QUEUE_DEPTH_LIMIT_DEFAULT, which the patch's file carries (defined in it "
            "or in a helper module of the patch directory it imports) and the old release "
            "did not have: upstream took the feature in; remove the file's patches once "
            "upstream's version is checked to cover them",
        ),
        # KimiK3Parser comes from kimi_parser.py, a helper module of the patch directory
        "lup.parsers.manager.ParserManager.get_parser": (
            "remove",
            "the new upstream defines KimiK3Parser, which the patch's file carries (defined in it "
            "or in a helper module of the patch directory it imports) and the old release "
            "did not have: upstream took the feature in; remove the file's patches once "
            "upstream's version is checked to cover them",
        ),
        # upstream's new parameter has another default than the plugin's: not the same
        # change (and DEVICE_QUEUE_TIMEOUT_MS, the file's constant, is not upstream's)
        "lup.queue.Queue.timeout": (
            "update",
            "upstream lup.queue.Queue.timeout changed: signature: (self) -> (self, *, device: "
            "bool=False), body; the downstream change is not in the new upstream",
        ),
    }


def _code(text: str) -> Code:
    return Code("f.py", 1, tuple(text.splitlines(True)))


def test_signature_landed_of_a_backport_ignores_the_annotation_of_self() -> None:
    old = _code("def f(self, x):\n    return x\n")
    new = _code("def f(self, x, *, mode: str | None = 'RGB'):\n    return x\n")
    mine = _code("def f(self: 'Conn', x, *, mode: str | None = 'RGB'):\n    return None\n")
    assert signature_landed(old, new, mine, "Backport of upstream #7.") == (
        "upstream took the change in: the replacement's parameters (self, x, *, mode: str | "
        "None='RGB') differed from the old upstream's (self, x) and are the new upstream's: "
        "upstream gained what the patch added"
    )
    # the replacement keeps the old parameters: upstream's change is not the plugin's
    assert signature_landed(old, new, _code("def f(self, x):\n    return 1\n"), "Backport") == ""
    # the plugin's own copy that follows upstream's parameters is not a backport
    assert signature_landed(old, new, mine, "The device's own fetch.") == ""


def test_attribute_landed_needs_the_old_class_without_it() -> None:
    old = _code("class R:\n    def __init__(self):\n        self.a = 1\n")
    new = _code("class R:\n    def __init__(self):\n        self.a = 1\n        self.b: int = 0\n")
    assert attribute_landed("b", old, new) == (
        "upstream took the change in: the new upstream class sets self.b itself (the old one "
        "did not): the attribute the patch adds is upstream's now"
    )
    assert attribute_landed("a", old, new) == ""
    assert attribute_landed("c", old, new) == ""
