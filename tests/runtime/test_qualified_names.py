"""Upstream's module-level names that a copy living in another module reaches through their
module (runtime/port/renames.py: ``qualified_names``, ``qualify``), written so in both upstream
sides before the merge, through ``merge_copy`` and real ``git merge-file``. The shape is
vLLM 0.27.1's ``preprocess_mamba`` (upstream wrapped its ``collect_mamba_copy_meta`` call in
a branch) and the NPU copy of it that calls ``mamba_utils.collect_mamba_copy_meta``,
written for this test."""

from __future__ import annotations

from patchkeeper.port.merge import Labels, merge_file
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.port.copies import merge_copy
from patchkeeper.runtime.port.renames import module_aliases, qualified_names, qualify

OLD = """def preprocess(batch, requests, copy_bufs):
    for i, req_id in enumerate(batch.req_ids):
        state = requests[req_id]
        prev, curr = state.prev, state.curr
        if prev != curr:
            collect_copy_meta(
                copy_bufs,
                prev,
                curr,
                batch.accepted[i] - 1,
            )
            batch.accepted[i] = 1
    do_copy_block(copy_bufs)
"""

NEW = """def preprocess(batch, requests, copy_bufs, fused=None):
    for i, req_id in enumerate(batch.req_ids):
        state = requests[req_id]
        prev, curr = state.prev, state.curr
        if prev != curr:
            bias = int(batch.accepted[i]) - 1
            if fused is not None:
                fused.bias[i] = bias
            else:
                collect_copy_meta(
                    copy_bufs,
                    prev,
                    curr,
                    bias,
                )
            batch.accepted[i] = 1
    do_copy_block(copy_bufs)
"""

# The copy lives in the plugin: it calls upstream's helper through its module, and keeps
# its own trace line.
MINE = """def preprocess(batch, requests, copy_bufs):
    for i, req_id in enumerate(batch.req_ids):
        state = requests[req_id]
        prev, curr = state.prev, state.curr
        if prev != curr:
            utils.collect_copy_meta(
                copy_bufs,
                prev,
                curr,
                batch.accepted[i] - 1,
            )
            batch.accepted[i] = 1
    trace("npu preprocess", len(batch.req_ids))
    utils.do_copy_block(copy_bufs)
"""

#: The name the copy's file binds to upstream's module (``from vup.worker import utils``).
UTILS = frozenset({"utils"})

MERGED = """def preprocess(batch, requests, copy_bufs, fused=None):
    for i, req_id in enumerate(batch.req_ids):
        state = requests[req_id]
        prev, curr = state.prev, state.curr
        if prev != curr:
            bias = int(batch.accepted[i]) - 1
            if fused is not None:
                fused.bias[i] = bias
            else:
                utils.collect_copy_meta(
                    copy_bufs,
                    prev,
                    curr,
                    bias,
                )
            batch.accepted[i] = 1
    trace("npu preprocess", len(batch.req_ids))
    utils.do_copy_block(copy_bufs)
"""


def test_the_copy_s_qualified_names_are_found() -> None:
    assert qualified_names(OLD, MINE, UTILS) == {
        "collect_copy_meta": "utils.collect_copy_meta",
        "do_copy_block": "utils.do_copy_block",
    }
    # A name the copy also uses bare, or behind two different modules, is left as it is;
    # so is a name the definition binds (a parameter).
    assert qualified_names(OLD, MINE + "    do_copy_block(None)\n", UTILS) == {
        "collect_copy_meta": "utils.collect_copy_meta"
    }
    assert qualified_names(OLD, MINE + "    other.do_copy_block(None)\n", UTILS) == {
        "collect_copy_meta": "utils.collect_copy_meta"
    }
    bound = "def f(helper):\n    return helper(1)\n"
    assert qualified_names(bound, "def f(helper):\n    return u.helper(1)\n", UTILS) == {}
    # A module the copy's file does not bind to upstream's module (``np.max`` for ``max``
    # is another function): no spelling of upstream's name, left as it is.
    assert qualified_names(OLD, MINE, frozenset({"np"})) == {}
    # A name the new upstream definition binds itself (a local now) is no module name there.
    rebinding = NEW.replace("    do_copy_block(copy_bufs)", "    do_copy_block = None")
    assert qualified_names(OLD, MINE, UTILS, rebinding) == {
        "collect_copy_meta": "utils.collect_copy_meta"
    }
    assert qualified_names(OLD, MINE, UTILS, NEW) == {
        "collect_copy_meta": "utils.collect_copy_meta",
        "do_copy_block": "utils.do_copy_block",
    }
    source = "import vup\nfrom vup.worker import utils\nimport vup.worker.utils as wu\n"
    assert module_aliases(source, "vup.worker.utils") == frozenset({"utils", "wu"})
    indented = "    def f(self):\n        return helper(helper=1)\n"
    assert qualify(indented, {"helper": "u.helper"}) == (
        "    def f(self):\n        return u.helper(helper=1)\n"
    )


def test_upstream_s_change_merges_into_the_copy_in_its_spelling() -> None:
    labels = Labels("upstream 2.0", "upstream 1.0", "plugin")
    merged, conflicts = merge_copy(
        Code("up.py", 1, tuple(OLD.splitlines(True))),
        Code("up.py", 1, tuple(NEW.splitlines(True))),
        MINE.splitlines(True),
        labels,
        UTILS,
    )
    assert (merged, conflicts) == (MERGED, 0)


def test_without_qualifying_the_same_merge_conflicts(tmp_path) -> None:
    # The evidence the rule is needed: upstream's sides as written conflict with the copy
    # on the call it only qualified.
    labels = Labels("upstream 2.0", "upstream 1.0", "plugin")
    merged, conflicts = merge_file(OLD.encode(), MINE.encode(), NEW.encode(), labels, tmp_path)
    assert conflicts == 1
    assert b"<<<<<<< upstream 2.0\n" in merged
