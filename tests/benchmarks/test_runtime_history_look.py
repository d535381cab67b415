"""How ``benchmarks/runtime_history.py`` counts an entry said *look* (no network): as a
disagreement in the agreement column (no truth is *look*), and apart, out of the decided
entries, in the column beside it."""

from __future__ import annotations

from benchmark_scripts import load

history = load("runtime_history")


def _rows(*pairs: tuple[str, str]) -> list:
    return [(f"p.py::t{i}", truth, said, {}, None) for i, (truth, said) in enumerate(pairs)]


def test_look_is_counted_apart_from_the_decided_entries() -> None:
    rows = _rows(
        ("retain", "retain"),
        ("remove", "retain"),
        ("remove", "look"),
        ("retain", "look"),
        ("update", "update"),
    )
    assert history.look_apart(rows) == "2 of 3 (66.7%); look 2"
    assert history.agreement({"rows": rows}) == "2 of 5 (40.0%)"


def test_every_entry_said_look_leaves_no_share() -> None:
    assert history.look_apart(_rows(("remove", "look"))) == "0 of 0; look 1"


def test_no_look_gives_the_agreement() -> None:
    rows = _rows(("retain", "retain"), ("remove", "retain"))
    assert history.look_apart(rows) == "1 of 2 (50.0%); look 0"
