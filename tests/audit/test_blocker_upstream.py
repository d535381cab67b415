"""A patch *blocked* by a patch the upgrade horizon finds upstream (*upstreamed* at that
release, or taken at an earlier one and rewritten since) is not blocked by it (the shape of
Debian's xmltodict series: 0001 adds a name check, 0002 tightens the lines 0001 adds; xmltodict
took both, then rewrote the check). When upstream took the blocked patch too, it is
*upstreamed*; otherwise it is a *conflict* to port onto upstream's lines. Either way the
release can be the next pin when nothing else blocks it."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge_horizon

from patchkeeper.audit.horizon import ReleaseVerdicts, next_pin

HEAD = '''def _validate_name(name):
    """Reject a name that is not a valid XML name."""
    if not name:
        raise ValueError("empty name")
'''
TAIL = """    return name


def unparse(mapping):
    return "".join(_validate_name(key) for key in mapping)
"""
PIN = HEAD + TAIL
WITH_0001 = (
    HEAD
    + """    if "<" in name or ">" in name:
        raise ValueError("invalid XML name")
"""
    + TAIL
)
WITH_BOTH = WITH_0001.replace(
    'if "<" in name or ">" in name:', 'if any(c in name for c in "<>/ "):'
)
#: upstream rewrote the check, and the lines around it, its own way
REWRITTEN = '''def _validate_name(name):
    """Reject a name that is not a valid XML name."""
    if not name or _INVALID_NAME.search(name):
        raise ValueError(f"invalid XML name: {name!r}")
    return str(name)


def unparse(mapping):
    return "".join(_validate_name(key) for key in mapping)
'''

PATCH_0001 = """--- a/xmltodict.py
+++ b/xmltodict.py
@@ -2,5 +2,7 @@ def _validate_name(name):
     \"\"\"Reject a name that is not a valid XML name.\"\"\"
     if not name:
         raise ValueError("empty name")
+    if "<" in name or ">" in name:
+        raise ValueError("invalid XML name")
     return name
 
 
"""
PATCH_0002 = """--- a/xmltodict.py
+++ b/xmltodict.py
@@ -3,7 +3,7 @@ def _validate_name(name):
     if not name:
         raise ValueError("empty name")
-    if "<" in name or ">" in name:
+    if any(c in name for c in "<>/ "):
         raise ValueError("invalid XML name")
     return name
 
 
"""


def horizon(tmp_path: Path, releases: list[tuple[str, str]]) -> list[ReleaseVerdicts]:
    """The two patches judged at each (version, text of xmltodict.py), oldest first, with
    what upstream took earlier carried forward."""
    return judge_horizon(
        tmp_path,
        "xmltodict.py",
        PIN,
        [("0001-names.patch", PATCH_0001), ("0002-stricter.patch", PATCH_0002)],
        releases,
    )


def test_a_patch_upstream_took_is_upstreamed_when_its_blocker_is(tmp_path: Path) -> None:
    releases = horizon(tmp_path, [("1.0.0", WITH_BOTH), ("1.0.1", REWRITTEN)])
    assert [(v.verdict, v.action) for v in releases[1].verdicts] == [
        ("upstreamed", "retire"),
        ("upstreamed", "retire"),
    ]
    assert [v.blocked_by for v in releases[1].verdicts] == [None, None]
    assert [v.rule for v in releases[1].verdicts] == ["taken-earlier", "taken-earlier"]
    assert releases[1].verdicts[1].summary == (
        "upstream took it in 1.0.0 and has rewritten its lines since: it needs lines of "
        "0001-names.patch, which upstream rewrote too; to do: retire (after checking that upstream's changes since keep its fix)"
    )
    assert next_pin(releases) == "1.0.1"


def test_a_patch_not_upstream_needs_porting_onto_upstreams_lines(tmp_path: Path) -> None:
    releases = horizon(tmp_path, [("1.0.0", WITH_0001), ("1.0.1", REWRITTEN)])
    assert [v.verdict for v in releases[0].verdicts] == ["upstreamed", "clean"]
    later = releases[1].verdicts
    assert [v.rule for v in later] == ["taken-earlier", "blocker-upstream"]
    assert [(v.verdict, v.action, v.blocked_by) for v in later] == [
        ("upstreamed", "retire", None),
        ("conflict", "port", None),
    ]
    assert later[1].summary == (
        "it needs lines of 0001-names.patch, which upstream has (written its own way): port "
        "it onto upstream's lines; to do: port (rework the failing hunks)"
    )
    assert next_pin(releases) == "1.0.0"
