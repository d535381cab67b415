"""``runtime port --write`` run a second time, after the user resolved the conflicts of the
first: the resolved copies are kept (their header says ``Ported to NEW, to review.``), and a
merge that changes nothing is not reported as one.

Found on a plugin in the audit seed's shape (a copy of ``Worker.execute`` whose upstream
signature changed): the second ``--write`` merged the resolved copy again from the old
release and wrote fresh conflict markers over the resolution, and a rerun whose merges
changed nothing ended "merged 2 ...; not written (--write applies it)" although ``--write``
was given.
"""

from __future__ import annotations

import json
from pathlib import Path

from plugin_trees import pyproject

WORKER_1 = """class Worker:
    def execute(self, batch):
        total = 0
        for item in batch:
            total += item
        return total
"""
WORKER_2 = WORKER_1.replace("(self, batch)", "(self, batch, scale=1)").replace(
    "total += item\n", "total += item * scale\n"
) + (
    # an upstream call passes the new parameter: the copy, which lacks it, needs the update
    "\n\ndef run(worker, batch):\n    return worker.execute(batch, scale=2)\n"
)
PATCH = """# Note: doubles every item on our device.
# Affected versions: 0.1.0
# Remove at: 0.3.0
import eng.worker


def execute(self, batch):
    total = 0
    for item in batch:
        total += item * 2
    return total


eng.worker.Worker.execute = execute
"""
RESOLVED = (
    PATCH.replace("0.1.0\n", "0.1.0 Ported to 0.2.0, to review.\n")
    .replace("(self, batch)", "(self, batch, scale=1)")
    .replace("total += item * 2\n", "total += item * scale * 2\n")
)
PYPROJECT = pyproject(
    "plug", {"plug": "plug:register"}, group="eng.plugins", version="0.1", upstream="eng"
)


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _trees(tmp_path: Path) -> Path:
    for version, worker in (("0.1.0", WORKER_1), ("0.2.0", WORKER_2)):
        _write(
            tmp_path / f"eng-{version}",
            {
                "PKG-INFO": f"Metadata-Version: 2.1\nName: eng\nVersion: {version}\n",
                "eng/__init__.py": "",
                "eng/worker.py": worker,
            },
        )
    return _write(
        tmp_path / "plugin",
        {
            "pyproject.toml": PYPROJECT,
            "plug/__init__.py": "def register():\n    import plug.patch  # noqa: F401\n",
            "plug/patch/__init__.py": "# Note: n\n# Affected versions: 0.1.0\n# Remove at: r\n"
            "from plug.patch import patch_worker  # noqa: F401\n",
            "plug/patch/patch_worker.py": PATCH,
        },
    )


def _port(cli, plugin: Path, *extra: str):
    return cli(
        "runtime", "port", "--from", "../eng-0.1.0", "--to", "../eng-0.2.0", *extra, cwd=plugin
    )


def test_a_second_write_keeps_the_resolution(tmp_path: Path, cli, monkeypatch) -> None:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    plugin = _trees(tmp_path)
    first = _port(cli, plugin, "--write")
    assert first.code == 1
    worker = plugin / "plug/patch/patch_worker.py"
    assert worker.read_text(encoding="utf-8").count("<<<<<<< upstream 0.2.0\n") == 1
    assert worker.read_text(encoding="utf-8").startswith(RESOLVED.split("import", 1)[0])
    worker.write_text(RESOLVED, encoding="utf-8")  # the user resolves the conflict
    second = _port(cli, plugin, "--write")
    assert worker.read_text(encoding="utf-8") == RESOLVED
    assert second.out.splitlines()[-1] == (
        "runtime port 0.1.0 -> 0.2.0: nothing to do 1; nothing to write (the plugin has every "
        "change this port makes)"
    )
    assert second.code == 0


def test_a_merge_that_changes_nothing_is_nothing_to_do(tmp_path: Path, cli, monkeypatch) -> None:
    """Upstream changed only the signature, and the copy (no ``Affected versions:`` header,
    as in vllm-ascend) already has it: every call to the new signature binds to the copy,
    so the audit retains it, nothing is merged and nothing is written (before: "merged 1
    ...; not written (--write applies it)")."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    plugin = _trees(tmp_path)
    signature_only = WORKER_1.replace("(self, batch)", "(self, batch, scale=1)")
    (tmp_path / "eng-0.2.0/eng/worker.py").write_text(signature_only, encoding="utf-8")
    worker = plugin / "plug/patch/patch_worker.py"
    copy = PATCH.replace("(self, batch)", "(self, batch, scale=1)")
    worker.write_text(copy.replace("# Affected versions: 0.1.0\n", ""), encoding="utf-8")
    run = _port(cli, plugin, "--write", "--json")
    assert run.code == 0
    data = json.loads(run.out)
    assert [(e["decision"], e["action"], e["detail"]) for e in data["entries"]] == [
        (
            "retain",
            "nothing to do",
            "upstream changed the signature of the function the plugin replaces by its own "
            "copy in a way the copy already takes (every call to the new signature binds to "
            "the copy's parameters), and otherwise its body: the copy runs as the plugin "
            "wrote it; merge upstream's change into it only if the plugin needs it",
        )
    ]
    assert (data["diff"], data["files"], data["written"]) == ("", [], False)
    text = _port(cli, plugin, "--write")
    assert text.out == (
        "runtime port 0.1.0 -> 0.2.0: nothing to do 1; nothing to write (the plugin has every "
        "change this port makes)\n"
    )


def test_the_reviewed_mark_ends_a_value_written_on_several_lines(
    tmp_path: Path, cli, monkeypatch
) -> None:
    """The seed's header template leaves room for a long value: the mark goes after its last
    line, once, also when the value names a release that contains the new version's text
    (before: inserted mid-value on the first line, or left out when ``0.2.0`` appeared in
    ``0.2.0rc1``)."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    plugin = _trees(tmp_path)
    worker = plugin / "plug/patch/patch_worker.py"
    header = (
        "# -----------------------------------------------------------------------------\n"
        "# Note: doubles every item on our device.\n"
        "#\n"
        "# Affected versions: 0.1.0 and 0.2.0rc1 (measured on 910B),\n"
        "#   reviewed at commit abc123.\n"
        "#\n"
        "# Remove at: 0.3.0\n"
        "# -----------------------------------------------------------------------------\n"
    )
    worker.write_text(header + PATCH.split("# Remove at: 0.3.0\n", 1)[1], encoding="utf-8")
    run = _port(cli, plugin)
    assert (
        " # Affected versions: 0.1.0 and 0.2.0rc1 (measured on 910B),\n"
        "-#   reviewed at commit abc123.\n"
        "+#   reviewed at commit abc123. Ported to 0.2.0, to review.\n"
        " #\n"
    ) in run.out
    assert _port(cli, plugin, "--write").code == 1
    assert worker.read_text(encoding="utf-8").count("Ported to 0.2.0, to review.") == 1


def test_output_into_the_plugin_code_is_refused(tmp_path: Path, cli, monkeypatch) -> None:
    """``--output`` naming a patch file replaced the patch with the diff (exit 1, as if
    nothing was wrong); ``--output pyproject.toml`` replaced the plugin's configuration,
    and a module outside the patch directory or the lock file likewise."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    plugin = _trees(tmp_path)
    (plugin / "plug" / "patch" / "patchkeeper.lock").write_text("{}\n")
    names = (
        "plug/patch/patch_worker.py",
        "plug/patch/new_one.py",
        "pyproject.toml",
        "plug/__init__.py",
        "plug/patch/patchkeeper.lock",
    )
    for name in names:
        before = {p: p.read_bytes() for p in plugin.rglob("*") if p.is_file()}
        run = _port(cli, plugin, "--output", name)
        assert (run.code, run.out) == (2, "")
        assert run.err == (
            f"patchkeeper: error: {name}: --output names a file of the plugin: the diff would "
            "replace its code\n"
            "  hint: write the diff outside the patch directory, e.g. --output update.diff\n"
        )
        assert {p: p.read_bytes() for p in plugin.rglob("*") if p.is_file()} == before
    assert _port(cli, plugin, "--output", "update.diff").code == 1
    assert (plugin / "update.diff").read_text(encoding="utf-8").startswith("--- a/plug/")


def test_a_copy_outside_the_patch_directory_left_mid_merge_is_named(
    tmp_path: Path, cli, monkeypatch
) -> None:
    """vllm-ascend keeps many copies outside its patch directory (``vllm_ascend/ops/...``):
    after a ``--write`` left conflict markers there, the next port said "the replacement is
    not a function or class of the plugin"."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    plugin = _trees(tmp_path)
    copy = PATCH.split("import eng.worker\n\n\n", 1)[1].split("\n\neng.worker", 1)[0] + "\n"
    (plugin / "plug/ops").mkdir()
    (plugin / "plug/ops/__init__.py").write_text("")
    (plugin / "plug/ops/worker.py").write_text(copy, encoding="utf-8")
    (plugin / "plug/patch/patch_worker.py").write_text(
        "# Note: n\n# Affected versions: 0.1.0\n# Remove at: r\nimport eng.worker\n\n"
        "from plug.ops.worker import execute\n\neng.worker.Worker.execute = execute\n",
        encoding="utf-8",
    )
    first = _port(cli, plugin, "--write")
    assert first.code == 1
    assert "CONFLICT      plug/patch/patch_worker.py:8 eng.worker.Worker.execute: three-way " in (
        first.out
    )
    expected = (
        "BY HAND       plug/patch/patch_worker.py:8 eng.worker.Worker.execute: the copy's file "
        "has an unresolved conflict region at plug/ops/worker.py:4: resolve it first"
    )
    second = _port(cli, plugin)  # nothing to write: an empty diff, the report on stderr
    assert (second.code, second.out) == (1, "")
    assert expected in second.err.splitlines()
    # Without the header's mark (vllm-ascend's files have no header), the same; no mark is
    # written (the entry is not done): nothing to write, the report on standard error.
    patch = plugin / "plug/patch/patch_worker.py"
    patch.write_text(patch.read_text().replace(" Ported to 0.2.0, to review.", ""))
    third = _port(cli, plugin)
    assert (third.code, third.out) == (1, "")
    assert expected in third.err.splitlines()
