"""``runtime audit --markdown``: the stale-bindings section says "none" when there are none,
and the audit's counts have a heading of their own. Before, a plugin whose patched names no
upstream module binds (vllm-bnb-plugin's two ``EngineArgs`` wrappers) got an empty "Stale
bindings" section with the mechanism, activation and decision counts under it."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import ENGINE, PATCH_STEP, TreeWriter, patch_plugin


def test_no_stale_bindings_says_none(plugin_trees: TreeWriter, cli) -> None:
    """One patched function that no upstream module imports by name."""
    trees = plugin_trees.write(
        "bplug",
        patch_plugin("bplug", {"p_step": PATCH_STEP}, entry="b"),
        {"vllm/__init__.py": "", "vllm/engine.py": ENGINE},
    )
    markdown = plugin_trees.root / "audit.md"
    run = cli(
        "runtime", "audit", "--from", trees.old, "--to", trees.new, "--package", "bplug",
        "--markdown", str(markdown), cwd=trees.plugin,
    )  # fmt: skip
    assert run.code == 0, run.err
    text = markdown.read_text(encoding="utf-8")
    assert text[text.index("## Stale bindings") :] == (
        "## Stale bindings\n\n"
        "none: no module of the new upstream binds a patched name with `from ... import`\n\n"
        "## Counts\n\n"
        "- mechanism: assignment 1\n- activation: active 1\n- decision: retain 1\n"
    )


def test_the_counts_follow_the_stale_bindings(
    runtime_trees: Path, runtime_versions: list[str], cli
) -> None:
    plugin = runtime_trees / "plugin"
    markdown = runtime_trees / "audit.md"
    cli("runtime", "audit", *runtime_versions, "--markdown", str(markdown), cwd=plugin)
    text = markdown.read_text(encoding="utf-8")
    stale = text[text.index("## Stale bindings\n") : text.index("## Counts\n")]
    assert stale.splitlines()[2].startswith("- `"), stale
    assert text[text.index("## Counts\n") :].splitlines()[2].startswith("- mechanism: ")
