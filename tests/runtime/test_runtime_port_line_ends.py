"""``runtime port`` keeps each plugin file's line ends: a CRLF file stays CRLF (its diff's
lines carry the CR, so the diff applies to the file), and a last line without a newline
stays so (the diff says ``\\ No newline at end of file``).

New user's report: vllm-ascend 0.28.0rc1's ``ops/triton/v2/sample/categorical_sample.py``
has CRLF line ends; ``runtime port`` (0.28.0 -> 0.29.0) printed its diff without the CRs
(``git apply`` of the printed diff: "patch does not apply") and ``--write`` rewrote every
line of the file with LF. The plugin here is test_runtime_port_gates.py's, written with
CRLF line ends or without the final newline.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from vupplug import (
    EXPECTED_DIFF,
    PLUGIN_FILES,
    UPSTREAM_NEW,
    UPSTREAM_OLD,
    port_vup,
    write_upstreams,
)


def _write(root: Path, files: dict[str, str], newline: str = "\n") -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.replace("\n", newline).encode())


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".patchkeeper" not in p.parts
    }


@pytest.fixture
def upstreams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return write_upstreams(tmp_path, monkeypatch, UPSTREAM_OLD, UPSTREAM_NEW, _write)


def _applied_by_git(diff: str, files: dict[str, str], newline: str, where: Path) -> dict:
    """The plugin as ``git apply`` of ``diff`` leaves a fresh copy of it."""
    _write(where, files, newline)
    (where / "update.diff").write_bytes(diff.encode())
    subprocess.run(["git", "apply", "update.diff"], cwd=where, check=True, capture_output=True)
    (where / "update.diff").unlink()
    return _tree(where)


def test_a_crlf_plugin_gets_a_crlf_diff_and_stays_crlf(upstreams: Path) -> None:
    plugin = upstreams / "plugin"
    _write(plugin, PLUGIN_FILES, "\r\n")
    result = port_vup(upstreams, plugin, write=False)
    body = ("-", "+", " ")
    assert result.diff == "".join(
        line + ("\r\n" if line.startswith(body) and not line.startswith(("--- ", "+++ ")) else "\n")
        for line in EXPECTED_DIFF.splitlines()
    )
    expected = _applied_by_git(result.diff, PLUGIN_FILES, "\r\n", upstreams / "by-git")
    assert port_vup(upstreams, plugin, write=True).written is True
    after = _tree(plugin)
    assert after == expected
    for name in ("vaplug/ops/kernel.py", "vaplug/patch/patch_model.py"):
        text = after[name]
        assert text.count(b"\n") == text.count(b"\r\n") > 0, name


def test_a_last_line_without_newline_stays_without(upstreams: Path) -> None:
    files = dict(PLUGIN_FILES)
    files["vaplug/ops/kernel.py"] = files["vaplug/ops/kernel.py"].rstrip("\n")
    plugin = upstreams / "plugin"
    _write(plugin, files)
    result = port_vup(upstreams, plugin, write=False)
    kernel = result.diff.split("--- a/vaplug/patch/patch_model.py")[0]
    assert kernel.endswith(
        "-        return npu_add(x, y) * scale\n"
        "\\ No newline at end of file\n"
        "+def kernel_npu(x, y, scale=1.0):\n"
        "+    return npu_add(x, y) * scale\n"
        "\\ No newline at end of file\n"
    )
    expected = _applied_by_git(result.diff, files, "\n", upstreams / "by-git")
    port_vup(upstreams, plugin, write=True)
    assert _tree(plugin) == expected
    assert expected["vaplug/ops/kernel.py"] == (
        b"def kernel_npu(x, y, scale=1.0):\n    return npu_add(x, y) * scale"
    )
