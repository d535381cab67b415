"""``runtime port`` on the fixture plugin (tinyup 1.0 -> 2.0): the diff, --write, --output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from patchkeeper.config import load_config
from patchkeeper.runtime.port import runtime_port as port

MERGED_CREATE = """@patch("tinyup.scheduler", "Scheduler.create")
@classmethod
def create(cls, name=None):
    return cls()
"""


def _run(work: Path, **options):
    plugin = work / "plugin"
    return port.port_runtime(
        load_config(plugin / "pyproject.toml"),
        port.RuntimePortRequest(
            old=str(work / "upstream-1.0"),
            new=str(work / "upstream-2.0"),
            **options,
        ),
    )


def _files(root: Path, pattern: str = "*.py") -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob(pattern) if p.is_file()
    }


def test_port_reports_each_entry_and_writes_nothing(runtime_trees: Path) -> None:
    before = _files(runtime_trees / "plugin")
    result = _run(runtime_trees)
    assert [(e.line, e.target, e.action, e.conflicts) for e in result.entries] == [
        (11, "tinyup.sampler.sample", "by hand", 0),
        (19, "tinyup.sampler.sample", "nothing to do", 0),
        (11, "tinyup.scheduler.Scheduler.schedule", "conflict", 2),
        (21, "tinyup.scheduler.Scheduler.make", "nothing to do", 0),
        (29, "tinyup.scheduler.Scheduler.create", "merged", 0),
        (10, "tinyup.registry.BACKENDS", "by hand", 0),
        (12, "tinyup.kernels.add_kernel", "retargeted", 0),
        (22, "tinyup.kernels.sub_kernel", "nothing to do", 0),
        (9, "tinyup.kernels.jit", "retargeted", 0),
    ]
    assert result.entries[6].detail == "tinyup.kernels -> tinyup.ops.kernels at line 12"
    assert result.entries[8].detail == (
        "from tinyup.kernels import jit -> from tinyup.ops.kernels import jit at line 9 "
        "(tinyup.kernels has no jit at 2.0)"
    )
    assert "+from tinyup.ops.kernels import jit\n" in result.diff
    assert '+@patch("tinyup.ops.kernels", "add_kernel")\n' in result.diff
    assert "+def create(cls, name=None):\n" in result.diff
    assert "+<<<<<<< upstream 2.0\n" in result.diff and "+||||||| upstream 1.0\n" in result.diff
    assert (
        "-# Affected versions: tinyup 1.0 (reviewed at 1.0).\n"
        "+# Affected versions: tinyup 1.0 (reviewed at 1.0). Reviewed against 2.0.\n"
    ) in result.diff
    # Only the files whose every entry is done are marked reviewed: not the dormant
    # fix_disabled.py, the conflicted fix_scheduler.py or backends.py (left by hand).
    assert result.diff.count("Reviewed against 2.0.") == 2
    assert result.files == (
        "metaplug/patch/bugfix/fix_sampler.py",
        "metaplug/patch/bugfix/fix_scheduler.py",
        "metaplug/patch/performance/kernels.py",
    )
    assert (result.written, result.exit_code) == (False, 1)
    assert _files(runtime_trees / "plugin") == before


def test_port_write_applies_the_diff(runtime_trees: Path, tmp_path: Path) -> None:
    diff_file = tmp_path / "update.diff"
    result = _run(runtime_trees, write=True, output=diff_file)
    assert result.written is True
    assert diff_file.read_text(encoding="utf-8") == result.diff
    scheduler = (runtime_trees / "plugin/metaplug/patch/bugfix/fix_scheduler.py").read_text()
    assert scheduler.endswith(MERGED_CREATE)
    assert scheduler.count("<<<<<<< upstream 2.0\n") == 2
    kernels = (runtime_trees / "plugin/metaplug/patch/performance/kernels.py").read_text()
    assert '@patch("tinyup.ops.kernels", "add_kernel")\n' in kernels
    assert not (runtime_trees / "plugin" / ".patchkeeper" / "journal").exists()


def test_port_cli_prints_the_diff_and_the_report(runtime_trees: Path, cli) -> None:
    """The diff alone on standard output (``> update.diff``), the report on standard error;
    with ``--output`` the report is on standard output."""
    versions = ("--from", str(runtime_trees / "upstream-1.0"))
    versions += ("--to", str(runtime_trees / "upstream-2.0"))
    plugin = runtime_trees / "plugin"
    diff_file = runtime_trees / "update.diff"
    saved = cli("runtime", "port", *versions, "--output", str(diff_file), cwd=plugin)
    summary = (
        "runtime port 1.0 -> 2.0: by hand 2, conflict 1, merged 1, nothing to do 3, "
        "retargeted 2; not written (--write applies it)"
    )
    assert (saved.code, saved.err) == (1, "")
    assert saved.out.splitlines()[-1] == f"{summary}; diff in {diff_file}"
    diff = diff_file.read_text(encoding="utf-8")
    assert diff.startswith("--- a/metaplug/patch/bugfix/fix_sampler.py\n")
    run = cli("runtime", "port", *versions, cwd=plugin)
    assert (run.code, run.out) == (1, diff)
    assert run.err.splitlines() == [*saved.out.splitlines()[:-1], summary]


def test_port_to_the_release_it_is_ported_from_is_refused(runtime_trees: Path, cli) -> None:
    """As ``port`` and ``upgrade`` refuse it: upstream changed nothing between the two, so
    there is nothing to merge, move or cut; refused before anything is read or written, and
    where ``--from`` is the configured pin the message names its line."""
    plugin = runtime_trees / "plugin"
    before = _files(runtime_trees, "*")
    same = ("--from", "../upstream-1.0", "--to", str(runtime_trees / "upstream-1.0"))
    hint = (
        "  hint: pass a newer release as --to; to list the plugin's patches as they stand, "
        "run 'patchkeeper runtime inventory'\n"
    )
    message = "nothing to port: --to is 1.0, the release the plugin is ported from (--from)\n"
    run = cli("runtime", "port", *same, "--write", cwd=plugin)
    assert (run.code, run.out, run.err) == (2, "", f"patchkeeper: error: {message}{hint}")
    config = plugin / "pyproject.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('upstream = "tinyup"\n', 'upstream = "tinyup"\npin = "1.0"\n'))
    before["plugin/pyproject.toml"] = config.read_bytes()
    run = cli("runtime", "port", *same, "--write", cwd=plugin)
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"patchkeeper: error: {config}:17: {message}{hint}",
    )
    assert _files(runtime_trees, "*") == before


def test_port_redirected_to_a_file_holds_exactly_the_diff(runtime_trees: Path) -> None:
    """``patchkeeper runtime port ... > update.diff`` in a real process: the file's bytes
    are the diff ``--output`` writes, the report is on standard error (before: the diff
    ended with the report's lines)."""
    versions = ["--from", str(runtime_trees / "upstream-1.0")]
    versions += ["--to", str(runtime_trees / "upstream-2.0")]
    plugin = runtime_trees / "plugin"
    command = [sys.executable, "-m", "patchkeeper", "runtime", "port", *versions]
    env = {**os.environ, "COLUMNS": "40"}  # the report is wrapped, never the diff
    saved = runtime_trees / "saved.diff"
    subprocess.run([*command, "--output", str(saved)], cwd=plugin, capture_output=True, env=env)
    redirected = runtime_trees / "update.diff"
    with redirected.open("wb") as out:
        done = subprocess.run(command, cwd=plugin, stdout=out, stderr=subprocess.PIPE, env=env)
    assert done.returncode == 1
    assert redirected.read_bytes() == saved.read_bytes()
    assert redirected.read_bytes().startswith(b"--- a/metaplug/patch/bugfix/fix_sampler.py\n")
    assert " ".join(done.stderr.decode().split()).endswith(
        "runtime port 1.0 -> 2.0: by hand 2, conflict 1, merged 1, nothing to do 3, "
        "retargeted 2; not written (--write applies it)"
    )
    assert max(len(line) for line in redirected.read_text().splitlines()) > 40


GATES_DIFF = """--- a/upplug/patch/gates.py
+++ b/upplug/patch/gates.py
@@ -1,14 +1,12 @@
 # -----------------------------------------------------------------------------
 # Note: The fixture device needs its own behaviour here.
 #
-# Affected versions: upup 1.0.
+# Affected versions: upup 1.0. Reviewed against 2.0.
 #
 # Remove at: upup supports the fixture device.
 # -----------------------------------------------------------------------------
 import upup.engine
 import upup.sampler
-
-from upplug.patch.utils import vllm_version_is
 
 
 def _greedy(x):
@@ -19,8 +17,4 @@
     return x
 
 
-if vllm_version_is("1.0"):
-    upup.sampler.greedy = _greedy
-
-if not vllm_version_is("1.0"):
-    upup.engine.drain = _drain
+upup.engine.drain = _drain
"""


def test_port_cuts_the_version_gates_and_writes_the_reviewed_release(runtime_trees: Path) -> None:
    work = runtime_trees / "update"
    result = port.port_runtime(
        load_config(work / "upplug" / "pyproject.toml"),
        port.RuntimePortRequest(
            old=str(work / "upup-1.0"),
            new=str(work / "upup-2.0"),
        ),
    )
    gates = [(e.file, e.line, e.action, e.detail) for e in result.entries if e.decision == "gate"]
    assert gates == [
        (
            "upplug/patch/gates.py",
            22,
            "gate cut",
            'the `if` branch of `vllm_version_is("1.0")` is dead at 2.0: cut it (no `else` block)',
        ),
        (
            "upplug/patch/gates.py",
            25,
            "gate cut",
            'the `else` branch of `not vllm_version_is("1.0")` is dead at 2.0: cut the test, '
            "kept the `if` block",
        ),
    ]
    start = result.diff.index("--- a/upplug/patch/gates.py\n")
    end = result.diff.find("--- a/", start + 1)
    assert result.diff[start : end if end > 0 else None] == GATES_DIFF
    assert result.exit_code == 1
