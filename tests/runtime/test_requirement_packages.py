"""A plugin that patches another library than vLLM (an instrumentation that wraps an HTTP
client's ``Session.send``), audited between two pins of that library with no
``upstream-packages`` configured: the packages audited are that library's own, read from
its release (the ``top_level.txt`` of its sdist, else the package named as the project is
imported), and a warning says which. It was refused: the pins "hold no vllm package". The
library's releases are written by the test in the shape of an HTTP client's sdist."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import LocalIndex, write_files

PYPROJECT = """[project]
name = "tinyhttp-instrumentation"
version = "0.1.0"

[tool.patchkeeper.runtime]
package = "tinyhttp_instrumentation"
patch-directory = "tinyhttp_instrumentation"
"""

PATCH = """# Note: time every request the session sends.
# Affected versions: 2.0
# Remove at: never
from tinyhttp import sessions


def instrument():
    wrapped = sessions.Session.send

    def send(self, request, **kwargs):
        return wrapped(self, request, **kwargs)

    sessions.Session.send = send
"""

SESSIONS = """class Session:
    def send(self, request, **kwargs):
        return request
"""

SENT_STREAM = """class Session:
    def send(self, request, stream=False, **kwargs):
        return request
"""


def _publish(index: LocalIndex, project: str, listed: str | None) -> None:
    """Two releases of ``project`` whose package is ``tinyhttp``; ``listed``: the
    ``top_level.txt`` of their ``.egg-info`` (``None``: none)."""
    for version, sessions in (("2.0", SESSIONS), ("2.1", SENT_STREAM)):
        files = {
            "tinyhttp/__init__.py": b"",
            "tinyhttp/sessions.py": sessions.encode(),
            "tests/__init__.py": b"",
        }
        if listed is not None:
            files[f"{project.replace('-', '_')}.egg-info/top_level.txt"] = listed.encode()
        index.publish_sdist(project, version, files)


def _plugin(root: Path) -> Path:
    return write_files(
        root / "plugin",
        {
            "pyproject.toml": PYPROJECT,
            "tinyhttp_instrumentation/__init__.py": "",
            "tinyhttp_instrumentation/sessions.py": PATCH,
        },
    )


def test_the_packages_of_the_pinned_library_are_audited(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    _publish(local_index, "tiny-http-client", "tinyhttp\n")
    plugin = _plugin(tmp_path)

    run = cli(
        "runtime", "audit", "--from", "tiny-http-client==2.0", "--to", "tiny-http-client==2.1",
        "--json", cwd=plugin,
    )  # fmt: skip

    envelope = json.loads(run.out)
    assert (run.code, envelope["warnings"]) == (
        1,
        [
            "upstream-packages is not set: the packages audited are those of "
            "tiny-http-client (tinyhttp, read from tiny-http-client==2.0); set "
            "upstream-packages of [runtime] in the configuration to audit others"
        ],
    )
    assert [
        (
            e["entry"]["target"],
            e["entry"]["mechanism"],
            e["drift"]["decision"],
            *e["drift"]["upstream_changes"],
        )
        for e in envelope["entries"]
    ] == [
        (
            "tinyhttp.sessions.Session.send",
            "wrapper",
            "look",
            "signature: (self, request, **kwargs) -> (self, request, stream=False, **kwargs)",
            "body",
        )
    ]


def test_without_top_level_the_package_named_as_the_project_is_audited(
    cli, tmp_path: Path, local_index: LocalIndex
) -> None:
    # no .egg-info in the sdist: the package imported as the project is named; a
    # configured upstream-packages is kept, and a tree without it refused as before
    _publish(local_index, "tinyhttp", None)
    plugin = _plugin(tmp_path)

    run = cli("runtime", "audit", "--from", "TinyHTTP==2.0", "--to", "TinyHTTP==2.1", cwd=plugin)
    (plugin / "pyproject.toml").write_text(
        PYPROJECT + 'upstream-packages = ["vllm"]\n', encoding="utf-8"
    )
    kept = cli("runtime", "audit", "--from", "TinyHTTP==2.0", "--to", "TinyHTTP==2.1", cwd=plugin)

    assert (run.code, run.err.splitlines()[0]) == (
        1,
        "patchkeeper: warning: upstream-packages is not set: the packages audited are those "
        "of TinyHTTP (tinyhttp, read from TinyHTTP==2.0); set upstream-packages of [runtime] "
        "in the configuration to audit others",
    )
    assert (kept.code, kept.out, kept.err.splitlines()[0]) == (
        2,
        "",
        "patchkeeper: error: the old upstream (--from) TinyHTTP==2.0 holds no vllm package "
        "(its packages: tests, tinyhttp)",
    )
