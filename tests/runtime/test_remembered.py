"""The JSON of ``runtime inventory`` and ``runtime audit`` remembered with the stat data of
what it was read from (runtime/remembered.py): printed again while nothing changed, computed
again after a plugin file, an upstream file, a folder's listing or the configuration changed."""

from __future__ import annotations

import json
import marshal
import os
import time
from pathlib import Path

import pytest

from patchkeeper.jsonable import JsonReady, joined_json, raw_json, to_jsonable
from patchkeeper.render import render_json
from patchkeeper.runtime import remembered
from patchkeeper.runtime.settings import RuntimeAuditRequest
from patchkeeper.runtime.store.cache import cache_root

#: Long enough ago not to be "racily" recent (remembered.RACY_SECONDS).
AN_HOUR_AGO = time.time() - 3600

MARKER = '{\n  "marker": "from the store"\n}'


def _age(tree: Path) -> None:
    """Every file and folder of ``tree`` last modified an hour ago (as an unpacked release)."""
    for folder, _subfolders, files in os.walk(tree):
        for name in files:
            os.utime(Path(folder) / name, (AN_HOUR_AGO, AN_HOUR_AGO))
        os.utime(folder, (AN_HOUR_AGO, AN_HOUR_AGO))


def _stores() -> list[Path]:
    folder = cache_root() / "runtime" / "remembered"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _mark_stores() -> None:
    """Replace the remembered JSON of every store by :data:`MARKER`: a run that prints the
    marker printed the store."""
    for store in _stores():
        data = list(marshal.loads(store.read_bytes()))
        data[-3:] = [["marker"], True, MARKER]
        store.write_bytes(marshal.dumps(tuple(data)))


def _edit_keeping_times(path: Path, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` (the same length: the size stays) and put the modification
    time back: only the inode's change time tells."""
    assert len(old) == len(new)
    text = path.read_text()
    assert old in text
    before = path.stat()
    path.write_text(text.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size


@pytest.fixture
def aged(runtime_trees: Path) -> Path:
    _age(runtime_trees)
    return runtime_trees


def _audit(cli, trees: Path):
    old, new = trees / "upstream-1.0", trees / "upstream-2.0"
    args = ("runtime", "audit", "--from", str(old), "--to", str(new), "--json")
    return cli(*args, cwd=trees / "plugin")


def test_warm_inventory_prints_the_store_until_a_plugin_file_changes(aged: Path, cli) -> None:
    plugin = aged / "plugin"
    first = cli("runtime", "inventory", "--json", cwd=plugin)
    assert first.code == 1 and len(_stores()) == 1
    again = cli("runtime", "inventory", "--json", cwd=plugin)
    assert (again.code, again.out) == (1, first.out)
    _mark_stores()
    marked = cli("runtime", "inventory", "--json", cwd=plugin)
    assert json.loads(marked.out) == {
        "command": "runtime inventory",
        "patchkeeper_version": json.loads(first.out)["patchkeeper_version"],
        "exit_code": 1,
        "marker": "from the store",
    }
    init = plugin / "metaplug/patch/bugfix/__init__.py"
    _edit_keeping_times(
        init,
        "# import metaplug.patch.bugfix.fix_disabled",
        "import metaplug.patch.bugfix.fix_disabled #",
    )
    edited = json.loads(cli("runtime", "inventory", "--json", cwd=plugin).out)
    activation = {
        e["file"].rsplit("/", 1)[-1]: e["activation"]["status"] for e in edited["entries"]
    }
    assert activation["fix_disabled.py"] == "active"
    before = {
        e["file"].rsplit("/", 1)[-1]: e["activation"]["status"]
        for e in json.loads(first.out)["entries"]
    }
    assert before["fix_disabled.py"] == "never-imported"


def test_warm_audit_prints_the_store_until_an_upstream_file_changes(aged: Path, cli) -> None:
    api = aged / "upstream-2.0/tinyup/api.py"
    line = "from tinyup.sampler import sample as run_sample"
    api.write_text("import os".ljust(len(line)) + "\n")
    os.utime(api, (AN_HOUR_AGO, AN_HOUR_AGO))
    os.utime(api.parent, (AN_HOUR_AGO, AN_HOUR_AGO))
    first = _audit(cli, aged)
    assert [s for s in json.loads(first.out)["stale"] if s["importer"] == "tinyup.api"] == []
    assert _audit(cli, aged).out == first.out
    _mark_stores()
    assert json.loads(_audit(cli, aged).out)["marker"] == "from the store"
    _edit_keeping_times(api, "import os".ljust(len(line)), line)
    stale = json.loads(_audit(cli, aged).out)["stale"]
    assert [(s["target"], s["local"]) for s in stale if s["importer"] == "tinyup.api"] == [
        ("tinyup.sampler.sample", "run_sample")
    ]


def test_a_file_added_to_an_upstream_package_is_read(aged: Path, cli) -> None:
    first = _audit(cli, aged)
    _mark_stores()
    added = aged / "upstream-2.0/tinyup/api.py"
    added.write_text("from tinyup.sampler import sample as run_sample\n")
    os.utime(added, (AN_HOUR_AGO, AN_HOUR_AGO))  # only the folder's listing changed now
    second = json.loads(_audit(cli, aged).out)
    assert "marker" not in second
    before = [s["importer"] for s in json.loads(first.out)["stale"]]
    after = [s["importer"] for s in second["stale"]]
    assert "tinyup.api" not in before and "tinyup.api" in after


def test_a_configuration_change_is_another_question(aged: Path, cli) -> None:
    plugin = aged / "plugin"
    first = json.loads(cli("runtime", "inventory", "--json", cwd=plugin).out)
    assert "ledger-missing" not in [f["code"] for f in first["findings"]]
    _mark_stores()
    config = plugin / "pyproject.toml"
    config.write_text(config.read_text() + 'ledger-file = "PATCHES.md"\n')
    second = json.loads(cli("runtime", "inventory", "--json", cwd=plugin).out)
    assert "marker" not in second
    assert [f for f in second["findings"] if f["code"] == "ledger-missing"] == [
        {
            "code": "ledger-missing",
            "path": "PATCHES.md",
            "line": None,
            "message": "the ledger file does not exist",
            "hint": "",
        }
    ]
    assert len(_stores()) == 1  # the configuration was written just now: not remembered
    os.utime(config, (AN_HOUR_AGO, AN_HOUR_AGO))
    cli("runtime", "inventory", "--json", cwd=plugin)
    assert len(_stores()) == 2  # one per question


def test_a_ledger_file_created_later_is_read(aged: Path, cli) -> None:
    plugin = aged / "plugin"
    config = plugin / "pyproject.toml"
    config.write_text(config.read_text() + 'ledger-file = "PATCHES.md"\n')
    os.utime(config, (AN_HOUR_AGO, AN_HOUR_AGO))
    os.utime(plugin, (AN_HOUR_AGO, AN_HOUR_AGO))
    first = json.loads(cli("runtime", "inventory", "--json", cwd=plugin).out)
    assert "ledger-missing" in [f["code"] for f in first["findings"]]
    _mark_stores()
    (plugin / "PATCHES.md").write_text("# patches\n")
    second = json.loads(cli("runtime", "inventory", "--json", cwd=plugin).out)
    assert "marker" not in second
    assert "ledger-missing" not in [f["code"] for f in second["findings"]]


def test_nothing_is_remembered_from_a_file_modified_just_now(runtime_trees: Path, cli) -> None:
    """A plugin file written just now: a second change within the file system's clock tick
    could leave the same stat data, so the result is not remembered (git's racy entries)."""
    plugin = runtime_trees / "plugin"
    utils = plugin / "metaplug/patch/utils.py"
    utils.write_text(utils.read_text() + "# edited\n")
    first = cli("runtime", "inventory", "--json", cwd=plugin)
    assert _stores() == []
    assert cli("runtime", "inventory", "--json", cwd=plugin).out == first.out


def test_warm_text_and_evidence_equal_the_cold_ones(
    aged: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764000000")
    plugin = aged / "plugin"
    evidence = plugin / ".patchkeeper/evidence/runtime-audit.json"
    old, new = str(aged / "upstream-1.0"), str(aged / "upstream-2.0")
    args = ("runtime", "audit", "--from", old, "--to", new, "--save-evidence")
    cold_text = cli(*args, cwd=plugin)
    cold_evidence = evidence.read_bytes()
    assert _stores() != []  # the cold run remembered its JSON
    warm_text = cli(*args, cwd=plugin)
    assert (warm_text.code, warm_text.out) == (cold_text.code, cold_text.out)
    assert evidence.read_bytes() == cold_evidence
    cli(*args, "--json", cwd=plugin)  # the JSON from the store: the same bytes but argv's
    warm_evidence = evidence.read_bytes()
    assert b'"--json"' in warm_evidence[: warm_evidence.index(b'"cwd"')]
    assert (
        warm_evidence[warm_evidence.index(b'"cwd"') :]
        == cold_evidence[cold_evidence.index(b'"cwd"') :]
    )


def test_the_envelope_of_a_ready_result_is_the_envelope_of_the_result(
    aged: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from patchkeeper.config import load_config
    from patchkeeper.record import evidence_store
    from patchkeeper.runtime.judge.runtime_audit import audit_runtime

    plugin = aged / "plugin"
    trees = {"old": str(aged / "upstream-1.0"), "new": str(aged / "upstream-2.0")}
    config = load_config(plugin / "pyproject.toml")
    result = audit_runtime(config, **trees)
    ready = JsonReady.of(result)
    assert ready.body == raw_json(to_jsonable(result))
    assert (ready.exit_code, ready.plain) == (1, True)
    assert render_json(ready, "runtime audit") == render_json(result, "runtime audit")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764000000")
    argv = ["runtime", "audit", "--from", trees["old"], "--to", trees["new"]]
    saved = evidence_store.save(config, "runtime audit", result, argv).read_bytes()
    assert evidence_store.save(config, "runtime audit", ready, argv).read_bytes() == saved
    assert saved.startswith(b'{\n  "format": 1,\n  "command": "runtime audit",\n')
    request = RuntimeAuditRequest(**trees)
    remembered_ready = remembered.audit(load_config(plugin / "pyproject.toml"), request)
    assert render_json(remembered_ready, "runtime audit") == render_json(result, "runtime audit")
    assert remembered_ready.result == result
    assert to_jsonable(remembered_ready) == to_jsonable(result)


def test_joined_json_is_the_json_of_the_joined_objects() -> None:
    head = {"command": "x", "n": [1, {"a": None}]}
    body = {"b": {"c": ["caf\u00e9", 2.5, True]}, "d": []}
    assert joined_json(head, raw_json(body)) == raw_json(head | body)
    assert joined_json(head, raw_json(body), "result") == raw_json(head | {"result": body})
    assert joined_json(head, "{}") == raw_json(head)
    assert joined_json({}, raw_json(body), "r") == raw_json({"r": body})
