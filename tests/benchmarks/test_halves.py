"""The development set's halves of ``benchmarks/halves.py`` (no network)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmark_scripts import load

halves = load("halves")


def _report() -> dict[str, object]:
    def patch(name: str, truth: str | None, action: str, rule: str) -> dict[str, object]:
        return {"name": name, "truth": truth, "action": action, "rule": rule}

    return {
        "upgrades": [
            {
                "source": "python-foo",
                "set": "development",
                "pin": "1.0",
                "to": "2.0",
                "error": None,
                "patches": [
                    patch("a.patch", "carried", "carry", "refresh"),
                    patch("b.patch", "port", "carry", "refresh"),
                    patch("c.patch", "carried", "retire", "hunks-present"),
                    patch("d.patch", None, "port", "hunks-fail"),
                ],
            },
            {
                "source": "bar",
                "set": "development",
                "pin": "3",
                "to": "4",
                "error": None,
                "patches": [patch("e.patch", "upstreamed", "look", "refresh")],
            },
            {
                "source": "baz",
                "set": "development",
                "pin": "1",
                "to": "2",
                "error": "the audit failed",
                "patches": [patch("f.patch", "carried", "carry", "applies")],
            },
        ]
    }


def test_the_split_is_by_the_seeded_digest() -> None:
    names = ["foo", "bar", "baz", "qux"]
    split = halves.halves(names)
    order = sorted(names, key=halves.digest)
    assert split == {order[0]: "A", order[1]: "A", order[2]: "B", order[3]: "B"}


def test_each_rule_is_counted_per_half(tmp_path: Path) -> None:
    half_of = {"foo": "A", "bar": "B", "baz": "B"}
    project_of = {
        ("python-foo", "1.0", "2.0"): "foo",
        ("bar", "3", "4"): "bar",
        ("baz", "1", "2"): "baz",
    }
    table = halves.count(_report(), half_of, project_of)
    assert {rule: {h: dict(c) for h, c in by.items()} for rule, by in table.items()} == {
        "refresh": {"A": {"patches": 2, "right": 1, "wrong": 1}, "B": {"patches": 1, "look": 1}},
        "hunks-present": {"A": {"patches": 1, "wrong": 1, "false retire": 1}},
        "all": {
            "A": {"patches": 3, "right": 1, "wrong": 2, "false retire": 1},
            "B": {"patches": 1, "look": 1},
        },
    }
    text = halves.render(table, half_of)
    assert text.splitlines()[2:7] == [
        "| rule | half A | half B |",
        "| --- | --- | --- |",
        "| all | 1/0/2/1 of 3 | 0/1/0/0 of 1 |",
        "| hunks-present | 0/0/1/1 of 1 | - |",
        "| refresh | 1/0/1/0 of 2 | 0/1/0/0 of 1 |",
    ]
    assert text.splitlines()[-1] == "Half B (2 projects): bar, baz."
    broken = tmp_path / "report.json"
    broken.write_text(json.dumps(_report())[:40], encoding="utf-8")
    assert halves.main([str(broken)]) == 2
