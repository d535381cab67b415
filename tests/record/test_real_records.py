"""The audit record on real inputs, each in a real virtual environment.

- Debian's ``python-urllib3`` series (cut against 1.26.12) audited against urllib3 1.26.20,
  with the real urllib3 1.26.20 wheel pip-installed in a venv: the full installed-distribution
  path (``RECORD``, import origin, content comparison with the 1.26.20 sdist).
- vllm-ascend 0.30.0rc2's runtime patches audited from vLLM 0.30.0 to 0.32.0 (both sdists):
  vLLM cannot be installed here (no accelerator, a very large wheel), so the record says so:
  vLLM read from its sdists with their hashes, the installed distribution absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

from corpus import debian_series
from patchkeeper.upstream.fetch import fetch_requirement

pytestmark = pytest.mark.network

URLLIB3_DECISIONS = {
    "01_do-not-use-embedded-python-six.patch": (
        "update",
        "",
        "Debian-only: stays while Debian unbundles six",
    ),
    "02_require-cert-verification.patch": ("carry", "stays: Debian policy", ""),
    "CVE-2023-43804.patch": ("retire", "", ""),
    "CVE-2023-45803.patch": ("retire", "", ""),
    "CVE-2024-37891.patch": ("retire", "", ""),
    "CVE-2025-50181.patch": (
        "carry",
        "a 1.26.x release carries commit f05b1329",
        "git's three-way merge carried it in the port",
    ),
    "CVE-2025-66418.patch": ("carry", "a 1.26.x release carries commit 24d7b67e", ""),
    "CVE-2026-21441.patch": ("carry", "a 1.26.x release carries commit 8864ac40", ""),
    "Prevent-issue-in-HTTPResponse-.read-when-decoded_con.patch": (
        "carry",
        "rides with CVE-2026-21441",
        "",
    ),
    "fix-missed-coverage-when-calling-read-having-amt-Non.patch": (
        "carry",
        "rides with CVE-2026-21441",
        "",
    ),
    "apply-suggestion-from-pquentin.patch": ("carry", "rides with CVE-2026-21441", ""),
    "CVE-2026-44431.patch": ("carry", "a 1.26.x release carries commit 5ec0de49", ""),
}


def write_decisions(root: Path, tables: dict[str, tuple[str, str, str]], kind: str) -> None:
    lines = []
    for key, (decision, condition, notes) in tables.items():
        lines += [
            f"[{kind}.{json.dumps(key)}]",
            f"decision = {json.dumps(decision)}",
            'reason = "reviewed against the audit"',
            f"removal-condition = {json.dumps(condition)}",
            f"notes = {json.dumps(notes)}",
            "",
        ]
    (root / "patchkeeper-decisions.toml").write_text("\n".join(lines))


def make_venv(path: Path, *requirements: str) -> Path:
    venv.create(path, with_pip=True)
    python = path / "bin" / "python"
    if requirements:
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--no-deps", *requirements],
            check=True,
            capture_output=True,
        )
    return python


def test_urllib3_series_record_with_the_installed_wheel(cli, tmp_path: Path) -> None:
    patches, version = debian_series("python-urllib3")
    root = tmp_path / "python-urllib3"
    shutil.copytree(patches, root / "patches")
    (root / "patchkeeper.toml").write_text(
        f'upstream = "urllib3"\npin = "{version}"\n\n[report]\nevidence = true\n'
    )
    python = make_venv(tmp_path / "env", "urllib3==1.26.20")
    site = next((tmp_path / "env" / "lib").glob("python3.*")) / "site-packages"

    assert cli("audit", "--to", "urllib3==1.26.20", cwd=root).code == 1
    # the port runs to the end: the six patch, a conflict for git's merge, only needs the
    # refresh the audit found (its imports placed among upstream's)
    assert cli("port", "--to", "urllib3==1.26.20", cwd=root).code == 0
    run = cli("decide", cwd=root)
    assert run.out.splitlines()[1:-1] == [
        f"  series {name}: suggested: {decision} ({verdict})"
        for name, decision, verdict in (
            ("01_do-not-use-embedded-python-six.patch", "carry", "merged"),
            ("02_require-cert-verification.patch", "carry", "offset"),
            ("CVE-2023-43804.patch", "retire", "upstreamed"),
            ("CVE-2023-45803.patch", "retire", "upstreamed"),
            ("CVE-2024-37891.patch", "retire", "upstreamed"),
            ("CVE-2025-50181.patch", "carry", "merged"),
            ("CVE-2025-66418.patch", "carry", "offset"),
            ("CVE-2026-21441.patch", "carry", "offset"),
            ("Prevent-issue-in-HTTPResponse-.read-when-decoded_con.patch", "carry", "offset"),
            ("fix-missed-coverage-when-calling-read-having-amt-Non.patch", "carry", "offset"),
            ("apply-suggestion-from-pquentin.patch", "carry", "offset"),
            ("CVE-2026-44431.patch", "carry", "offset"),
        )
    ]
    # the maintainer reviews: the upstreamed CVE fixes leave the series, the rest get a reason
    write_decisions(root, URLLIB3_DECISIONS, "series")
    series = root / "patches" / "series"
    series.write_text(
        "".join(
            line + "\n"
            for line in series.read_text().splitlines()
            if "CVE-2023" not in line and "CVE-2024" not in line
        )
    )
    smoke = "import urllib3, sys; assert urllib3.__version__ == '1.26.20'; print(urllib3.__file__)"
    assert cli("record", "--", str(python), "-c", smoke, cwd=root).code == 0

    run = cli("report", "--python", str(python), "--html", cwd=root)
    assert run.code == 0, run.out
    environment = json.loads((root / ".patchkeeper/evidence/environment.json").read_text())[
        "environment"
    ]
    pin = fetch_requirement("urllib3==1.26.12")
    target = fetch_requirement("urllib3==1.26.20")
    assert [
        (s["role"], s["name"], s["version"], s["kind"], s["identity"])
        for s in environment["sources"][1:]
    ] == [
        ("pin, port base", "urllib3", "1.26.12", "sdist", f"sha256 {pin.sha256}"),
        ("audit target, port target", "urllib3", "1.26.20", "sdist", f"sha256 {target.sha256}"),
        (
            "installed",
            "urllib3",
            "1.26.20",
            "installed",
            environment["sources"][3]["identity"],
        ),
    ]
    assert environment["sources"][3]["location"] == str(site)
    [origin] = environment["origins"]
    assert (origin["file"], origin["distributions"], origin["inside"]) == (
        str(site / "urllib3" / "__init__.py"),
        ["urllib3 1.26.20"],
        True,
    )
    [comparison] = environment["comparisons"]
    source_files = sorted((target.root / "src" / "urllib3").rglob("*.py"))
    assert comparison["source"] == str(target.root)
    assert (comparison["equal"], comparison["different"], comparison["only_source"]) == (
        len(source_files),
        [],
        [],
    )
    assert (comparison["only_installed"], comparison["changed_since_install"]) == ([], [])

    text = (root / "AUDIT.md").read_text()
    assert "## Open problems\n\nNone.\n" in text
    assert "### Series patches (9)" in text
    assert (
        f"| installed | urllib3 | 1.26.20 | installed `urllib3-1.26.20.dist-info` | `{site}` |"
        in text
    )
    assert cli("report", "--check", "--python", str(python), cwd=root).code == 0

    # an installed file changed after the record: the record no longer describes the environment
    installed = site / "urllib3" / "exceptions.py"
    installed.write_text(installed.read_text() + "# changed\n")
    run = cli("report", "--check", "--json", "--python", str(python), cwd=root)
    assert run.code == 1
    assert [f["message"] for f in json.loads(run.out)["findings"]] == [
        'environment changed: comparisons.0.changed_since_install: [] -> ["urllib3/exceptions.py"]'
    ]


def test_vllm_ascend_runtime_record_with_vllm_from_its_sdists(cli, tmp_path: Path) -> None:
    plugin = fetch_requirement("vllm-ascend==0.30.0rc2")
    old = fetch_requirement("vllm==0.30.0")
    new = fetch_requirement("vllm==0.32.0")
    root = tmp_path / "ascend-record"
    root.mkdir()
    (root / "patchkeeper.toml").write_text(
        f'upstream = "vllm"\n\n[runtime]\npackage = "vllm_ascend"\nroot = "{plugin.root}"\n'
        "\n[report]\nevidence = true\n"
    )
    python = make_venv(tmp_path / "env")

    assert (
        cli("runtime", "audit", "--from", "vllm==0.30.0", "--to", "vllm==0.32.0", cwd=root).code
        == 1
    )
    assert cli("decide", cwd=root).out.splitlines()[0].endswith(": added 253, kept 0 existing")
    run = cli("report", "--python", str(python), "--html", "--json", cwd=root)
    assert run.code == 1
    result = json.loads(run.out)
    assert result["counts"] == {
        "series": 0,
        "runtime": 253,
        "retired": 0,
        "unknown": 0,
        "decided": 0,
        "suggested": 253,
    }
    kinds = [f["code"] for f in result["findings"]]
    # the runtime audit's decisions and the record agree on every target: a name in neither
    # release is one the plugin adds (not gone), and an update of a moved target retargets it
    assert {kind: kinds.count(kind) for kind in kinds} == {
        # decide's suggestions: nobody has reviewed them; the `get_pp_group` put back in
        # patch_dspark.py's `finally` under its swap's own condition follows the swap (retain)
        "not-reviewed": 253,
        "kept-without-condition": 21,
        # Glm47MoeParser.__init__: vLLM 0.32.0 defines and calls the plugin's
        # _glm53_always_thinks, so the suggestion is remove while the wrapper is still there
        "dropped-but-present": 1,
        # imports of names vLLM 0.32.0 no longer defines there, which the plugin's files
        # still hold: the speculator module (three files) and step3p5's FP32ReplicatedLinear
        "breaks-at-import": 4,
    }
    assert sorted(
        (f["path"].rsplit("vllm_ascend/", 1)[1], f["line"])
        for f in result["findings"]
        if f["code"] == "breaks-at-import"
    ) == [
        ("patch/worker/__init__.py", 75),
        ("patch/worker/patch_step3p5.py", 51),
        ("patch/worker/patch_v2/patch_eagle_speculator.py", 19),
        ("patch/worker/patch_v2/patch_spec_decode_310.py", 11),
    ]
    environment = json.loads((root / ".patchkeeper/evidence/environment.json").read_text())[
        "environment"
    ]
    assert [
        (s["role"], s["name"], s["version"], s["kind"], s["identity"])
        for s in environment["sources"][1:]
    ] == [
        ("runtime old", "vllm", "0.30.0", "sdist", f"sha256 {old.sha256}"),
        ("runtime new", "vllm", "0.32.0", "sdist", f"sha256 {new.sha256}"),
        ("plugin", "vllm-ascend", "0.30.0rc2", "sdist", f"sha256 {plugin.sha256}"),
        ("installed", "vllm", None, "absent", ""),
        ("installed", "vllm_ascend", None, "absent", ""),
    ]
    assert [(o["package"], o["error"]) for o in environment["origins"]] == [
        ("vllm", "ModuleNotFoundError: No module named 'vllm'"),
        ("vllm_ascend", "ModuleNotFoundError: No module named 'vllm_ascend'"),
    ]
    text = (root / "AUDIT.md").read_text()
    assert "- runtime check not run: no live evidence that the runtime patches take effect" in text
    assert (
        f"- vllm is not installed in `{python}`: nothing was imported or run against an installed copy"
        in text
    )
    assert "### Runtime entries (253)" in text
    assert (
        "| Remove this patch when vLLM merge the PR. | suggested by patchkeeper decide from the "
        "runtime audit verdict: retain | it is decide's suggestion, not reviewed: delete "
        '"suggested: " from its decision to accept it, or write your own |'
    ) in text
    assert cli("report", "--check", "--python", str(python), cwd=root).code == 1
