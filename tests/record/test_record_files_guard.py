"""``[report]`` file settings naming one of the downstream's own files: ``report`` wrote
AUDIT.md's text over the series (``audit-file = "patches/series"``), ``decide`` its table
into the configuration. Each is a configuration error naming the key and its line, and
nothing is written."""

from __future__ import annotations

import pytest

from helpers import Example


@pytest.mark.parametrize(
    ("setting", "what", "command"),
    [
        ('audit-file = "patches/series"', "the series file ({down}/patches/series)", "report"),
        ('audit-file = "PATCHES.md"', "the ledger file ({down}/PATCHES.md)", "report"),
        (
            'html-file = "patches/retry-backoff-cap.patch"',
            "the patch retry-backoff-cap.patch ({down}/patches/retry-backoff-cap.patch)",
            "report",
        ),
        (
            'decisions-file = "patchkeeper.toml"',
            "the configuration file ({down}/patchkeeper.toml)",
            "decide",
        ),
        ('html-file = "AUDIT.md"', "the audit-file ({down}/AUDIT.md)", "report"),
    ],
)
def test_a_record_file_naming_a_downstream_file_is_refused(
    cli, example: Example, setting: str, what: str, command: str
) -> None:
    down = example.downstream
    config = down / "patchkeeper.toml"
    config.write_text(config.read_text() + f"\n[report]\n{setting}\n")
    before = {p: p.read_bytes() for p in down.rglob("*") if p.is_file()}
    line = config.read_text().splitlines().index(setting) + 1
    key = setting.split(" = ")[0]
    run = cli(command, cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {config}:{line}: key 'report.{key}' names "
        f"{what.format(down=down)}: the record would replace it\n"
        f"  hint: set '{key}' in [report] to a file of its own\n"
    )
    assert {p: p.read_bytes() for p in down.rglob("*") if p.is_file()} == before
