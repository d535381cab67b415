"""``runtime port`` names each finding of the audit that a name the plugin uses is gone from
the new release and that it did not rewrite: a module of a plugin scanned whole that holds
no patch, an attribute chain called in a function. It said "nothing to write (the plugin
has every change this port makes)" and exited 0 while the plugin broke at import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moved_name_plugin import write_moved_name_plugin

#: The two findings, as the report lists them.
AT_IMPORT = (
    "BY HAND       toolplug/tools.py:2 vllm.entrypoints.chat_utils.make_tool_call_id: "
    "breaks-at-import: vllm.entrypoints.chat_utils.make_tool_call_id is gone from the new "
    "upstream: the plugin breaks at import; now defined at "
    "vllm.renderers.chat_utils.make_tool_call_id (line 1): runtime port does not rewrite it: "
    "use the name where the new upstream defines it"
)
WHEN_CALLED = (
    "BY HAND       toolplug/tools.py:6 vllm.utils.random_uuid: breaks-when-called: "
    "vllm.utils.random_uuid is gone from the new upstream: the plugin breaks when the code "
    "using it runs; now defined at vllm.ids.random_uuid (line 1): runtime port does not "
    "rewrite it: use the name where the new upstream defines it"
)


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    return write_moved_name_plugin(tmp_path)


def test_the_findings_it_does_not_rewrite_are_named(cli, plugin: Path) -> None:
    run = cli("runtime", "port", "--from", "../vllm-1.0", "--to", "../vllm-2.0", cwd=plugin)
    assert (run.code, run.out) == (1, "")
    assert run.err.splitlines() == [
        AT_IMPORT,
        WHEN_CALLED,
        "runtime port 1.0 -> 2.0: by hand 2, nothing to do 1; nothing to write; what is "
        "listed above is left by hand",
    ]


def test_the_json_form_names_them(cli, plugin: Path) -> None:
    run = cli(
        "runtime", "port", "--from", "../vllm-1.0", "--to", "../vllm-2.0", "--json", cwd=plugin
    )
    data = json.loads(run.out)
    assert (run.code, data["exit_code"], data["diff"], data["files"]) == (1, 1, "", [])
    assert [
        (e["file"], e["line"], e["target"], e["decision"], e["action"], e["detail"])
        for e in data["entries"][1:]
    ] == [
        (
            "toolplug/tools.py",
            2,
            "vllm.entrypoints.chat_utils.make_tool_call_id",
            "finding",
            "by hand",
            AT_IMPORT.split(": ", 1)[1],
        ),
        (
            "toolplug/tools.py",
            6,
            "vllm.utils.random_uuid",
            "finding",
            "by hand",
            WHEN_CALLED.split(": ", 1)[1],
        ),
    ]


def test_written_it_still_names_them(cli, plugin: Path) -> None:
    """``--write`` writes nothing and says so, with the findings, exit 1."""
    before = (plugin / "toolplug" / "tools.py").read_text(encoding="utf-8")
    run = cli(
        "runtime", "port", "--from", "../vllm-1.0", "--to", "../vllm-2.0", "--write", cwd=plugin
    )
    assert (run.code, run.err) == (1, "")
    assert run.out.splitlines()[-1] == (
        "runtime port 1.0 -> 2.0: by hand 2, nothing to do 1; nothing to write; what is "
        "listed above is left by hand"
    )
    assert (plugin / "toolplug" / "tools.py").read_text(encoding="utf-8") == before


def test_an_import_it_rewrites_in_a_patch_file_is_not_named_again(cli, plugin: Path) -> None:
    """The same import in the patch file is rewritten there (``retargeted``), and named only
    where it is not: the module without a patch."""
    patch = plugin / "toolplug" / "engine_patch.py"
    patch.write_text(
        "from vllm.entrypoints.chat_utils import make_tool_call_id\n"
        + patch.read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    run = cli("runtime", "port", "--from", "../vllm-1.0", "--to", "../vllm-2.0", cwd=plugin)
    assert run.code == 1
    assert run.err.splitlines() == [
        "RETARGETED    toolplug/engine_patch.py:1 vllm.entrypoints.chat_utils.make_tool_call_id: "
        "from vllm.entrypoints.chat_utils import make_tool_call_id -> from "
        "vllm.renderers.chat_utils import make_tool_call_id at line 1 "
        "(vllm.entrypoints.chat_utils has no make_tool_call_id at 2.0)",
        AT_IMPORT,
        WHEN_CALLED,
        "runtime port 1.0 -> 2.0: by hand 2, nothing to do 1, retargeted 1; not written "
        "(--write applies it)",
    ]


def test_a_use_the_cut_of_its_version_gate_deletes_is_not_named(cli, plugin: Path) -> None:
    """A use of the moved name in the branch of a version gate dead at the new release goes
    with the branch port cuts: the finding the audit gives for it is not left by hand."""
    package = plugin / "toolplug"
    (package / "compat.py").write_text(
        'def vllm_version_is(v):\n    return v == "1.0"\n', encoding="utf-8"
    )
    (package / "engine_patch.py").write_text(
        "import vllm.engine\n\nfrom toolplug.compat import vllm_version_is\n\n"
        'if vllm_version_is("1.0"):\n    import vllm.utils\n    vllm.utils.random_uuid()\n\n\n'
        "def step(x):\n    return x + 1\n\n\nvllm.engine.step = step\n",
        encoding="utf-8",
    )
    versions = ("--from", "../vllm-1.0", "--to", "../vllm-2.0")
    audit = cli("runtime", "audit", *versions, cwd=plugin)
    assert (
        "  toolplug/engine_patch.py:7: breaks-at-import: vllm.utils.random_uuid is gone from "
        "the new upstream: the plugin breaks at import; now defined at vllm.ids.random_uuid "
        "(line 1)"
    ) in audit.out.splitlines()
    run = cli("runtime", "port", *versions, "--output", str(plugin.parent / "u.diff"), cwd=plugin)
    assert run.code == 1
    assert run.out.splitlines() == [
        'GATE CUT      toolplug/engine_patch.py:5 vllm_version_is("1.0"): the `if` branch of '
        '`vllm_version_is("1.0")` is dead at 2.0: cut it (no `else` block)',
        AT_IMPORT,
        WHEN_CALLED,
        "runtime port 1.0 -> 2.0: by hand 2, gate cut 1, nothing to do 1; not written "
        f"(--write applies it); diff in {plugin.parent / 'u.diff'}",
    ]
