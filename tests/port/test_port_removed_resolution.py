"""``port --continue`` after the file laid out for a content conflict was removed from
``conflict/files/`` (a slip, or a reading of the modify/delete advice for a conflict that is
none): the regenerated patch deleted the upstream file, which neither the patch nor the new
pin did, and the port went on, the patch counted *resolved*. It is refused now, naming the
file and the copies to put back, and nothing is written; once the file is back the port goes
on. The shape of a Debian series' test-runner patch whose hunk upstream rewrote
(``tornado/test/runtests.py`` in Debian's tornado 6.2 -> 6.4.2), on the bundled example."""

from __future__ import annotations

import json
import shutil

from port_support import PROXY, resolve, start, work_files

from helpers import Example, tree_bytes


def test_a_removed_conflict_file_is_refused(cli, example: Example) -> None:
    assert start(cli, example).code == 1
    files = work_files(example)
    conflict = files.parent
    laid_out = (files / "retry.py").read_bytes()
    (files / "retry.py").unlink()
    before = tree_bytes(example.downstream)

    run = cli("port", "--continue", cwd=example.downstream)

    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"patchkeeper: error: {files / 'retry.py'}: this file was removed, so the patch would "
        "delete it; the patch changes it and does not delete it\n"
        f"  hint: put it back: the new pin's file is {conflict}/reference/new/retry.py, the "
        "file with the patch on the old pin reference/patched/retry.py; make the patch's "
        "change in it (or keep the new pin's file as it is, to drop that change), then run "
        "'patchkeeper port --continue'\n"
    )
    assert tree_bytes(example.downstream) == before

    # put back and resolved, the port goes on to the next conflict
    (files / "retry.py").write_bytes(laid_out)
    resolve(files / "retry.py", PROXY)
    run = cli("port", "--continue", "--json", cwd=example.downstream)
    assert run.code == 1, run.err
    assert json.loads(run.out)["stopped_at"] == "redirect-strip-api-key.patch"


def test_the_new_pins_file_put_back_drops_the_change(cli, example: Example) -> None:
    """The hint's other way: the new pin's file as it is, the patch's change to it dropped."""
    assert start(cli, example).code == 1
    files = work_files(example)
    (files / "retry.py").unlink()
    shutil.copy(files.parent / "reference" / "new" / "retry.py", files / "retry.py")
    run = cli("port", "--continue", "--json", cwd=example.downstream)
    assert (run.code, run.err) == (1, "")
    report = json.loads(run.out)
    assert report["stopped_at"] == "redirect-strip-api-key.patch"
    assert [(p["name"], p["verdict"]) for p in report["patches"][:2]] == [
        ("retry-backoff-cap.patch", "upstreamed"),
        ("redirect-strip-proxy-auth.patch", "dropped"),
    ]
