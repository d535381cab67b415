"""A copy whose added lines the new upstream has is *remove*, and the evidence counts only
the substantive ones: a lone ``pass`` or ``else:`` stands in almost any upstream body, so it
tells nothing of how much of the copy upstream took. Upstream ``cup.ops`` 2.0 took the
plugin's two lines that move the tensor to the device and its empty ``else`` branch, and
added one line of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from portclaims import make

from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit

OPS = {
    "1.0": "def scale(x, f):\n    y = x * f\n    return y.round(2)\n",
    "2.0": "def scale(x, f):\n    y = x * f\n    if y.on_host:\n        y = y.npu()\n"
    "        y.pin()\n    else:\n        pass\n    return y.round(2)\n",
}
PATCH = """# Note: n
# Affected versions: cup 1.0
# Remove at: 3.0
import cup.ops


def npu_scale(x, f):
    y = x * f
    if y.on_host:
        y = y.npu()
    else:
        pass
    return y.round(2)


cup.ops.scale = npu_scale
"""


def test_the_evidence_counts_the_substantive_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    releases = {version: {"cup/ops.py": text} for version, text in OPS.items()}
    work = make(tmp_path, monkeypatch, {"patch_scale.py": PATCH}, releases)
    config = load_config(work / "plugin" / "pyproject.toml")
    result = runtime_audit.audit_runtime(
        config, old=str(work / "cup-1.0"), new=str(work / "cup-2.0")
    )
    [audited] = result.entries
    assert (audited.entry.target, audited.drift.decision) == ("cup.ops.scale", "remove")
    assert audited.drift.evidence[0] == (
        "every substantive line the replacement adds (2) is in the new upstream, and so are "
        "2 others (a line that says nothing on its own, a lone `pass`, `return` or bracket, "
        "is not counted)"
    )
