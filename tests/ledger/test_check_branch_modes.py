"""``check-branch`` compares the file modes the series gives with the branch's, as it
compares their contents: a series carries mode changes (``old mode 100644`` / ``new mode
100755``, as ``git format-patch`` writes a ``chmod +x``) and ``apply`` makes them, but a
branch whose files had another executable bit than the series gives was said to agree with
it ("they agree"), which ``check-branch`` exists to prove."""

from __future__ import annotations

import os
from pathlib import Path

from ledger_support import commit_topic, config_at, git, ledger_body

from patchkeeper.ledger import table as ledger
from patchkeeper.main import main


def _make_tool_executable(topics: Path) -> None:
    """A topic that adds a script and makes it executable, as a downstream's commit does."""
    commit_topic(
        topics,
        "[pk] run-tool",
        ledger_body(kind="local", what="adds pkg/tool.py", retires="stays"),
        {"pkg/tool.py": "#!/usr/bin/env python3\nprint('tool')\n"},
    )
    os.chmod(topics / "pkg" / "tool.py", 0o755)
    git(topics, "add", "pkg/tool.py")
    git(topics, "commit", "-q", "--amend", "--no-edit")


def test_the_executable_bit_is_compared(downstream: Path, topics: Path, capsys) -> None:
    from patchkeeper.ledger.export import export_range

    _make_tool_executable(topics)
    export_range(config_at(downstream), "v1.0..work")
    ledger.write_ledger(config_at(downstream))
    assert "new file mode 100755" in (downstream / "patches" / "run-tool.patch").read_text()
    assert main(["-C", str(downstream), "check-branch", "work"]) == 0
    agree = capsys.readouterr().out

    # the branch loses the script's executable bit and gives it to another file
    os.chmod(topics / "pkg" / "tool.py", 0o644)
    os.chmod(topics / "pkg" / "envs.py", 0o755)
    git(topics, "add", "pkg/tool.py", "pkg/envs.py")
    git(topics, "commit", "-q", "--amend", "--no-edit")

    assert main(["-C", str(downstream), "check-branch", "work"]) == 1
    assert (agree, capsys.readouterr().out.splitlines()[:3]) == (
        "work against the series on v1.0: they agree (3 topics, 4 files compared)\n",
        [
            "work against the series on v1.0: 2 differences",
            "  file pkg/envs.py: mode 755 on the branch, 644 from the series (the executable "
            "bit differs)",
            "  file pkg/tool.py: mode 644 on the branch, 755 from the series (the executable "
            "bit differs)",
        ],
    )
