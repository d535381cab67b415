"""A plugin ``cplug`` and two releases of an upstream ``cup``, written by the tests of what
``runtime port`` claims (``test_runtime_port_claims.py``). Each patch file shows one case:

- ``patch_wrapper.py``: a wrapper that calls the original ``cup.ops.shift``, whose signature
  changed (never a copy to merge upstream's body into);
- ``patch_behind.py``: a copy of ``cup.ops.scale`` (upstream unchanged) that lacks an
  earlier upstream change outside its Modification banners;
- ``patch_norm.py``: a copy of ``cup.ops.norm`` (upstream changed) that merges clean but
  also lacks an earlier upstream change: clean but behind;
- ``patch_clean.py``: a copy of ``cup.ops.mean`` that merges clean, nothing else: the only
  file marked ``Reviewed against 2.0.``;
- ``patch_conflict.py``: a copy of ``cup.ops.total`` whose merge conflicts;
- ``patch_dormant.py``: a copy no import reaches (never imported);
- ``patch_moved.py``: ``import cup.kernels`` + ``cup.kernels.fast = fast`` while 2.0 moved
  ``fast`` to ``cup.fastk``; and a helper import ``from cup.util import clamp, legacy``
  whose names 2.0 moved (``clamp`` to ``cup.helpers``) and dropped (``legacy``);
- :data:`ALIAS` (used alone): ``from cup.util import Batch``, a name 1.0's ``cup.util`` only
  imported (``from cup.batch import InputBatch as Batch``) and 2.0's dropped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write_files

OPS_OLD = """def shift(x, by):
    return x + by


def scale(x, f):
    y = x * f
    return y.round(2)


def norm(x):
    s = sum(x)
    t = abs(s) + 0
    k = 1
    u = t * k
    return u


def mean(x):
    n = len(x)
    s = sum(x)
    return s / n


def total(x):
    t = 0
    for v in x:
        t += v
    return t
"""

OPS_NEW = """def shift(x, by, inplace=False):
    return x + by


def scale(x, f):
    y = x * f
    return y.round(2)


def norm(x):
    s = sum(x)
    t = abs(s) + 0
    k = 1
    u = float(t * k)
    return u


def mean(x):
    n = max(len(x), 1)
    s = sum(x)
    return s / n


def total(x):
    t = 0
    for v in x:
        t += v * 2
    return t
"""

HEADER = "# Note: n\n# Affected versions: cup 1.0\n# Remove at: 3.0\n"


def copy_patch(target: str, definition: str, imports: str = "import cup.ops") -> str:
    """A patch file: :data:`HEADER`, ``imports``, ``definition`` (the text of one
    function, ending in a newline) and the assignment of that function to ``target`` (a
    dotted upstream name whose last part is the function's name), two blank lines apart."""
    name = target.rsplit(".", 1)[1]
    return f"{HEADER}{imports}\n\n\n{definition}\n\n{target} = {name}\n"


WRAPPER = (
    HEADER
    + """import cup.ops

_orig_shift = cup.ops.shift


def shift(x, by):
    x = list(x)
    return _orig_shift(x, by)


cup.ops.shift = shift
"""
)

BEHIND = copy_patch(
    "cup.ops.scale",
    """def scale(x, f):
    y = x * f
    # /------ Modification ------\\
    y = y.npu()
    # \\---------------------------/
    return y
""",
)

NORM = copy_patch(
    "cup.ops.norm",
    """def norm(x):
    s = sum(x)
    # /------ Modification ------\\
    s = s.npu()
    # \\---------------------------/
    t = abs(s)
    k = 1
    u = t * k
    return u
""",
)

CLEAN = copy_patch(
    "cup.ops.mean",
    """def mean(x):
    n = len(x)
    s = sum(x)
    # /------ Modification ------\\
    s = s.npu()
    # \\---------------------------/
    return s / n
""",
)

CONFLICT = copy_patch(
    "cup.ops.total",
    """def total(x):
    t = 0
    for v in x:
        t += v
        # /------ Modification ------\\
        t = t.npu()
        # \\---------------------------/
    return t
""",
)

DORMANT = copy_patch(
    "cup.ops.mean",
    """def mean(x):
    n = len(x) + 0
    return sum(x) / n
""",
)

MOVED = copy_patch(
    "cup.kernels.fast",
    """def fast(x):
    return clamp(legacy(x))
""",
    imports="import cup.kernels\nfrom cup.util import clamp, legacy",
)

KERNELS = "def fast(x):\n    return x\n"
UTIL_OLD = (
    "from cup.batch import InputBatch as Batch\n\n\n"
    "def clamp(x):\n    return x\n\n\ndef legacy(x):\n    return x\n"
)
BATCH = "class InputBatch:\n    pass\n"

#: Not in :data:`PATCHES`: imports ``Batch``, which 1.0's ``cup.util`` only imported from
#: ``cup.batch`` (as ``InputBatch``) and 2.0's no longer has.
ALIAS = copy_patch(
    "cup.ops.mean",
    """def mean(x):
    n = max(len(x), 1)
    s = sum(x)
    return Batch(s / n)
""",
    imports="import cup.ops\nfrom cup.util import Batch",
)

PYPROJECT = """[project]
name = "cplug"
version = "0.1"

[project.entry-points."cup.general_plugins"]
cplug = "cplug:register"

[tool.patchkeeper]
upstream = "cup"

[tool.patchkeeper.runtime]
package = "cplug"
entry-point-groups = ["cup.general_plugins"]
upstream-packages = ["cup"]
"""

PATCHES = {
    "patch_wrapper.py": WRAPPER,
    "patch_behind.py": BEHIND,
    "patch_norm.py": NORM,
    "patch_clean.py": CLEAN,
    "patch_conflict.py": CONFLICT,
    "patch_dormant.py": DORMANT,
    "patch_moved.py": MOVED,
}

RELEASES = {
    "1.0": {
        "cup/ops.py": OPS_OLD,
        "cup/kernels.py": KERNELS,
        "cup/util.py": UTIL_OLD,
        "cup/batch.py": BATCH,
    },
    "2.0": {
        "cup/ops.py": OPS_NEW,
        "cup/fastk.py": KERNELS,
        "cup/util.py": "",
        "cup/helpers.py": "def clamp(x):\n    return x\n",
        "cup/batch.py": BATCH,
    },
}


def make(
    base: Path,
    monkeypatch: pytest.MonkeyPatch,
    patches: dict[str, str],
    releases: dict[str, dict[str, str]] = RELEASES,
) -> Path:
    """The plugin (``base/plugin``, every patch file of ``patches`` imported by
    ``register()`` except ``patch_dormant``) and one upstream tree ``base/cup-VERSION`` per
    entry of ``releases`` (version -> files beside its ``pyproject.toml`` and
    ``cup/__init__.py``; by default 1.0 and 2.0 of :data:`RELEASES`), with a private cache;
    returns ``base``."""
    monkeypatch.setenv("PATCHKEEPER_CACHE", str(base / "cache"))
    for version, files in releases.items():
        meta = {
            "pyproject.toml": f'[project]\nname = "cup"\nversion = "{version}"\n',
            "cup/__init__.py": "",
        }
        write_files(base / f"cup-{version}", {**meta, **files})
    imports = "".join(
        f"    import cplug.patch.{Path(name).stem}  # noqa: F401\n"
        for name in sorted(patches)
        if name != "patch_dormant.py"
    )
    files = {
        "pyproject.toml": PYPROJECT,
        "cplug/__init__.py": "def register():\n" + (imports or "    pass\n"),
        "cplug/patch/__init__.py": "",
    }
    files.update({f"cplug/patch/{name}": text for name, text in patches.items()})
    write_files(base / "plugin", files)
    return base
