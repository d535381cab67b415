"""``runtime port ... > update.diff`` when the plugin already has every change the port
makes: the diff is empty, and so is standard output; the report stays on standard error
(before: with no diff to print, the report went to standard output, so the redirected
file held the report's lines where a diff was expected)."""

from __future__ import annotations

from pathlib import Path


def test_an_empty_diff_leaves_standard_output_empty(runtime_trees: Path, cli) -> None:
    plugin = runtime_trees / "plugin"
    versions = ("--from", str(runtime_trees / "upstream-2.0"))
    versions += ("--to", str(runtime_trees / "upstream-2.0"))
    written = cli("runtime", "port", *versions, "--write", cwd=plugin)
    assert written.code == 1  # entries left by hand
    assert written.out.splitlines()[-1] == (
        "runtime port 2.0 -> 2.0: by hand 4, nothing to do 4; written to the plugin"
    )
    again = cli("runtime", "port", *versions, cwd=plugin)
    assert (again.code, again.out) == (1, "")
    assert again.err.splitlines()[-1] == (
        "runtime port 2.0 -> 2.0: by hand 4, nothing to do 4; nothing to write "
        "(the plugin has every change this port makes)"
    )
    assert len(again.err.splitlines()) == 5
    saved = runtime_trees / "update.diff"
    to_file = cli("runtime", "port", *versions, "--output", str(saved), cwd=plugin)
    assert (to_file.code, to_file.err, saved.read_text(encoding="utf-8")) == (1, "", "")
    assert to_file.out.splitlines()[-1] == (
        "runtime port 2.0 -> 2.0: by hand 4, nothing to do 4; nothing to write "
        f"(the plugin has every change this port makes); diff in {saved}"
    )


def test_a_plugin_without_runtime_patches_says_so(runtime_trees: Path, cli) -> None:
    """A plugin that registers through the upstream's API only (no runtime patch) ended its
    report with an empty summary, ``runtime port 1.0 -> 2.0: ; nothing to write``."""
    plugin = runtime_trees / "plain"
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
    versions = ("--from", str(runtime_trees / "upstream-1.0"))
    versions += ("--to", str(runtime_trees / "upstream-2.0"))
    run = cli("runtime", "port", *versions, "--package", "plainplug", cwd=plugin)
    assert (run.code, run.out, run.err) == (
        0,
        "",
        "runtime port 1.0 -> 2.0: no runtime patches; nothing to write (the plugin has every "
        "change this port makes)\n",
    )
