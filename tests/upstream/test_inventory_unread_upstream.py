"""``runtime inventory`` with a pinned upstream release the package index does not have: the
loading line says why the upstream could not be read in one line (the fetch error's message
and hint), never with the error's own ``\\n  hint:`` breaking the report in two (seen with a
downstream whose pin is a local version the index never had)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

UNREAD = (
    "loading not traced without the upstream (pk-up==1.0 could not be read: no version of "
    "pk-up matches pk-up==1.0; available versions: 2.0): nothing else declares plug to the "
    "upstream (no entry point in its groups, no configured activation), and whether the "
    "upstream imports it itself is unknown"
)


def _downstream(root: Path) -> Path:
    """A plugin ``plug`` with an empty patch directory, pinned to ``pk-up`` 1.0."""
    (root / "plug" / "patch").mkdir(parents=True)
    (root / "plug" / "__init__.py").write_text("")
    (root / "plug" / "patch" / "__init__.py").write_text("")
    (root / "patchkeeper.toml").write_text(
        'upstream = "pk-up"\npin = "1.0"\n\n[runtime]\npackage = "plug"\n'
    )
    return root


def test_the_unread_upstream_is_one_clause(
    cli: Any, local_index: Any, tar_bytes: Any, tmp_path: Path
) -> None:
    sdist = tar_bytes([("pk_up-2.0/setup.py", b""), ("pk_up-2.0/pk_up/__init__.py", b"")])
    local_index.publish("pk-up", "pk_up-2.0.tar.gz", sdist)
    down = _downstream(tmp_path / "down")
    run = cli("runtime", "inventory", cwd=down)
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[2] == f"loading: {UNREAD}"
    assert len(run.out.splitlines()) == 5
    run = cli("runtime", "inventory", "--json", cwd=down)
    assert json.loads(run.out)["loading"][1] == UNREAD


def test_a_damaged_download_names_its_file_once(
    cli: Any, local_index: Any, tar_bytes: Any, tmp_path: Path, private_cache: Path
) -> None:
    """The pinned release's sdist is cut short: the clause names the downloaded file once,
    where it is, and what to do (the archive's name was said twice before, once without
    its folder)."""
    sdist = tar_bytes([("pk_up-1.0/setup.py", b"x" * 4000), ("pk_up-1.0/pk_up/__init__.py", b"")])
    local_index.publish("pk-up", "pk_up-1.0.tar.gz", sdist[: len(sdist) // 2])
    down = _downstream(tmp_path / "down")
    run = cli("runtime", "inventory", cwd=down)
    assert (run.code, run.err) == (0, "")
    download = private_cache / "downloads" / "pk-up" / "pk_up-1.0.tar.gz"
    assert run.out.splitlines()[2] == (
        f"loading: loading not traced without the upstream (pk-up==1.0 could not be read: "
        f"{download}: cannot unpack the archive: Compressed file ended before the "
        "end-of-stream marker was reached; delete the file from the cache and fetch it "
        "again): nothing else declares plug to the upstream (no entry point in its groups, "
        "no configured activation), and whether the upstream imports it itself is unknown"
    )
