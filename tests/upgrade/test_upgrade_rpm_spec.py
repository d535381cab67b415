"""``upgrade`` of an RPM spec's series moves the spec with the pin, in the port's commit: its
``Version:`` is the new release and its ``Release:`` starts again at 1 (the port's rule,
``tests/port/test_port_rpm_spec.py``)."""

from __future__ import annotations

import json

from upgrade_support import committed_files, git, make_checkout, resolve

from helpers import Example, minihttp_spec

PROXY = b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization"])\n'
API_KEY = (
    b'    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie", "Proxy-Authorization", '
    b'"X-Api-Key"])\n'
)
SPEC = minihttp_spec()


def test_the_upgrade_commits_the_spec_moved_with_the_pin(cli, example: Example) -> None:
    down = example.downstream
    spec = down / "patches" / "python-minihttp.spec"
    spec.write_text(SPEC, encoding="utf-8")
    make_checkout(down)
    run = cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", "up", cwd=down)
    assert run.code == 1, run.err
    files = down / ".patchkeeper-port" / "conflict" / "files"
    resolve(files / "retry.py", PROXY)
    assert cli("upgrade", "--continue", cwd=down).code == 1
    resolve(files / "retry.py", API_KEY)
    run = cli("upgrade", "--continue", "--json", cwd=down)
    assert run.code == 0, run.err
    port = next(s for s in json.loads(run.out)["steps"] if s["name"] == "port")
    assert "patches/python-minihttp.spec" in port["files"]
    assert "patches/python-minihttp.spec" in committed_files(down, "HEAD~1")
    assert spec.read_text(encoding="utf-8") == SPEC.replace(
        "Version:        1.0\nRelease:        3%{?dist}",
        "Version:        1.1\nRelease:        1%{?dist}",
    )
    assert git(down, "status", "--porcelain", "--untracked-files=all") == ""


def test_the_spec_edits_the_port_leaves_are_left_for_a_person(cli, example: Example) -> None:
    """A ``Version:`` written with a macro is not moved: the port names the line for the
    user to set, and the upgrade passes that on with what is left for a person rather than
    dropping it with the port's other notes."""
    down = example.downstream
    text = minihttp_spec(defines="%global upver 1.0\n").replace(
        "Version:        1.0", "Version:        %{upver}"
    )
    spec = down / "patches" / "python-minihttp.spec"
    spec.write_text(text, encoding="utf-8")
    make_checkout(down)
    assert cli("upgrade", "--to", "../upstream/minihttp-1.1", "--branch", "up", cwd=down).code == 1
    files = down / ".patchkeeper-port" / "conflict" / "files"
    resolve(files / "retry.py", PROXY)
    assert cli("upgrade", "--continue", cwd=down).code == 1
    resolve(files / "retry.py", API_KEY)
    run = cli("upgrade", "--continue", cwd=down)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    at = lines.index("2. edits the port left to you:")
    assert lines[at + 1] == (
        "   - set Version: in python-minihttp.spec (line 5, %{upver}) to 1.1 by hand: it is "
        "written with a macro"
    )
    assert lines[at + 2] == "3. verify the result:"
    assert spec.read_text(encoding="utf-8") == text
