"""The environment probe, run by :mod:`patchkeeper.record.import_origins` in the audited
interpreter.

Run as ``python -c <this file's source> MODE [PACKAGE]`` in a fresh process (so the current
directory, not patchkeeper's package, is first on ``sys.path``, as for any ``python -c`` the
user starts there). Standard library only: it runs in the audited environment, which need
not have patchkeeper. Prints one line, ``PATCHKEEPER-ENV {json}``.

- ``interpreter``: the executable, version, ``sys.prefix``/``sys.base_prefix`` (a virtual
  environment when they differ, PEP 405), ``PYTHONPATH``, the platform, and the accelerator
  device files present (``/dev/nvidia*``, ``/dev/kfd``, ``/dev/davinci*``).
- ``package NAME``: where ``import NAME`` really comes from: ``find_spec`` before the import,
  ``__file__``/``__path__`` after it, the distributions that provide it
  (``importlib.metadata``), and the extension modules the import loaded (modules new in
  ``sys.modules`` whose file ends in an extension suffix). An import error is reported, not
  raised. The runtime audit workflow, step 6: "record package ``__file__``/``__path__``, relevant
  extension-module paths, and the active plugin origin".
"""

from __future__ import annotations

import glob
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import json
import os
import platform
import sys
from typing import Any

MARKER = "PATCHKEEPER-ENV "
DEVICE_PATTERNS = ("/dev/nvidia[0-9]*", "/dev/kfd", "/dev/davinci[0-9]*")


def interpreter() -> dict[str, Any]:
    return {
        "executable": sys.executable,
        "version": platform.python_version(),
        "implementation": sys.implementation.name,
        "prefix": sys.prefix,
        "base_prefix": sys.base_prefix,
        "virtual_env": sys.prefix != sys.base_prefix,
        "pythonpath": os.environ.get("PYTHONPATH", ""),
        "platform": f"{sys.platform}-{platform.machine()}",
        "accelerators": sorted(p for pattern in DEVICE_PATTERNS for p in glob.glob(pattern)),
    }


def distributions(name: str) -> list[dict[str, str]]:
    try:
        mapping = importlib.metadata.packages_distributions()
    except AttributeError:  # Python < 3.10
        mapping = {}
    wanted = set(mapping.get(name, ()))
    out, seen = [], set()
    for dist in importlib.metadata.distributions():  # every copy on sys.path, in order
        if dist.metadata["Name"] not in wanted:
            continue
        info = os.path.abspath(str(getattr(dist, "_path", "")))
        if info in seen:
            continue
        seen.add(info)
        out.append(
            {
                "name": dist.metadata["Name"],
                "version": dist.version,
                "location": os.path.abspath(str(dist.locate_file(""))),
                "dist_info": info,
            }
        )
    return out


def package(name: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "package": name,
        "spec_origin": None,
        "file": None,
        "path": [],
        "version": None,
    }
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as exc:
        spec, out["error"] = None, f"{type(exc).__name__}: {exc}"
    if spec is not None:
        out["spec_origin"] = spec.origin
    out["distributions"] = distributions(name)
    before = set(sys.modules)
    try:
        module = importlib.import_module(name)
    except BaseException as exc:  # an import may raise anything, even SystemExit
        out["error"] = f"{type(exc).__name__}: {exc}"[:500]
        module = None
    if module is not None:
        out["file"] = getattr(module, "__file__", None)
        out["path"] = [str(p) for p in getattr(module, "__path__", [])]
        version = getattr(module, "__version__", None)
        out["version"] = version if isinstance(version, str) else None
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    extensions = []
    for mod_name in sorted(set(sys.modules) - before):
        file = getattr(sys.modules.get(mod_name), "__file__", None)
        if isinstance(file, str) and file.endswith(suffixes):
            extensions.append({"module": mod_name, "file": file})
    out["extensions"] = extensions
    return out


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "interpreter"
    data = package(sys.argv[2]) if mode == "package" else interpreter()
    sys.stdout.write(MARKER + json.dumps(data, sort_keys=True) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
