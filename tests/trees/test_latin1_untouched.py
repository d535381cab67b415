"""A file the series does not touch whose name is not valid UTF-8 (a Latin-1 ``café.py``
left in the target): ``verify`` and ``status`` printed its raw byte (``caf\\xe9.py``, which a
terminal shows as ``caf?.py``) and their JSON named it ``café.py``, another file (the
Latin-1 character encoded as UTF-8). Both now name it in git's quoted form, as every other
output does, and the JSON form reads back to its bytes."""

from __future__ import annotations

import json

import pytest

from helpers import Example
from patchkeeper.system.names import unquoted_name


@pytest.mark.parametrize("command", ["verify", "status"])
def test_a_latin1_file_outside_the_series_is_named_as_git_names_it(
    cli, example: Example, command: str
) -> None:
    target = example.target()
    (target / "minihttp" / "caf\udce9.py").write_bytes(b"x = 1\n")
    run = cli(command, "--target", str(target), cwd=example.downstream)
    assert run.code == 1
    assert (
        '  changed outside the series: "caf\\351.py" exists (sha256 '
        "9e26bf369911) but pristine has no such file\n"
    ) in run.out
    data = json.loads(cli(command, "--target", str(target), "--json", cwd=example.downstream).out)
    [untouched] = data["untouched"]
    assert (untouched["path"], unquoted_name(untouched["path"])) == (
        '"caf\\351.py"',
        "caf\udce9.py",
    )
