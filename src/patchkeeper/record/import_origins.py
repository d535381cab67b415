"""The audited interpreter and the effective import origins, measured in fresh processes.

Part of the environment correspondence table (:mod:`patchkeeper.record.environment`; the runtime
audit workflow, step 7: "interpreter/venv", "effective import origins"). Each measurement runs
:mod:`patchkeeper.record.envprobe` in the audited interpreter, started in the downstream directory,
with a timeout and no network; the probe prints one JSON line after :data:`MARKER`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.errors import TargetError
from patchkeeper.system import probes
from patchkeeper.system.probes import ProbeWords, answer_after

MARKER = "PATCHKEEPER-ENV "
#: Proxies pointed at a closed local port: the probe's imports cannot reach a network.
NO_NETWORK = {
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9",
    "https_proxy": "http://127.0.0.1:9",
    "NO_PROXY": "",
    "no_proxy": "",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
}


@dataclass(frozen=True)
class ExtensionModule:
    """An extension module an import loaded: its name and file."""

    module: str
    file: str


@dataclass(frozen=True)
class ImportOrigin:
    """Where ``import package`` comes from in a fresh process.

    Attributes:
        package: the import name.
        spec_origin: where ``find_spec`` locates it before importing (``None``: nowhere).
        file: the module's ``__file__`` (``None``: not imported, or a namespace package).
        path: its ``__path__``.
        distributions: ``"name version"`` of the distributions providing it.
        inside: whether ``file`` lies in the providing distribution's location (``None``
            when there is no file or no distribution).
        extensions: the extension modules the import loaded.
        error: the import error, ``""`` when it imported.
    """

    package: str
    spec_origin: str | None
    file: str | None
    path: tuple[str, ...]
    distributions: tuple[str, ...]
    inside: bool | None
    extensions: tuple[ExtensionModule, ...]
    error: str = ""


@dataclass(frozen=True)
class Interpreter:
    """The audited interpreter, as it reports itself."""

    executable: str
    version: str
    implementation: str
    prefix: str
    base_prefix: str
    virtual_env: bool
    pythonpath: str
    platform: str
    accelerators: tuple[str, ...]


def run_probe(python: Path, args: list[str], cwd: Path, timeout: float) -> dict[str, Any]:
    """Run :mod:`patchkeeper.record.envprobe` in ``python`` and return its JSON.

    Raises:
        TargetError: the interpreter does not run, times out, or prints no result.
    """
    source = Path(__file__).with_name("envprobe.py").read_text(encoding="utf-8")
    words = ProbeWords(
        run_hint="give --python (or [tool.patchkeeper.report] python) a Python executable",
        too_slow=f"the environment probe ({' '.join(args)}) took more than {{timeout:g}} s",
        too_slow_hint="raise import-timeout in [tool.patchkeeper.report]",
    )
    env = {**os.environ, **NO_NETWORK}
    command = ["-c", source, *args]
    done = probes.run_probe(python, command, words, timeout=timeout, cwd=cwd, env=env)
    answer = answer_after(done.stdout, MARKER)
    if answer is None:
        raise probes.probe_failed(
            done, python, "the environment probe printed no result", words.run_hint
        )
    return dict(answer)


def probe_interpreter(python: Path, cwd: Path, timeout: float) -> Interpreter:
    """The interpreter's own description (see :mod:`patchkeeper.record.envprobe`)."""
    data = run_probe(python, ["interpreter"], cwd, timeout)
    data["accelerators"] = tuple(data.get("accelerators", ()))
    return Interpreter(**data)


def probe_package(
    python: Path, package: str, cwd: Path, timeout: float
) -> tuple[ImportOrigin, list[dict[str, str]]]:
    """Import ``package`` in a fresh process; return its origin and providing distributions.

    A timeout is recorded as the origin's error, not raised: it is a finding about the
    environment.
    """
    try:
        data = run_probe(python, ["package", package], cwd, timeout)
    except TargetError as exc:
        if "took more than" not in exc.message:
            raise
        return ImportOrigin(package, None, None, (), (), None, (), exc.message), []
    dists = list(data.get("distributions", []))
    file = data.get("file")
    inside = None
    if file and dists:
        inside = any(Path(file).is_relative_to(Path(d["location"])) for d in dists)
    origin = ImportOrigin(
        package=package,
        spec_origin=data.get("spec_origin"),
        file=file,
        path=tuple(data.get("path", ())),
        distributions=tuple(f"{d['name']} {d['version']}" for d in dists),
        inside=inside,
        extensions=tuple(ExtensionModule(e["module"], e["file"]) for e in data["extensions"]),
        error=data.get("error", ""),
    )
    return origin, dists
