"""Split the mined corpus by project into a development set and a test set, once.

    python benchmarks/split_mined.py

A project (the PyPI name of a mined upgrade's ``upstream``) is in the test set when the
SHA-256 of ``"SEED:PROJECT"`` read as a number is below :data:`TEST_PERCENT` percent of the
range, and it is not in the hand-written corpus (those projects stay in development: rules
were already written from them). The first split also draws the eligible projects with the
lowest digests until at least :data:`MIN_TEST_SHARE` percent of all mined projects are in
the test set (the hand-written corpus holds many of the most used projects). The rule depends
only on the seed and the name, so a project mined later lands in the same set on any machine
and no project ever moves.

``benchmarks/accuracy/split.toml`` keeps the seed, the rule and both lists. An existing split
is never changed: a rerun only adds projects that are in no list yet (by the same rule) and
says how many it added. Verdict rules are written from the development set's failures only;
the test set is reported by its totals.
"""

from __future__ import annotations

import hashlib
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import accuracy

SEED = 20261204
#: The share of eligible projects drawn into the test set, in percent.
TEST_PERCENT = 40
#: The least share of all mined projects the first split puts into the test set, in percent.
MIN_TEST_SHARE = 30


def digest(project: str, seed: int = SEED) -> int:
    """The SHA-256 of ``"SEED:PROJECT"`` as a number."""
    return int(hashlib.sha256(f"{seed}:{project}".encode()).hexdigest(), 16)


def in_test(project: str, seed: int = SEED) -> bool:
    """Whether the rule puts ``project`` (a canonical name) into the test set."""
    return digest(project, seed) * 100 < TEST_PERCENT * 16**64


def toml_list(names: list[str]) -> str:
    """A TOML array of strings, one per line."""
    return "[\n" + "".join(f'  "{name}",\n' for name in names) + "]"


def main() -> int:
    hand = {
        accuracy.canonical(accuracy.load_upgrade(path).upstream)
        for path in accuracy.UPGRADES.glob("*.toml")
    }
    mined = {
        accuracy.canonical(accuracy.load_upgrade(path).upstream)
        for path in accuracy.MINED.glob("*.toml")
    }
    groups: dict[str, str] = {}
    if accuracy.SPLIT.is_file():
        groups = accuracy.load_split()
    added = 0
    first = not groups
    for project in sorted(mined):
        if project not in groups:
            drawn = project not in hand and in_test(project)
            groups[project] = "test" if drawn else "development"
            added += 1
    if first:
        # the first split holds at least MIN_TEST_SHARE of the projects: the eligible
        # projects with the lowest digests are drawn until it does
        eligible = sorted((p for p in groups if p not in hand), key=digest)
        need = math.ceil(MIN_TEST_SHARE * len(groups) / 100)
        for project in eligible[:need]:
            groups[project] = "test"
    development = sorted(p for p, g in groups.items() if g == "development")
    test = sorted(p for p, g in groups.items() if g == "test")
    share = 100 * len(test) / max(1, len(groups))
    text = (
        "# The mined corpus split by project (written by benchmarks/split_mined.py; never\n"
        "# edited by hand, never re-drawn). A project is in the test set when\n"
        '# int(sha256(f"{seed}:{project}"), 16) is below test-percent % of the range and\n'
        "# it is not in the hand-written corpus (benchmarks/accuracy/upgrades/, kept in\n"
        "# development); the first split also drew the eligible projects with the lowest\n"
        "# digests until min-test-share % of all projects were in the test set. Verdict\n"
        "# rules are written from the development set only; the test set is reported by\n"
        "# its totals.\n"
        f"seed = {SEED}\n"
        f"test-percent = {TEST_PERCENT}\n"
        f"min-test-share = {MIN_TEST_SHARE}\n"
        f"projects = {len(groups)}\n"
        f"test-share = {share:.1f}\n"
        "\n[development]\n"
        f"projects = {toml_list(development)}\n"
        "\n[test]\n"
        f"projects = {toml_list(test)}\n"
    )
    accuracy.SPLIT.write_text(text, encoding="utf-8")
    print(
        f"split: {len(development)} development, {len(test)} test projects "
        f"({share:.1f}% test); {added} added by this run"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
