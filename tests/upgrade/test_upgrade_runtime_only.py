"""``upgrade`` of a downstream that carries runtime patches only (the runtime tests' ``upplug``
plugin of ``upup``, 1.0 -> 2.0): the series steps are skipped, the runtime audit, the
suggestions, the runtime update and the record are committed, and the entry the runtime audit
answers *look* for is listed with its evidence for a person."""

from __future__ import annotations

import json
import shutil
import sys
import tarfile
from pathlib import Path

import pytest
from upgrade_support import RUNTIME_ONLY_FIRST_STEPS, git, make_checkout, step_rows, subjects

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PORTED = [
    "upplug/patch/dup_a.py",
    "upplug/patch/dup_b.py",
    "upplug/patch/gaps.py",
    "upplug/patch/gates.py",
    "upplug/patch/refs.py",
]
FIXTURES = Path(__file__).resolve().parent.parent / "runtime" / "fixtures" / "update"


@pytest.fixture
def plugin(tmp_path: Path, private_cache: Path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "work")
    return tmp_path / "work" / "upplug"


def test_runtime_only_upgrade(cli, plugin: Path) -> None:
    base = make_checkout(plugin)
    run = cli(
        "upgrade",
        "--to",
        "../upup-2.0",
        "--from",
        "../upup-1.0",
        "--branch",
        "up",
        "--json",
        cwd=plugin,
    )
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert step_rows(data) == [
        *RUNTIME_ONLY_FIRST_STEPS,
        ("runtime port", "done", PORTED, "upgrade: port the runtime patches to 2.0"),
        ("port", "skipped", [], None),
        (
            "report",
            "done",
            [".patchkeeper/evidence/environment.json", "AUDIT.md"],
            "upgrade: write the audit record",
        ),
    ]
    # the audit's findings are no entry's decision: counted, with the command listing them
    assert data["steps"][1]["summary"] == (
        "21 runtime entries, 1 to look at; 4 findings (1 breaks-at-import, 1 "
        "breaks-when-called, 2 duplicate): 'patchkeeper runtime audit --from "
        f"{plugin.parent / 'upup-1.0'} --to {plugin.parent / 'upup-2.0'}' lists them"
    )
    # the port's entries are the audit's 21; the gates it cut are counted apart
    assert data["steps"][3]["summary"].split(";")[0] == (
        "21 entries (and 2 version gates, 1 import, 1 audit finding), 10 changed or left by hand"
    )
    assert subjects(plugin, base) == [
        "upgrade: audit the runtime patches against 2.0",
        "upgrade: suggest decisions from the evidence",
        "upgrade: port the runtime patches to 2.0",
        "upgrade: write the audit record",
    ]
    assert git(plugin, "status", "--porcelain", "--untracked-files=all") == ""
    assert (data["outcome"], data["conflicts"]) == ("done", [])
    assert data["undecided"] == [
        {
            "kind": "runtime",
            "key": "upplug/patch/refs.py::upup.kernels.fused_mul",
            "verdict": "look",
            "evidence": [
                "runtime audit: look: upup.kernels.fused_mul is in neither release: a "
                "typo or a future name; upup.kernels.fused_mul is not at that path in either "
                "release; no definition of the name anywhere in the new upstream"
            ],
            "before_edit": False,
        }
    ]
    # every entry but the one to look at has a suggestion
    assert len(data["suggestions"]) == 20
    assert "upplug/patch/refs.py::upup.kernels.fused_mul" not in {
        s["key"] for s in data["suggestions"]
    }
    assert data["verify"] == [
        "patchkeeper runtime check --python PYTHON  # PYTHON: an environment with the plugin "
        f"and {plugin.parent / 'upup-2.0'} installed",
        "patchkeeper lint",
        "patchkeeper report --check",
    ]


def test_a_runtime_only_upgrade_moves_the_pin(cli, plugin: Path) -> None:
    """Without a series there is no port to move the pin: the runtime port step moves it
    (and the configured pristine tree), so the record is titled with the new release and
    the next upgrade, audit and record start from it. Before, every step was done and the
    configuration still said 1.0: the record read "Audit record: upup 1.0"."""
    pyproject = plugin / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'upstream = "upup"\n', 'upstream = "upup"\npin = "1.0"\npristine = "../upup-1.0"\n'
        )
    )
    base = make_checkout(plugin)
    run = cli("upgrade", "--to", "../upup-2.0", "--branch", "up", "--json", cwd=plugin)
    assert run.code == 0, run.err
    steps = {s["name"]: s for s in json.loads(run.out)["steps"]}
    assert steps["runtime port"]["files"] == ["pyproject.toml", *PORTED]
    assert steps["runtime port"]["summary"].endswith(
        '; set pin = "2.0", pristine = "../upup-2.0" in pyproject.toml'
    )
    assert tomllib.loads(pyproject.read_text())["tool"]["patchkeeper"] == {
        "upstream": "upup",
        "pin": "2.0",
        "pristine": "../upup-2.0",
        "runtime": {
            "package": "upplug",
            "entry-point-groups": ["upup.general_plugins"],
            "upstream-packages": ["upup"],
        },
    }
    assert git(plugin, "diff", "--stat", base, "HEAD", "--", "pyproject.toml").splitlines()[-1] == (
        " 1 file changed, 2 insertions(+), 2 deletions(-)"
    )
    assert (plugin / "AUDIT.md").read_text().splitlines()[0] == "# Audit record: upup 2.0"
    again = cli("upgrade", "--to", "../upup-2.0", cwd=plugin)
    assert again.code == 2
    assert "nothing to upgrade: --to is 2.0, the release the downstream is at" in again.err


def test_lint_after_a_runtime_only_upgrade_names_the_requirement_left_behind(
    cli, plugin: Path
) -> None:
    """The runtime port moves the pin, not the plugin's own requirement of its upstream:
    ``lint``, in the list of what to verify, names it (before, ``lint`` stopped at the
    missing series file of a downstream that has none)."""
    pyproject = plugin / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text()
        .replace('version = "0.1"\n', 'version = "0.1"\ndependencies = ["upup==1.0"]\n')
        .replace(
            'upstream = "upup"\n', 'upstream = "upup"\npin = "1.0"\npristine = "../upup-1.0"\n'
        )
    )
    make_checkout(plugin)
    assert cli("lint", cwd=plugin).code == 0
    run = cli("upgrade", "--to", "../upup-2.0", "--branch", "up", "--json", cwd=plugin)
    assert run.code == 0, run.err
    assert json.loads(run.out)["verify"][1] == "patchkeeper lint"
    lint = cli("lint", cwd=plugin)
    assert (lint.code, lint.out.splitlines()[:2]) == (
        1,
        [
            'pyproject.toml:4: PK601 pins upup==1.0, but pin = "2.0" in the [tool.patchkeeper] '
            "table of pyproject.toml: raise the requirement to 2.0 or lower pin in the "
            "[tool.patchkeeper] table of pyproject.toml, so that both name the release the "
            "project installs",
            "1 problem in 0 patches",
        ],
    )


def test_a_finished_upgrade_says_the_checks_are_left_to_run(cli, plugin: Path) -> None:
    """The last line said "every step done" though no step checks what the steps wrote:
    ``lint`` then failed PK601 on the plugin's requirement the runtime port left at the old
    release. It says the checks are left to run, and the list names them, after the edit the
    runtime port left to a person (a name the new release moved, called through its
    module)."""
    pyproject = plugin / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text()
        .replace('version = "0.1"\n', 'version = "0.1"\ndependencies = ["upup==1.0"]\n')
        .replace(
            'upstream = "upup"\n', 'upstream = "upup"\npin = "1.0"\npristine = "../upup-1.0"\n'
        )
    )
    make_checkout(plugin)
    run = cli("upgrade", "--to", "../upup-2.0", "--branch", "up", cwd=plugin)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    done = lines.index(
        "every step done, with edits left to you: make those under 'edits the port left to "
        "you' below, then run the commands under 'verify the result'"
    )
    assert lines[done + 1] == "left for a person:"
    at = lines.index("3. edits the port left to you:")
    assert lines[at:] == [
        "3. edits the port left to you:",
        "   - upplug/patch/refs.py:16: breaks-when-called: upup.utils._round_up is gone from "
        "the new upstream: the plugin breaks when the code using it runs; now defined at "
        "upup.math_utils._round_up (line 5): runtime port does not rewrite it: use the name "
        "where the new upstream defines it; 'patchkeeper runtime audit --from "
        f"{plugin.parent / 'upup-1.0'} --to {plugin.parent / 'upup-2.0'}' lists it",
        "4. verify the result:",
        "   - patchkeeper runtime check --python PYTHON  # PYTHON: an environment with the "
        f"plugin and {plugin.parent / 'upup-2.0'} installed",
        "   - patchkeeper lint",
        "   - patchkeeper report --check",
    ]
    assert cli("lint", cwd=plugin).code == 1  # the requirement left at 1.0, as lint says


def test_an_upgrade_writes_pristine_through_a_symlink_as_given(cli, plugin: Path) -> None:
    """``--to ../releases/upup-2.0``, where ``releases`` is a symlink to a folder elsewhere,
    is written as ``pristine`` as the user gave it, relative to the configuration file;
    resolved, it read ``../../mirror/upup-2.0``."""
    pyproject = plugin / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'upstream = "upup"\n', 'upstream = "upup"\npin = "1.0"\npristine = "../upup-1.0"\n'
        )
    )
    mirror = plugin.parent.parent / "mirror"
    mirror.mkdir()
    shutil.move(plugin.parent / "upup-2.0", mirror / "upup-2.0")
    (plugin.parent / "releases").symlink_to(mirror, target_is_directory=True)
    make_checkout(plugin)
    run = cli("upgrade", "--to", "../releases/upup-2.0", "--branch", "up", "--json", cwd=plugin)
    assert run.code == 0, run.err
    steps = {s["name"]: s for s in json.loads(run.out)["steps"]}
    assert steps["runtime port"]["summary"].endswith(
        '; set pin = "2.0", pristine = "../releases/upup-2.0" in pyproject.toml'
    )
    settings = tomllib.loads(pyproject.read_text())["tool"]["patchkeeper"]
    assert (settings["pin"], settings["pristine"]) == ("2.0", "../releases/upup-2.0")


def test_a_patch_file_that_does_not_parse_stops_the_upgrade_at_its_runtime_audit(
    cli, plugin: Path
) -> None:
    """A patch file Python cannot parse was left out of the runtime audit: the upgrade went
    on to its decisions and stopped at the runtime port; once the file was fixed,
    '--continue' resumed at the port, and the file's patches were never audited nor
    decided. The upgrade now stops at the audit, and '--continue' audits the fixed file."""
    late = plugin / "upplug" / "patch" / "late.py"
    late.write_text("import upup.sampler\n\n\ndef _sample(x:\n")
    make_checkout(plugin)
    given = ["upgrade", "--to", "../upup-2.0", "--from", "../upup-1.0"]
    run = cli(*given, cwd=plugin)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {late}:4: not valid Python ('(' was never closed): runtime "
        "audit cannot read this file's patches, and would act as if it had none\n"
        "  hint: fix the file (conflict markers '<<<<<<<' left by 'patchkeeper runtime port "
        "--write' are resolved by editing them away) and run the command again; then run "
        "'patchkeeper upgrade --continue' (the upgrade stopped at its runtime audit step), or "
        "'patchkeeper upgrade --abort' to put the downstream back\n"
    )
    assert not (plugin / "patchkeeper-decisions.toml").exists()
    late.write_text(
        "import upup.sampler\n\n\ndef _sample(x):\n    return x\n\n\nupup.sampler.sample = _sample\n"
    )
    run = cli("upgrade", "--continue", "--json", cwd=plugin)
    assert run.code == 0, run.err
    keys = {s["key"] for s in json.loads(run.out)["suggestions"]}
    assert "upplug/patch/late.py::upup.sampler.sample" in keys


def test_a_remembered_runtime_audit_of_a_file_that_does_not_parse_stops_the_upgrade(
    cli, plugin: Path
) -> None:
    """The upgrade's runtime audit refuses the file from the audit's own reading of the
    plugin: also when that audit is the one 'runtime audit' remembered from before, which
    is not computed again; nothing of it is kept as evidence."""
    late = plugin / "upplug" / "patch" / "late.py"
    late.write_text("import upup.sampler\n\n\ndef _sample(x:\n")
    make_checkout(plugin)
    audited = cli("runtime", "audit", "--from", "../upup-1.0", "--to", "../upup-2.0", cwd=plugin)
    assert audited.code == 1, audited.err
    run = cli("upgrade", "--to", "../upup-2.0", "--from", "../upup-1.0", cwd=plugin)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(
        f"patchkeeper: error: {late}:4: not valid Python ('(' was never closed): runtime "
        "audit cannot read this file's patches, and would act as if it had none\n"
    )
    assert not (plugin / ".patchkeeper" / "evidence" / "runtime-audit.json").exists()


def test_status_while_a_runtime_only_upgrade_waits_names_its_next_step(cli, plugin: Path) -> None:
    """A downstream of runtime patches alone has no series for ``status`` to show; while its
    upgrade waits (here at the runtime audit, a patch file that does not parse), the next
    step is the upgrade's. status named the runtime commands, as outside an upgrade."""
    late = plugin / "upplug" / "patch" / "late.py"
    late.write_text("import upup.sampler\n\n\ndef _sample(x:\n")
    make_checkout(plugin)
    run = cli("upgrade", "--to", "../upup-2.0", "--from", "../upup-1.0", cwd=plugin)
    assert run.code == 2, run.err

    run = cli("status", cwd=plugin)

    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {plugin / 'pyproject.toml'}:12: status reads a patch series, "
        "and this downstream has none (patches/series does not exist): it carries the runtime "
        "patches of the package upplug\n"
        "  hint: an upgrade to 2.0 is in progress here, stopped at its runtime audit step: "
        "the next step is 'patchkeeper upgrade --continue' (or 'patchkeeper upgrade --abort' "
        "to put the downstream back)\n"
    )
    # once the upgrade is through, status names the runtime commands again
    late.write_text("import upup.sampler\n")
    assert cli("upgrade", "--continue", cwd=plugin).code == 0
    run = cli("status", cwd=plugin)
    assert run.code == 2
    assert run.err.endswith(
        "  hint: the runtime commands read them: 'patchkeeper runtime inventory', "
        "'patchkeeper runtime audit --to upup==VERSION'; if the downstream carries a series "
        "as well, set 'series' in [tool.patchkeeper] to its file\n"
    )


def test_a_release_file_as_the_new_pin(cli, plugin: Path) -> None:
    """``--to`` the sdist file ``pip download`` leaves, as the runtime commands take it: the
    upgrade reads its version from the tree it unpacks to, so the pin moves to 2.0 and the
    commits and the record name 2.0 (before: the file's path, "the new release's version
    cannot be told: set pin in pyproject.toml by hand", and the record's sources listed the
    file as a directory that is missing)."""
    pyproject = plugin / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace('upstream = "upup"\n', 'upstream = "upup"\npin = "1.0"\n')
    )
    sdist = plugin.parent / "upup-2.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        archive.add(plugin.parent / "upup-2.0", arcname="upup-2.0")
    base = make_checkout(plugin)
    run = cli(
        "upgrade", "--to", str(sdist), "--from", "../upup-1.0", "--branch", "up", "--json",
        cwd=plugin,
    )  # fmt: skip
    assert run.code == 0, run.err
    steps = {s["name"]: s for s in json.loads(run.out)["steps"]}
    assert steps["runtime port"]["summary"].endswith('; set pin = "2.0" in pyproject.toml')
    assert tomllib.loads(pyproject.read_text())["tool"]["patchkeeper"]["pin"] == "2.0"
    assert subjects(plugin, base) == [
        "upgrade: audit the runtime patches against 2.0",
        "upgrade: suggest decisions from the evidence",
        "upgrade: port the runtime patches to 2.0",
        "upgrade: write the audit record",
    ]
    assert (plugin / "AUDIT.md").read_text().splitlines()[0] == "# Audit record: upup 2.0"
    sources = json.loads((plugin / ".patchkeeper/evidence/environment.json").read_text())
    new = [s for s in sources["environment"]["sources"] if s["role"] == "runtime new"]
    assert [(s["name"], s["version"], s["kind"], s["detail"]) for s in new] == [
        ("upup", "2.0", "sdist", "upup-2.0.tar.gz")
    ]
