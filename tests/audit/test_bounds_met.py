"""A patch that only relaxes a dependency's cap (the commonest patch a distribution carries
for a newer dependency) is upstream when the new release's own bound goes at least as far,
in every file the patch changes: a requirements file and the sdist's ``PKG-INFO`` read as
PEP 508 requirements, a version constant in the code read as numbers raised in place. The
shape of a real series: ``resolvelib >= 0.5.3, < 0.9.0`` relaxed to ``< 1.1.0`` where the
new release says ``< 2.0.0``."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import judge

from patchkeeper.audit.requirement_bumps import bounds_met
from patchkeeper.series.model import Hunk
from patchkeeper.series.parse import parse_patch

REQUIREMENTS = "jinja2 >= 3.0.0\nresolvelib >= 0.5.3, < {cap}  # dependency resolver\n"
PKG_INFO = (
    "Metadata-Version: 2.1\nName: pkg\nRequires-Dist: jinja2>=3.0.0\n"
    "Requires-Dist: resolvelib<{cap},>=0.5.3\n\nA package.\n"
)
PROVIDERS = (
    "from pkg.version import SemanticVersion\n\n"
    'LOWERBOUND = SemanticVersion("0.5.3")\n'
    'UPPERBOUND = SemanticVersion("{cap}")\n\n\n'
    "def supported(version):\n    return LOWERBOUND <= version < UPPERBOUND\n"
)


def tree(cap: str) -> dict[str, str]:
    """The project with resolvelib capped below ``cap``."""
    return {
        "requirements.txt": REQUIREMENTS.format(cap=cap),
        "PKG-INFO": PKG_INFO.format(cap=cap),
        "pkg/providers.py": PROVIDERS.format(cap=cap),
    }


RELAX = """Description: support resolvelib < 1.1.0
---
--- a/requirements.txt
+++ b/requirements.txt
@@ -1,2 +1,2 @@
 jinja2 >= 3.0.0
-resolvelib >= 0.5.3, < 0.9.0  # dependency resolver
+resolvelib >= 0.5.3, < 1.1.0  # dependency resolver
--- a/PKG-INFO
+++ b/PKG-INFO
@@ -2,5 +2,5 @@
 Name: pkg
 Requires-Dist: jinja2>=3.0.0
-Requires-Dist: resolvelib<0.9.0,>=0.5.3
+Requires-Dist: resolvelib<1.1.0,>=0.5.3
 
 A package.
--- a/pkg/providers.py
+++ b/pkg/providers.py
@@ -1,7 +1,7 @@
 from pkg.version import SemanticVersion
 
 LOWERBOUND = SemanticVersion("0.5.3")
-UPPERBOUND = SemanticVersion("0.9.0")
+UPPERBOUND = SemanticVersion("1.1.0")
 
 
 def supported(version):
"""


def test_a_cap_upstream_relaxed_further_is_upstream(tmp_path: Path) -> None:
    (verdict,) = judge(tmp_path, tree("2.0.0"), [("relax.patch", RELAX)], old=tree("0.9.0"))
    assert (verdict.verdict, verdict.action) == ("upstreamed", "retire")
    assert verdict.rule == "requirement"
    assert [(h.path, h.status, h.how) for h in verdict.hunks] == [
        (
            "requirements.txt",
            "present",
            "the new release moves the same version bounds at least as far",
        ),
        ("PKG-INFO", "present", "the new release moves the same version bounds at least as far"),
        (
            "pkg/providers.py",
            "present",
            "the new release moves the same version bounds at least as far",
        ),
    ]


@pytest.mark.parametrize(
    ("new", "why"),
    [
        pytest.param(tree("1.0.0"), "upstream's cap admits less than the patch's", id="lower-cap"),
    ],
)
def test_a_cap_upstream_did_not_relax_as_far_is_not_upstream(
    tmp_path: Path, new: dict[str, str], why: str
) -> None:
    (verdict,) = judge(tmp_path, new, [("relax.patch", RELAX)], old=tree("0.9.0"))
    assert (verdict.verdict, verdict.action) == ("conflict", "port"), why


def _hunk(removed: str, added: str) -> Hunk:
    text = f"--- a/setup.py\n+++ b/setup.py\n@@ -1,3 +1,3 @@\n deps = [\n-{removed}\n+{added}\n ]\n"
    return parse_patch(text.encode(), name="p.patch", path=Path("p.patch")).files[0].hunks[0]


@pytest.mark.parametrize(
    ("removed", "added", "there", "met"),
    [
        # a floor lowered (a distribution's older dependency) that upstream lowered further
        ("    'pkg>=2.0',", "    'pkg>=1.8',", "    'pkg>=1.5',", True),
        ("    'pkg>=2.0',", "    'pkg>=1.8',", "    'pkg>=1.9',", False),
        # a number raised in place, upstream higher still; lowered numbers never count
        ('MAX = Version("1.4.0")', 'MAX = Version("1.6.0")', 'MAX = Version("2.0.0")', True),
        # the line's other number must stay: upstream moving it is another line
        ('R = ("0.5.3", "0.9.0")', 'R = ("0.5.3", "1.1.0")', 'R = ("0.8.0", "2.0.0")', False),
        ('MAX = Version("1.6.0")', 'MAX = Version("1.4.0")', 'MAX = Version("1.0.0")', False),
        # a number that is no version: no words of a version around it, one dot
        ("timeout = 0.5", "timeout = 1.5", "timeout = 2.5", False),
    ],
)
def test_bounds_met_compares_versions_not_text(
    removed: str, added: str, there: str, met: bool
) -> None:
    hunk = _hunk(removed, added)
    lines = [b"deps = [\n", there.encode() + b"\n", b"]\n"]
    assert bounds_met(lines, hunk) is met
