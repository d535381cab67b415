"""The count line of ``audit`` and ``port`` says "1 patch", not "1 patches" (a new user's
report on a one-patch series: ``1 patches: 1 clean``), in text and in Markdown."""

from __future__ import annotations

from helpers import Example


def test_audit_and_port_of_one_patch_say_1_patch(cli, example: Example) -> None:
    (example.downstream / "patches" / "series").write_text("retry-backoff-cap.patch\n")
    run = cli("audit", "--to", "../upstream/minihttp-1.1", "--markdown", "../audit.md",
              cwd=example.downstream)  # fmt: skip
    assert run.code == 0, run.out + run.err
    assert run.out.splitlines()[-2:] == [
        "1 patch: 1 upstreamed",
        "to retire (already upstream): retry-backoff-cap.patch",
    ]
    assert "**1 patch: 1 upstreamed.**" in (example.root / "audit.md").read_text()
    run = cli("port", "--to", "../upstream/minihttp-1.1", cwd=example.downstream)
    assert "1 patch: 1 upstreamed" in run.out.splitlines()


def test_audit_and_port_of_an_empty_series_say_so(cli, example: Example) -> None:
    """An empty series ends its count line in words, not in a bare colon (``0 patches: ``)."""
    (example.downstream / "patches" / "series").write_text("# nothing carried yet\n")
    run = cli("audit", "--to", "../upstream/minihttp-1.1", "--markdown", "../audit.md",
              cwd=example.downstream)  # fmt: skip
    assert (run.code, run.err) == (0, "")
    assert run.out.splitlines()[-1] == "0 patches: the series lists none"
    assert "**0 patches: the series lists none.**" in (example.root / "audit.md").read_text()
    run = cli("port", "--to", "../upstream/minihttp-1.1", cwd=example.downstream)
    assert run.code == 0
    assert "0 patches: the series lists none" in run.out.splitlines()
