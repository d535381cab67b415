"""``port --continue`` refuses when the series, a patch or the configuration changed since the
port started (the user-test report, bug 4: an edit made while the port was stopped was
silently overwritten by ``--in-place``)."""

from __future__ import annotations

import hashlib
import json

from port_support import API_KEY, PROXY, resolve, start, work_files

from helpers import Example

EDITED = b"What: EDITED\n"
ORIGINAL = b"What: count same-host redirects too\n"


def _hint(example: Example) -> str:
    work = example.downstream / ".patchkeeper-port"
    return (
        f"  hint: the port carries the series as it was then (copied in {work / 'original'}) "
        "and would lose the change: undo it and run 'patchkeeper port --continue' again, or "
        "run 'patchkeeper port --abort' and start the port again to carry the changed series\n"
    )


def test_an_edited_patch_stops_continue_in_place(cli, example: Example) -> None:
    patch = example.downstream / "patches" / "metrics-same-host.patch"
    original = patch.read_bytes()
    assert start(cli, example, "--in-place").code == 1
    patch.write_bytes(original.replace(ORIGINAL, EDITED))
    resolve(work_files(example) / "retry.py", PROXY)
    run = cli("port", "--continue", cwd=example.downstream)
    assert run.code == 2
    assert run.err == (
        f"patchkeeper: error: {example.downstream / '.patchkeeper-port'}: the port's inputs "
        "changed since it started: patches/metrics-same-host.patch (edited)\n" + _hint(example)
    )
    assert patch.read_bytes() == original.replace(ORIGINAL, EDITED)  # the edit is kept
    # Undoing the edit lets the port go on, with the resolution already made.
    patch.write_bytes(original)
    assert cli("port", "--continue", cwd=example.downstream).code == 1
    resolve(work_files(example) / "retry.py", API_KEY)
    assert cli("port", "--continue", cwd=example.downstream).code == 0
    assert patch.read_bytes() == original.replace(b"Cut-against: 1.0", b"Cut-against: 1.1")


def test_every_changed_input_is_named(cli, example: Example) -> None:
    down = example.downstream
    assert start(cli, example).code == 1
    with (down / "patches" / "series").open("a") as series:
        series.write("# a note\n")
    (down / "patches" / "client-describe-version.patch").unlink()
    with (down / "patchkeeper.toml").open("a") as config:
        config.write("\n")
    resolve(work_files(example) / "retry.py", PROXY)
    run = cli("port", "--continue", "--json", cwd=down)
    assert run.code == 2
    assert run.err == (
        f"patchkeeper: error: {down / '.patchkeeper-port'}: the port's inputs changed since "
        "it started: patches/series (edited), patches/client-describe-version.patch "
        "(removed), patchkeeper.toml (edited)\n" + _hint(example)
    )
    error = json.loads(run.out)["error"]  # under --json the error is JSON on stdout too
    assert (error["message"], error["file"]) == (
        "the port's inputs changed since it started: patches/series (edited), "
        "patches/client-describe-version.patch (removed), patchkeeper.toml (edited)",
        str(down / ".patchkeeper-port"),
    )
    assert cli("port", "--abort", cwd=down).code == 0
    assert not (down / ".patchkeeper-port").exists()


def test_the_state_records_the_sha256_of_every_input(cli, example: Example) -> None:
    down = example.downstream
    assert start(cli, example).code == 1
    state = json.loads((down / ".patchkeeper-port" / "state.json").read_text())
    series = down / "patches" / "series"
    names = [line for line in series.read_text().splitlines() if not line.startswith("#")]
    files = [series, *(down / "patches" / name for name in names), down / "patchkeeper.toml"]
    assert state["inputs"] == {
        str(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in files
    }


def test_a_work_directory_without_recorded_inputs_still_continues(cli, example: Example) -> None:
    """A port stopped by a patchkeeper that did not record its inputs is not refused."""
    state_file = example.downstream / ".patchkeeper-port" / "state.json"
    assert start(cli, example).code == 1
    state = json.loads(state_file.read_text())
    del state["inputs"]
    state_file.write_text(json.dumps(state))
    resolve(work_files(example) / "retry.py", PROXY)
    assert cli("port", "--continue", cwd=example.downstream).code == 1
    assert json.loads(state_file.read_text())["inputs"] is None
