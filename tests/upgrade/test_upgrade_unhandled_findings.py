"""``upgrade`` of a plugin scanned whole whose module without a patch imports a name the new
release moved (tests/moved_name_plugin.py): the findings the runtime port does not rewrite
are in the list of what is left for a person, each with the command that lists it. The
runtime audit step counted them, and the upgrade ended "every step done" listing none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from upgrade_support import make_checkout

from moved_name_plugin import write_moved_name_plugin


@pytest.fixture
def plugin(tmp_path: Path, private_cache: Path) -> Path:
    plugin = write_moved_name_plugin(tmp_path)
    make_checkout(plugin)
    return plugin


def left(plugin: Path) -> list[str]:
    """The two items the runtime port leaves by hand, as the list gives them."""
    command = (
        f"'patchkeeper runtime audit --from {plugin.parent / 'vllm-1.0'} --to "
        f"{plugin.parent / 'vllm-2.0'}' lists it"
    )
    return [
        "toolplug/tools.py:2: breaks-at-import: vllm.entrypoints.chat_utils.make_tool_call_id "
        "is gone from the new upstream: the plugin breaks at import; now defined at "
        "vllm.renderers.chat_utils.make_tool_call_id (line 1): runtime port does not rewrite "
        f"it: use the name where the new upstream defines it; {command}",
        "toolplug/tools.py:6: breaks-when-called: vllm.utils.random_uuid is gone from the new "
        "upstream: the plugin breaks when the code using it runs; now defined at "
        "vllm.ids.random_uuid (line 1): runtime port does not rewrite it: use the name where "
        f"the new upstream defines it; {command}",
    ]


def test_the_list_names_what_the_runtime_port_left(cli, plugin: Path) -> None:
    run = cli("upgrade", "--to", "../vllm-2.0", "--from", "../vllm-1.0", cwd=plugin)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    at = lines.index(
        "every step done, with edits left to you: make those under 'edits the port left to "
        "you' below, then run the commands under 'verify the result'"
    )
    assert lines[at + 1 :] == [
        "left for a person:",
        '1. suggestions to review, in patchkeeper-decisions.toml (delete "suggested: " from its '
        "decision to accept it, or write your own):",
        "   - runtime: retain for 1 entry the runtime audit found nothing to change in "
        "(verdict: retain): accept them; 1 of them without a removal-condition: write when "
        "each can go",
        "2. edits the port left to you:",
        *(f"   - {item}" for item in left(plugin)),
        "3. verify the result:",
        "   - patchkeeper runtime check --python PYTHON  # PYTHON: an environment with the "
        f"plugin and {plugin.parent / 'vllm-2.0'} installed",
        "   - patchkeeper lint",
        "   - patchkeeper report --check",
    ]
    assert (
        "  runtime port   done     1 entry (and 2 audit findings), 2 changed or left by hand; "
        "0 files written; no pin configured"
    ) in lines


def test_the_json_form_lists_them(cli, plugin: Path) -> None:
    run = cli("upgrade", "--to", "../vllm-2.0", "--from", "../vllm-1.0", "--json", cwd=plugin)
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert (data["outcome"], data["by_hand"]) == ("done", left(plugin))


def problems(plugin: Path) -> list[str]:
    """The record's open problems of names the plugin still uses, as AUDIT.md lists them."""
    text = (plugin / "AUDIT.md").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith("- breaks-")]


def test_the_record_lists_them_until_they_are_fixed(cli, plugin: Path) -> None:
    """AUDIT.md's open problems name each, and the record is stale once one is fixed: a
    ``report`` then drops it."""
    run = cli("upgrade", "--to", "../vllm-2.0", "--from", "../vllm-1.0", cwd=plugin)
    assert run.code == 0, run.err
    hint = (
        "use the name where the new upstream defines it, then run 'patchkeeper runtime audit "
        f"--from {plugin.parent / 'vllm-1.0'} --to {plugin.parent / 'vllm-2.0'} "
        "--save-evidence' (it lists them) and 'patchkeeper report'"
    ).replace("_", "\\_")  # as Markdown writes it: the test's folder is a_b_c
    at_import = (
        "- breaks-at-import: toolplug/tools.py:2: vllm.entrypoints.chat\\_utils.make\\_tool"
        "\\_call\\_id is gone from the new upstream: the plugin breaks at import; now defined "
        f"at vllm.renderers.chat\\_utils.make\\_tool\\_call\\_id (line 1): {hint}"
    )
    assert problems(plugin) == [
        at_import,
        "- breaks-when-called: toolplug/tools.py:6: vllm.utils.random\\_uuid is gone from the "
        "new upstream: the plugin breaks when the code using it runs; now defined at "
        f"vllm.ids.random\\_uuid (line 1): {hint}",
    ]
    tools = plugin / "toolplug" / "tools.py"
    tools.write_text(
        tools.read_text(encoding="utf-8").replace("vllm.utils.random_uuid()", "'u'"),
        encoding="utf-8",
    )
    check = cli("report", "--check", cwd=plugin)
    assert (check.code, check.out.splitlines()[-1]) == (
        1,
        "  record-not-current: AUDIT.md differs from what report writes now: run patchkeeper "
        "report",
    )
    assert cli("report", cwd=plugin).code == 1  # suggestions nobody reviewed, the import
    assert problems(plugin) == [at_import]
