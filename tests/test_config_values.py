"""Configuration values outside their allowed set or range are input errors for every command,
naming the key and what is allowed (the user-test report, bug 18: ``[headers] schema =
"dep4"`` and ``lock-timeout = -5`` passed ``apply`` and ``verify`` silently)."""

from __future__ import annotations

import pytest

from helpers import Example, tree_bytes
from patchkeeper.config import Bounds, OneOf, load_config
from patchkeeper.errors import ConfigError

CODES = (
    '"PK101", "PK102", "PK103", "PK104", "PK105", "PK106", "PK201", "PK202", "PK203", "PK301", '
    '"PK302", "PK303", "PK304", "PK401", "PK501", "PK502", "PK503", "PK504", "PK505" or "PK506"'
)

#: (the setting, where it goes: "top" or a section, the error line, the hint line)
BAD_VALUES = [
    (
        'schema = "dep4"',
        "headers",
        "key 'headers.schema' must be \"ledger\" or \"dep3\", not 'dep4'",
        '"ledger" reads Kind/What/Upstream/Cut-against/Retires-when (the seed), "dep3" reads '
        "Debian's DEP-3 fields (Description, Origin, Bug, Forwarded, ...)",
    ),
    (
        'knob-scope = "all"',
        "lint",
        "key 'lint.knob-scope' must be \"patch\" or \"series\", not 'all'",
        "set 'lint.knob-scope' to one of: patch, series",
    ),
    (
        'disable = ["PK101", "PK999"]',
        "lint",
        f"key 'lint.disable' may only list {CODES}, not 'PK999'",
        "the codes are listed in docs/ci.md",
    ),
    (
        "index-abbrev = 3",
        "git",
        "key 'git.index-abbrev' must be between 7 and 40, not 3",
        "git abbreviates blob ids to 7..40 digits",
    ),
    (
        "import-timeout = 0",
        "report",
        "key 'report.import-timeout' must be more than 0 seconds, not 0",
        "fix 'report.import-timeout' in the [tool.patchkeeper] settings",
    ),
    (
        "output-tail = -3",
        "report",
        "key 'report.output-tail' must be 0 lines or more, not -3",
        "fix 'report.output-tail' in the [tool.patchkeeper] settings",
    ),
    (
        "strip = -1",
        "top",
        "key 'strip' must be 0 or more, not -1",
        "strip = 1 drops the a/ and b/ of git's paths (patch -p1); 0 keeps them",
    ),
    (
        "lock-timeout = -5",
        "top",
        "key 'lock-timeout' must be 0 seconds or more, not -5",
        "0 fails at once when another process holds the lock",
    ),
    (
        'fetch = "egg"',
        "top",
        "key 'fetch' must be \"sdist\" or \"wheel\", not 'egg'",
        "set 'fetch' to one of: sdist, wheel",
    ),
]


def _configure(example: Example, setting: str, section: str) -> str:
    config = example.downstream / "patchkeeper.toml"
    text = config.read_text()
    if section == "top":
        key = setting.split(" =")[0]
        lines = [line for line in text.splitlines() if not line.startswith(f"{key} =")]
        text = setting + "\n" + "\n".join(lines) + "\n"
    else:
        text += f"\n[{section}]\n{setting}\n"
    config.write_text(text)
    return str(config)


@pytest.mark.parametrize(("setting", "section", "message", "hint"), BAD_VALUES)
def test_a_value_outside_its_rule_stops_every_command(
    cli, example: Example, setting: str, section: str, message: str, hint: str
) -> None:
    config = _configure(example, setting, section)
    target = example.target()
    for command in ("apply", "verify", "lint", "ledger"):
        args = (command, "--target", str(target)) if command in ("apply", "verify") else (command,)
        run = cli(*args, cwd=example.downstream)
        assert (run.code, run.out) == (2, ""), command
        assert run.err == f"patchkeeper: error: {config}: {message}\n  hint: {hint}\n", command
    assert tree_bytes(target) == tree_bytes(example.old)


def test_values_inside_the_rules_load(example: Example) -> None:
    config = example.downstream / "patchkeeper.toml"
    config.write_text(
        config.read_text().replace("strip = 1", "strip = 0")
        + 'lock-timeout = 0\nfetch = "wheel"\n'
        + '[headers]\nschema = "dep3"\n[lint]\nknob-scope = "series"\ndisable = ["PK202"]\n'
        + "[git]\nindex-abbrev = 7\n[report]\nimport-timeout = 0.5\noutput-tail = 0\n"
    )
    loaded = load_config(config)
    assert (loaded.strip, loaded.lock_timeout, loaded.fetch) == (0, 0.0, "wheel")
    assert loaded.sections["headers"]["schema"] == "dep3"
    assert loaded.sections["lint"]["disable"] == ["PK202"]
    assert loaded.sections["report"]["output-tail"] == 0


def test_a_foreign_diff_entry_with_a_negative_strip(example: Example) -> None:
    from patchkeeper.ledger.entries import load_entries

    config = example.downstream / "patchkeeper.toml"
    (example.downstream / "extra.diff").write_text("")
    config.write_text(
        config.read_text() + '[entries.foreign-diffs.x]\ndiff = "extra.diff"\nstrip = -2\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_entries(load_config(config))
    assert caught.value.message == "key 'entries.x.strip' must be 0 or more, not -2"


def test_rule_messages() -> None:
    assert OneOf(("a",)).problem("b") == "must be \"a\", not 'b'"
    assert OneOf(("a", "b")).problem(["a", "b"]) is None
    assert Bounds(maximum=9).problem(10) == "must be 9 or less, not 10"
    assert Bounds(0.5, unit="seconds").problem(0.25) == "must be 0.5 seconds or more, not 0.25"
    assert Bounds(0, exclusive=True).problem(0.1) is None
