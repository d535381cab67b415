"""The record of a plugin's runtime patches: the runtime tests' fixture plugin
(``tests/runtime/fixtures``), audited from its upstream 1.0 to 2.0 by ``runtime audit``."""

from __future__ import annotations

import json
import shutil
import subprocess
import venv
from pathlib import Path

import pytest
from recordhelpers import enable_evidence, write_decisions

FIXTURES = Path(__file__).resolve().parents[1] / "runtime" / "fixtures"
PREFIX = "metaplug/patch/"
KEYS = [
    "bugfix/fix_disabled.py::tinyup.sampler.sample",
    "bugfix/fix_sampler.py::tinyup.sampler.sample",
    "bugfix/fix_scheduler.py::tinyup.scheduler.Scheduler.schedule",
    "bugfix/fix_scheduler.py::tinyup.scheduler.Scheduler.make",
    "bugfix/fix_scheduler.py::tinyup.scheduler.Scheduler.create",
    "enhancement/backends.py::tinyup.registry.BACKENDS['npu']",
    "performance/kernels.py::tinyup.kernels.add_kernel",
    "performance/kernels.py::tinyup.kernels.sub_kernel",
]


@pytest.fixture
def plugin(cli, tmp_path: Path, private_cache: Path) -> Path:
    work = tmp_path / "work"
    shutil.copytree(FIXTURES, work)
    root = work / "plugin"
    enable_evidence(root / "pyproject.toml")
    run = cli("runtime", "audit", "--from", "../upstream-1.0", "--to", "../upstream-2.0", cwd=root)
    assert run.code == 1
    return root


def test_decide_suggests_from_the_runtime_audit(cli, plugin: Path) -> None:
    run = cli("decide", cwd=plugin)
    assert run.code == 0
    assert run.out.splitlines()[1:] == [
        f"  runtime {PREFIX}{KEYS[0]}: suggested: remove (remove)",
        f"  runtime {PREFIX}{KEYS[1]}: suggested: retain (retain)",
        f"  runtime {PREFIX}{KEYS[2]}: suggested: update (update)",
        f"  runtime {PREFIX}{KEYS[3]}: suggested: retain (retain)",
        f"  runtime {PREFIX}{KEYS[4]}: suggested: update (update)",
        # upstream added the key with a value of its own; the plugin's string is not read
        f"  runtime {PREFIX}{KEYS[5]}: (none: decide by hand) (look)",
        f"  runtime {PREFIX}{KEYS[6]}: suggested: update (update)",
        f"  runtime {PREFIX}{KEYS[7]}: suggested: retain (retain)",
        '7 suggestions to review: delete "suggested: " from a decision to accept it, or write '
        "your own; report --check fails until then",
    ]
    text = (plugin / "patchkeeper-decisions.toml").read_text()
    assert (
        f'[runtime."{PREFIX}{KEYS[0]}"]\n'
        '# suggested from runtime audit: remove; to accept it, delete "suggested: " from the '
        "decision\n"
        'decision = "suggested: remove"\n'
        'reason = "suggested by patchkeeper decide from the runtime audit verdict: remove"\n'
    ) in text


def test_runtime_findings(cli, plugin: Path) -> None:
    condition = "tinyup schedules zero-budget requests itself."
    tables = {PREFIX + key: ("retain", condition) for key in KEYS}
    tables[PREFIX + KEYS[2]] = ("update", "")
    tables[PREFIX + KEYS[4]] = ("update", "")
    tables[PREFIX + KEYS[5]] = ("remove", "")
    tables[PREFIX + KEYS[7]] = ("migrate", "")
    write_decisions(plugin, tables, kind="runtime")
    assert cli("report", cwd=plugin).code == 1
    run = cli("report", "--check", "--json", cwd=plugin)
    findings = [(f["code"], f["message"]) for f in json.loads(run.out)["findings"]]
    assert findings == [
        (
            "contradiction",
            # the audit's remove is for an entry no import reaches, not an upstream change
            f"`{PREFIX}{KEYS[0]}`: retain, but the entry is never imported: nothing reaches it "
            "(runtime audit: remove)",
        ),
        (
            "dropped-but-present",
            f"`{PREFIX}{KEYS[5]}` is decided remove, but it is still in the code "
            f"(`{PREFIX}enhancement/backends.py:10`)",
        ),
        (
            "contradiction",
            f"`{PREFIX}{KEYS[6]}`: retain whose target is gone (runtime audit: update)",
        ),
        # a name the plugin imports that the new release moved: the plugin breaks at import
        (
            "breaks-at-import",
            f"{PREFIX}performance/kernels.py:9: tinyup.kernels.jit is gone from the new "
            "upstream: the plugin breaks at import; now defined at tinyup.ops.kernels.jit "
            "(line 1)",
        ),
    ]


def test_a_removed_entry_is_no_longer_in_the_code(cli, plugin: Path) -> None:
    backends = plugin / PREFIX / "enhancement" / "backends.py"
    backends.write_text(backends.read_text().replace('BACKENDS["npu"]', "_UNUSED"))
    write_decisions(
        plugin,
        {PREFIX + KEYS[5]: ("remove", ""), PREFIX + KEYS[0]: ("retain", "")},
        kind="runtime",
    )
    cli("report", cwd=plugin)
    run = cli("report", "--check", "--json", cwd=plugin)
    # each finding's message names its entry's key first, in backticks; the name the plugin
    # imports that the new release moved is no entry's (test_runtime_findings shows it)
    found = json.loads(run.out)["findings"]
    assert [f["code"] for f in found].count("breaks-at-import") == 1
    kinds = [(f["code"], f["message"].split("`")[1]) for f in found if "`" in f["message"]]
    assert ("dropped-but-present", PREFIX + KEYS[5]) not in kinds
    assert kinds == [
        ("kept-without-condition", PREFIX + KEYS[0]),
        ("contradiction", PREFIX + KEYS[0]),
        *[("no-decision", PREFIX + key) for key in KEYS[1:5] + KEYS[6:]],
    ]


def test_the_record_shows_entries_and_stale_bindings(cli, plugin: Path) -> None:
    cli("decide", cwd=plugin)
    cli("report", cwd=plugin)
    text = (plugin / "AUDIT.md").read_text()
    assert "### Runtime entries (8)" in text
    assert (
        "- `tinyup.sampler.sample`: bound at import by 1 upstream module(s), 1 not patched "
        "(`tinyup/engine.py:1`)"
    ) in text
    assert (
        "| 1 | `tinyup.sampler.sample`<br>`metaplug/patch/bugfix/fix_disabled.py:11` "
        "| suggested: remove | runtime audit: remove: never imported (import commented out at "
        "metaplug/patch/bugfix/\\_\\_init\\_\\_.py:11: # import metaplug.patch.bugfix.fix\\_disabled): "
        "remove it, or re-enable the import; upstream tinyup.sampler.sample is unchanged from "
        "the old version (AST without docstrings, signature, decorators)<br>activation: "
        "never-imported | header: Remove at: never imported; kept for reference. | suggested "
        "by patchkeeper decide from the runtime audit verdict: remove | it is decide's "
        'suggestion, not reviewed: delete "suggested: " from its decision to accept it, or '
        "write your own<br>it is suggested remove, but it is still in the code "
        "(`metaplug/patch/bugfix/fix_disabled.py:11`) |"
    ) in text
    # upstream added the key 'npu' with a value of its own: no suggestion, decided by hand
    assert (
        "| 6 | `tinyup.registry.BACKENDS['npu']`<br>`metaplug/patch/enhancement/backends.py:10` "
        "| (none) | runtime audit: look: the new upstream tinyup.registry.BACKENDS now has the "
        "key 'npu', but which value it registers there, or which one the plugin registers, "
        "cannot be read: find out whether upstream's value does what the plugin's does before "
        "removing it; the new upstream tinyup.registry.BACKENDS already has the key "
        "'npu'<br>activation: conditional | header: Remove at: tinyup schedules zero-budget "
        "requests itself. | - | it has no decision |"
    ) in text
    assert "- runtime check not run: no live evidence that the runtime patches take effect" in text


@pytest.mark.network
def test_the_live_check_origins_agree_with_the_measured_ones(
    cli, plugin: Path, tmp_path: Path
) -> None:
    """tinyup 2.0 and the plugin pip-installed in a venv (their build backend comes from the
    index): ``runtime check`` there, then the record measured in the same interpreter."""
    env = tmp_path / "env"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    for project in (plugin.parent / "upstream-2.0", plugin):
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", str(project)],
            check=True,
            capture_output=True,
        )
    site = next((env / "lib").glob("python3.*")) / "site-packages"
    cli("runtime", "check", "--python", str(python), cwd=plugin)
    cli("decide", cwd=plugin)
    cli("report", "--python", str(python), cwd=plugin)
    text = (plugin / "AUDIT.md").read_text()
    # started in the plugin's checkout, ``import metaplug`` finds the checkout, not the copy
    # pip installed (which runtime check, started elsewhere, used): the record says so
    checkout = plugin / "metaplug" / "__init__.py"
    assert f"| `metaplug` | `{site}/metaplug/__init__.py` | `{checkout}` | NO |" in text
    assert f"| `tinyup` | `{site}/tinyup/__init__.py` | `{site}/tinyup/__init__.py` | yes |" in text
    environment = json.loads((plugin / ".patchkeeper/evidence/environment.json").read_text())
    comparison = environment["environment"]["comparisons"]
    assert [(c["source"], c["installed"], c["equal"], c["different"]) for c in comparison] == [
        (str(plugin.parent / "upstream-2.0"), f"tinyup 2.0 in {site}", 8, []),
        (str(plugin), f"metaplug 0.1 in {site}", 11, []),
    ]
    run = cli("report", "--check", "--json", "--python", str(python), cwd=plugin)
    changed = [
        f["message"] for f in json.loads(run.out)["findings"] if f["code"] == "environment-changed"
    ]
    assert changed == [
        f"metaplug came from {site}/metaplug/__init__.py in the runtime check process, "
        f"from {checkout} in the measured environment"
    ]
    assert "runtime check: replaced" in text
