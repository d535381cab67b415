"""The parse log (``PATCHKEEPER_PARSE_LOG``, :mod:`patchkeeper.runtime.syntax.parsing`): the
files a runtime command parses, listed by the command itself, so that a benchmark can time
``ast.parse`` of exactly those files (the audit's parse floor).

The plugin is written by the test on the ``tinyup`` fixture (1.0 and 2.0): one patch file
that replaces ``Scheduler.schedule``, and one helper module outside the patch directory.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tinyplug import HEADER, copy_releases, versions, write_plugin

from patchkeeper.runtime.syntax.parsing import (
    PARSE_LOG_ENV,
    ParsedFiles,
    parse_file,
    parse_path,
    read_and_parse,
    read_parse_log,
)

PATCH = (
    HEADER
    + """from tinyup.scheduler import Scheduler

from plug.helpers import cap


def schedule(self, budget):
    return cap(budget)


Scheduler.schedule = schedule
"""
)

HELPERS = "def cap(budget):\n    return min(budget, 8)\n"


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return copy_releases(tmp_path, monkeypatch)


def test_the_log_lists_exactly_the_files_a_cold_audit_parses(
    upstream: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_plugin(upstream, {"plug/patch/p_sched.py": PATCH, "plug/helpers.py": HELPERS})
    log = upstream / "parsed.log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    assert run.code == 0, run.err
    plugin, old, new = (str(root), str(upstream / "upstream-1.0"), str(upstream / "upstream-2.0"))
    assert read_parse_log(log) == [
        # the inventory: every module of the plugin package, in the order the scan asks
        f"{plugin}/plug/patch/__init__.py",
        f"{plugin}/plug/patch/p_sched.py",
        f"{plugin}/plug/__init__.py",
        f"{plugin}/plug/helpers.py",
        # the target's module in the new tree, then in the old one
        f"{new}/tinyup/scheduler.py",
        f"{old}/tinyup/scheduler.py",
    ]
    # each file is parsed once: the cross-checks read the patch file's facts from the
    # scan's record, and the judging reads the replacement's patch file (what a version
    # gate binds its name to, its decorators, gates and imports) from the tree the scan
    # kept in the process
    assert log.read_text().splitlines() == read_parse_log(log)
    # a warm run parses nothing: the log gains no line
    before = log.read_text()
    assert cli("runtime", "audit", *versions(upstream), "--json", cwd=root).code == 0
    assert log.read_text() == before


def test_without_the_variable_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PARSE_LOG_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    tree = parse_file(b"x = 1\n", tmp_path / "x.py")
    assert [type(node).__name__ for node in tree.body] == ["Assign"]
    assert list(tmp_path.iterdir()) == []


def test_a_relative_path_is_logged_absolute_and_each_file_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    monkeypatch.chdir(tmp_path)
    parse_file("a = 1\n", "a.py")
    parse_file("b = 1\n", tmp_path / "b.py")
    parse_file("a = 1\n", "a.py")
    with pytest.raises(SyntaxError):
        parse_file("def (\n", "c.py")  # listed: the parse was tried
    assert log.read_text() == "".join(
        f"{tmp_path}/{name}\n" for name in ("a.py", "b.py", "a.py", "c.py")
    )
    assert read_parse_log(log) == [f"{tmp_path}/{name}" for name in ("a.py", "b.py", "c.py")]


def test_parsed_files_parse_each_file_once_when_first_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    root = tmp_path / "plugin"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("if backports:\n    x = 1\n")
    (root / "pkg" / "broken.py").write_text("def (\n")
    (root / "pkg" / "unasked.py").write_text("y = 2\n")
    modules = ParsedFiles(root)
    first = modules["pkg/__init__.py"]
    assert first is not None
    assert [type(node).__name__ for node in first.body] == ["If"]
    assert modules["pkg/__init__.py"] is first  # the second check gets the same parse
    assert modules["pkg/broken.py"] is None  # does not parse: decides nothing
    assert modules["pkg/missing.py"] is None  # cannot be read: listed nowhere
    assert modules["pkg/broken.py"] is None
    assert log.read_text() == f"{root}/pkg/__init__.py\n{root}/pkg/broken.py\n"


def test_an_upstream_module_naming_the_plugin_is_listed(
    upstream: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the activation search parses the upstream modules whose bytes name the plugin package
    # (the upstream loading the plugin itself): those parses are listed too
    for release in ("upstream-1.0", "upstream-2.0"):
        (upstream / release / "tinyup" / "loader.py").write_text("import plug\n")
    root = write_plugin(upstream, {"plug/patch/p_sched.py": PATCH, "plug/helpers.py": HELPERS})
    log = upstream / "parsed.log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    run = cli("runtime", "audit", *versions(upstream), "--json", cwd=root)
    assert run.code == 0, run.err
    listed = [path for path in read_parse_log(log) if path.endswith("/loader.py")]
    assert listed == [f"{upstream}/upstream-1.0/tinyup/loader.py"]  # the pinned release's


def test_a_file_is_read_and_parsed_as_python_imports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one reader for every whole-file parse: the bytes go to the parser, which honours a
    # coding line; a file Python cannot read decides nothing, and every try is listed
    log = tmp_path / "log"
    monkeypatch.setenv(PARSE_LOG_ENV, str(log))
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\nNAME = '\xe9t\xe9'\n")
    undeclared = tmp_path / "undeclared.py"
    undeclared.write_bytes(b"NAME = '\xe9t\xe9'\n")
    read = read_and_parse(latin)
    assert read is not None
    data, module = read
    assert data == latin.read_bytes()
    assert ast.literal_eval(module.body[0].value) == "été"  # type: ignore[attr-defined]
    assert parse_path(undeclared) is None  # not UTF-8 and no coding line: Python refuses it
    assert parse_path(tmp_path / "missing.py") is None  # never parsed: not listed
    assert log.read_text() == f"{latin}\n{undeclared}\n"


def test_same_code_names_a_file_with_a_nul_byte(tmp_path: Path, cli) -> None:
    # the parser gives no line for it (or raises ValueError, before Python 3.12): the line
    # of the byte is named, in the same words on every Python
    broken = tmp_path / "broken.py"
    broken.write_bytes(b"def f():\n    return 1\x00\n")
    other = tmp_path / "other.py"
    other.write_text("def f():\n    return 1\n")
    run = cli("runtime", "same-code", f"{broken}::f", f"{other}::f")
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {broken}:2: not valid Python: a binary file (a NUL byte), "
            "not a source file",
            "  hint: same-code compares Python sources: give the .py file that defines it",
        ],
    )


@pytest.mark.parametrize("what", ["directory", "missing"])
def test_same_code_says_what_to_give_for_a_path_it_cannot_read(
    tmp_path: Path, cli, what: str
) -> None:
    # a plugin's unpacked release handed whole, or a mistyped file: the error names the
    # path and what same-code compares
    other = tmp_path / "other.py"
    other.write_text("def f():\n    return 1\n")
    given = tmp_path / "plug-0.2.0"
    if what == "directory":
        given.mkdir()
    run = cli("runtime", "same-code", str(given), str(other))
    why = "Is a directory" if what == "directory" else "No such file or directory"
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {given}: cannot read: {why}",
            "  hint: give two Python files, or FILE::QUALNAME definitions "
            "(vllm/x.py::Cls.meth); relative paths start at the current directory",
        ],
    )


def test_same_code_says_how_to_fix_a_file_that_is_not_utf8(tmp_path: Path, cli) -> None:
    # Python's own message was "(unicode error) 'utf-8' codec can't decode byte 0xe9 in
    # position 0: invalid continuation byte" at line 1, whatever line the byte is on
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"def f():\n    return 'caf\xe9'\n")
    other = tmp_path / "other.py"
    other.write_text("def f():\n    return 1\n")
    run = cli("runtime", "same-code", f"{latin}::f", f"{other}::f")
    assert (run.code, run.out, run.err.splitlines()) == (
        2,
        "",
        [
            f"patchkeeper: error: {latin}:2: not valid Python: not UTF-8 (byte 0xe9) and no "
            "coding line",
            "  hint: save it as UTF-8, or declare its encoding on its first line "
            "(# -*- coding: latin-1 -*-)",
        ],
    )
