"""The series commands on real upstream releases and real Debian patch series.

Downloads (cached in the corpus cache): the Debian python-urllib3 and python-django series,
the urllib3 1.26.12/1.26.20, Django 3.2.25 and vLLM 0.27.1 sdists.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from corpus import debian_series, sdist_tree
from helpers import tree_bytes

pytestmark = pytest.mark.network


def downstream(tmp_path: Path, patches: Path, upstream: str, pin: str, directory: str = "") -> Path:
    root = tmp_path / "downstream"
    root.mkdir()
    shutil.copytree(patches, root / "patches")
    (root / "patchkeeper.toml").write_text(
        f'upstream = "{upstream}"\npin = "{pin}"\ndirectory = "{directory}"\n'
    )
    return root


def gnu_patch_series(tree: Path, patches: Path) -> None:
    """Apply a series with GNU patch, the reference."""
    for line in (patches / "series").read_text().splitlines():
        name = line.split("#")[0].strip()
        if name:
            subprocess.run(
                [
                    "patch",
                    "-p1",
                    "--fuzz",
                    "0",
                    "-s",
                    "--no-backup-if-mismatch",
                    "-i",
                    str(patches / name),
                ],
                cwd=tree,
                check=True,
            )


URLLIB3_VERDICTS = [
    ("01_do-not-use-embedded-python-six.patch", "conflict"),
    ("02_require-cert-verification.patch", "offset"),
    ("CVE-2023-43804.patch", "upstreamed"),
    ("CVE-2023-45803.patch", "upstreamed"),
    ("CVE-2024-37891.patch", "upstreamed"),
    ("CVE-2025-50181.patch", "conflict"),
    ("CVE-2025-66418.patch", "offset"),
    ("CVE-2026-21441.patch", "offset"),
    ("Prevent-issue-in-HTTPResponse-.read-when-decoded_con.patch", "offset"),
    ("fix-missed-coverage-when-calling-read-having-amt-Non.patch", "offset"),
    ("apply-suggestion-from-pquentin.patch", "offset"),
    ("CVE-2026-44431.patch", "offset"),
]


def test_urllib3_audit_to_1_26_20(cli, tmp_path: Path) -> None:
    patches, version = debian_series("python-urllib3")
    assert version == "1.26.12"
    root = downstream(tmp_path, patches, "urllib3", version)
    run = cli("audit", "--json", "--to", "urllib3==1.26.20", cwd=root)
    assert run.code == 1
    data = json.loads(run.out)
    assert data["target_version"] == "1.26.20"
    assert [(v["name"], v["verdict"]) for v in data["verdicts"]] == URLLIB3_VERDICTS
    by_name = {v["name"]: v for v in data["verdicts"]}
    assert by_name["CVE-2024-37891.patch"]["summary"].startswith(
        "the patch reverse-applies: the new upstream already has its post-image; "
        "30 of 30 substantive added lines already upstream"
    )
    assert by_name["CVE-2023-43804.patch"]["summary"].startswith(
        "superseded: the later patch CVE-2024-37891.patch rewrites every line its failing "
        "hunks add, and the new upstream carries it;"
    )
    # 01_do-not-use-embedded-python-six.patch is refreshed first (its imports placed among
    # upstream's reordered ones), so this patch's import hunk would apply beside them and
    # import HTTPHeaderDict a second time: 1.26.20 imports it three lines above, so that
    # hunk is there too, and so is every other
    cve_2023 = by_name["CVE-2023-45803.patch"]
    assert cve_2023["summary"].startswith("every hunk's post-image is there (")
    assert [
        (h["index"], h["status"], h["line"], h["how"])
        for h in cve_2023["hunks"]
        if h["path"] == "src/urllib3/connectionpool.py"
    ] == [
        (1, "present", 12, "its added imports are already in the file"),
        (2, "present", 848, "reverse-applies"),
    ]
    cve_2025 = by_name["CVE-2025-50181.patch"]["failures"][0]["hunks"][0]
    assert (cve_2025["path"], cve_2025["index"], cve_2025["closest_line"]) == (
        "src/urllib3/poolmanager.py",
        1,
        170,
    )
    assert cve_2025["mismatches"] == [
        {
            "line": 174,
            "expected": "        self.pools = RecentlyUsedContainer(num_pools, dispose_func=lambda p: "
            "p.close())",
            "found": "        self.pools = RecentlyUsedContainer(num_pools)",
        }
    ]


def test_urllib3_apply_verify_unapply_match_gnu_patch(cli, tmp_path: Path) -> None:
    patches, version = debian_series("python-urllib3")
    pristine = sdist_tree(f"urllib3=={version}")
    root = downstream(tmp_path, patches, "urllib3", version)
    target = tmp_path / "target"
    reference = tmp_path / "reference"
    shutil.copytree(pristine, target)
    shutil.copytree(pristine, reference)
    gnu_patch_series(reference, patches)

    run = cli("apply", "--target", str(target), cwd=root)
    assert (run.code, run.out.splitlines()[0]) == (
        0,
        f"applied 12 patches on directory {target}: 39 files changed",
    )
    assert tree_bytes(target) == tree_bytes(reference)
    run = cli("verify", "--target", str(target), "--pristine", str(pristine), cwd=root)
    assert run.code == 0
    assert run.out.splitlines()[-1] == "ok: 12 of 12 patches applied, 0 files drifted"
    # the default pristine reference of a directory target is the configured pin
    assert cli("verify", "--target", str(target), cwd=root).code == 0
    run = cli("unapply", "--target", str(target), cwd=root)
    assert run.code == 0
    assert tree_bytes(target) == tree_bytes(pristine)


def test_django_series_round_trip(cli, tmp_path: Path) -> None:
    patches, version = debian_series("python-django")
    assert version == "3.2.25"
    pristine = sdist_tree(f"django=={version}")
    root = downstream(tmp_path, patches, "django", version)
    target = tmp_path / "target"
    reference = tmp_path / "reference"
    shutil.copytree(pristine, target)
    shutil.copytree(pristine, reference)
    gnu_patch_series(reference, patches)
    assert cli("apply", "--target", str(target), cwd=root).code == 0
    assert tree_bytes(target) == tree_bytes(reference)
    run = cli("verify", "--target", str(target), "--pristine", str(pristine), cwd=root)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 38 of 38 patches applied, 0 files drifted",
    )
    assert cli("unapply", "--target", str(target), "--pristine", str(pristine), cwd=root).code == 0
    assert tree_bytes(target) == tree_bytes(pristine)


def _vllm_series(base: Path, patches: Path, count: int, seed: int) -> list[str]:
    """A series of small patches over real vLLM files, generated with git itself."""
    rng = random.Random(seed)
    files = sorted(p for p in (base / "vllm").rglob("*.py") if p.stat().st_size > 2000)
    work = patches.parent / "work"
    shutil.copytree(base / "vllm", work)
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run(["git", "commit", "-qm", "base"], cwd=work, check=True)
    names = []
    for number in range(count):
        path = work / rng.choice(files).relative_to(base / "vllm")
        lines = path.read_bytes().split(b"\n")
        index = rng.randrange(5, len(lines) - 5)
        lines.insert(index, b"# downstream change %d" % number)
        path.write_bytes(b"\n".join(lines))
        diff = subprocess.run(
            ["git", "diff", "--no-color", "--no-ext-diff"],
            cwd=work,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["git", "commit", "-qam", f"change {number}"], cwd=work, check=True)
        name = f"{number:04d}-change.patch"
        (patches / name).write_bytes(f"Subject: change {number}\n\n".encode() + diff)
        names.append(name)
    (patches / "series").write_text("\n".join(names) + "\n")
    return names


def test_vllm_tree_apply_verify_unapply(cli, tmp_path: Path) -> None:
    pristine = sdist_tree("vllm==0.27.1")
    patches = tmp_path / "downstream" / "patches"
    patches.mkdir(parents=True)
    _vllm_series(pristine, patches, 40, seed=7)
    root = patches.parent
    (root / "patchkeeper.toml").write_text(
        'upstream = "vllm"\npin = "0.27.1"\ndirectory = "vllm"\n'
    )
    target = tmp_path / "target"
    shutil.copytree(pristine, target)
    run = cli("apply", "--target", str(target), cwd=root)
    assert run.code == 0, run.out + run.err
    expected = {k: v for k, v in tree_bytes(root / "work").items() if not k.startswith(".git/")}
    assert tree_bytes(target / "vllm") == expected
    run = cli("verify", "--target", str(target), "--pristine", str(pristine), cwd=root)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 40 of 40 patches applied, 0 files drifted",
    )
    assert cli("unapply", "--target", str(target), cwd=root).code == 0
    assert tree_bytes(target) == tree_bytes(pristine)
