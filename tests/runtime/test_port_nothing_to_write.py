"""``runtime port`` with nothing to write: the report of a plugin that patches nothing at
run time says so, and it stays off standard output when the diff is standard output's (a
redirected ``update.diff`` is then empty, not the report's lines); with ``--output`` or
``--write`` the diff goes elsewhere and the report is standard output's."""

from __future__ import annotations

from pathlib import Path

#: The report's last line for a plugin with no runtime patch.
NOTHING = (
    "runtime port 1.0 -> 2.0: no runtime patches; nothing to write (the plugin has every "
    "change this port makes)"
)


def plain_plugin(root: Path) -> Path:
    """A plugin that registers through the upstream's API only (no runtime patch)."""
    plugin = root / "plain"
    (plugin / "plainplug").mkdir(parents=True)
    (plugin / "pyproject.toml").write_text(
        '[project]\nname = "plainplug"\nversion = "1"\n\n[tool.patchkeeper]\nupstream = "tinyup"\n',
        encoding="utf-8",
    )
    (plugin / "plainplug" / "__init__.py").write_text(
        "def register():\n    from tinyup import registry\n\n"
        '    registry.register_loader("plain", object)\n',
        encoding="utf-8",
    )
    return plugin


def test_a_plugin_without_runtime_patches_says_so(runtime_trees: Path, cli) -> None:
    """The report ended with an empty summary, ``runtime port 1.0 -> 2.0: ; nothing to
    write``; with the diff on standard output, the report is standard error's."""
    plugin = plain_plugin(runtime_trees)
    versions = ("--from", str(runtime_trees / "upstream-1.0"))
    versions += ("--to", str(runtime_trees / "upstream-2.0"), "--package", "plainplug")
    run = cli("runtime", "port", *versions, cwd=plugin)
    assert (run.code, run.out, run.err) == (0, "", NOTHING + "\n")


def test_an_empty_diff_written_elsewhere_leaves_the_report_on_standard_output(
    runtime_trees: Path, cli
) -> None:
    plugin = plain_plugin(runtime_trees)
    versions = ("--from", str(runtime_trees / "upstream-1.0"))
    versions += ("--to", str(runtime_trees / "upstream-2.0"), "--package", "plainplug")
    saved = runtime_trees / "update.diff"
    to_file = cli("runtime", "port", *versions, "--output", str(saved), cwd=plugin)
    assert (to_file.code, to_file.out, to_file.err, saved.read_text(encoding="utf-8")) == (
        0,
        f"{NOTHING}; diff in {saved}\n",
        "",
        "",
    )
    written = cli("runtime", "port", *versions, "--write", cwd=plugin)
    assert (written.code, written.out, written.err) == (0, NOTHING + "\n", "")
