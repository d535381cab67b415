"""``runtime port`` end to end on a plugin in vllm-ascend's shape (written by this test):
a copy formatted by the plugin's formatter that already took upstream's change, a copy
behind a version gate, and an import gate; the exact diff and the per-entry report."""

from __future__ import annotations

from pathlib import Path

from vupplug import (
    EXPECTED_DIFF,
    PLUGIN_FILES,
    UPSTREAM_NEW,
    UPSTREAM_OLD,
    port_written,
)


def test_port_cuts_gates_settles_layout_and_keeps_the_gated_copy(
    tmp_path: Path, monkeypatch
) -> None:
    result = port_written(tmp_path, monkeypatch, UPSTREAM_OLD, UPSTREAM_NEW, PLUGIN_FILES)
    assert [(e.file, e.line, e.target, e.action, e.detail) for e in result.entries] == [
        (
            "vaplug/patch/patch_model.py",
            26,
            "vup.model.Model.forward",
            "merged",
            "three-way merge of vaplug/patch/patch_model.py:17: clean",
        ),
        (
            "vaplug/patch/patch_model.py",
            29,
            "vup.model.kernel",
            "gate cut",
            "the copy at vaplug/ops/kernel.py:10 sits behind a version gate: the plugin's "
            "definition for the new release (line 1 once cut) is kept, not merged",
        ),
        (
            "vaplug/ops/kernel.py",
            3,
            'vllm_version_is("1.0")',
            "gate cut",
            'the `if` branch of `vllm_version_is("1.0")` is dead at 2.0: cut it, kept the '
            "`else` block",
        ),
        (
            "vaplug/patch/patch_model.py",
            11,
            'vllm_version_is("1.0")',
            "gate cut",
            'the `if` branch of `vllm_version_is("1.0")` is dead at 2.0: cut it, kept the '
            "`else` block",
        ),
    ]
    # The merge took upstream's aux block in upstream's layout and kept the plugin's own
    # line wrapping of the layer call beside it (git alone marks a conflict there).
    assert result.diff == EXPECTED_DIFF
    assert (result.exit_code, result.written) == (0, False)
