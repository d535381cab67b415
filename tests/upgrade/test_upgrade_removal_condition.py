"""A suggestion to carry a patch that has no removal condition says it needs one.

``report --check`` fails on a carried patch whose table has no ``removal-condition``, so
accepting ``decide``'s suggestion is not all a person has to do there. The list of what is
left after ``upgrade`` and the comment above the suggested table both say to write one; a
person who does what they say gets a record ``report --check`` passes. Here two DEP-3
patches (``Forwarded: no`` and ``Forwarded: not-needed``: nothing says when either can go)
both apply to the new release.
"""

from __future__ import annotations

import json
from pathlib import Path

from upgrade_support import tinyserve_downstream

CONDITION_NEEDED = "no removal-condition yet: write when it can go"


def test_the_list_and_the_table_ask_for_the_removal_condition(cli, tmp_path: Path) -> None:
    down = tinyserve_downstream(tmp_path)
    run = cli("upgrade", "--to", "../tinyserve-2.0", cwd=down)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert [line for line in lines if line.startswith("   - series")] == [
        f"   - series remove-poll-test.patch: carry (verdict: clean); {CONDITION_NEEDED}",
        f"   - series clean-shutdown.patch: carry (verdict: offset); {CONDITION_NEEDED}",
    ]
    decisions = down / "patchkeeper-decisions.toml"
    text = decisions.read_text("utf-8")
    assert (
        text.count(
            "# and write in removal-condition when it can go (report --check asks for it)\n"
            'decision = "suggested: carry"\n'
        )
        == 2
    )

    # accepted only: report --check names both tables
    decisions.write_text(text.replace('"suggested: carry"', '"carry"'), "utf-8")
    assert cli("report", cwd=down).code == 1
    check = cli("report", "--check", "--json", cwd=down)
    assert check.code == 1
    assert [(f["code"], f["line"]) for f in json.loads(check.out)["findings"]] == [
        ("kept-without-condition", 12),
        ("kept-without-condition", 20),
    ]

    # accepted and given a removal condition, as the list says: the record checks
    decisions.write_text(
        decisions.read_text("utf-8").replace(
            'removal-condition = ""', 'removal-condition = "upstreamed"'
        ),
        "utf-8",
    )
    assert cli("report", cwd=down).code == 0
    assert cli("report", "--check", cwd=down).code == 0


def test_the_json_suggestions_say_which_need_a_condition(cli, tmp_path: Path) -> None:
    down = tinyserve_downstream(tmp_path)
    run = cli("upgrade", "--to", "../tinyserve-2.0", "--json", cwd=down)
    assert run.code == 0, run.err
    assert [
        (s["key"], s["decision"], s["needs_condition"]) for s in json.loads(run.out)["suggestions"]
    ] == [
        ("remove-poll-test.patch", "carry", True),
        ("clean-shutdown.patch", "carry", True),
    ]
