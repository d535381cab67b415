"""A plugin's project file that cannot be read (the file its entry points come from) is a
``project-file`` finding at its line, not silence (every patch then looked never imported)
nor a crash (a ``dist-info`` file or a ``setup.cfg`` not UTF-8 raised
``UnicodeDecodeError``); each project file is read and parsed once for both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patchkeeper.runtime.syntax.parsing import PARSE_LOG_ENV

# A plugin in the shape of a quantization plugin's: register() wraps an upstream method.
PLUGIN = """from vllm.engine.arg_utils import EngineArgs


def _patch_engine_args():
    original = EngineArgs.create_model_config

    def create_model_config(self, *args, **kwargs):
        return original(self, *args, **kwargs)

    EngineArgs.create_model_config = create_model_config


def register():
    _patch_engine_args()
"""

HINT = (
    "fix the file: the plugin's entry points, which say how the upstream loads the plugin, "
    "are read from it"
)


def _plugin(root: Path, files: dict[str, bytes]) -> Path:
    (root / "qplug").mkdir(parents=True)
    (root / "qplug" / "__init__.py").write_text(PLUGIN)
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def _project_findings(cli, root: Path) -> tuple[int, list[tuple[str, int | None, str]]]:
    run = cli("runtime", "inventory", "--plugin", str(root), "--package", "qplug", "--json")
    data = json.loads(run.out)
    found = [
        (f["path"], f["line"], f["message"])
        for f in data["findings"]
        if f["code"] == "project-file" and f["hint"] == HINT
    ]
    return run.code, found


@pytest.mark.parametrize(
    ("name", "text", "line", "what"),
    [
        (
            "pyproject.toml",
            b'[project]\nname = "qplug"\n[project.entry-points."vllm.general_plugins"]\n'
            b'q = "qplug:register\n',
            4,
            "not valid TOML (Illegal character '\\n')",
        ),
        (
            "setup.cfg",
            b"[options.entry_points]\nvllm.general_plugins =\n    q = qplug:register\n[broken\n",
            4,
            "not a valid setup.cfg (cannot parse '[broken')",
        ),
        (
            "setup.cfg",
            b"[metadata]\nname = qplug\n[metadata]\n",
            3,
            "not a valid setup.cfg (section [metadata] appears twice)",
        ),
        (
            "setup.cfg",
            b"[options.entry_points]\nvllm.general_plugins =\n    q = qplug:register  # caf\xe9\n",
            3,
            "not UTF-8 (byte 0xe9)",
        ),
        (
            "setup.py",
            b"from setuptools import setup\n\nsetup(\n    name='qplug',\n"
            b"    entry_points={'vllm.general_plugins': ['q = qplug:register']}\n",
            3,
            "not valid Python ('(' was never closed)",
        ),
        (
            "qplug-0.1.dist-info/entry_points.txt",
            b"[vllm.general_plugins]\nq = qplug:register  # caf\xe9\n",
            2,
            "not UTF-8 (byte 0xe9)",
        ),
    ],
)
def test_an_unreadable_project_file_is_a_finding_at_its_line(
    tmp_path: Path, cli, name: str, text: bytes, line: int, what: str
) -> None:
    root = _plugin(tmp_path / "plug", {name: text})
    code, found = _project_findings(cli, root)
    assert (code, found) == (1, [(name, line, f"{what}: its entry points are not read")])


def test_other_distributions_of_a_site_packages_are_not_the_plugin_s(tmp_path: Path, cli) -> None:
    """``--plugin`` a ``site-packages``: a broken ``entry_points.txt`` of another installed
    distribution is not the plugin's; the plugin's own, readable, gives its entry point."""
    root = _plugin(
        tmp_path / "site-packages",
        {
            "qplug-0.1.dist-info/entry_points.txt": b"[vllm.general_plugins]\nq = qplug:register\n",
            "other-2.0.dist-info/entry_points.txt": b"[console_scripts]\nother = other:\xff\n",
        },
    )
    _code, found = _project_findings(cli, root)
    assert found == []
    run = cli("runtime", "inventory", "--plugin", str(root), "--package", "qplug", "--json")
    data = json.loads(run.out)
    assert [e["value"] for e in data["entry_points"]] == ["qplug:register"]
    assert [(e["target"], e["activation"]["status"]) for e in data["entries"]] == [
        ("vllm.engine.arg_utils.EngineArgs.create_model_config", "active")
    ]


def test_a_setup_py_is_parsed_once_for_its_entry_points_and_its_check(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = (
        b"from setuptools import setup\n\nsetup(\n    name='qplug',\n"
        b"    entry_points={'vllm.general_plugins': ['q = qplug:register']},\n)\n"
    )
    root = _plugin(tmp_path / "plug", {"setup.py": setup})
    log = tmp_path / "parsed.log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    run = cli("runtime", "inventory", "--plugin", str(root), "--package", "qplug", "--json")
    data = json.loads(run.out)
    assert [(e["group"], e["value"]) for e in data["entry_points"]] == [
        ("vllm.general_plugins", "qplug:register")
    ]
    assert [f for f in data["findings"] if f["code"] == "project-file"] == []
    # the log itself, not read_parse_log (which gives each path once): a line a parse
    parses = log.read_text(encoding="utf-8").splitlines()
    assert [path for path in parses if path.endswith("setup.py")] == [f"{root}/setup.py"]
