"""Overlay entries (files copied into the upstream tree) in apply, verify and unapply."""

from __future__ import annotations

from helpers import Example, tree_bytes

OVERLAY = """
[entries.overlays.extras]
source = "extras"
target = "contrib"
fields = { Kind = "local", What = "extra modules", Upstream = "none", Cut-against = "1.0", Retires-when = "stays" }
"""


def configure(example: Example) -> None:
    extras = example.downstream / "extras"
    (extras / "sub").mkdir(parents=True)
    (extras / "tracing.py").write_text("TRACE = True\n")
    (extras / "sub" / "more.py").write_text("MORE = 1\n")
    with (example.downstream / "patchkeeper.toml").open("a") as handle:
        handle.write(OVERLAY)


def test_overlay_apply_verify_unapply(cli, example: Example) -> None:
    configure(example)
    target = example.target()
    pristine = tree_bytes(target)
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == f"applied 7 patches on directory {target}: 6 files changed"
    assert (target / "minihttp/contrib/tracing.py").read_bytes() == b"TRACE = True\n"
    assert (target / "minihttp/contrib/sub/more.py").read_bytes() == b"MORE = 1\n"
    run = cli(
        "verify", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert (run.code, run.out.splitlines()[-1]) == (
        0,
        "ok: 7 of 7 patches applied, 0 files drifted",
    )

    # an overlay source changes: verify notices, apply brings it up to date
    (example.downstream / "extras/tracing.py").write_text("TRACE = False\n")
    run = cli(
        "verify", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert run.code == 1
    assert "  overlay: contrib/tracing.py differs" in run.out.splitlines()
    run = cli("apply", "--target", str(target), cwd=example.downstream)
    assert run.code == 0
    assert (
        run.out.splitlines()[-1]
        == "the series was already applied; overlay files were brought up to date"
    )
    assert (target / "minihttp/contrib/tracing.py").read_bytes() == b"TRACE = False\n"

    run = cli(
        "unapply", "--target", str(target), "--pristine", str(example.old), cwd=example.downstream
    )
    assert run.code == 0, run.out
    assert tree_bytes(target) == pristine
    assert not (target / "minihttp/contrib").exists()
