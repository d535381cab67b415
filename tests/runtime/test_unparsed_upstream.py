"""A module of an upstream release that Python cannot parse (syntax of a newer Python, a
damaged file) hides its names; it does not remove them. Found on a GGUF quantization plugin
in the shape written here (a wrapper on ``EngineArgs.create_model_config``, a run-once
marker set on the class, an import of the class): with the new release's ``arg_utils.py``
unparsable, the audit said the method was "gone without a trace", kept the marker
(*retain*: "in neither release: the plugin's assignment adds it") and listed the import as
*breaks-at-import*. The audit now says the lookup could not be made: *look*, the file and the
parser's message first, and an ``upstream-unparsed`` finding for the import.

The plugin and both upstream trees are written by the test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tinyplug import HEADER, write_plugin

from patchkeeper.runtime.lookup.resolve import unparsed_module
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree, summarize

PYPROJECT = """[project]
name = "plug"
version = "0.1"

[project.entry-points."up.general_plugins"]
plug = "plug.patch:apply"

[tool.patchkeeper]
upstream = "up"

[tool.patchkeeper.runtime]
package = "plug"
entry-point-groups = ["up.general_plugins"]
upstream-packages = ["up"]
"""

ARG_UTILS = """class EngineArgs:
    def create_model_config(self):
        return {"quantization": self.quantization}
"""

# the new release's file, cut short in the middle of a signature
CUT_SHORT = "class EngineArgs:\n    def create_model_config(self,\n"

PATCH = (
    HEADER
    + """from functools import wraps

from up.arg_utils import EngineArgs


def _patch_engine_args():
    if getattr(EngineArgs, "_gguf_patched", False):
        return
    original = EngineArgs.create_model_config

    @wraps(original)
    def create_model_config(self, *args, **kwargs):
        return original(self, *args, **kwargs)

    EngineArgs.create_model_config = create_model_config
    EngineArgs._gguf_patched = True


_patch_engine_args()
"""
)

RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"
FIX = (
    f"if it uses syntax newer than this Python ({RUNNING}), run patchkeeper with a Python "
    "that reads it; if the file is damaged, download the release again or unpack it anew"
)


def _release(base: Path, name: str, arg_utils: str | bytes) -> Path:
    package = base / name / "up"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    path = package / "arg_utils.py"
    if isinstance(arg_utils, bytes):
        path.write_bytes(arg_utils)
    else:
        path.write_text(arg_utils)
    return base / name


@pytest.fixture
def base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(tmp_path / "cache"))
    _release(tmp_path, "up-1.0", ARG_UTILS)
    return tmp_path


def _unknown(target: str, error: str) -> str:
    return (
        f"up/arg_utils.py of the new upstream cannot be parsed ({error}): whether it defines "
        f"{target} is unknown"
    )


def test_a_target_in_an_unparsable_module_is_look_not_gone(base: Path, cli) -> None:
    _release(base, "up-2.0", CUT_SHORT)
    root = write_plugin(base, {"plug/patch/p_args.py": PATCH}, pyproject=PYPROJECT)
    spans = ["--from", str(base / "up-1.0"), "--to", str(base / "up-2.0")]
    run = cli("runtime", "audit", *spans, "--json", cwd=root)
    assert run.code == 1
    result = json.loads(run.out)
    decided = [
        (
            e["entry"]["line"],
            e["entry"]["target"],
            e["drift"]["decision"],
            e["drift"]["evidence"][0],
        )
        for e in result["entries"]
    ]
    error = "'(' was never closed (line 2)"
    assert decided == [
        (
            18,
            "up.arg_utils.EngineArgs.create_model_config",
            "look",
            _unknown("up.arg_utils.EngineArgs.create_model_config", error)
            + f", so nothing is decided from its absence; {FIX}",
        ),
        (
            19,
            "up.arg_utils.EngineArgs._gguf_patched",
            "look",
            _unknown("up.arg_utils.EngineArgs._gguf_patched", error)
            + f", so nothing is decided from its absence; {FIX}",
        ),
    ]
    assert result["findings"] == [
        {
            "code": "upstream-unparsed",
            "path": "plug/patch/p_args.py",
            "line": 6,
            "message": _unknown("up.arg_utils.EngineArgs", error),
            "hint": FIX,
        }
    ]


def test_a_target_the_parsed_new_release_dropped_is_still_gone(base: Path, cli) -> None:
    # the same plugin against a release whose module parses and lacks the class: the
    # decision rests on the tree as before
    _release(base, "up-2.0", "def other():\n    return 1\n")
    root = write_plugin(base, {"plug/patch/p_args.py": PATCH}, pyproject=PYPROJECT)
    spans = ["--from", str(base / "up-1.0"), "--to", str(base / "up-2.0")]
    run = cli("runtime", "audit", *spans, "--json", cwd=root)
    result = json.loads(run.out)
    evidence = [e["drift"]["evidence"][0] for e in result["entries"]]
    assert not any("cannot be parsed" in sentence for sentence in evidence)
    assert [f["code"] for f in result["findings"]] == ["breaks-at-import"]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        (CUT_SHORT.encode(), "'(' was never closed (line 2)"),
        (
            b"class EngineArgs:\n    name = '\xe9'\n",
            "not UTF-8 (byte 0xe9) and no coding line: save it as UTF-8, or declare its "
            "encoding on its first line (# -*- coding: latin-1 -*-) (line 2)",
        ),
        (
            b"class EngineArgs:\n    pass\n\0\n",
            "source code string cannot contain null bytes (line 3)",
        ),
    ],
)
def test_an_unparsable_module_says_why_at_its_line(
    tmp_path: Path, source: bytes, error: str
) -> None:
    summary = summarize(source, "up.arg_utils", "up/arg_utils.py", False)
    assert (summary.syntax_error, summary.definitions) == (error, {})
    tree = UpstreamTree(_release(tmp_path, "up-2.0", source), ("up",))
    found = unparsed_module(tree, "up.arg_utils.EngineArgs.create_model_config")
    assert found is not None
    assert (found.file, found.syntax_error) == ("up/arg_utils.py", error)
    assert unparsed_module(tree, "up.missing.name") is None
    assert unparsed_module(tree, "other.arg_utils.EngineArgs") is None


def test_lock_says_an_unparsable_module_hides_its_targets(base: Path, cli) -> None:
    # the lock read the method as removed and the marker as added by the plugin
    release = _release(base, "up-2.0", CUT_SHORT)
    root = write_plugin(base, {"plug/patch/p_args.py": PATCH}, pyproject=PYPROJECT)
    lock = base / "patchkeeper.lock"
    run = cli("runtime", "lock", "--at", str(release), "--output", str(lock), "--json", cwd=root)
    assert run.code == 1
    why = (
        f"up/arg_utils.py cannot be parsed at directory {release} ('(' was never closed "
        f"(line 2)): whether it defines the name is unknown; {FIX}"
    )
    result = json.loads(run.out)
    assert (result["target_count"], result["skipped"]) == (0, [])
    assert result["unguarded"] == [
        ["up.arg_utils.EngineArgs._gguf_patched", why],
        ["up.arg_utils.EngineArgs.create_model_config", why],
    ]
