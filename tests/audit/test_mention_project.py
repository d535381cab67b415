"""A changelog line counts for a patch's issue number only when it is about the same
project: a merge request of the project's old forge is not the pull request of the same
number on its new one."""

from __future__ import annotations

from pathlib import Path

from audit_support import judge

from patchkeeper.audit.mentions import (
    find_mentions,
    line_repositories,
    references,
    repository,
    same_project,
)
from patchkeeper.series.parse import parse_patch

CLOSURES_OLD = """static int allocate_closure(struct cif_description *cif)
{
    void *closure;
    closure = ffi_closure_alloc(sizeof(ffi_closure), &cif->code);
    if (closure == NULL)
        return -1;
    cif->closure = closure;
    return 0;
}
"""
# upstream changed the allocation the patch wraps: the hunk no longer applies
CLOSURES_NEW = CLOSURES_OLD.replace(
    "ffi_closure_alloc(sizeof(ffi_closure), &cif->code)", "cffi_closure_alloc(cif, &cif->code)"
)

HEPTAPOD = "https://foss.heptapod.net/pypy/cffi/-/merge_requests/118"
PATCH = f"""Description: Allocate closures without a code pointer on hppa
Author: A Porter <porter@example.org>
Forwarded: {HEPTAPOD}
Last-Update: 2031-02-03

--- a/c/closures.c
+++ b/c/closures.c
@@ -1,9 +1,13 @@
 static int allocate_closure(struct cif_description *cif)
 {{
     void *closure;
+#if defined(__hppa__)
+    closure = ffi_closure_alloc(sizeof(ffi_closure), NULL);
+#else
     closure = ffi_closure_alloc(sizeof(ffi_closure), &cif->code);
+#endif
     if (closure == NULL)
         return -1;
     cif->closure = closure;
     return 0;
 }}
"""

WHATSNEW_OLD = """==========
What's New
==========

v1.15.1
=======

* Raise ``MemoryError`` for a huge ``ffi.new()``.
"""
# the new release's notes name pull request 118 of the project's new forge
WHATSNEW_NEW = WHATSNEW_OLD.replace(
    "v1.15.1\n",
    """v1.17.1
=======

* Fix a crash of closures on some platforms (`#118`_).
* Build with newer compilers (`#115`_).

.. _`#118`: https://github.com/python-cffi/cffi/pull/118
.. _`#115`: https://github.com/python-cffi/cffi/pull/115

v1.15.1
""",
)


def _trees() -> tuple[dict[str, str], dict[str, str]]:
    new = {"c/closures.c": CLOSURES_NEW, "doc/source/whatsnew.rst": WHATSNEW_NEW}
    old = {"c/closures.c": CLOSURES_OLD, "doc/source/whatsnew.rst": WHATSNEW_OLD}
    return new, old


def test_a_number_read_from_a_url_names_its_repository() -> None:
    patch = parse_patch(PATCH.encode(), name="hppa-closures.patch", path=Path("p"))
    assert [(r.value, r.source, r.repository) for r in references(patch)] == [
        ("118", "Forwarded", "foss.heptapod.net/pypy/cffi")
    ]
    assert repository("https://github.com/Python-CFFI/cffi.git/issues/7") == (
        "github.com/python-cffi/cffi"
    )
    assert repository("https://www.example.org/trac/ticket/9") == "example.org/trac"
    assert repository("#118") == ""
    assert same_project("github.com/mitsuhiko/flask", "github.com/pallets/flask")
    assert not same_project("github.com/pallets/flask", "github.com/pallets/werkzeug")
    assert not same_project("foss.heptapod.net/pypy/cffi", "github.com/python-cffi/cffi")
    assert same_project("", "github.com/python-cffi/cffi")


def test_a_changelog_line_names_the_repository_of_its_link() -> None:
    links = {"#118": "https://github.com/python-cffi/cffi/pull/118"}
    assert line_repositories("* Fix it (`#118`_).", "118", links) == {"github.com/python-cffi/cffi"}
    assert line_repositories("* Fix it ([#118]).", "118", links) == {"github.com/python-cffi/cffi"}
    assert line_repositories(
        "* Fix it ([#118](https://gitlab.com/group/sub/cffi/-/merge_requests/118)).", "118", {}
    ) == {"gitlab.com/group/sub/cffi"}
    # a link to another number, or no link at all, names no repository for 118
    other = {"#115": "https://github.com/python-cffi/cffi/pull/115"}
    assert line_repositories("* Fix it (#118, `#115`_).", "118", other) == set()
    assert line_repositories("* Fix it (#118).", "118", links) == set()


def test_a_mention_of_another_projects_number_does_not_count() -> None:
    patch = parse_patch(PATCH.encode(), name="hppa-closures.patch", path=Path("p"))
    refs = references(patch)
    assert find_mentions(refs, {"doc/source/whatsnew.rst": WHATSNEW_NEW}) == {}
    # a line that names no repository is about the project whose notes these are
    plain = WHATSNEW_NEW.replace("(`#118`_)", "(#118)")
    [mention] = find_mentions(refs, {"doc/source/whatsnew.rst": plain})["118"]
    assert (mention.path, mention.line, mention.text) == (
        "doc/source/whatsnew.rst",
        8,
        "* Fix a crash of closures on some platforms (#118).",
    )


def test_a_conflict_named_by_another_forges_number_is_a_port(tmp_path: Path) -> None:
    new, old = _trees()
    [verdict] = judge(tmp_path, new, [("hppa-closures.patch", PATCH)], old)
    assert (verdict.verdict, verdict.action, verdict.rule, verdict.mentions) == (
        "conflict",
        "port",
        "hunks-fail",
        (),
    )
    assert verdict.summary == (
        "c/closures.c #1 fails at fuzz 0 (closest: c/closures.c line 1, 8 of 9 lines match); "
        "0 of 2 substantive added lines already upstream (strongest: c/closures.c 0/2); since "
        "the pin, 1 of the 9 lines of `allocate_closure` (c/closures.c #1) changed, 6 of the "
        "hunk's 7 lines left there; to do: port (rework the failing hunks)"
    )


def test_the_same_projects_number_is_still_a_reason_to_look(tmp_path: Path) -> None:
    new, old = _trees()
    same = PATCH.replace(HEPTAPOD, "https://github.com/python-cffi/cffi/pull/118")
    [verdict] = judge(tmp_path, new, [("hppa-closures.patch", same)], old)
    assert (verdict.verdict, verdict.action, verdict.rule) == (
        "conflict",
        "look",
        "changelog-mention",
    )
    assert [(m.reference, m.path, m.line) for m in verdict.mentions] == [
        ("118", "doc/source/whatsnew.rst", 8),
        ("118", "doc/source/whatsnew.rst", 11),
    ]
