"""``lint`` run from a directory below the downstream root names each file from there, as
``git`` and ``ruff`` do (a new user in ``patches/`` read ``patches/extra.patch: PK202``, a
path that does not exist from where they were); ``--json`` and GitHub annotations keep the
root-relative paths."""

from __future__ import annotations

import json

from helpers import Example


def test_text_paths_from_the_current_directory(cli, example: Example) -> None:
    down = example.downstream
    (down / "patches" / "extra.patch").write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    finding = "extra.patch: PK202 not listed in patches/series"
    assert f"patches/{finding}" in cli("lint", cwd=down).out.splitlines()
    assert finding in cli("lint", cwd=down / "patches").out.splitlines()
    assert f"patches/{finding}" in cli("-C", str(down), "lint", cwd=example.root).out.splitlines()
    (down / "patches" / "sub").mkdir()
    assert f"../{finding}" in cli("lint", cwd=down / "patches" / "sub").out.splitlines()
    data = json.loads(cli("lint", "--json", cwd=down / "patches").out)
    assert {"code": "PK202", "path": "patches/extra.patch", "line": None,
            "message": "not listed in patches/series", "hint": ""} in data["findings"]  # fmt: skip
    assert "cwd" not in data
