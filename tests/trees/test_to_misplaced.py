"""``audit --to DIR`` and ``port --to DIR`` where ``DIR`` is not the new release's tree but
the tree is nearby: one level too deep (``jinja2-3.1.6/src`` for ``jinja2-3.1.6``), or the
directory the releases were unpacked into. Judged against it every patch's file is gone, and
the audit called patches *upstreamed* ("docs/conf.py is gone upstream ... retire") that were
not. Refused instead (exit 2), naming the tree to pass; an upstream that really moved every
file (a flat layout turned ``src/``) is still audited."""

from __future__ import annotations

import shutil
from pathlib import Path

from trees_support import retry_downstream

from helpers import Example


def test_a_to_one_level_too_deep_is_refused(cli, tmp_path: Path, example: Example) -> None:
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    deep = example.new / "minihttp"
    for command, old in (("audit", "--pristine"), ("port", "--from")):
        run = cli(command, "--to", str(deep), old, str(example.old), cwd=downstream)
        assert (run.code, run.out) == (2, ""), command
        assert run.err == (
            f"patchkeeper: error: {deep}: the new upstream (--to) holds none of the files the "
            "series changes (1 file)\n"
            f"  hint: these files are under {example.new}: pass --to {example.new}\n"
        ), command
    assert not (downstream / ".patchkeeper-port").exists()
    run = cli("audit", "--to", str(example.new), "--pristine", str(example.old), cwd=downstream)
    assert run.code == 0, run.err


def test_a_directory_of_releases_names_each(cli, tmp_path: Path, example: Example) -> None:
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    releases = example.root / "upstream"
    run = cli("audit", "--to", str(releases), "--pristine", str(example.old), cwd=downstream)
    assert (run.code, run.out) == (2, "")
    names = ", ".join(str(releases / f"minihttp-{v}") for v in ("1.0", "1.1", "1.2"))
    assert run.err == (
        f"patchkeeper: error: {releases}: the new upstream (--to) holds none of the files the "
        "series changes (1 file)\n"
        f"  hint: these files are under each of {names}: pass --to the one you mean\n"
    )


def test_an_upstream_that_moved_every_file_is_audited(
    cli, tmp_path: Path, example: Example
) -> None:
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    moved = tmp_path / "minihttp-2.0"
    shutil.copytree(example.new, moved)
    (moved / "src").mkdir()
    (moved / "minihttp").rename(moved / "src" / "minihttp")
    run = cli("audit", "--to", str(moved), "--pristine", str(example.old), cwd=downstream)
    assert run.code == 1, run.err
    assert (
        "retry.patch  target gone  minihttp/retry.py no longer exists; likely moved to "
        "src/minihttp/retry.py" in run.out
    )


def test_a_pristine_one_level_too_deep_is_refused(cli, tmp_path: Path, example: Example) -> None:
    """verify called 125 files drifted against ``--pristine Jinja2-3.1.2/src``."""
    downstream = retry_downstream(tmp_path, example, "minihttp/")
    target = example.target()
    assert cli("apply", "--target", str(target), cwd=downstream).code == 0
    deep = example.old / "minihttp"
    hint = f"  hint: these files are under {example.old}: pass --pristine {example.old}\n"
    for command in ("verify", "status", "unapply"):
        run = cli(command, "--target", str(target), "--pristine", str(deep), cwd=downstream)
        assert (run.code, run.out) == (2, ""), command
        assert run.err == (
            f"patchkeeper: error: {deep}: the pristine reference holds none of the files the "
            f"series changes (1 file)\n{hint}"
        ), command
    run = cli("audit", "--to", str(example.new), "--pristine", str(deep), cwd=downstream)
    assert run.err == (
        f"patchkeeper: error: {deep}: the pristine reference (--pristine) holds none of the "
        f"files the series changes (1 file)\n{hint}"
    )
    config = downstream / "patchkeeper.toml"
    config.write_text(config.read_text() + f'pristine = "{deep}"\n')
    run = cli("verify", "--target", str(target), cwd=downstream)
    assert (run.code, run.out) == (2, "")
    assert run.err.startswith(f"patchkeeper: error: {deep}: the pristine reference holds none")
    run = cli("verify", "--target", str(target), "--pristine", str(example.old), cwd=downstream)
    assert run.code == 0, run.out + run.err
