"""The decisions file and ``decide``: suggestions from evidence, never over a person's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from patchkeeper.errors import ConfigError
from patchkeeper.record.decisions import Decision, load, render_table, runtime_key, toml_string

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

EXPECTED_SUGGESTIONS = [
    ("retry-backoff-cap.patch", "retire", "upstreamed", ""),
    ("redirect-strip-proxy-auth.patch", "update", "conflict", "upstream takes #15"),
    ("headers-merge-order.patch", "update", "target gone", "upstreamed"),
    ("client-describe-version.patch", "carry", "offset", "stays"),
    ("metrics-redirects.patch", "carry", "offset", "upstreamed"),
    ("metrics-same-host.patch", "carry", "clean", "rides with metrics-redirects"),
    ("redirect-strip-api-key.patch", "update", "blocked", "rides with redirect-strip-proxy-auth"),
]


@pytest.mark.slow
@given(st.text())
def test_toml_string_round_trips_any_text(text: str) -> None:
    assert tomllib.loads(f"k = {toml_string(text)}")["k"] == text


def test_decide_writes_the_suggestions_of_the_audit(cli, audited: Path) -> None:
    run = cli("decide", cwd=audited)
    assert run.code == 0
    path = audited / "patchkeeper-decisions.toml"
    assert run.out.splitlines()[0] == f"{path}: added 7, kept 0 existing"
    decisions = load(path)
    assert [
        (d.key, d.decision, d.reason.rsplit(": ", 1)[1], d.removal_condition)
        for d in decisions.tables.values()
    ] == EXPECTED_SUGGESTIONS
    first = decisions.get("series", "retry-backoff-cap.patch")
    assert first == Decision(
        "series",
        "retry-backoff-cap.patch",
        "retire",
        "suggested by patchkeeper decide from the audit verdict: upstreamed",
        "",
        "",
        line=12,
        suggested=True,
    )
    text = path.read_text()
    assert text.splitlines()[11:18] == [
        '[series."retry-backoff-cap.patch"]',
        '# suggested from audit: upstreamed; to accept it, delete "suggested: " from the decision',
        'decision = "suggested: retire"',
        'reason = "suggested by patchkeeper decide from the audit verdict: upstreamed"',
        'removal-condition = ""',
        'notes = ""',
        "",
    ]


def test_decide_never_changes_what_a_person_wrote(cli, audited: Path) -> None:
    path = audited / "patchkeeper-decisions.toml"
    mine = (
        "# reviewed by Ana on the 1.1 upgrade\n"
        '[series."metrics-redirects.patch"]   # kept: monitoring needs it\n'
        'decision = "carry"\n'
        'reason = "our dashboards read these counters"\n'
        'removal-condition = "upstream ships redirect metrics"\n'
        "\n"
        '[series."retry-backoff-cap.patch"]\n'
        'decision = "remove"\n'
    )
    path.write_text(mine)
    run = cli("decide", cwd=audited)
    assert run.code == 0
    assert run.out.splitlines()[0] == f"{path}: added 5, kept 2 existing"
    text = path.read_text()
    assert text.startswith(mine + "\n")
    decisions = load(path)
    assert decisions.get("series", "metrics-redirects.patch").reason == (
        "our dashboards read these counters"
    )
    assert decisions.get("series", "retry-backoff-cap.patch").decision == "remove"
    assert cli("decide", cwd=audited).out.splitlines()[0] == f"{path}: added 0, kept 7 existing"
    assert path.read_text() == text


def test_decide_without_anything_to_decide_is_an_input_error(cli, tmp_path: Path) -> None:
    (tmp_path / "patchkeeper.toml").write_text('upstream = "x"\n')
    run = cli("decide", cwd=tmp_path)
    assert run.code == 2
    assert "nothing to decide: no series file and there is no runtime inventory evidence" in run.err
    assert (
        "configure the series, or run 'patchkeeper runtime audit --to NEW --save-evidence' "
        "first (NEW: the release to move to; or set evidence = true in [report])"
        # as patchkeeper.toml spells the table
    ) in " ".join(run.err.split())


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (
            '[series."a.patch"]\ndecision = "keep"\n',
            "decision 'keep' in [series.\"a.patch\"] is not one of carry, retire, retain, update, migrate, remove",
            2,
        ),
        (  # as decide writes a table: the comment, then the decision line to edit
            '[series."a.patch"]\n# suggested from audit: clean\nreason = ""\ndecision = "keep"\n'
            '[series."b.patch"]\ndecision = "carry"\n',
            "decision 'keep' in [series.\"a.patch\"] is not one of carry, retire, retain, update, migrate, remove",
            4,
        ),
        ('x = 1\n[runtime."f.py::m.f"]\ndecision = "carry"\n', "unknown table 'x'", 1),
        (
            '[series."a.patch"]\ndecision = "suggested: keep"\n',
            "decision 'suggested: keep' in [series.\"a.patch\"] is not one of carry, retire, "
            "retain, update, migrate, remove",
            2,
        ),
        (
            '[runtime."f.py::m.f"]\ndecision = "carry"\n',
            "decision 'carry' in [runtime.\"f.py::m.f\"] is not one of retain, update, migrate, remove",
            2,
        ),
        ('\n[series."a.patch"]\nwhy = "x"\n', "unknown field 'why' in [series.\"a.patch\"]", 3),
        (
            '[series."a.patch"]\ndecision = 3\n',
            "'decision' in [series.\"a.patch\"] must be a string, not 3",
            2,
        ),
        (  # a table header left open: the line and column, as for the configuration
            '[series."a.patch"]\ndecision = "carry"\n\n[series."b.patch"\ndecision = ""\n',
            "not valid TOML: Expected ']' at the end of a table declaration (column 18)",
            4,
        ),
        (  # a value left open on the last line: tomllib names no line, the last one is named
            '[series."a.patch"]\ndecision = "carry"\nreason = [\n',
            "not valid TOML: Invalid value (the file ends there)",
            3,
        ),
    ],
)
def test_a_malformed_decisions_file_names_the_table_and_line(
    tmp_path: Path, text: str, message: str, line: int | None
) -> None:
    """An error about a field names the field's line, the one to edit (it named the table's
    header, two or three lines above the ``decision`` a person had mistyped)."""
    path = tmp_path / "patchkeeper-decisions.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert (caught.value.message, caught.value.line) == (message, line)


@pytest.mark.parametrize(
    ("text", "message", "line", "hint"),
    [
        (  # a typo'd table name
            '# decisions\n[seires."a.patch"]\ndecision = "carry"\n',
            "unknown table 'seires'",
            2,
            'did you mean \'series\'? tables are [series."PATCH"] and [runtime."FILE::TARGET"]',
        ),
        (  # a decision written as a key of [series], not as its own table
            '[series]\n"a.patch" = "carry"\n',
            "'series.\"a.patch\"' must be a table, not 'carry'",
            2,
            'write it as a table: a line [series."a.patch"] and the fields under it '
            "(decision, reason, removal-condition, notes)",
        ),
        (
            '[series."a.patch"]\nreason = ["upstream has it"]\n',
            "'reason' in [series.\"a.patch\"] must be a string, not ['upstream has it']",
            2,
            'quote its value: reason = "..."',
        ),
    ],
)
def test_every_malformed_table_says_what_to_do(
    tmp_path: Path, text: str, message: str, line: int, hint: str
) -> None:
    """A wrong decisions file named the table but not what to write instead (no hint), and
    a decision written as ``"a.patch" = "carry"`` under ``[series]`` named no line."""
    path = tmp_path / "patchkeeper-decisions.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert (caught.value.message, caught.value.line, caught.value.hint) == (message, line, hint)


def test_a_decisions_file_that_is_not_toml_says_where_and_what_to_do(tmp_path: Path) -> None:
    """The syntax error named its line only inside the message ("(at line 4, column
    18)"), with no line for ``--json`` or an editor to jump to, and no hint."""
    path = tmp_path / "patchkeeper-decisions.toml"
    path.write_text('[series."a.patch"]\ndecision = "carry"\n\n[series."b.patch"\n')
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert (caught.value.path, caught.value.line, caught.value.hint) == (
        path,
        4,
        'fix the syntax at column 18: a value is quoted text ("0.27.1"), a number, true/false '
        "or a [list]; one key = value per line; a table header is [name] (each table is "
        '[series."NAME"] or [runtime."KEY"]: the manual\'s audit record page, '
        "docs/audit-record.md, shows the file)",
    )
    # a number too long for Python to convert is no syntax error, and no bug either
    path.write_text("a = " + "1" * 5000 + "\n")
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert caught.value.message.startswith("not valid TOML: ")
    assert caught.value.hint == (
        'write the number with fewer digits, or quote it as text ("..."), at the line that holds it'
    )


def test_runtime_keys_are_stable_when_lines_move() -> None:
    assert runtime_key("p/patch/x.py", "up.mod.Cls.meth") == "p/patch/x.py::up.mod.Cls.meth"
    assert runtime_key("p/patch/x.py", "up.REG", "'npu'") == "p/patch/x.py::up.REG['npu']"


def test_decide_before_the_audit_then_after_gives_the_suggestions(
    cli, example, private_cache: Path
) -> None:
    """A ``decide`` run before any evidence writes empty tables; after the audit, ``decide``
    fills those it wrote (untouched since) with the suggestions, and keeps one a person
    edited. Before, the second run said "added 0, kept 7 existing" and every table stayed
    empty for good (found on Debian's jinja2 series, 3.1.2 -> 3.1.6)."""
    down = example.downstream
    path = down / "patchkeeper-decisions.toml"
    first = cli("decide", cwd=down)
    assert first.code == 0
    assert first.out.splitlines()[0] == f"{path}: added 7, kept 0 existing"
    early = path.read_text()
    # A person writes a note into one table: that table is theirs from now on.
    edited = early.replace(
        '[series."client-describe-version.patch"]\n'
        "# no evidence yet: run audit, port or runtime audit with --save-evidence (or set "
        "evidence = true in [report]), or decide by hand\n"
        "# removal condition from the Retires-when header\n"
        'decision = ""\nreason = ""\nremoval-condition = "stays"\nnotes = ""\n',
        '[series."client-describe-version.patch"]\n'
        "# no evidence yet: run audit, port or runtime audit with --save-evidence (or set "
        "evidence = true in [report]), or decide by hand\n"
        "# removal condition from the Retires-when header\n"
        'decision = ""\nreason = ""\nremoval-condition = "stays"\nnotes = "ask Ana"\n',
    )
    assert edited != early
    path.write_text(edited)
    audit = cli("audit", "--to", "../upstream/minihttp-1.1", "--save-evidence", cwd=down)
    assert audit.code == 1
    second = cli("decide", cwd=down)
    assert second.code == 0
    assert second.out.splitlines()[:3] == [
        f"{path}: added 0, kept 7 existing",
        "filled 6 existing table(s) written before there was evidence:",
        "  series retry-backoff-cap.patch: suggested: retire (upstreamed)",
    ]
    assert second.out.splitlines()[-1] == (
        '6 suggestions to review: delete "suggested: " from a decision to accept it, or write '
        "your own; report --check fails until then"
    )
    decisions = load(path)
    assert [
        (d.key, d.decision, d.reason.rsplit(": ", 1)[-1], d.removal_condition)
        for d in decisions.tables.values()
    ] == [
        row if row[0] != "client-describe-version.patch" else (row[0], "", "", "stays")
        for row in EXPECTED_SUGGESTIONS
    ]
    assert decisions.get("series", "client-describe-version.patch").notes == "ask Ana"
    text = path.read_text()
    assert text.startswith(early.split("\n\n[series.", 1)[0])
    third = cli("decide", cwd=down)
    assert third.out == f"{path}: added 0, kept 7 existing\n"
    assert path.read_text() == text


def test_a_suggested_decision_is_read_as_one_and_written_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "patchkeeper-decisions.toml"
    path.write_text(
        '[series."a.patch"]\ndecision = "suggested: carry"\n\n'
        '[series."b.patch"]\ndecision = "carry"\n'
    )
    decisions = load(path)
    assert decisions.get("series", "a.patch") == Decision(
        "series", "a.patch", "carry", line=1, suggested=True
    )
    assert decisions.get("series", "b.patch") == Decision("series", "b.patch", "carry", line=4)
    assert render_table(decisions.tables[("series", "a.patch")]).splitlines()[1] == (
        'decision = "suggested: carry"'
    )


def test_decide_json_says_which_decisions_are_suggestions(cli, audited: Path) -> None:
    data = json.loads(cli("decide", "--json", cwd=audited).out)
    assert data["added"][0] == {
        "kind": "series",
        "key": "retry-backoff-cap.patch",
        "decision": "retire",
        "verdict": "upstreamed",
        "suggested": True,
    }
    assert all(added["suggested"] for added in data["added"])


def test_decide_on_an_empty_series_says_the_series_is_empty(cli, tmp_path: Path) -> None:
    """A series file that lists no patch (comments only) exists: the error said "no series
    file" about it."""
    (tmp_path / "patchkeeper.toml").write_text('upstream = "x"\n')
    (tmp_path / "patches").mkdir()
    (tmp_path / "patches" / "series").write_text("# nothing carried yet\n")
    run = cli("decide", cwd=tmp_path)
    assert (run.code, run.err.splitlines()[0]) == (
        2,
        f"patchkeeper: error: {tmp_path}/patches/series: nothing to decide: the series lists "
        "no patches and there is no runtime inventory evidence",
    )
