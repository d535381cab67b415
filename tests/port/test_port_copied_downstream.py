"""A downstream copied (or moved) while its port is stopped at a conflict: the work
directory keeps the paths of where the port started, so ``port --continue`` (and
``upgrade --continue``) in the copy read and wrote the series of the original, outside the
downstream it ran in (the new series written beside the other downstream's, its series
file rewritten in place). Going on is refused, nothing written anywhere."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import Example, make_checkout


def _resolve(down: Path) -> None:
    """Resolve the example's conflict: the patch's side of each region kept."""
    for path in (down / ".patchkeeper-port" / "conflict" / "files").rglob("*.py"):
        lines, keep, out = path.read_text().splitlines(keepends=True), True, []
        for line in lines:
            if line.startswith(("<<<<<<<", "|||||||")):
                keep = False
            elif line.startswith(("=======", ">>>>>>>")):
                keep = True
            elif keep:
                out.append(line)
        path.write_text("".join(out))


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def _copied(example: Example, tmp_path: Path) -> tuple[Path, Path]:
    """A copy at ``tmp_path/copy`` of the example with a port in progress, its conflicts
    resolved in the copy's downstream; the copy and that downstream."""
    copy = tmp_path / "copy"
    shutil.copytree(example.root, copy)
    down = copy / "downstream"
    _resolve(down)
    return copy, down


def test_port_continue_in_a_copy_is_refused(cli, example: Example, tmp_path: Path) -> None:
    run = cli("port", "--to", "../upstream/minihttp-1.1", cwd=example.downstream)
    assert run.code == 1
    copy, down = _copied(example, tmp_path)
    before, original = _tree(copy), _tree(example.root)
    run = cli("port", "--continue", cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {down / '.patchkeeper-port' / 'state.json'}: the port in progress "
        f"was started for the series {example.downstream / 'patches' / 'series'}, not this "
        f"downstream's {down / 'patches' / 'series'}: the downstream was copied or moved since, "
        "and going on would write there\n"
        "  hint: run 'patchkeeper port --abort' here and start the port again, or run "
        f"'patchkeeper port --continue' in {example.downstream}, the downstream it was started "
        "in\n"
    )
    assert (_tree(copy), _tree(example.root)) == (before, original)
    assert cli("port", "--abort", cwd=down).code == 0
    assert not (down / ".patchkeeper-port").exists()


def test_upgrade_continue_in_a_copy_is_refused(cli, example: Example, tmp_path: Path) -> None:
    make_checkout(example.downstream)
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", cwd=example.downstream)
    assert run.code == 1
    copy, down = _copied(example, tmp_path)
    before, original = _tree(copy), _tree(example.root)
    run = cli("upgrade", "--continue", cwd=down)
    assert (run.code, run.out) == (2, "")
    assert run.err.splitlines()[1] == (
        "  hint: run 'patchkeeper upgrade --abort' here and start the port again, or run "
        f"'patchkeeper upgrade --continue' in {example.downstream}, the downstream it was "
        "started in"
    )
    assert (_tree(copy), _tree(example.root)) == (before, original)
