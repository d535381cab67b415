"""Every option whose default is computed says it in ``--help`` (a new user's report:
``runtime lock --help`` did not say where the lock goes without ``--output``)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from patchkeeper.main import cli

PLUGIN = (
    "--plugin",
    "The directory holding the plugin package (an unpacked sdist, a checkout; default: "
    "[tool.patchkeeper.runtime] root, else the downstream directory).",
)
PACKAGE = (
    "--package",
    "The plugin's import package (default: [tool.patchkeeper.runtime] package).",
)
TARGET = (
    "--target",
    "An upstream tree (an unpacked sdist, a checkout, a site-packages directory; default: the "
    "configured upstream installed where --python says, else in this interpreter's environment).",
)


def _helps(words: tuple[str, ...]) -> dict[str, str | None]:
    """Each option of the command ``words`` (``("runtime", "lock")``) and its help text."""
    command: click.Command | None = cli
    ctx = click.Context(cli)
    for word in words:
        assert isinstance(command, click.Group)
        command = command.get_command(ctx, word)
    assert command is not None
    return {p.opts[-1]: p.help for p in command.params if isinstance(p, click.Option)}


@pytest.mark.parametrize(
    ("command", "helps"),
    [
        (
            ("runtime", "lock"),
            (
                ("--output", "The lock file to write (default: <patch-dir>/patchkeeper.lock)."),
                PLUGIN,
                PACKAGE,
            ),
        ),
        (
            ("runtime", "port"),
            (
                ("--output", "Write the diff to this file (default: print it on standard output)."),
                PLUGIN,
                PACKAGE,
            ),
        ),
        (
            ("export",),
            (
                (
                    "--output",
                    "The patch file to write (default: the topic's patch in the series, "
                    "<topic>.patch if new).",
                ),
            ),
        ),
        (("apply",), (TARGET,)),
        (("verify",), (TARGET,)),
    ],
)
def test_help_states_each_computed_default(
    command: tuple[str, ...], helps: tuple[tuple[str, str], ...]
) -> None:
    shown = _helps(command)
    assert [(option, shown[option]) for option, _ in helps] == list(helps)


def test_runtime_lock_help_shows_the_default(cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    run = cli("runtime", "lock", "--help", cwd=tmp_path)
    assert run.code == 0
    assert (
        "--output FILE       The lock file to write (default: <patch-dir>/patchkeeper.lock)."
        in [line.strip() for line in run.out.splitlines()]
    )


def test_retire_help_names_the_files_it_changes(cli, tmp_path: Path, monkeypatch) -> None:
    """``retire --help`` said "and the tree", read as the upstream tree: it names the series
    file and the patch file, the two things it changes besides the ledger."""
    monkeypatch.setenv("COLUMNS", "200")
    run = cli("retire", "--help", cwd=tmp_path)
    assert run.out.splitlines()[2:4] == [
        "  Take a patch's line out of the series file, delete its patch file, and record it in "
        "the ledger's",
        "  Retired table.",
    ]


@pytest.mark.parametrize("command", ["status", "unapply", "verify"])
def test_pristine_help_states_where_the_reference_comes_from(command: str) -> None:
    assert _helps((command,))["--pristine"] == (
        "The pristine upstream: a directory or a requirement (default: an installed target's "
        "RECORD, else the configured pristine, else upstream==pin)."
    )
