"""``--help`` names the configuration tables as the file in use spells them, and the
decisions file ``decide`` writes does too (a new user's report: in a downstream configured
by ``patchkeeper.toml``, ``export --help`` said ``[tool.patchkeeper.git] checkout`` and
``import --help`` said ``[git] branch`` whatever the file; the decisions file said to set
``evidence = true in [tool.patchkeeper.report]``)."""

from __future__ import annotations

from pathlib import Path

from helpers import Example

CHECKOUT = "--checkout DIRECTORY  The upstream git checkout (default: {} checkout)."
BRANCH = "--branch TEXT         The branch to create (default: {} branch)."


def _options(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def test_help_in_a_patchkeeper_toml_downstream(cli, example: Example, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    run = cli("export", "--help", cwd=example.downstream)
    assert CHECKOUT.format("[git]") in _options(run.out)
    run = cli("import", "--help", cwd=example.downstream)
    assert BRANCH.format("[git]") in _options(run.out)
    assert "tool.patchkeeper" not in run.out
    run = cli("-C", str(example.downstream), "report", "--help", cwd=example.root)
    assert "--python FILE  The audited interpreter (default: [report] python, else this one)." in (
        _options(run.out)
    )


def test_help_in_a_pyproject_downstream_and_without_one(cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    downstream = tmp_path / "downstream"
    downstream.mkdir()
    (downstream / "pyproject.toml").write_text('[tool.patchkeeper]\nupstream = "x"\n')
    for where in (downstream, tmp_path):
        run = cli("import", "--help", cwd=where)
        assert BRANCH.format("[tool.patchkeeper.git]") in _options(run.out), where
    # the rendering in a patchkeeper.toml downstream did not change the command for later
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "patchkeeper.toml").write_text('upstream = "x"\n')
    assert BRANCH.format("[git]") in _options(cli("import", "--help", cwd=tmp_path / "other").out)
    run = cli("import", "--help", cwd=downstream)
    assert BRANCH.format("[tool.patchkeeper.git]") in _options(run.out)


def test_decide_without_evidence_in_a_patchkeeper_toml_downstream(cli, example: Example) -> None:
    run = cli("decide", cwd=example.downstream)
    assert run.code == 0, run.err
    text = (example.downstream / "patchkeeper-decisions.toml").read_text()
    comment = (
        "# no evidence yet: run audit, port or runtime audit with --save-evidence (or set "
        "evidence = true in [report]), or decide by hand"
    )
    assert text.count(comment) == 7
    assert "tool.patchkeeper" not in text
    # evidence later fills the tables written before it, in either spelling
    old = text.replace("[report]", "[tool.patchkeeper.report]", 3)
    (example.downstream / "patchkeeper-decisions.toml").write_text(old)
    assert cli("audit", "--to", "../upstream/minihttp-1.1", "--save-evidence",
               cwd=example.downstream).code == 1  # fmt: skip
    run = cli("decide", cwd=example.downstream)
    assert run.code == 0, run.err
    text = (example.downstream / "patchkeeper-decisions.toml").read_text()
    assert "no evidence yet" not in text


def _option_help(text: str, option: str) -> str:
    """The help of ``option`` in a ``--help`` text, its wrapped lines joined by one space."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(option + " "))
    words = lines[start].split()[2:]
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 6) or line.strip().startswith("-"):
            break
        words += line.split()
    return " ".join(words)


def test_help_of_a_release_option_names_the_configured_upstream(
    cli, example: Example, tmp_path: Path, monkeypatch
) -> None:
    """A new user's report: ``runtime audit --help`` said ``--from ... vllm==X`` in any
    downstream. The options naming an upstream release write the configured upstream
    (``minihttp`` in the example), and ``PROJECT`` where none is configured."""
    monkeypatch.setenv("COLUMNS", "100")
    release = (
        "a directory, a release's sdist or wheel file, or a requirement of the configured "
        "upstream ({}==VERSION)"
    )
    pin = " (default: upstream==pin)."  # the runtime commands' --from, when left out
    cases = [
        (("runtime", "audit"), "--from", "The old upstream: ", pin),
        (("runtime", "audit"), "--to", "The new upstream: ", "."),
        (("runtime", "port"), "--from", "The old upstream: ", pin),
        (("runtime", "port"), "--to", "The new upstream: ", "."),
        (("runtime", "lock"), "--at", "The audited upstream: ", pin),
        (("port",), "--to", "The new upstream: ", "."),
        (("upgrade",), "--to", "The new upstream: ", "."),
    ]
    for where, project in ((example.downstream, "minihttp"), (tmp_path, "PROJECT")):
        for command, option, start, end in cases:
            run = cli(*command, "--help", cwd=where)
            assert run.code == 0
            text = _option_help(run.out, option).removesuffix(" [required]")
            assert text == start + release.format(project) + end, (command, option)
            assert "vllm" not in run.out
        run = cli("audit", "--help", cwd=where)
        assert _option_help(run.out, "--to") == (
            "The new upstream: a directory, a release's sdist or wheel file, or a requirement "
            f"of the configured upstream ({project}==VERSION); a range ('{project}>=A,<B') "
            "audits every release in it (the upgrade horizon). [required]"
        )


def test_init_help_names_the_tables_of_the_file_it_writes(
    cli, example: Example, tmp_path: Path, monkeypatch
) -> None:
    """``init`` always writes a ``patchkeeper.toml``: its help names ``[ledger]`` as that file
    spells it, in a ``patchkeeper.toml`` downstream, a ``pyproject.toml`` one and outside any."""
    monkeypatch.setenv("COLUMNS", "100")
    downstream = tmp_path / "downstream"
    downstream.mkdir()
    (downstream / "pyproject.toml").write_text('[tool.patchkeeper]\nupstream = "x"\n')
    for where in (example.downstream, downstream, tmp_path):
        run = cli("init", "--help", cwd=where)
        assert run.code == 0
        assert _option_help(run.out, "--ledger") == (
            "The ledger file to write (file in the [ledger] table of the patchkeeper.toml "
            "written). [default: PATCHES.md]"
        ), where
        assert _option_help(run.out, "--directory") == (
            "The directory inside the upstream tree that patch paths are relative to "
            "(directory in the patchkeeper.toml written; default: the tree's root)."
        )
        assert "tool.patchkeeper" not in run.out


def test_mcp_help_names_its_root(cli, tmp_path: Path, monkeypatch) -> None:
    """``mcp`` is a command like the others: listed, with its own help."""
    monkeypatch.setenv("COLUMNS", "100")
    run = cli("--help", cwd=tmp_path)
    assert (
        "  mcp           Serve the commands to a coding agent as MCP tools over stdio "
        "(patchkeeper[mcp])."
    ) in run.out.splitlines()
    run = cli("mcp", "--help", cwd=tmp_path)
    assert run.code == 0
    assert _option_help(run.out, "--root") == (
        "The directory the tools work in; a path outside it is refused. [default: .]"
    )
