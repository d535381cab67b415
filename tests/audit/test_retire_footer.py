"""The lines under ``audit``'s table name what to retire: a patch upstream has whole is *to
retire*; an *upstreamed* patch whose action asks a person first (*look*: upstream has its line
at one place, its context fits another) is named apart, to review before retiring, as
``port --retire`` leaves it in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import API_NEW, API_OLD, SKIP_CODEC, write_files

PLAIN = (
    "Subject: capitalise b\n---\n--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
)


def _release(version: str, api: str, code: str) -> dict[str, str]:
    return {
        "PKG-INFO": f"Metadata-Version: 2.1\nName: pkg\nVersion: {version}\n",
        "docs/api.rst": api,
        "pkg/x.py": code,
    }


def test_a_patch_to_look_at_is_not_listed_to_retire(cli: Any, tmp_path: Path) -> None:
    down = write_files(
        tmp_path / "down",
        {
            "patchkeeper.toml": 'upstream = "pkg"\npin = "1.0"\nseries = "patches/series"\n'
            'pristine = "up"\n',
            "patches/series": "plain.patch\nskip.patch\n",
            "patches/plain.patch": PLAIN,
            "patches/skip.patch": SKIP_CODEC,
        },
    )
    write_files(down / "up", _release("1.0", API_OLD, "a\nb\nc\n"))
    write_files(down / "up2", _release("2.0", API_NEW, "a\nB\nc\n"))

    run = cli("audit", "--to", "up2", cwd=down)
    assert run.code == 0
    assert run.out.splitlines()[-2:] == [
        "to retire (already upstream): plain.patch",
        "upstream, to review before retiring: skip.patch",
    ]
    assert cli("audit", "--to", "up2", "--markdown", str(tmp_path / "a.md"), cwd=down).code == 0
    report = (tmp_path / "a.md").read_text(encoding="utf-8")
    assert report.endswith(
        "### To retire\n\n- `plain.patch`\n\n"
        "### Upstream, to review before retiring\n\n- `skip.patch`\n"
    )
