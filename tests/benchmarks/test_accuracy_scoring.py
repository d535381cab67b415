"""Three-way scoring and mined upgrade files of ``benchmarks/accuracy.py`` (no network)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from benchmark_scripts import load

accuracy = load("accuracy")

MINED = """\
source = "python-foo"
suite = "bookworm"
debian-version = "1.0-1"
upstream = "foo"
pin = "1.0"
to = "2.0"
to-why = "trixie upstream version (Debian 2.0-1)"
mined = true

[patches."a.patch"]
truth = "port"
why = "kept with rewritten changed lines (2 before, 4 after)"
source = "trixie 2.0-1 debian/patches/series keeps a.patch"
"""


def upgrade(mined: bool, truths: dict[str, str]) -> object:
    """An upgrade with these truths (name -> truth)."""
    return accuracy.Upgrade(
        path=Path("x.toml"),
        source="python-foo",
        suite="bookworm",
        debian_version="1.0-1",
        upstream="foo",
        pin="1.0",
        to="2.0",
        to_why="",
        strip=1,
        directory="",
        truths={name: accuracy.Truth(name, truth, "") for name, truth in truths.items()},
        mined=mined,
        group="development" if mined else "hand-written",
    )


def result(mined: bool, rows: list[tuple[str, str, str | None, str | None]]) -> object:
    """An upgrade result: rows of (patch, truth, the audit's action, the baseline's)."""
    up = upgrade(mined, {name: truth for name, truth, _a, _b in rows})
    done = accuracy.UpgradeResult(up)
    for name, _truth, action, base in rows:
        patch = accuracy.PatchResult(name, up.truths[name], action=action, baseline_action=base)
        done.patches.append(patch)
    return done


def test_a_mined_file_may_say_port_and_quote_its_source(tmp_path: Path) -> None:
    path = tmp_path / "python-foo.bookworm-trixie.toml"
    path.write_text(MINED, encoding="utf-8")
    loaded = accuracy.load_upgrade(path, "test")
    assert (loaded.mined, loaded.group) == (True, "test")
    assert loaded.truths["a.patch"] == accuracy.Truth(
        "a.patch",
        "port",
        "kept with rewritten changed lines (2 before, 4 after)",
        (),
        "trixie 2.0-1 debian/patches/series keeps a.patch",
    )
    path.write_text(MINED.replace("mined = true\n", ""), encoding="utf-8")
    with pytest.raises(
        accuracy.UpgradeFileError, match="truth must be one of upstreamed, partial, carried"
    ):
        accuracy.load_upgrade(path)


def test_three_way_counts_look_apart_and_false_retire_as_wrong() -> None:
    rows = [
        ("up-right", "upstreamed", "retire", "carry"),
        ("up-look", "upstreamed", "look", "port"),
        ("carried-right", "carried", "carry", "carry"),
        ("carried-port", "carried", "port", "port"),
        ("carried-retired", "carried", "retire", "retire"),
        ("port-right", "port", "port", "port"),
        ("port-unjudged", "port", None, None),
    ]
    table = accuracy.three_way([result(True, rows)])
    assert table["upstreamed"] == Counter({"patches": 2, "right": 1, "look": 1})
    assert table["carried"] == Counter({"patches": 3, "right": 1, "wrong": 2, "false retire": 1})
    assert table["port"] == Counter({"patches": 2, "right": 1, "not judged": 1})
    baseline = accuracy.three_way([result(True, rows)], baseline=True)
    assert baseline["all"] == Counter(
        {"patches": 7, "right": 2, "wrong": 4, "false retire": 1, "not judged": 1}
    )


def test_outcomes_are_counted_per_rule_with_their_false_retires() -> None:
    rows = [
        ("up-right", "upstreamed", "retire", None),
        ("carried-retired", "carried", "retire", None),
        ("port-look", "port", "look", None),
        ("carried-right", "carried", "carry", None),
        ("port-unjudged", "port", None, None),
    ]
    done = result(True, rows)
    rules = ["reverse-applies", "written-differently", "written-differently", "applies", None]
    for patch, rule in zip(done.patches, rules):
        patch.rule = rule
    table = accuracy.per_rule([done])
    assert table == {
        "reverse-applies": Counter({"patches": 1, "right": 1}),
        "written-differently": Counter({"patches": 2, "wrong": 1, "false retire": 1, "look": 1}),
        "applies": Counter({"patches": 1, "right": 1}),
        "(none)": Counter({"patches": 1, "not judged": 1}),
    }
    lines = accuracy.rule_lines({"development": [done]})
    assert lines[:2] == [
        "| set | rule | patches | right | look | wrong | false retire | not judged |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    assert lines[2:] == [
        "| development | (none) | 1 | 0 of 1 (0.0%) | 0 | 0 | 0 | 1 |",
        "| development | applies | 1 | 1 of 1 (100.0%) | 0 | 0 | 0 | 0 |",
        "| development | reverse-applies | 1 | 1 of 1 (100.0%) | 0 | 0 | 0 | 0 |",
        "| development | written-differently | 2 | 0 of 2 (0.0%) | 1 | 1 | 1 | 0 |",
    ]
    # an upgrade the audit failed on gives no rule: its patches are not judged
    done.error = "audit exited 3"
    assert accuracy.per_rule([done]) == {"(none)": Counter({"patches": 5, "not judged": 5})}


def test_a_hand_written_carried_truth_is_right_when_carried_or_ported() -> None:
    rows = [
        ("a", "carried", "carry", None),
        ("b", "carried", "port", None),
        ("c", "partial", "port", None),
        ("d", "carried", "look", None),
    ]
    table = accuracy.three_way([result(False, rows)])
    assert table["all"] == Counter({"patches": 4, "right": 3, "look": 1})


CORRECTIONS = """\
[[correction]]
upgrade = "python-foo.bookworm-trixie"
patch = "a.patch"
mined = "port"
truth = "upstreamed"
why = "the refreshed patch adds lines its own context holds"
source = "trixie 2.0-1 debian/patches/a.patch: ' x = 1' as context before its '+x = 1'"
"""


def test_a_correction_replaces_the_mined_truth_it_names(tmp_path: Path) -> None:
    upgrade_path = tmp_path / "python-foo.bookworm-trixie.toml"
    upgrade_path.write_text(MINED, encoding="utf-8")
    corrections_path = tmp_path / "corrections.toml"
    corrections_path.write_text(CORRECTIONS, encoding="utf-8")
    corrections = accuracy.load_corrections(corrections_path)
    fixed = accuracy.corrected(accuracy.load_upgrade(upgrade_path, "development"), corrections)
    assert fixed.truths["a.patch"] == accuracy.Truth(
        "a.patch",
        "upstreamed",
        "the refreshed patch adds lines its own context holds (mined: port, kept with "
        "rewritten changed lines (2 before, 4 after))",
        (),
        "trixie 2.0-1 debian/patches/a.patch: ' x = 1' as context before its '+x = 1'",
    )
    stale = accuracy.load_corrections(
        _written(
            tmp_path / "stale.toml", CORRECTIONS.replace('mined = "port"', 'mined = "carried"')
        )
    )
    with pytest.raises(
        accuracy.UpgradeFileError,
        match=re.escape("a.patch: the correction replaces 'carried', the mined file says 'port'"),
    ):
        accuracy.corrected(accuracy.load_upgrade(upgrade_path), stale)
    with pytest.raises(accuracy.UpgradeFileError, match="correction 1 needs the strings"):
        accuracy.load_corrections(
            _written(tmp_path / "bad.toml", CORRECTIONS.replace('why = "the', 'wh = "the'))
        )


def test_no_mined_truth_is_corrected_by_hand() -> None:
    """The miner now reads what the corrected rows needed (a kept patch whose new context
    holds what it adds): no row is corrected by hand."""
    assert accuracy.load_corrections() == {}


def _written(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_an_upgrade_of_a_tree_to_itself_is_left_out(tmp_path: Path) -> None:
    digest = "ab" * 32
    orig = (
        'trees = "debian-orig"\n'
        f'pin-orig = {{ file = "foo_1.0.orig.tar.xz", directory = "pool/main/f/foo", '
        f'sha256 = "{digest}" }}\n'
        f'to-orig = {{ file = "foo_2.0+really1.0.orig.tar.xz", directory = "pool/main/f/foo", '
        f'sha256 = "{digest}" }}\n'
    )
    path = tmp_path / "python-foo.bookworm-trixie.toml"
    path.write_text(MINED.replace("mined = true\n", "mined = true\n" + orig), encoding="utf-8")
    assert accuracy.same_trees(accuracy.load_upgrade(path))
    path.write_text(
        MINED.replace(
            "mined = true\n",
            "mined = true\n" + orig.replace(f'"{digest}" }}\nto', f'"{"cd" * 32}" }}\nto', 1),
        ),
        encoding="utf-8",
    )
    assert not accuracy.same_trees(accuracy.load_upgrade(path))
    path.write_text(MINED.replace('to = "2.0"', 'to = "1.0"'), encoding="utf-8")
    assert accuracy.same_trees(accuracy.load_upgrade(path))
