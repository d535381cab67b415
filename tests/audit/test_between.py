"""``audit --to NAME==VERSION --between`` also judges the releases between the pin and that release
for the patches that fail there: a backport upstream took at the middle release and changed
at the last is *upstreamed at 1.1, changed since* (to do: retire), that release its evidence,
where the last release alone calls it a conflict to port (the shape of Debian's xmltodict
series, cut against 0.13.0: a fix 0.15.0 took and 1.0.4 rewrote around). The releases are
three sdists written here, served by a package index on disk. A patch of our own that
conflicts stays a port, and one upstream had and a later release lacks again is looked at."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stream_worker import BACKPORT as WORKER_BACKPORT
from stream_worker import MID, NEW, OLD
from stream_worker import OWN as WORKER_OWN

from helpers import LocalIndex, write_files

#: the backport and our own patch, each with a DEP-3 subject
BACKPORT = "Subject: wait for the compute stream before offloading\n\n" + WORKER_BACKPORT
OWN = "Subject: four retries\n\n" + WORKER_OWN

CONFIG = 'upstream = "pk-demo"\npin = "1.0"\nseries = "patches/series"\n'


def publish(index: LocalIndex, releases: list[tuple[str, str]]) -> None:
    """Each ``(version, text of pkg/worker.py)`` as the sdist ``pk_demo-VERSION.tar.gz``."""
    for version, worker in releases:
        index.publish_sdist(
            "pk-demo", version, {"pkg/__init__.py": b"", "pkg/worker.py": worker.encode()}
        )


def downstream(tmp_path: Path) -> Path:
    root = tmp_path / "downstream"
    series = {
        "patches/series": "wait-stream.patch\nretries.patch\n",
        "patches/wait-stream.patch": BACKPORT,
        "patches/retries.patch": OWN,
    }
    write_files(root, {**series, "patchkeeper.toml": CONFIG})
    return root


def audit(cli, root: Path, *options: str) -> dict:
    run = cli("audit", *options, "--json", cwd=root)
    assert run.code == 1, run.err
    return json.loads(run.out)


def test_taken_at_the_middle_release_and_changed_since_is_retired(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    # 1.1.1 changes nothing of the series' files: judged as 1.1 was, without a second look
    publish(local_index, [("1.0", OLD), ("1.1", MID), ("1.1.1", MID), ("1.2", NEW)])
    root = downstream(tmp_path)
    before = sorted(p.relative_to(root) for p in root.rglob("*"))

    report = audit(cli, root, "--to", "pk-demo==1.2", "--between")

    backport, own = report["verdicts"]
    assert (backport["verdict"], backport["action"], backport["rule"]) == (
        "upstreamed",
        "retire",
        "taken-earlier",
    )
    assert backport["taken_at"] == "1.1"
    assert backport["summary"] == (
        "upstreamed at 1.1, changed since: 1.1 has it (reverse-applies); at 1.2: "
        "pkg/worker.py #1 fails at fuzz 0 (closest: pkg/worker.py line 2, 6 of 9 lines "
        "match); 0 of 1 substantive added lines already upstream (strongest: pkg/worker.py "
        "0/1); since the pin, 4 of the 10 lines of `transfer_async` (pkg/worker.py #1) "
        "changed, 5 of the hunk's 7 lines left there; to do: retire (after checking that upstream's changes since keep its fix)"
    )
    assert (own["verdict"], own["action"], own["rule"]) == ("conflict", "port", "hunks-fail")
    assert "taken_at" not in own
    # the facts, apart from the decision: each failing patch at each release between
    assert report["between"] == {
        "source": "the package indexes",
        "versions": ["1.1", "1.1.1"],
        "rows": [
            {
                "name": "wait-stream.patch",
                "verdicts": ["upstreamed", "upstreamed"],
                "rules": ["reverse-applies", "reverse-applies"],
                "actions": ["retire", "retire"],
            },
            {
                "name": "retries.patch",
                "verdicts": ["clean", "clean"],
                "rules": ["applies", "applies"],
                "actions": ["carry", "carry"],
            },
        ],
        "note": None,
        "left_out": 0,
    }
    # a read-only command: the downstream is as it was (the releases went to the cache)
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def test_without_the_releases_between_it_is_a_conflict(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    publish(local_index, [("1.0", OLD), ("1.1", MID), ("1.2", NEW)])
    report = audit(cli, downstream(tmp_path), "--to", "pk-demo==1.2")
    assert [(v["verdict"], v["action"]) for v in report["verdicts"]] == [
        ("conflict", "port"),
        ("conflict", "port"),
    ]
    assert "between" not in report


def test_taken_then_applying_again_is_looked_at(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    # 1.2 reverted the fix (the pin's lines again), 1.3 rewrote them
    publish(local_index, [("1.0", OLD), ("1.1", MID), ("1.2", OLD), ("1.3", NEW)])
    report = audit(cli, downstream(tmp_path), "--to", "pk-demo==1.3", "--between")
    backport = report["verdicts"][0]
    assert (backport["verdict"], backport["action"], backport["rule"]) == (
        "conflict",
        "look",
        "taken-earlier",
    )
    assert backport["taken_at"] == "1.1"
    assert backport["summary"].endswith(
        "; 1.1 had it (reverse-applies), yet 1.2 applies it again, as if upstream had reverted "
        "it; to do: look (upstream had it at an earlier release and a later one lacks it "
        "again; decide whether upstream reverted it)"
    )
    assert report["between"]["versions"] == ["1.1", "1.2"]


@pytest.mark.slow  # 16 sdists fetched
def test_a_pin_far_behind_judges_the_last_of_each_release_series(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    # 14 releases between the pin 1.0 and 2.0, more than MAX_BETWEEN (12): 1.1 gives way to
    # 1.1.1, the last of its series (which took the backport); of the 13 series' last
    # releases, 12 evenly spaced are judged (1.7 is not), and neither left out is fetched
    later = [(f"1.{minor}", NEW) for minor in range(2, 14)]
    publish(local_index, [("1.0", OLD), ("1.1", OLD), ("1.1.1", MID), *later, ("2.0", NEW)])
    root = downstream(tmp_path)

    report = audit(cli, root, "--to", "pk-demo==2.0", "--between")

    backport = report["verdicts"][0]
    assert (backport["verdict"], backport["rule"], backport["taken_at"]) == (
        "upstreamed",
        "taken-earlier",
        "1.1.1",
    )
    between = report["between"]
    assert between["versions"] == [
        "1.1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.8", "1.9", "1.10", "1.11", "1.12", "1.13"
    ]  # fmt: skip
    assert between["left_out"] == 2
    assert between["rows"][0]["verdicts"] == ["upstreamed"] + ["conflict"] * 11
    fetched = {p.name for p in (tmp_path / "cache" / "trees" / "pk-demo").iterdir()}
    judged = {f"pk_demo-{v}" for v in between["versions"]}
    assert fetched == {"pk_demo-1.0", "pk_demo-2.0", *judged}  # not 1.1 nor 1.7

    text = cli("audit", "--to", "pk-demo==2.0", "--between", cwd=root).out
    assert (
        "releases between the pin and this one, judged for the failing patches: 1.1.1, 1.2, "
        "1.3, 1.4, 1.5, 1.6, 1.8, 1.9, 1.10, 1.11, 1.12, 1.13 (12 of 14: the last of each "
        "release series, evenly spaced; the others were not fetched)"
    ) in " ".join(text.split())
