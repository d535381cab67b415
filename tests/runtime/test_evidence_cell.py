"""The runtime audit's Markdown table escapes an evidence sentence as every table does
(:func:`patchkeeper.system.markdown_cells.escape_cell`): its ``|`` (a type ``int | None``) split the
row, and a tag it quotes reached the rendered page."""

from __future__ import annotations

from dataclasses import replace

from plugin_trees import ENGINE, PATCH_STEP, TreeWriter, patch_plugin

from patchkeeper.render.runtime import audit_markdown


def test_an_evidence_cell_is_escaped(plugin_trees: TreeWriter) -> None:
    upstream = {"vllm/__init__.py": "", "vllm/engine.py": ENGINE}
    plugin = patch_plugin("xplug", {"p_step": PATCH_STEP}, entry="x")
    result = plugin_trees.write("xplug", plugin, upstream).audit()
    [item] = result.entries
    evidence = ("upstream writes <script>alert(1)</script> & &amp;", "x: int | None")
    shown = replace(result, entries=(replace(item, drift=replace(item.drift, evidence=evidence)),))

    lines = audit_markdown(shown).splitlines()

    assert lines[2:5] == [
        "| decision | file:line | target | evidence |",
        "| --- | --- | --- | --- |",
        "| retain | xplug/patch/p_step.py:8 | `vllm.engine.step` | upstream "
        "writes &lt;script>alert(1)&lt;/script> & &amp;amp;; x: int \\| None |",
    ]
