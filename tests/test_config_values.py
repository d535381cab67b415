"""Configuration values outside their allowed set or range are input errors for every command,
naming the key and what is allowed (the user-test report, bug 18: ``[headers] schema =
"dep4"`` and ``lock-timeout = -5`` passed ``apply`` and ``verify`` silently)."""

from __future__ import annotations

import pytest

from helpers import Example, tree_bytes
from patchkeeper.config import SCHEMA, Bounds, NotEmpty, OneOf, load_config
from patchkeeper.errors import ConfigError

CODES = (
    '"PK101", "PK102", "PK103", "PK104", "PK105", "PK106", "PK201", "PK202", "PK203", "PK301", '
    '"PK302", "PK303", "PK304", "PK305", "PK306", "PK401", "PK501", "PK502", "PK503", "PK504", "PK505", '
    '"PK506", "PK601" or "PK602"'
)

#: (the setting, where it goes: "top" or a section, the error line, the hint line)
BAD_VALUES = [
    (
        'schema = "dep4"',
        "headers",
        "key 'headers.schema' must be \"ledger\" or \"dep3\", not 'dep4'",
        '"ledger" reads Kind/What/Upstream/Cut-against/Retires-when (the ledger schema), "dep3" reads '
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
        "fix 'import-timeout' in the [report] table of patchkeeper.toml",
    ),
    (
        "import-timeout = nan",
        "report",
        "key 'report.import-timeout' must be a finite number of seconds, not nan",
        "fix 'import-timeout' in the [report] table of patchkeeper.toml",
    ),
    (
        "lock-timeout = inf",
        "top",
        "key 'lock-timeout' must be a finite number of seconds, not inf",
        "0 fails at once when another process holds the lock",
    ),
    (
        "output-tail = -3",
        "report",
        "key 'report.output-tail' must be 0 lines or more, not -3",
        "fix 'output-tail' in the [report] table of patchkeeper.toml",
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
        'pin = "1.O"',
        "top",
        "key 'pin' must be a version (PEP 440, e.g. \"0.27.1\"), not '1.O'",
        'the version the series is cut against: pin = "0.27.1"',
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
    return f"{config}:{text.splitlines().index(setting) + 1}"


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


def test_every_text_key_has_a_rule_for_an_empty_value() -> None:
    """Each text key of every table refuses spaces, and an empty value unless its default is
    empty (``package = ""``: the key left out; ``directory = ""``: the tree's root)."""
    from patchkeeper.config import _import_sections

    _import_sections()  # the tables' modules register their keys when a file is loaded
    tables = {"": SCHEMA, **{key: spec for key, spec in SCHEMA.items() if isinstance(spec, dict)}}
    kinds = {
        f"{table}.{key}".lstrip("."): type(spec[2]).__name__ if len(spec) > 2 else None
        for table, schema in tables.items()
        for key, spec in schema.items()
        if not isinstance(spec, dict) and spec[0] is str
    }
    assert {key: kind for key, kind in kinds.items() if kind not in ("NotEmpty", "OneOf")} == {
        "directory": "NotBlank",
        "pin": "PinVersion",
        "runtime.package": "NotBlank",
        "runtime.patch-directory": "NotBlank",
        "runtime.activation": "NotBlank",
        "runtime.ledger-file": "NotBlank",
        "report.python": "NotBlank",
    }
    assert all(
        isinstance(spec[2], NotEmpty) and spec[2].problem(" ") is not None
        for schema in tables.values()
        for spec in schema.values()
        if not isinstance(spec, dict) and spec[0] is str and not isinstance(spec[2], OneOf)
    )


def test_a_foreign_diff_entry_with_a_negative_strip(example: Example) -> None:
    from patchkeeper.ledger.entries import load_entries

    config = example.downstream / "patchkeeper.toml"
    (example.downstream / "extra.diff").write_text("")
    config.write_text(
        config.read_text() + '[entries.foreign-diffs.x]\ndiff = "extra.diff"\nstrip = -2\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_entries(load_config(config))
    assert caught.value.message == "key 'entries.foreign-diffs.x.strip' must be 0 or more, not -2"
    assert caught.value.line == len(config.read_text().splitlines())


def test_rule_messages() -> None:
    assert OneOf(("a",)).problem("b") == "must be \"a\", not 'b'"
    assert OneOf(("a", "b")).problem(["a", "b"]) is None
    assert Bounds(maximum=9).problem(10) == "must be 9 or less, not 10"
    assert Bounds(0.5, unit="seconds").problem(0.25) == "must be 0.5 seconds or more, not 0.25"
    assert Bounds(0, exclusive=True).problem(0.1) is None


#: (the file's text, its name, the error line, the hint line): values of the wrong type, with
#: the line of the key and a hint naming the real file and table (user report).
WRONG_TYPES = [
    (
        'upstream = "x"\nlock-timeout = "ten"\n',
        "patchkeeper.toml",
        "2: key 'lock-timeout' must be an integer or a number, not 'ten'",
        "fix 'lock-timeout' in patchkeeper.toml",
    ),
    (
        '[project]\nname = "x"\nseries = 1\n\n[tool.patchkeeper]\nupstream = "x"\nseries = 1\n',
        "pyproject.toml",
        "7: key 'series' must be a string, not 1",
        "fix 'series' in the [tool.patchkeeper] table of pyproject.toml",
    ),
    (
        '[tool.patchkeeper]\nupstream = "x"\n[tool.patchkeeper.ledger]\n\nfile = 3\n',
        "pyproject.toml",
        "5: key 'ledger.file' must be a string, not 3",
        "fix 'file' in the [tool.patchkeeper.ledger] table of pyproject.toml",
    ),
    (
        'upstream = "x"\n[ledger]\nfile = ["a"]\n',
        "patchkeeper.toml",
        "3: key 'ledger.file' must be a string, not ['a']",
        "fix 'file' in the [ledger] table of patchkeeper.toml",
    ),
    (
        'pin = "1.0"\nupstream = ""\n',
        "patchkeeper.toml",
        "2: key 'upstream' must not be empty",
        'the upstream distribution name, as pip knows it: upstream = "vllm"',
    ),
    (
        'upstream = "x"\npin = "  "\n',
        "patchkeeper.toml",
        "2: key 'pin' must not be empty",
        'the version the series is cut against: pin = "0.27.1"',
    ),
    (  # a blank pristine was read as a requirement, "pristine = needs a value", no line
        'upstream = "x"\npristine = " "\n',
        "patchkeeper.toml",
        "2: key 'pristine' must not be empty",
        'the pin\'s release: pristine = "../vllm-0.27.1" (a directory relative to this file) '
        "or a requirement; leave the key out for upstream==pin",
    ),
    (  # "" is the tree's root; spaces named a directory " " that no tree holds
        'upstream = "x"\ndirectory = " "\n',
        "patchkeeper.toml",
        "2: key 'directory' must not be only spaces",
        'the directory patch paths are relative to: directory = "vllm"; "" for the tree\'s root',
    ),
    (  # a blank plugin package reached the plugin search as a name " "
        'upstream = "x"\n\n[runtime]\npackage = " "\n',
        "patchkeeper.toml",
        "4: key 'runtime.package' must not be only spaces",
        'the plugin\'s import package: package = "vllm_metax"',
    ),
    (  # an empty ledger file was the downstream directory itself
        '[tool.patchkeeper]\nupstream = "x"\n[tool.patchkeeper.ledger]\nfile = ""\n',
        "pyproject.toml",
        "4: key 'ledger.file' must not be empty",
        'the ledger\'s Markdown file: file = "PATCHES.md"',
    ),
    (
        'upstream = "x"\n[git]\ntag = " "\n',
        "patchkeeper.toml",
        "3: key 'git.tag' must not be empty",
        'the topic commits\' tag: tag = "qwen38"; leave the key out for none',
    ),
    (
        'upstream = "x"\n[port]\nwork-dir = ""\n',
        "patchkeeper.toml",
        "3: key 'port.work-dir' must not be empty",
        'where a stopped port keeps its state: work-dir = ".patchkeeper-port"',
    ),
    (
        'upstream = "x"\n[report]\naudit-file = "\t"\n',
        "patchkeeper.toml",
        "3: key 'report.audit-file' must not be empty",
        'the audit record: audit-file = "AUDIT.md"',
    ),
    (
        'upstream = "x"\nnosuch = 1\n',
        "patchkeeper.toml",
        "2: unknown key 'nosuch'",
        "the known keys here are: directory, entries, fetch, git, headers, ignore, ledger, lint, lock-timeout, pin, port, pristine, report, runtime, series, strip, upstream",
    ),
    (  # a typo'd table header: the key it was meant to be comes first
        'upstream = "x"\npin = "2.0.1"\n\n[header]\nschema = "dep3"\n',
        "patchkeeper.toml",
        "4: unknown key 'header'",
        "did you mean 'headers'? the known keys here are: directory, entries, fetch, git, headers, ignore, ledger, lint, lock-timeout, pin, port, pristine, report, runtime, series, strip, upstream",
    ),
    (
        '[tool.patchkeeper]\nupstream = "x"\n[tool.patchkeeper.runtme]\npackage = "p"\n',
        "pyproject.toml",
        "3: unknown key 'runtme'",
        "did you mean 'runtime'? the known keys here are: directory, entries, fetch, git, headers, ignore, ledger, lint, lock-timeout, pin, port, pristine, report, runtime, series, strip, upstream",
    ),
    (  # a table given as a value
        'upstream = "x"\nheaders = "dep3"\n',
        "patchkeeper.toml",
        "2: key 'headers' must be a table, not 'dep3'",
        "take out 'headers = ...' and write the keys of [headers] under that table header in "
        "patchkeeper.toml (docs/configuration.md lists them)",
    ),
    (
        '[tool.patchkeeper]\nupstream = "x"\nledger = 1\n',
        "pyproject.toml",
        "3: key 'ledger' must be a table, not 1",
        "take out 'ledger = ...' and write the keys of [tool.patchkeeper.ledger] under that table "
        "header in the [tool.patchkeeper] table of pyproject.toml (docs/configuration.md lists "
        "them)",
    ),
    (
        '[project]\nname = "d"\n[tool]\npatchkeeper = "yes"\n',
        "pyproject.toml",
        "4: [tool.patchkeeper] must be a table, not 'yes'",
        "take out 'patchkeeper = ...' from [tool] and write the settings under a table header "
        "[tool.patchkeeper] (docs/configuration.md shows the keys)",
    ),
]


@pytest.mark.parametrize(("text", "name", "message", "hint"), WRONG_TYPES)
def test_a_wrong_value_names_its_line_and_table(
    cli, tmp_path, text: str, name: str, message: str, hint: str
) -> None:
    (tmp_path / name).write_text(text)
    run = cli("status", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    first, _, rest = run.err.partition("\n")
    assert first == f"patchkeeper: error: {tmp_path / name}:{message}"
    assert rest == f"  hint: {hint}\n"


SYNTAX_HINT = (
    '  hint: fix the syntax at column {column}: a value is quoted text ("0.27.1"), a number, '
    "true/false or a [list]; one key = value per line; a table header is [name] (the manual's "
    "configuration page, docs/configuration.md, shows every key)\n"
)


@pytest.mark.parametrize(
    ("text", "line", "message", "column"),
    [
        ('pin = "1.0"\nupstream = werkzeug\n', 2, "Invalid value", 12),
        ('upstream = "x"\n[ledger\nfile = "a"\n', 2, "Expected ']' at the end of a table declaration", 8),
        ('upstream = "x\n', 1, "Illegal character '\\n'", 14),
    ],
)  # fmt: skip
def test_a_toml_syntax_error_names_line_column_and_what_to_do(
    cli, tmp_path, text: str, line: int, message: str, column: int
) -> None:
    config = tmp_path / "patchkeeper.toml"
    config.write_text(text)
    run = cli("status", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {config}:{line}: not valid TOML: {message} (column {column})\n"
        + SYNTAX_HINT.format(column=column)
    )


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('upstream = "flask-cors"\npin = "3.0.10"\nseries = [\n', 3, "Invalid value"),
        ('upstream = "flask-cors"\n[ledger]\nfile = """PATCHES.md\n', 3, "Unterminated string"),
    ],
)  # fmt: skip
def test_a_toml_file_ending_inside_a_value_names_its_last_line(
    cli, tmp_path, text: str, line: int, message: str
) -> None:
    """tomllib says "at end of document" and no line: the error names the last one."""
    config = tmp_path / "patchkeeper.toml"
    config.write_text(text)
    run = cli("status", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {config}:{line}: not valid TOML: {message} (the file ends there)\n"
        "  hint: fix the syntax at the end of the file (a value, list, table header or string "
        'left open): a value is quoted text ("0.27.1"), a number, true/false or a [list]; one '
        "key = value per line; a table header is [name] (the manual's configuration page, "
        "docs/configuration.md, shows every key)\n"
    )


def test_patchkeeper_toml_and_pyproject_table_in_one_directory(cli, tmp_path) -> None:
    """Neither file takes precedence: neither is silently ignored."""
    (tmp_path / "patchkeeper.toml").write_text('upstream = "a"\n')
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "d"\n[tool.patchkeeper]\npin = "1"\n'
    )
    (tmp_path / "sub").mkdir()
    for cwd in (tmp_path, tmp_path / "sub"):
        run = cli("status", cwd=cwd)
        assert (run.code, run.out) == (2, "")
        assert run.err == (
            f"patchkeeper: error: {tmp_path / 'patchkeeper.toml'}: two configurations here: "
            f"{tmp_path / 'patchkeeper.toml'} and the [tool.patchkeeper] table of "
            f"{tmp_path / 'pyproject.toml'}\n"
            "  hint: keep one: move the settings into one file and delete the other (or pass "
            "--config FILE to choose)\n"
        )


def test_a_pyproject_without_the_table_beside_patchkeeper_toml_is_fine(tmp_path) -> None:
    (tmp_path / "patchkeeper.toml").write_text('upstream = "a"\n')
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "patchkeeper-user"\n')
    loaded = load_config(start=tmp_path)
    assert (loaded.source, loaded.upstream) == (tmp_path / "patchkeeper.toml", "a")


def test_a_broken_pyproject_beside_patchkeeper_toml_is_not_read(tmp_path) -> None:
    """As before the two-file check: the patchkeeper.toml is the configuration."""
    (tmp_path / "patchkeeper.toml").write_text('upstream = "a"\n')
    (tmp_path / "pyproject.toml").write_text('[tool.patchkeeper\nupstream = "b"\n')
    assert load_config(start=tmp_path).upstream == "a"


def test_a_directory_outside_the_tree_names_its_line(tmp_path) -> None:
    config = tmp_path / "patchkeeper.toml"
    config.write_text('upstream = "x"\n# the package\ndirectory = "../vllm"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert (caught.value.message, caught.value.line, caught.value.hint) == (
        "key 'directory' must stay inside the upstream tree, not '../vllm'",
        3,
        'name a directory of the upstream tree, relative to its root ("vllm"), or ""',
    )


def test_a_config_option_that_names_no_file(cli, example: Example) -> None:
    hint = (
        "  hint: pass --config a patchkeeper.toml or a pyproject.toml with [tool.patchkeeper], "
        "or leave it out to search from the current directory up\n"
    )
    missing = example.downstream / "nonexistent.toml"
    run = cli("--config", str(missing), "lint", cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"patchkeeper: error: {missing}: no such configuration file\n{hint}"
    run = cli("--config", "/dev/null", "lint", cwd=example.downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"patchkeeper: error: /dev/null: not a configuration file\n{hint}"


@pytest.mark.parametrize(
    ("text", "line", "message", "hint"),
    [
        (
            'upstream = "paramiko"\npin = "2.12.0"\nstrip = "x"\n',
            3,
            "key 'strip' must be an integer, not 'x'",
            "fix 'strip' in downstream-ci.toml",
        ),
        (
            'upstream = "paramiko"\n[runtime]\npackage = "plug"\nplugin = "plug"\n',
            4,
            "unknown key 'runtime.plugin'",
            "the known keys here are: activation, decorators, entry-point-groups, "
            "header-fields, ledger-file, markers, package, patch-directory, root, "
            "upstream-packages",
        ),
        (
            '[tool.patchkeeper]\nupstream = "paramiko"\nstrip = "x"\n',
            3,
            "key 'strip' must be an integer, not 'x'",
            "fix 'strip' in the [tool.patchkeeper] table of downstream-ci.toml",
        ),
    ],
)
def test_a_config_file_of_another_name_is_named_as_it_is_read(
    cli, tmp_path, text: str, line: int, message: str, hint: str
) -> None:
    """A --config file of any name keeps its keys at the top level unless it has a [tool]
    table, as it is read: the error names the key's line and the table as written there."""
    config = tmp_path / "downstream-ci.toml"
    config.write_text(text)
    run = cli("--config", str(config), "lint", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == f"patchkeeper: error: {config}:{line}: {message}\n  hint: {hint}\n"


def test_a_patchkeeper_toml_with_a_tool_table_found_by_search_reads_as_with_config(
    cli, tmp_path
) -> None:
    """A patchkeeper.toml written as a pyproject.toml's table ([tool.patchkeeper]) is read
    the same whether found from the current directory or named with --config: its keys are
    those of [tool.patchkeeper], and a wrong one is named at its line in that table."""
    config = tmp_path / "patchkeeper.toml"
    config.write_text('[tool.patchkeeper]\nupstream = "paramiko"\npin = "2.12.0"\n')
    found = load_config(start=tmp_path)
    assert (found.source, found.upstream, found.pin) == (config, "paramiko", "2.12.0")
    assert load_config(config).upstream == "paramiko"
    config.write_text('[tool.patchkeeper]\nupstream = "paramiko"\ntarget = "../up"\n')
    run = cli("lint", cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {config}:3: unknown key 'target'\n  hint: the known keys here "
        "are: directory, entries, fetch, git, headers, ignore, ledger, lint, lock-timeout, "
        "pin, port, pristine, report, runtime, series, strip, upstream\n"
    )


@pytest.mark.parametrize(
    ("name", "text", "line", "message", "hint"),
    [
        (
            "patchkeeper.toml",
            'upstream = "tornado"\npin = "6.2.0"\nseries = "debian/patches/series"\npin = "6.4.2"\n',
            4,
            "pin is set twice: a later line cannot replace its value",
            "keep one of the two lines that set pin: a key is set once in its table",
        ),
        (
            "patchkeeper.toml",
            'upstream = "tornado"\npin = "6.2.0"\n[ledger]\nfile = "PATCHES.md"\n[ledger]\n'
            'columns = ["Description"]\n',
            5,
            "the table [ledger] is declared twice",
            "merge the two [ledger] tables into one: each table header is written once",
        ),
        (
            "patchkeeper-decisions.toml",
            '[series."CVE-2024-52804.patch"]\ndecision = "suggested: retire"\n'
            'decision = "retire"\n',
            3,
            "decision is set twice: a later line cannot replace its value",
            "keep one of the two lines that set decision: a key is set once in its table",
        ),
        (
            "patchkeeper-decisions.toml",
            '[series."CVE-2024-52804.patch"]\ndecision = "retire"\n\n'
            '[series."CVE-2024-52804.patch"]\nreason = "in 6.4.2"\n',
            4,
            'the table [series."CVE-2024-52804.patch"] is declared twice',
            'merge the two [series."CVE-2024-52804.patch"] tables into one: each table header '
            "is written once",
        ),
    ],
    ids=["key", "table", "decision key", "decision table"],
)
def test_a_key_or_table_set_twice_is_named_as_such(
    cli, tmp_path, name: str, text: str, line: int, message: str, hint: str
) -> None:
    """A key or table given twice (a pin added at the end of the file, a decision accepted on a
    new line under the suggestion) was "Cannot overwrite a value" with advice on syntax,
    which is right there: the error names the key or table and says to keep one."""
    config = tmp_path / "patchkeeper.toml"
    if name != "patchkeeper.toml":
        config.write_text('upstream = "tornado"\npin = "6.2.0"\n')
    (tmp_path / name).write_text(text)
    args = ("ledger", "--check") if name == "patchkeeper.toml" else ("report", "--check")
    run = cli(*args, cwd=tmp_path)
    guide = (
        "the manual's configuration page, docs/configuration.md, shows every key"
        if name == "patchkeeper.toml"
        else 'each table is [series."NAME"] or [runtime."KEY"]: the manual\'s audit record '
        "page, docs/audit-record.md, shows the file"
    )
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {tmp_path / name}:{line}: not valid TOML: {message}\n"
        f"  hint: {hint} ({guide})\n"
    )
