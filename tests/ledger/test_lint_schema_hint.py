"""``lint`` of a Debian series with the default (ledger) schema says which setting reads its
DEP-3 headers (a new user's report: five "missing header" findings per patch of Debian's
jinja2 series, and no word of ``schema = "dep3"``). The patches are written here in the
shape of Debian's (DEP-3 fields, then a ``---`` line and the diff)."""

from __future__ import annotations

import json
from pathlib import Path

DEP3 = """Description: {what}
Origin: upstream, https://example.org/commit/{n}
Bug-Debian: https://bugs.debian.org/{n}
Forwarded: not-needed
Last-Update: 2025-02-27
---
--- a/pkg/mod{n}.py
+++ b/pkg/mod{n}.py
@@ -1 +1 @@
-old = {n}
+new = {n}
"""

HINT = (
    "hint: no patch has any of the headers the ledger schema reads; for DEP-3 headers "
    '(Description, Origin, Bug, Forwarded: a Debian series) set schema = "dep3" in {table}'
)


def _downstream(root: Path, config: str, name: str = "patchkeeper.toml") -> Path:
    (root / "debian" / "patches").mkdir(parents=True)
    for n in (1, 2):
        patch = root / "debian" / "patches" / f"fix{n}.patch"
        patch.write_text(DEP3.format(what=f"fix {n}", n=n))
    (root / "debian" / "patches" / "series").write_text("fix1.patch\nfix2.patch\n")
    (root / name).write_text(config)
    return root


def test_the_hint_names_the_table_as_the_file_spells_it(cli, tmp_path: Path) -> None:
    config = 'upstream = "pkg"\npin = "1.0"\nseries = "debian/patches/series"\n'
    down = _downstream(tmp_path / "a", config)
    run = cli("lint", cwd=down)
    assert run.code == 1
    assert run.out.splitlines()[-2:] == ["10 problems in 2 patches", HINT.format(table="[headers]")]
    data = json.loads(cli("lint", "--json", cwd=down).out)
    assert data["hint"] == HINT.format(table="[headers]")
    pyproject = "[tool.patchkeeper]\n" + config
    down = _downstream(tmp_path / "b", pyproject, "pyproject.toml")
    run = cli("lint", cwd=down)
    assert run.out.splitlines()[-1] == HINT.format(table="[tool.patchkeeper.headers]")


def test_no_hint_when_a_patch_has_a_ledger_header_or_with_dep3(cli, tmp_path: Path) -> None:
    config = 'upstream = "pkg"\npin = "1.0"\nseries = "debian/patches/series"\n'
    down = _downstream(tmp_path / "a", config)
    first = down / "debian" / "patches" / "fix1.patch"
    first.write_text("Kind: fix\n" + first.read_text())
    run = cli("lint", cwd=down)
    assert (run.code, run.out.splitlines()[-1]) == (1, "9 problems in 2 patches")
    down = _downstream(tmp_path / "b", config + '\n[headers]\nschema = "dep3"\n')
    run = cli("lint", cwd=down)
    assert (run.code, run.out) == (0, "no problems in 2 patches\n")
    assert json.loads(cli("lint", "--json", cwd=down).out)["hint"] == ""
