"""A patch that mostly removes lines, most of whose hunks upstream already has, with one hunk
that fails: *partially upstreamed*, a person decides (*look*), not a port. Drawn from a
workaround for a construct upstream then dropped itself (mercurial's CGI tests stopped
enabling ``cgitb`` in every script, and kept the ``2>&1`` one of the patch's hunks removes)."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

SCRIPT = '''"""CGI entry point {name}."""
import sys
import cgitb
cgitb.enable()
from app import main

main.run({call})
sys.exit(0)
'''


def hunk(name: str, call: str = "", new_call: str = "") -> str:
    """One file's diff: drop the two ``cgitb`` lines (and change the call when asked)."""
    lines = [
        f"--- a/app/cgi_{name}.py",
        f"+++ b/app/cgi_{name}.py",
        "@@ -1,8 +1,6 @@",
        f' """CGI entry point {name}."""',
        " import sys",
        "-import cgitb",
        "-cgitb.enable()",
        " from app import main",
        " ",
    ]
    if call == new_call:
        lines.append(f" main.run({call})")
    else:
        lines += [f"-main.run({call})", f"+main.run({new_call})"]
    lines.append(" sys.exit(0)")
    return "\n".join(lines) + "\n"


NAMES = ("a", "b", "c", "d")
PATCH = (
    "Subject: Stop using cgitb\n---\n"
    + "".join(hunk(n) for n in NAMES[:3])
    + hunk("d", "stderr=sys.stdout", "")
)


def tree(dropped: tuple[str, ...]) -> dict[str, str]:
    """The scripts, without the ``cgitb`` lines in ``dropped``; ``cgi_d`` keeps its call."""
    files = {}
    for name in NAMES:
        call = "stderr=sys.stdout" if name == "d" else ""
        text = SCRIPT.format(name=name, call=call)
        if name in dropped:
            text = text.replace("import cgitb\ncgitb.enable()\n", "")
        files[f"app/cgi_{name}.py"] = text
    return files


def test_most_hunks_upstream_and_one_failing_is_a_look(tmp_path: Path) -> None:
    old = tree(())
    [verdict] = judge(tmp_path, tree(NAMES), [("cgitb.patch", PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("partially upstreamed", "look")
    assert verdict.rule == "mostly-there"
    assert verdict.summary == (
        "most of its hunks are upstream: 3 of 4 (app/cgi_a.py #1, app/cgi_b.py #1, "
        "app/cgi_c.py #1); app/cgi_d.py #1 fails at fuzz 0; to do: look (most of its hunks "
        "are upstream; decide whether the others are needed)"
    )


def test_half_the_hunks_upstream_is_still_a_port(tmp_path: Path) -> None:
    old = tree(())
    new = tree(("a", "b", "d"))
    # upstream rewrote cgi_c's imports: its hunk fails too, two of four are there
    new["app/cgi_c.py"] = new["app/cgi_c.py"].replace("import sys\n", "import os\n")
    [verdict] = judge(tmp_path, new, [("cgitb.patch", PATCH)], old)
    assert (verdict.verdict, verdict.action) == ("conflict", "port")
