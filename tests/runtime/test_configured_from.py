"""``runtime audit`` and ``runtime port`` without ``--from`` (``runtime lock`` without
``--at``): the old upstream is the configured ``upstream==pin`` (the release the plugin's
patches are written against, as ``init`` writes it for a plugin), fetched as ``--from
NAME==VERSION`` is; without a configured pin the error says what to pass or set.

The plugin is written by the test in the shape of a real one (:mod:`tinyplug`); the old
release is the ``tinyup`` 1.0 fixture published as an sdist in a package index the test
writes on disk, the new one the 2.0 fixture's directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tinyplug import HEADER, PYPROJECT, copy_releases, write_plugin

from helpers import LocalIndex, isolate_pip, make_tar

STEP = HEADER + (
    "import tinyup.engine as engine\n\n\ndef step(logits):\n    return None\n\n\n"
    "engine.step = step\n"
)
PINNED = PYPROJECT.replace('upstream = "tinyup"\n', 'upstream = "tinyup"\npin = "1.0"\n')


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two tinyup releases under ``tmp_path``, a private cache, and tinyup 1.0 as an
    sdist in a local index pip is told to use, alone."""
    base = copy_releases(tmp_path, monkeypatch)
    isolate_pip(monkeypatch)
    index = LocalIndex.announced(tmp_path / "index", monkeypatch)
    index.publish("tinyup", "tinyup-2.0.tar.gz", _sdist(base, "2.0"))
    index.publish("tinyup", "tinyup-1.0.tar.gz", _sdist(base, "1.0"))
    return base


def _sdist(base: Path, version: str) -> bytes:
    """The sdist of the tinyup release ``version`` copied under ``base``."""
    tree = base / f"upstream-{version}"
    members = [
        (f"tinyup-{version}/{p.relative_to(tree).as_posix()}", p.read_bytes())
        for p in sorted(tree.rglob("*"))
        if p.is_file()
    ]
    info = f"Metadata-Version: 2.1\nName: tinyup\nVersion: {version}\n"
    members.append((f"tinyup-{version}/PKG-INFO", info.encode()))
    return make_tar(members)


def test_runtime_audit_reads_the_configured_pin_without_from(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=PINNED)
    new = str(upstream / "upstream-2.0")
    given = cli("runtime", "audit", "--json", "--from", "tinyup==1.0", "--to", new, cwd=root)
    defaulted = cli("runtime", "audit", "--json", "--to", new, "--save-evidence", cwd=root)
    assert (defaulted.code, defaulted.err) == (given.code, "")
    assert json.loads(defaulted.out) == json.loads(given.out)
    # the evidence names the release the audit read, as if --from had been given
    kept = json.loads((root / ".patchkeeper/evidence/runtime-audit.json").read_text())
    assert kept["argv"] == [
        "runtime",
        "audit",
        "--json",
        "--to",
        new,
        "--save-evidence",
        "--from",
        "tinyup==1.0",
    ]


def test_runtime_audit_warns_of_a_downgrade_and_still_runs(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=PINNED)
    run = cli(
        "runtime", "audit", "--json", "--from", "tinyup==2.0", "--to", "tinyup==1.0", cwd=root
    )
    warning = (
        "--to tinyup==1.0 is older than --from tinyup==2.0: the audit reads it as an upgrade "
        "from 2.0 to 1.0; swap --from and --to if the plugin is moving to 2.0"
    )
    assert (run.code, run.err) == (0, f"patchkeeper: warning: {warning}\n")
    data = json.loads(run.out)
    assert (data["warnings"], [e["entry"]["target"] for e in data["entries"]]) == (
        [warning],
        ["tinyup.engine.step"],
    )
    # the upgrade the other way round says nothing
    run = cli(
        "runtime", "audit", "--json", "--from", "tinyup==1.0", "--to", "tinyup==2.0", cwd=root
    )
    assert (run.code, run.err) == (0, "")


def test_runtime_audit_warns_of_a_downgrade_between_release_files(upstream: Path, cli) -> None:
    """The sdist files ``pip download`` leaves name their releases as requirements do: an
    audit from the 2.0 file to the 1.0 file is a downgrade read as an upgrade, said as for
    ``--from tinyup==2.0 --to tinyup==1.0`` (before, nothing was said)."""
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=PINNED)
    for version in ("1.0", "2.0"):
        (upstream / f"tinyup-{version}.tar.gz").write_bytes(_sdist(upstream, version))
    old, new = str(upstream / "tinyup-2.0.tar.gz"), str(upstream / "tinyup-1.0.tar.gz")
    run = cli("runtime", "audit", "--from", old, "--to", new, cwd=root)
    assert (run.code, run.err) == (
        0,
        f"patchkeeper: warning: --to {new} is older than --from {old}: the audit reads it as "
        "an upgrade from 2.0 to 1.0; swap --from and --to if the plugin is moving to 2.0\n",
    )
    run = cli("runtime", "audit", "--from", new, "--to", old, cwd=root)
    assert (run.code, run.err) == (0, "")


def test_runtime_port_reads_the_configured_pin_without_from(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=PINNED)
    new = str(upstream / "upstream-2.0")
    given = cli("runtime", "port", "--json", "--from", "tinyup==1.0", "--to", new, cwd=root)
    defaulted = cli("runtime", "port", "--json", "--to", new, cwd=root)
    assert (defaulted.code, defaulted.err) == (given.code, "")
    assert json.loads(defaulted.out) == json.loads(given.out)


@pytest.mark.parametrize("command", ["audit", "port"])
def test_without_from_or_a_configured_pin_the_error_says_what_to_give(
    upstream: Path, cli, command: str
) -> None:
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    run = cli("runtime", command, "--to", str(upstream / "upstream-2.0"), cwd=root)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines() == [
        f"patchkeeper: error: {root / 'pyproject.toml'}: runtime {command} needs the old "
        "upstream, the release the plugin's patches are written against: --from is not "
        "given, and the configuration names the upstream tinyup but no pin",
        '  hint: pass --from tinyup==VERSION (or a directory), or set upstream = "tinyup" '
        'and pin = "VERSION" in [tool.patchkeeper] (patchkeeper init --upstream '
        "tinyup==VERSION writes them for a plugin)",
    ]


@pytest.mark.parametrize(
    ("command", "option"), [("audit", "--from"), ("port", "--from"), ("lock", "--at")]
)
def test_without_a_pin_the_hint_offers_the_plugins_own_requirement(
    upstream: Path, cli, command: str, option: str
) -> None:
    """A plugin whose own requirements name one release (``tinyup==1.0``, as a wheel's
    ``Requires-Dist: vllm==0.30.0`` does) has it offered in the hint, never assumed: its
    patches may be written against another release."""
    pyproject = PYPROJECT.replace(
        'version = "0.1"\n', 'version = "0.1"\ndependencies = ["tinyup==1.0"]\n'
    )
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=pyproject)
    given = ["--to", str(upstream / "upstream-2.0")] if command != "lock" else []
    run = cli("runtime", command, *given, cwd=root)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[1] == (
        f"  hint: the plugin requires tinyup==1.0; if its patches are written against it, pass "
        f'{option} tinyup==1.0 (or a directory), or set upstream = "tinyup" and pin = "1.0" in '
        "[tool.patchkeeper] (patchkeeper init --upstream tinyup==1.0 writes them for a plugin)"
    )


def test_runtime_lock_reads_the_configured_pin_without_at(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=PINNED)
    lock = root / "plug/patch/patchkeeper.lock"
    given = cli("runtime", "lock", "--at", "tinyup==1.0", cwd=root)
    written = lock.read_text(encoding="utf-8")
    lock.unlink()
    defaulted = cli("runtime", "lock", cwd=root)
    assert (defaulted.code, defaulted.out, defaulted.err) == (given.code, given.out, "")
    assert defaulted.out == f"locked 1 target in 1 upstream file at 1.0: {lock}\n"
    assert lock.read_text(encoding="utf-8") == written


def test_runtime_lock_without_at_or_a_configured_pin_says_what_to_give(upstream: Path, cli) -> None:
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP})
    run = cli("runtime", "lock", cwd=root)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines() == [
        f"patchkeeper: error: {root / 'pyproject.toml'}: runtime lock needs the audited "
        "upstream, the release the plugin's patches are written against: --at is not "
        "given, and the configuration names the upstream tinyup but no pin",
        '  hint: pass --at tinyup==VERSION (or a directory), or set upstream = "tinyup" '
        'and pin = "VERSION" in [tool.patchkeeper] (patchkeeper init --upstream '
        "tinyup==VERSION writes them for a plugin)",
    ]
    assert not (root / "plug/patch/patchkeeper.lock").exists()


def test_the_mcp_tools_let_from_be_left_out() -> None:
    # the runtime tools' schemas follow the commands: a call may leave 'from' out and
    # read the configured pin, as the command line does
    from patchkeeper.agents.tools import find_tool, input_schema
    from patchkeeper.main import cli

    required = {}
    for name in ("runtime_audit", "runtime_port", "write_runtime_port"):
        spec = find_tool(name)
        assert spec is not None
        schema = input_schema(spec, cli)
        assert "from" in schema["properties"]
        required[name] = schema["required"]
    assert required == {
        "runtime_audit": ["to"],
        "runtime_port": ["to"],
        "write_runtime_port": ["to"],
    }


def test_runtime_audit_reads_release_files(upstream: Path, cli, tmp_path: Path) -> None:
    """``--from`` and ``--to`` given as the releases' sdists (what ``pip download`` leaves)
    are unpacked into the cache and audited as their directories are."""
    root = write_plugin(upstream, {"plug/patch/p_step.py": STEP}, pyproject=PINNED)
    files = tmp_path / "downloads"
    files.mkdir()
    for version in ("1.0", "2.0"):
        (files / f"tinyup-{version}.tar.gz").write_bytes(_sdist(upstream, version))
    old, new = str(files / "tinyup-1.0.tar.gz"), str(files / "tinyup-2.0.tar.gz")
    given = cli("runtime", "audit", "--json", "--from", "tinyup==1.0", "--to",
                str(upstream / "upstream-2.0"), cwd=root)  # fmt: skip
    from_files = cli("runtime", "audit", "--json", "--from", old, "--to", new, cwd=root)
    assert (from_files.code, from_files.err) == (given.code, "")
    a, b = json.loads(from_files.out), json.loads(given.out)
    assert (a["old"], a["new"]) == (old, new)
    assert {k: v for k, v in a.items() if k not in ("old", "new")} == {
        k: v for k, v in b.items() if k not in ("old", "new")
    }
    wrong = files / "tinyup.tar.gz"
    wrong.write_bytes(b"")
    run = cli("runtime", "audit", "--from", str(wrong), "--to", new, cwd=root)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"patchkeeper: error: {wrong}: the old upstream (--from) {wrong} ")
