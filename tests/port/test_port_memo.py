"""``port --continue`` judges only what the resolution changed (:mod:`patchkeeper.port.memo`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from port_support import PROXY, resolve, start, work_files

from helpers import Example
from patchkeeper.audit.verdicts import FailedPatch, judge_patch
from patchkeeper.port.memo import MEMO, Memo
from patchkeeper.series.engine import FileState, Workspace
from patchkeeper.series.parse import parse_patch

PATCH = b"""Subject: one more retry

--- a/retry.py
+++ b/retry.py
@@ -1,3 +1,3 @@
 import time
-TRIES = 3
+TRIES = 5
 DELAY = 1
"""


def _workspace(retry: bytes) -> Workspace:
    files = {"retry.py": FileState.from_bytes(retry), "other.py": FileState.from_bytes(b"x\n")}
    return Workspace(files.get)


def _patch():
    return parse_patch(PATCH, name="tries.patch", path=Path("tries.patch"))


def test_a_judgement_is_taken_again_only_when_what_it_read_is_the_same() -> None:
    memo = Memo("old|new")
    patch = _patch()
    calls = []

    def judge(ws: Workspace):
        calls.append(ws.get("retry.py"))
        return judge_patch(ws, patch, [], None)

    first = _workspace(b"import time\nTRIES = 3\nDELAY = 1\n")
    verdict = memo.judge_patch(first, patch, [], judge)
    assert verdict.verdict == "clean"
    assert first.get("retry.py") == FileState.from_bytes(b"import time\nTRIES = 5\nDELAY = 1\n")

    # the same input: taken from the memo, the workspace updated as the judgement left it
    again = _workspace(b"import time\nTRIES = 3\nDELAY = 1\n")
    again.set("other.py", FileState.from_bytes(b"y\n"))  # a path the judgement never read
    assert memo.judge_patch(again, patch, [], judge) == verdict
    assert again.get("retry.py") == first.get("retry.py")
    assert (len(calls), memo.hits, memo.misses) == (1, 1, 1)

    # the file it read changed (a resolution before it): judged anew
    changed = _workspace(b"import time\nTRIES = 4\nDELAY = 1\n")
    assert memo.judge_patch(changed, patch, [], judge).verdict == "conflict"
    assert (len(calls), memo.hits, memo.misses) == (2, 1, 2)

    # an earlier failing patch that touches the file: judged anew (it may be blocked)
    failing = FailedPatch("earlier.patch", added={"retry.py": {b"TRIES = 3\n"}})
    same = _workspace(b"import time\nTRIES = 3\nDELAY = 1\n")
    memo.judge_patch(same, patch, [failing], lambda ws: judge_patch(ws, patch, [failing], None))
    assert (memo.hits, memo.misses) == (1, 3)
    # one that touches other files does not matter
    elsewhere = FailedPatch("elsewhere.patch", added={"other.py": {b"z\n"}})
    memo.judge_patch(_workspace(b"import time\nTRIES = 3\nDELAY = 1\n"), patch, [elsewhere], judge)
    assert (memo.hits, memo.misses) == (2, 3)


def test_a_memo_survives_the_work_directory_and_refuses_other_trees(tmp_path: Path) -> None:
    memo = Memo("old|new")
    patch = _patch()
    memo.judge_patch(
        _workspace(b"import time\nTRIES = 3\nDELAY = 1\n"),
        patch,
        [],
        lambda ws: judge_patch(ws, patch, [], None),
    )
    memo.save(tmp_path)
    kept = Memo.load(tmp_path, "old|new")
    ws = _workspace(b"import time\nTRIES = 3\nDELAY = 1\n")
    assert kept.judge_patch(ws, patch, [], lambda ws: 1 / 0).verdict == "clean"
    assert Memo.load(tmp_path, "old|newer").patches == {}
    (tmp_path / MEMO).write_bytes(b"not a pickle")
    assert Memo.load(tmp_path, "old|new").patches == {}


def test_continue_with_the_memo_reports_what_a_full_replay_reports(
    cli, example: Example, tmp_path: Path
) -> None:
    assert start(cli, example).code == 1
    work = example.downstream / ".patchkeeper-port"
    assert (work / MEMO).is_file()
    resolve(work_files(example) / "retry.py", PROXY)
    # The same stopped port again without its memo, in the same place: a copy elsewhere is
    # refused (its work directory names the series it was started for).
    saved = tmp_path / "saved"
    shutil.copytree(example.downstream, saved, symlinks=True)

    with_memo = cli("port", "--continue", "--json", cwd=example.downstream)
    shutil.rmtree(example.downstream)
    shutil.copytree(saved, example.downstream, symlinks=True)
    (work / MEMO).unlink()
    without = cli("port", "--continue", "--json", cwd=example.downstream)
    assert (with_memo.code, without.code) == (1, 1)
    ours, theirs = json.loads(with_memo.out), json.loads(without.out)
    assert ours["patches"] == theirs["patches"]
    assert ours["stopped_at"] == theirs["stopped_at"] == "redirect-strip-api-key.patch"
