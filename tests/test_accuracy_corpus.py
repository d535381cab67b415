"""The accuracy corpus on a small cached subset: `benchmarks/accuracy.py --only ...` as a subprocess.

Three real upgrades from ``benchmarks/accuracy/upgrades/`` (Debian bookworm series against
trixie's upstream release): flask 2.2.2 -> 3.1.1, urllib3 1.26.12 -> 2.3.0, Sphinx 5.3.0 ->
8.1.3. The series and sdists are downloaded once into the corpus cache. Where today's verdict
agrees with the hand-written truth, the exact verdict is asserted; where it does not, the
disagreement is asserted as a list, so that a better verdict shows up here as a changed list
(update it, and the corpus report, when a fix lands).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.network

REPOSITORY = Path(__file__).resolve().parents[1]
SCRIPT = REPOSITORY / "benchmarks" / "accuracy.py"
UPGRADES = ("flask", "python-urllib3", "sphinx")

#: (upgrade, patch) -> the audit's verdict, where it agrees with the truth.
AGREED = {
    ("flask", "0001-Don-t-require-sphinxcontrib.log_cabinet-extension.patch"): "conflict",
    ("flask", "0002-Make-the-documentation-build-reproducibly.patch"): "clean",
    ("flask", "remove-using-intersphinx.patch"): "conflict",
    ("flask", "remove-eticalads-in-doc.patch"): "conflict",
    ("flask", "CVE-2023-30861_set_Vary_Cookie_header_consistently_for_session.patch"): "upstreamed",
    ("python-urllib3", "01_do-not-use-embedded-python-six.patch"): "upstreamed",
    ("python-urllib3", "CVE-2023-43804.patch"): "upstreamed",
    ("python-urllib3", "CVE-2023-45803.patch"): "upstreamed",
    ("python-urllib3", "CVE-2024-37891.patch"): "upstreamed",
    ("python-urllib3", "CVE-2025-50181.patch"): "conflict",
    ("python-urllib3", "CVE-2025-66418.patch"): "conflict",
    ("python-urllib3", "CVE-2026-21441.patch"): "conflict",
    ("python-urllib3", "Prevent-issue-in-HTTPResponse-.read-when-decoded_con.patch"): "upstreamed",
    ("python-urllib3", "fix-missed-coverage-when-calling-read-having-amt-Non.patch"): "upstreamed",
    ("python-urllib3", "apply-suggestion-from-pquentin.patch"): "upstreamed",
    ("python-urllib3", "CVE-2026-44431.patch"): "conflict",
    ("sphinx", "disable_js_version_check.diff"): "upstreamed",
    ("sphinx", "no_external_css.diff"): "clean",
    ("sphinx", "remove_contrib_references.diff"): "conflict",
    ("sphinx", "skip_tests_jsmath.diff"): "target gone",
    ("sphinx", "use_packaged_mathjax.diff"): "conflict",
    ("sphinx", "skip_tests_serializinghtml.diff"): "target gone",
    ("sphinx", "move_sphinxcontrib_to_extras_require.diff"): "conflict",
    ("sphinx", "intersphinx_local.diff"): "conflict",
    ("sphinx", "support_old_search_indexes.diff"): "conflict",
    ("sphinx", "highlight_search_terms.diff"): "upstreamed",
    ("sphinx", "pygments_2.14.diff"): "upstreamed",
}

#: (upgrade, patch, truth, verdict) where the verdict disagrees with the truth, in series order.
DISAGREEMENTS = [
    ("python-urllib3", "02_require-cert-verification.patch", "upstreamed", "conflict"),
    ("sphinx", "skip_tests_network.diff", "upstreamed", "target gone"),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, dict]:
    """Run the script once on the three upgrades; return (the process, its JSON result)."""
    result = tmp_path_factory.mktemp("accuracy") / "result.json"
    command = [sys.executable, str(SCRIPT), "--only", ",".join(UPGRADES), "--json", str(result)]
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=REPOSITORY, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr
    return done, json.loads(result.read_text(encoding="utf-8"))


def patches(data: dict) -> list[tuple[str, dict]]:
    """(upgrade source, patch record) of every patch, upgrades in file order."""
    return [(u["source"], p) for u in data["upgrades"] for p in u["patches"]]


def agrees(truth: str, verdict: str) -> bool:
    """The corpus rule: upstreamed -> upstreamed, partial -> partially upstreamed, else carried."""
    claimed = {"upstreamed": "upstreamed", "partially upstreamed": "partial"}
    return claimed.get(verdict, "carried") == truth


def test_every_patch_has_a_truth_and_the_debian_version_is_the_truths(corpus) -> None:
    _done, data = corpus
    assert [u["source"] for u in data["upgrades"]] == list(UPGRADES)
    assert [(u["error"], u["warnings"]) for u in data["upgrades"]] == [(None, [])] * 3
    assert [u["debian_version"] for u in data["upgrades"]] == [
        "2.2.2-3",
        "1.26.12-1+deb12u4",
        "5.3.0-4",
    ]
    assert len(patches(data)) == 29
    assert all(p["truth"] in ("upstreamed", "carried") for _source, p in patches(data))


def test_verdicts_that_agree_with_the_truth(corpus) -> None:
    _done, data = corpus
    agreed = {
        (source, p["name"]): p["verdict"]
        for source, p in patches(data)
        if agrees(p["truth"], p["verdict"])
    }
    assert agreed == AGREED


def test_known_disagreements(corpus) -> None:
    _done, data = corpus
    wrong = [
        (source, p["name"], p["truth"], p["verdict"])
        for source, p in patches(data)
        if not agrees(p["truth"], p["verdict"])
    ]
    assert wrong == DISAGREEMENTS


def test_naive_baseline_finds_none_of_these(corpus) -> None:
    """GNU patch -R --fuzz 0 reverse-applies none of the 29 patches on the new releases."""
    _done, data = corpus
    assert {p["baseline"] for _source, p in patches(data)} == {"carried"}


def test_report_totals(corpus) -> None:
    done, _data = corpus
    assert "3 upgrades, 29 patches scored (13 truly upstreamed), 0 not scored." in done.stdout
    assert "- verdicts right: 27 of 29 (93.1%)" in done.stdout
    assert "- upstreamed found: 11 of 13 (84.6%)" in done.stdout
    assert "- carried called upstreamed or partially upstreamed: 0 of 16 (0.0%)" in done.stdout
    assert "- verdicts right: 16 of 29 (55.2%)" in done.stdout  # the baseline
