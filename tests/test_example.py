"""The bundled example stays consistent: its ledger is current and its patches lint clean."""

from __future__ import annotations

from helpers import Example


def test_example_ledger_is_current_and_lint_clean(cli, example: Example) -> None:
    run = cli("ledger", "--check", cwd=example.downstream)
    assert (run.code, run.out.strip()) == (0, "PATCHES.md: the ledger is current (7 rows)")
    run = cli("lint", cwd=example.downstream)
    assert (run.code, run.out.strip()) == (0, "no problems in 7 patches")


def test_example_series_applies_to_its_pin(cli, example: Example) -> None:
    target = example.target()
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.out.strip()) == (
        0,
        f"applied 7 patches on directory {target}: 4 files changed",
    )
    run = cli("verify", "--target", str(target), cwd=example.downstream)
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 7 of 7 patches applied, 0 files drifted",
    )


def test_dash_c_reads_relative_paths_from_that_directory(cli, example: Example, tmp_path) -> None:
    run = cli(
        "-C",
        str(example.downstream),
        "verify",
        "--target",
        "../upstream/minihttp-1.0",
        cwd=tmp_path,
    )
    assert (run.code, run.out.splitlines()[-1]) == (
        1,
        "not ok: 0 of 7 patches applied, 0 files drifted",
    )


def test_no_configuration_found_says_so(cli, tmp_path) -> None:
    run = cli("apply", "--target", str(tmp_path), cwd=tmp_path)
    assert run.code == 2
    assert run.err.splitlines() == [
        f"patchkeeper: error: no patchkeeper configuration here: no patchkeeper.toml, nor a "
        f"pyproject.toml with [tool.patchkeeper], in {tmp_path} or a directory above it",
        "  hint: run patchkeeper in the downstream (or pass -C DIR or --config FILE); the "
        "manual's configuration page (docs/configuration.md) shows the keys",
    ]


def test_the_paperwork_pages_example_prints_what_the_page_shows(cli, example: Example) -> None:
    # docs/commands/paperwork.md, "ledger, lint, retire": the commands as printed there.
    why = "minihttp #12 is in 1.1"
    commands = [
        ["ledger"],
        ["ledger", "--check"],
        ["lint"],
        ["retire", "retry-backoff-cap", "--at", "1.1", "--why", why],
    ]
    runs = [cli(*args, cwd=example.downstream) for args in commands]
    assert [(run.code, run.out, run.err) for run in runs] == [
        (0, "PATCHES.md: the ledger is current (7 rows)\n", ""),
        (0, "PATCHES.md: the ledger is current (7 rows)\n", ""),
        (0, "no problems in 7 patches\n", ""),
        (
            0,
            "retired retry-backoff-cap at 1.1: removed patches/retry-backoff-cap.patch; took it "
            "out of patches/series; recorded in PATCHES.md\n",
            "",
        ),
    ]
