"""A patch of a name an upstream module imports from another library.

In the shape of a plugin that swaps a kernel helper where an upstream module reads it:
``fup.metrics.logits`` does ``from tlib.helpers import libdevice`` (another library, as
vLLM's logits metrics import torch's ``libdevice``), and the plugin sets
``fup.metrics.logits.libdevice`` to its own, plain and through a wrapper that calls the
original (``fast_exp``). The name is that library's object, reached through the upstream
module: it is outside the audited upstream (*retain*, this upgrade does not change it;
before: "in neither release", a typo or a future name: *retain* for the assignment, which
would add the name, *look* for the wrapper). When the new release no longer imports the
name into that module (``fup.metrics.norms`` drops ``from tlib.helpers import rsqrt``), the
patch sets a name that module no longer reads: *look*, with that reason (before: *look*, "in
neither release: a typo or a future name").
The upstream releases and the plugin are written by the test."""

from __future__ import annotations

from pathlib import Path

from plugin_trees import pyproject

from helpers import write_files
from patchkeeper.config import load_config
from patchkeeper.runtime.judge import runtime_audit as audit

LOGITS = (
    "from tlib.helpers import fast_exp, libdevice\n\n\n"
    "def count_nans(x):\n    return libdevice.isnan(x)\n"
)
NORMS_OLD = "from tlib.helpers import rsqrt\n\n\ndef norm(x):\n    return rsqrt(x)\n"
NORMS_NEW = "def norm(x):\n    return x ** -0.5\n"

PATCH = """import fup.metrics.logits as logits
import fup.metrics.norms as norms

from mplug import kernels

logits.libdevice = kernels.libdevice
_orig_exp = logits.fast_exp


def fast_exp(x):
    return _orig_exp(x)


logits.fast_exp = fast_exp
_orig_rsqrt = norms.rsqrt


def rsqrt(x):
    return _orig_rsqrt(x)


norms.rsqrt = rsqrt
"""


def test_a_name_imported_from_another_library_is_that_librarys(tmp_path: Path) -> None:
    old, new = tmp_path / "fup-1.0", tmp_path / "fup-1.1"
    common = {"fup/__init__.py": "", "fup/metrics/__init__.py": "", "fup/metrics/logits.py": LOGITS}
    write_files(
        old,
        {
            **common,
            "pyproject.toml": '[project]\nname = "fup"\nversion = "1.0"\n',
            "fup/metrics/norms.py": NORMS_OLD,
        },
    )
    write_files(
        new,
        {
            **common,
            "pyproject.toml": '[project]\nname = "fup"\nversion = "1.1"\n',
            "fup/metrics/norms.py": NORMS_NEW,
        },
    )
    plugin = write_files(
        tmp_path / "mplug",
        {
            "pyproject.toml": pyproject(
                "mplug", {"mplug": "mplug:register"}, group="fup.plugins", upstream="fup"
            ),
            "mplug/__init__.py": "def register():\n    from mplug.patch import metrics  # noqa\n",
            "mplug/kernels.py": "libdevice = object()\n",
            "mplug/patch/__init__.py": "",
            "mplug/patch/metrics.py": PATCH,
        },
    )
    result = audit.audit_runtime(load_config(plugin / "pyproject.toml"), old=str(old), new=str(new))
    found = [(a.entry.target, a.drift.decision, a.drift.evidence) for a in result.entries]
    assert found == [
        (
            "fup.metrics.logits.libdevice",
            "retain",
            (
                "fup.metrics.logits.libdevice is not part of the upstream being upgraded: "
                "this upgrade does not change it (fup.metrics.logits.libdevice is imported from "
                "tlib.helpers.libdevice)",
            ),
        ),
        (
            "fup.metrics.logits.fast_exp",
            "retain",
            (
                "fup.metrics.logits.fast_exp is not part of the upstream being upgraded: "
                "this upgrade does not change it (fup.metrics.logits.fast_exp is imported from "
                "tlib.helpers.fast_exp)",
            ),
        ),
        (
            "fup.metrics.norms.rsqrt",
            "look",
            (
                "fup.metrics.norms.rsqrt: at the old release fup.metrics.norms.rsqrt is "
                "imported from tlib.helpers.rsqrt, another library's object; the new release "
                "no longer binds it in fup.metrics.norms, so the patch sets a name that "
                "module no longer reads",
                "fup.metrics.norms.rsqrt is not at that path in either release; no definition "
                "of the name anywhere in the new upstream",
            ),
        ),
    ]
    assert [(a.old.status, a.new.status) for a in result.entries] == [
        ("outside", "outside"),
        ("outside", "outside"),
        ("outside", "removed"),
    ]
    assert [a.entry.mechanism.value for a in result.entries] == ["assignment", "wrapper", "wrapper"]
