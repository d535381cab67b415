"""A function copy whose upstream change leaves its callers' calls binding to it is kept
(*retain*), and so is a subclass's override that copies a method changed in its body alone;
one whose callers changed, or that follows upstream's releases (tests the release in its own
lines), is updated.

The plugin below is written by this test in the shape of the kv-cache and sampler copies of
a vLLM platform plugin: module-level functions copied and changed by the plugin, assigned
over upstream's, in a module without banners."""

from __future__ import annotations

from pathlib import Path

import pytest
from fupplug import audit_trees, write_trees

from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.judge.noise import callers_fit_reason

KV_OLD = """ALIGN = 8


class Pool:
    def take(self, n):
        blocks = self.free[:n]
        return blocks


def pad(n):
    m = n + ALIGN
    return m


def round_up(n):
    q = n // ALIGN
    return q * ALIGN


def pack_groups(specs, block_size):
    groups = []
    for spec in specs:
        groups.append((spec, block_size))
    return groups


def pool_bytes(layers, page):
    return len(layers) * page


def sample(logits, temperature):
    return logits / temperature


def drain(queue):
    items = list(queue)
    return items


def trim(queue):
    items = list(queue)
    return items
"""
KV_NEW = """class Pool:
    def take(self, n):
        blocks = self.free[:n]
        self.free = self.free[n:]
        return blocks


def pad(n):
    m = n + 16
    return m


def round_up(n):
    q = n // 16
    return q * 16


def pack_groups(specs, block_size):
    groups = []
    for spec in specs:
        groups.append((spec, block_size))
    groups.sort(key=len)
    return groups


def pool_bytes(layers, page, *, align=1):
    return len(layers) * page * align


def sample(logits, temperature, seed=None):
    return logits / temperature


def draw(logits):
    return sample(logits, 1.0, seed=7)


def drain(queue):
    items = list(queue)
    items.reverse()
    return items


def trim(queue):
    items = list(queue)
    items.pop()
    return items
"""
PATCH = """# Note: the fixture device packs, pools and samples its own way.
import fup.kv

from fplug.consts import ALIGN


def pad(n):
    m = n + ALIGN
    return m * 2


def pack_groups(specs, block_size):
    groups = []
    for spec in specs:
        groups.append((spec, block_size * 2))
    return groups


def pool_bytes(layers, page, *, align=1):
    return len(layers) * page * align + 64


def sample(logits, temperature):
    return logits / max(temperature, 1e-5)


fup.kv.pack_groups = pack_groups
fup.kv.pool_bytes = pool_bytes
fup.kv.sample = sample
fup.kv.pad = pad
"""
ALIGNED = """# Note: the fixture device rounds up its own way.
import fup.kv
from fup.kv import ALIGN


def round_up(n):
    q = n // ALIGN
    return q * ALIGN + ALIGN


fup.kv.round_up = round_up
"""
POOL = """# Note: the fixture device takes blocks from the end.
import fup.kv


class NpuPool(fup.kv.Pool):
    def take(self, n):
        blocks = self.free[:n]
        return blocks[::-1]


fup.kv.Pool = NpuPool
"""
GATED = """# Note: the fixture device drains its queue its own way.
import fup.kv

from fplug.utils import fup_version_is

if fup_version_is("1.0"):
    LIMIT = 8
else:
    LIMIT = 16


def drain(queue):
    items = list(queue)
    if fup_version_is("1.0"):
        return items[:LIMIT]
    return items[-LIMIT:]


def trim(queue):
    items = list(queue)
    return items[1:]


fup.kv.drain = drain
fup.kv.trim = trim
"""


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    releases = {"1.0": {"fup/kv.py": KV_OLD}, "2.0": {"fup/kv.py": KV_NEW}}
    plugin = {
        "fplug/utils.py": "def fup_version_is(v):\n    return v == '1.0'\n",
        "fplug/consts.py": "ALIGN = 32\n",
        "fplug/patch/__init__.py": (
            "from fplug.patch import patch_aligned, patch_gated, patch_kv, patch_pool  # noqa\n"
        ),
        "fplug/patch/patch_aligned.py": ALIGNED,
        "fplug/patch/patch_pool.py": POOL,
        "fplug/patch/patch_kv.py": PATCH,
        "fplug/patch/patch_gated.py": GATED,
    }
    return write_trees(tmp_path, monkeypatch, releases, "fplug", plugin)


BODY = (
    "upstream changed only the body of the function the plugin replaces by its own copy "
    "(signature and decorators are the same: its callers' calls still bind to the copy, "
    "which runs as the plugin wrote it); merge upstream's change into it only if the "
    "plugin needs it"
)
TAKEN = (
    "upstream changed the signature of the function the plugin replaces by its own copy in "
    "a way the copy already takes (every call to the new signature binds to the copy's "
    "parameters), and otherwise its body: the copy runs as the plugin wrote it; merge "
    "upstream's change into it only if the plugin needs it"
)


def test_copies_whose_callers_still_fit_are_kept(trees: Path) -> None:
    result = audit_trees(trees, "fplug")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions == {
        "fup.kv.pack_groups": ("retain", BODY),
        # a subclass whose override copies upstream's take, which changed in its body alone
        "fup.kv.Pool": (
            "retain",
            "the plugin's class derives from Pool and inherits the upstream change; of the "
            "methods it overrides (take), take changed upstream in the body alone, and the "
            "override is the plugin's own copy, which upstream's callers still call the same "
            "way (merge upstream's change into it only if the plugin needs it); the others "
            "are unchanged upstream",
        ),
        # fup 2.0's kv module lost ALIGN, but the copy takes its own from fplug.consts
        "fup.kv.pad": ("retain", BODY),
        # this copy's module imports ALIGN from fup.kv, which 2.0 no longer has
        "fup.kv.round_up": (
            "update",
            "upstream fup.kv.round_up changed: body; the downstream change is not in the new "
            "upstream",
        ),
        # upstream's new keyword align is the copy's already, with upstream's default
        "fup.kv.pool_bytes": ("retain", TAKEN),
        # upstream's draw passes seed, which the copy does not take
        "fup.kv.sample": (
            "update",
            "upstream fup.kv.sample changed: signature: (logits, temperature) -> (logits, "
            "temperature, seed=None), body; the downstream change is not in the new upstream",
        ),
        # the copy tests upstream's release in its own lines: it follows each release
        "fup.kv.drain": (
            "update",
            "upstream fup.kv.drain changed: body; the downstream change is not in the new upstream",
        ),
        # its module tests the release for another name (LIMIT), the copy itself does not
        "fup.kv.trim": ("retain", BODY),
    }


def _code(text: str, gated: bool = False) -> Code:
    return Code("f.py", 1, tuple(text.splitlines(True)), gated=gated)


OLD = "def f(a, b=1):\n    return a + b\n"


@pytest.mark.parametrize(
    ("new", "mine", "expected"),
    [
        # a new parameter the copy has with another default: a caller leaving it out
        # expects upstream's value
        ("def f(a, b=1, c=0):\n    return a + b + c\n", "def f(a, b=1, c=1):\n    return a\n", ""),
        (
            "def f(a, b=1, c=0):\n    return a + b + c\n",
            "def f(a, b=1, c=0):\n    return a\n",
            TAKEN,
        ),
        # the copy requires a parameter upstream's callers do not pass
        ("def f(a):\n    return a\n", "def f(a, b):\n    return a - b\n", ""),
        # positional order differs: a positional call binds to other names
        ("def f(a, c, b=1):\n    return a\n", "def f(a, b=1, c=2):\n    return a\n", ""),
        # upstream takes **kwargs, the copy does not
        ("def f(a, b=1, **kw):\n    return a\n", "def f(a, b=1):\n    return a * 2\n", ""),
    ],
)
def test_callers_fit_reason_reads_the_signatures(new: str, mine: str, expected: str) -> None:
    changes = ("signature: ...", "body")
    assert callers_fit_reason(_code(OLD), _code(new), _code(mine), changes) == expected


def test_callers_fit_reason_leaves_decorators_banners_gates_and_lost_names() -> None:
    new = "def f(a, b=1):\n    return a * b\n"
    mine = "def f(a, b=1):\n    return a - b\n"
    assert callers_fit_reason(_code(OLD), _code(new), _code(mine), ("body",)) == BODY
    assert callers_fit_reason(_code(OLD), _code(new), _code(mine), ("decorators: x",)) == ""
    # a module testing the release elsewhere says nothing of this copy; one testing it in
    # the copy's own lines follows each release
    assert callers_fit_reason(_code(OLD), _code(new), _code(mine, gated=True), ("body",)) == BODY
    follows = 'def f(a, b=1):\n    return a - b if fup_version_is("1.0") else a\n'
    assert callers_fit_reason(_code(OLD), _code(new), _code(follows, gated=True), ("body",)) == ""
    lost = frozenset({"helper"})
    named = "def f(a, b=1):\n    return helper(a) - b\n"
    assert callers_fit_reason(_code(OLD), _code(new), _code(named), ("body",), lost) == ""
    banners = (
        "def f(a, b=1):\n"
        "    # /---- Modification ----\\\n"
        "    a = -a\n"
        "    # \\----------------------/\n"
        "    return a + b\n"
    )
    assert callers_fit_reason(_code(OLD), _code(new), _code(banners), ("body",)) == ""
    a_class = "class f:\n    pass\n"
    assert callers_fit_reason(_code(OLD), _code(new), _code(a_class), ("body",)) == ""


def test_a_target_gone_without_a_trace_is_looked_at(trees: Path) -> None:
    """A copied function the new release no longer defines anywhere: dropped, or folded into
    a caller the plugin must now patch; the trees cannot tell, so not *remove*."""
    kv = trees / "fup-2.0" / "fup" / "kv.py"
    kv.write_text(kv.read_text(encoding="utf-8").replace("def pad(", "def grown("))
    result = audit_trees(trees, "fplug")
    decisions = {a.entry.target: (a.drift.decision, a.drift.evidence[0]) for a in result.entries}
    assert decisions["fup.kv.pad"] == (
        "look",
        "fup.kv.pad existed at the old release and is gone from the new one without a trace: "
        "the patch no longer replaces anything there; find where upstream's code went "
        "(dropped, or folded into a caller the plugin must now patch) before removing it",
    )
