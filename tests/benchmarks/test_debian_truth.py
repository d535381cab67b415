"""The miner's truth derivation (``benchmarks/debian_truth.py``) on small written fixtures.

The fixtures have the shape of real ``debian/changelog`` entries, DEP-3 headers and quilt
patches; no network, no cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark_scripts import load

truth = load("debian_truth")

CHANGELOG = """\
python-foo (2.1.0-1) unstable; urgency=medium

  [ Jane Maintainer ]
  * New upstream release.
  * Drop patches applied upstream:
    - 0002-fix-timeout.patch
    - 0003-py313-compat.patch
  * Refresh 0001-use-system-six.patch.
  * Remove skip-network-tests.patch, no longer needed since the tests
    were rewritten upstream to use a local server.

 -- Jane Maintainer <jane@example.org>  Mon, 03 Feb 2025 10:00:00 +0100

python-foo (2.0.1-2) unstable; urgency=medium

  * CVE-2024-1234: Applied upstream patch: validate the header length
    (Closes: #1050000).

 -- Jane Maintainer <jane@example.org>  Sun, 01 Dec 2024 10:00:00 +0100

python-foo (2.0.1-1) unstable; urgency=medium

  * d/patches/fix-docs-build.patch: merged upstream, dropped.

 -- Jane Maintainer <jane@example.org>  Sun, 01 Sep 2024 10:00:00 +0100
"""

PATCH = """\
From: Jane Maintainer <jane@example.org>
Date: Mon, 3 Feb 2025 10:00:00 +0100
Subject: Fix the timeout
 of the client
Origin: upstream, https://github.com/foo/foo/commit/0123456789abcdef0123
Forwarded: not-needed
---
 foo/client.py | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/foo/client.py b/foo/client.py
index 1111111..2222222 100644
--- a/foo/client.py
+++ b/foo/client.py
@@ -10,7 +10,7 @@ class Client:
     def __init__(self):
         self.url = None
         self.retries = 3
-        self.timeout = 0
+        self.timeout = 30
         self.verify = True
         self.proxies = {}
         self.headers = {}
"""


#: :data:`PATCH` without its ``Origin: upstream`` line: no header line says upstream has it.
PLAIN = PATCH.replace(
    "Origin: upstream, https://github.com/foo/foo/commit/0123456789abcdef0123\n", ""
)
#: :data:`PATCH` with its added line rewritten.
REWRITTEN = PATCH.replace("self.timeout = 30", "self.timeout = 60")
#: The outcome of :data:`PATCH` dropped with nothing else to say: its header's ``Origin``.
BY_HEADER = truth.Outcome(
    "upstreamed",
    "",
    "Origin: upstream, https://github.com/foo/foo/commit/0123456789abcdef0123",
    "dropped; its DEP-3 header says upstream has it",
)


def refreshed(patch: str) -> str:
    """``patch`` with its hunk moved by 5 lines and one context line changed (a refresh)."""
    return patch.replace("@@ -10,7 +10,7 @@", "@@ -15,7 +15,7 @@").replace(
        "self.proxies = {}", "self.proxies = None"
    )


def test_changelog_entries_and_items() -> None:
    entries = truth.parse_changelog(CHANGELOG)
    assert [entry.version for entry in entries] == ["2.1.0-1", "2.0.1-2", "2.0.1-1"]
    assert entries[0].items == (
        "New upstream release.",
        "Drop patches applied upstream:\n- 0002-fix-timeout.patch\n- 0003-py313-compat.patch",
        "Refresh 0001-use-system-six.patch.",
        "Remove skip-network-tests.patch, no longer needed since the tests were rewritten "
        "upstream to use a local server.",
    )
    assert entries[1].items == (
        "CVE-2024-1234: Applied upstream patch: validate the header length (Closes: #1050000).",
    )


def test_entries_between_two_versions_exclude_the_older() -> None:
    entries = truth.parse_changelog(CHANGELOG)
    between = truth.entries_between(entries, "2.0.1-1", "2.1.0-1")
    assert [entry.version for entry in between] == ["2.1.0-1", "2.0.1-2"]
    stable_update = truth.entries_between(entries, "2.0.1-1+deb12u1", "2.1.0-1")
    assert [entry.version for entry in stable_update] == ["2.1.0-1", "2.0.1-2"]


def test_changelog_says_upstream_for_a_named_dropped_patch() -> None:
    entries = truth.parse_changelog(CHANGELOG)
    assert truth.changelog_says(entries, "0003-py313-compat.patch") == (
        "upstreamed",
        "debian/changelog 2.1.0-1: Drop patches applied upstream: - 0003-py313-compat.patch",
    )
    assert truth.changelog_says(entries, "fix-docs-build.patch") == (
        "upstreamed",
        "debian/changelog 2.0.1-1: d/patches/fix-docs-build.patch: merged upstream, dropped.",
    )


def test_each_sub_bullet_keeps_its_own_reason() -> None:
    entries = truth.parse_changelog(
        "sphinx (7.0.1-1) unstable; urgency=medium\n\n"
        "  * Drop patches:\n"
        "    - disable_js_version_check.diff (no longer needed)\n"
        "    - pygments_2.14.diff (included in the new release)\n\n"
        " -- J <j@example.org>  Mon, 03 Feb 2025 10:00:00 +0100\n"
    )
    assert entries[0].items == (
        "Drop patches:\n- disable_js_version_check.diff (no longer needed)"
        "\n- pygments_2.14.diff (included in the new release)",
    )
    assert truth.changelog_says(entries, "pygments_2.14.diff") == (
        "upstreamed",
        "debian/changelog 7.0.1-1: pygments_2.14.diff (included in the new release)",
    )
    assert truth.changelog_says(entries, "disable_js_version_check.diff") == (
        "other",
        "debian/changelog 7.0.1-1: disable_js_version_check.diff (no longer needed)",
    )


def test_changelog_other_reasons_are_not_upstream() -> None:
    entries = truth.parse_changelog(CHANGELOG)
    # "rewritten upstream" is no statement that upstream has the patch: another reason.
    assert truth.changelog_says(entries, "skip-network-tests.patch") == (
        "other",
        "debian/changelog 2.1.0-1: Remove skip-network-tests.patch, no longer needed since "
        "the tests were rewritten upstream to use a local server.",
    )
    # a patch taken from upstream ("Applied upstream patch") is where it came from
    assert truth.changelog_says(entries, "CVE-2024-1234.patch") is None
    assert truth.changelog_says(entries, "typos.patch") is None


def test_name_forms_keep_only_specific_stems() -> None:
    assert truth.name_forms("debian/fix-timeout.patch") == [
        "debian/fix-timeout.patch",
        "fix-timeout.patch",
        "fix-timeout",
    ]
    assert truth.name_forms("typos.diff") == ["typos.diff"]
    assert truth.names("Drop 0002-fix-timeout, applied upstream", "0002-fix-timeout.patch")
    assert not truth.names("Refresh 0002-fix-timeout-v2.patch", "0002-fix-timeout.patch")


def test_dep3_header_fields() -> None:
    assert truth.header_lines(PATCH) == [
        "From: Jane Maintainer <jane@example.org>",
        "Date: Mon, 3 Feb 2025 10:00:00 +0100",
        "Subject: Fix the timeout of the client",
        "Origin: upstream, https://github.com/foo/foo/commit/0123456789abcdef0123",
        "Forwarded: not-needed",
    ]
    assert truth.header_says(PATCH, "2.1.0") == (
        "upstreamed",
        "Origin: upstream, https://github.com/foo/foo/commit/0123456789abcdef0123",
    )


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Applied-Upstream: 2.1.0", ("upstreamed", "Applied-Upstream: 2.1.0")),
        (
            "Applied-Upstream: v2.0.5, https://x.example/foo",
            ("upstreamed", "Applied-Upstream: v2.0.5, https://x.example/foo"),
        ),
        ("Applied-Upstream: 2.2.0", ("later", "Applied-Upstream: 2.2.0")),
        ("Applied-Upstream: no", None),
        (
            "Forwarded: https://github.com/foo/foo/commit/abcdef1234567",
            ("upstreamed", "Forwarded: https://github.com/foo/foo/commit/abcdef1234567"),
        ),
        ("Forwarded: https://github.com/foo/foo/pull/12", None),
        ("Origin: vendor, https://salsa.example/foo/commit/abcdef1234567", None),
        (
            "Origin: https://github.com/foo/foo/commit/abcdef1234567",
            ("upstreamed", "Origin: https://github.com/foo/foo/commit/abcdef1234567"),
        ),
        ("Origin: upstream", None),
    ],
)
def test_dep3_header_verdicts(header: str, expected: tuple[str, str] | None) -> None:
    patch = f"Subject: x\n{header}\n---\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
    assert truth.header_says(patch, "2.1.0") == expected


def test_changed_lines_ignore_context_headers_and_trailing_space() -> None:
    assert truth.changed_lines(PATCH) == ["-        self.timeout = 0", "+        self.timeout = 30"]
    assert truth.changed_lines(refreshed(PATCH)) == truth.changed_lines(PATCH)
    spaced = PATCH.replace("+        self.timeout = 30", "+        self.timeout = 30  ")
    assert truth.changed_lines(spaced) == truth.changed_lines(PATCH)
    # a context line that starts with "--" inside a hunk is context, not a file line
    dashed = PATCH.replace("         self.verify = True", "         -- a comment")
    assert truth.changed_lines(dashed) == truth.changed_lines(PATCH)


@pytest.mark.parametrize(
    ("name", "series", "changelog", "release", "expected"),
    [
        pytest.param(
            "0001-fix.patch",
            {"0001-fix.patch": refreshed(PATCH)},
            CHANGELOG,
            "trixie 2.1.0-1",
            truth.Outcome(
                "carried",
                "",
                "trixie 2.1.0-1 debian/patches/series keeps 0001-fix.patch",
                "kept with the same 2 changed lines",
            ),
            id="kept",
        ),
        pytest.param(
            "0001-fix.patch",
            {"0001-fix.patch": REWRITTEN},
            CHANGELOG,
            "trixie 2.1.0-1",
            truth.Outcome(
                "port",
                "",
                "trixie 2.1.0-1 debian/patches/series keeps 0001-fix.patch",
                "kept with rewritten changed lines (2 before, 2 after)",
            ),
            id="rewritten",
        ),
        pytest.param(
            "old-name.patch",
            {"0005-new-name.patch": PATCH},
            "",
            "sid 2.1.0-1",
            truth.Outcome(
                "carried",
                "",
                "sid 2.1.0-1 debian/patches/series has 0005-new-name.patch with the same lines",
                "renamed to 0005-new-name.patch, same changed lines",
            ),
            id="renamed",
        ),
        pytest.param(
            "CVE-2024-1234.patch",
            {"CVE-2024-1234-2.patch": REWRITTEN},
            CHANGELOG,
            "sid 2.1.0-1",
            truth.Outcome(
                "port",
                "",
                "sid 2.1.0-1 debian/patches/series keeps the same CVE fix as CVE-2024-1234-2.patch",
                "renamed to CVE-2024-1234-2.patch, rewritten changed lines",
            ),
            id="same-cve",
        ),
    ],
)
def test_outcome_carried_port_and_renamed(
    name: str, series: dict[str, str], changelog: str, release: str, expected: object
) -> None:
    entries = truth.parse_changelog(changelog)
    assert truth.outcome(name, PATCH, series, entries, "2.1.0", release) == expected


def test_blank_changed_lines_aside_is_a_refresh() -> None:
    """A refresh that counts a blank line at a hunk's edge as context, not as added, keeps
    the patch carried; a changed indentation is a rewrite."""
    appended = PATCH.replace(
        "+        self.timeout = 30\n",
        "+        self.timeout = 30\n+\n+    def close(self):\n+        pass\n",
    ).replace("@@ -10,7 +10,7 @@", "@@ -10,7 +10,10 @@")
    edge = appended.replace("+\n+    def close", " \n+    def close").replace(
        "@@ -10,7 +10,10 @@", "@@ -10,8 +10,10 @@"
    )
    assert truth.changed_lines(appended)[2:] == ["+", "+    def close(self):", "+        pass"]
    assert truth.changed_lines(edge)[2:] == ["+    def close(self):", "+        pass"]
    kept = truth.outcome("0001-fix.patch", appended, {"0001-fix.patch": edge}, [], "2.1.0", "sid")
    assert kept == truth.Outcome(
        "carried",
        "",
        "sid debian/patches/series keeps 0001-fix.patch",
        "kept with the same 5 changed lines (blank + or - lines aside)",
    )
    cve = truth.outcome(
        "CVE-2024-1234.patch", appended, {"CVE-2024-1234-2.patch": edge}, [], "2.1.0", "sid"
    )
    assert cve == truth.Outcome(
        "carried",
        "",
        "sid debian/patches/series keeps the same CVE fix as CVE-2024-1234-2.patch",
        "renamed to CVE-2024-1234-2.patch, same changed lines",
    )
    # a rename found by its lines alone (another subject) needs them exactly: not a
    # rename, so the patch counts as dropped and its header decides
    retitled = edge.replace("Subject: Fix the timeout", "Subject: Close the client")
    renamed = truth.outcome("old.patch", appended, {"new.patch": retitled}, [], "2.1.0", "sid")
    assert renamed == BY_HEADER
    indented = edge.replace("+        pass", "+      pass")
    port = truth.outcome(
        "0001-fix.patch", appended, {"0001-fix.patch": indented}, [], "2.1.0", "sid"
    )
    assert port == truth.Outcome(
        "port",
        "",
        "sid debian/patches/series keeps 0001-fix.patch",
        "kept with rewritten changed lines (5 before, 4 after)",
    )


def test_same_change_under_another_name_is_kept() -> None:
    """A backport dropped with the new release and taken again, rewritten, under another
    number is kept (its DEP-3 subject and Origin name it), before its header's
    ``Origin: upstream`` could call it upstreamed; a newer patch that continues an older
    one of its name, or two candidates, are no such evidence."""
    entries = truth.parse_changelog(CHANGELOG)
    again = truth.outcome(
        "0007-fix.patch",
        PATCH,
        {"0013-fix.patch": REWRITTEN},
        entries,
        "2.1.0",
        "bookworm 2.1.0-1",
        frozenset({"0007-fix.patch"}),
    )
    assert again == truth.Outcome(
        "port",
        "",
        "bookworm 2.1.0-1 debian/patches/series keeps the same change as 0013-fix.patch "
        "(the same DEP-3 subject and origin)",
        "renamed to 0013-fix.patch, rewritten changed lines",
    )
    continued = truth.outcome(
        "0007-fix.patch",
        PATCH,
        {"0013-fix.patch": REWRITTEN},
        entries,
        "2.1.0",
        "bookworm 2.1.0-1",
        frozenset({"0007-fix.patch", "0013-fix.patch"}),
    )
    assert continued == BY_HEADER
    two = {"0013-fix.patch": REWRITTEN, "0014-fix.patch": REWRITTEN}
    assert truth.outcome("0007-fix.patch", PATCH, two, entries, "2.1.0", "b") == BY_HEADER
    other_subject = REWRITTEN.replace("Subject: Fix the timeout", "Subject: Fix the retries")
    assert (
        truth.outcome(
            "0007-fix.patch", PATCH, {"0013-fix.patch": other_subject}, entries, "2.1.0", "b"
        )
        == BY_HEADER
    )
    assert truth.identity(PATCH) == (
        "fix the timeout of the client",
        "upstream, https://github.com/foo/foo/commit/0123456789abcdef0123",
    )


def test_outcome_dropped() -> None:
    entries = truth.parse_changelog(CHANGELOG)
    by_log = truth.outcome("0002-fix-timeout.patch", PLAIN, {}, entries, "2.1.0", "trixie 2.1.0-1")
    assert by_log.truth == "upstreamed"
    assert by_log.source.startswith("debian/changelog 2.1.0-1: Drop patches applied upstream")
    by_header = truth.outcome("other.patch", PATCH, {}, [], "2.1.0", "trixie 2.1.0-1")
    assert by_header == BY_HEADER
    no_reason = truth.outcome("other.patch", PLAIN, {}, [], "2.1.0", "trixie 2.1.0-1")
    assert no_reason == truth.Outcome(None, "dropped with no stated reason", "", "")
    other = truth.outcome("skip-network-tests.patch", PLAIN, {}, entries, "2.1.0", "x")
    assert (other.truth, other.reason) == (None, "dropped for another stated reason")
    later = PLAIN.replace("Forwarded: not-needed", "Applied-Upstream: 3.0.0")
    assert truth.outcome("x.patch", later, {}, [], "2.1.0", "x") == truth.Outcome(
        None, "Applied-Upstream names a later release", "Applied-Upstream: 3.0.0", ""
    )


def test_generic_changelog_line_is_counted_not_trusted() -> None:
    entries = truth.parse_changelog(
        "python-bar (1.1-1) unstable; urgency=medium\n\n"
        "  * New upstream version.\n  * Drop patches merged upstream.\n\n"
        " -- J <j@example.org>  Mon, 03 Feb 2025 10:00:00 +0100\n"
    )
    assert truth.outcome("a.patch", PLAIN, {}, entries, "1.1", "x") == truth.Outcome(
        None,
        "dropped; the changelog says patches went upstream but names none",
        "debian/changelog 1.1-1: Drop patches merged upstream.",
        "",
    )


def test_debian_versions() -> None:
    assert truth.compare_versions("1.0~rc1-1", "1.0-1") == -1
    assert truth.compare_versions("1:0.9-1", "2.0-1") == 1
    assert truth.compare_versions("2.0.1-1+deb12u1", "2.0.1-1") == 1
    assert truth.compare_versions("2.0.1-1+deb12u1", "2.0.1-2") == -1
    assert truth.compare_versions("1.26.12-1", "1.26.12-1") == 0
    assert truth.upstream_version("1:2.28.1+dfsg-1+deb12u1") == "2.28.1"
    assert truth.upstream_version("3.0~rc2-1") == "3.0rc2"
    assert truth.upstream_version("1.2.3+ds1-2") == "1.2.3"
    assert truth.upstream_version("0.9.1-1.1") == "0.9.1"


def _entries(*blocks: tuple[str, str]) -> list:
    """Changelog entries of ``python-foo`` from ``(version, bullet lines)`` pairs, newest
    first, in the shape ``dch`` writes."""
    text = ""
    for version, bullets in blocks:
        text += (
            f"python-foo ({version}) unstable; urgency=medium\n\n{bullets}\n"
            " -- Jane Maintainer <jane@example.org>  Mon, 03 Feb 2025 10:00:00 +0100\n\n"
        )
    return truth.parse_changelog(text)


def test_a_renumbered_patch_is_named_by_the_wider_reading() -> None:
    """A series exported again renumbers its patches: the changelog names the patch by
    another number, or numbers a patch the series names without one."""
    entries = _entries(
        (
            "7.2.0-1",
            "  * Rediff patches. Drop reproducible/0014-Sort-object-lists.patch: fixed in\n"
            "    upstream code\n"
            "  * Removed 1000-fix-build-7.2.patch now applied upstream.\n",
        )
    )
    assert truth.name_forms("0020-Sort-object-lists.patch", wider=True) == [
        "0020-Sort-object-lists.patch",
        "0020-Sort-object-lists",
        "Sort-object-lists.patch",
        "Sort-object-lists",
    ]
    assert truth.changelog_says(entries, "0020-Sort-object-lists.patch") is None
    assert truth.changelog_says(entries, "0020-Sort-object-lists.patch", wider=True) == (
        "upstreamed",
        "debian/changelog 7.2.0-1: Rediff patches. Drop "
        "reproducible/0014-Sort-object-lists.patch: fixed in upstream code",
    )
    assert truth.changelog_says(entries, "fix-build-7.2.patch", wider=True) == (
        "upstreamed",
        "debian/changelog 7.2.0-1: Removed 1000-fix-build-7.2.patch now applied upstream.",
    )
    # a number alone never makes a short name specific
    assert truth.name_forms("0003-typos.patch", wider=True) == [
        "0003-typos.patch",
        "0003-typos",
    ]
    assert not truth.names("Fix typos.patch", "0003-typos.patch", wider=True)


def test_a_list_inside_a_list_gives_its_heading_as_the_reason() -> None:
    entries = _entries(
        (
            "0.21.2-1",
            "  * New upstream version. (Closes: #1040000)\n"
            "    - Remove upstream applied patches:\n"
            "      - 0000-numpy-2.0\n"
            "      - 0010-docs-build-fix\n"
            "    - Refresh patches.\n",
        )
    )
    assert truth.changelog_says(entries, "numpy-2.0.patch") is None
    assert truth.changelog_says(entries, "numpy-2.0.patch", wider=True) == (
        "upstreamed",
        "debian/changelog 0.21.2-1: New upstream version. (Closes: #1040000) - Remove "
        "upstream applied patches: - 0000-numpy-2.0",
    )


@pytest.mark.parametrize(
    ("item", "name"),
    [
        ("fix-s390x-build.diff: Dropped, upstream.", "fix-s390x-build.diff"),
        ("from-stable-branch.patch: dropped, already upstream", "from-stable-branch.patch"),
        ("Drop patches, superseded upstream: py310-compat, sphinx-theme.", "py310-compat"),
        ("Remove 02_local-timezone.patch, went upstream.", "02_local-timezone.patch"),
        (
            "New upstream release.\n    - applies debian patch int-overflow-fix.patch",
            "int-overflow-fix.patch",
        ),
    ],
)
def test_more_words_that_say_upstream_has_it(item: str, name: str) -> None:
    entries = _entries(("2.0-1", f"  * {item}\n"))
    narrow = truth.changelog_says(entries, name)
    assert narrow is None or narrow[0] == "other"
    said = truth.changelog_says(entries, name, wider=True)
    assert said is not None and said[0] == "upstreamed"
    assert truth.outcome(name, PLAIN, {}, entries, "2.0", "x").truth == "upstreamed"


def test_a_new_release_that_fixes_the_cve_of_the_patch() -> None:
    entries = _entries(
        (
            "3.13.6-1",
            "  * Python 3.13.6.\n"
            "    - Fixes CVE-2025-1111: Quadratic complexity in the parser.\n"
            "  * d/changelog: fix the 3.13.5-2 entry, CVE-2025-3333 was wrong.\n",
        ),
        (
            "3.13.5-3",
            "  * New upstream release:\n"
            "    - fixes CVE-2025-2222: DoS in the archive reader (Closes: #1100000).\n"
            "    - Add patch for CVE-2025-4444 (Closes: #1100001).\n",
        ),
    )
    assert truth.release_fixes(entries, "CVE-2025-1111.patch", "3.13.5") == (
        "debian/changelog 3.13.6-1: Python 3.13.6. - Fixes CVE-2025-1111: Quadratic "
        "complexity in the parser."
    )
    # without the pin, a name and a number are no announcement: "New upstream" is
    assert truth.release_fixes(entries, "CVE-2025-1111.patch") is None
    assert truth.release_fixes(entries, "0007-CVE-2025-2222-2.patch") == (
        "debian/changelog 3.13.5-3: New upstream release: - fixes CVE-2025-2222: DoS in the "
        "archive reader (Closes: #1100000)."
    )
    # a patch added for the CVE, an item that is no release, a name without a CVE id
    assert truth.release_fixes(entries, "CVE-2025-4444.patch", "3.13.5") is None
    assert truth.release_fixes(entries, "CVE-2025-3333.patch", "3.13.5") is None
    assert truth.release_fixes(entries, "fix-parser.patch", "3.13.5") is None
    assert truth.outcome(
        "CVE-2025-1111.patch", PLAIN, {}, entries, "3.13.6", "forky 3.13.6-1", pin="3.13.5"
    ) == truth.Outcome(
        "upstreamed",
        "",
        "debian/changelog 3.13.6-1: Python 3.13.6. - Fixes CVE-2025-1111: Quadratic "
        "complexity in the parser.",
        "dropped; the changelog says the new upstream release fixes its CVE",
    )


def test_all_patches_dropped_as_upstream_speaks_for_each() -> None:
    every = _entries(
        ("2.9.0-1", "  * New upstream release.\n  * Drop all patches, available upstream.\n"),
        ("2.8.2-10", "  * d/control: bump Standards-Version.\n"),
    )
    quote = "debian/changelog 2.9.0-1: Drop all patches, available upstream."
    assert truth.all_upstream_item(every) == quote
    assert truth.outcome("0001-fix-build.patch", PLAIN, {}, every, "2.9.0", "x") == truth.Outcome(
        "upstreamed",
        "",
        quote,
        "dropped; the changelog says all patches were dropped as upstream has them",
    )
    # another reason beside upstream, or a patch dropped before: no statement for each
    mixed = _entries(
        ("2.9.0-1", "  * Drop all current patches, included upstream or no longer needed.\n")
    )
    assert truth.all_upstream_item(mixed) is None
    before = _entries(
        ("2.9.0-1", "  * Drop all patches, available upstream.\n"),
        ("2.8.3-1", "  * Remove patch included upstream.\n"),
    )
    assert truth.all_upstream_item(before) is None
    # "patches applied upstream" without "all" names none of them: counted, not trusted
    some = _entries(("2.9.0-1", "  * Drop patches applied upstream.\n"))
    assert truth.all_upstream_item(some) is None
    assert truth.outcome("a.patch", PLAIN, {}, some, "2.9.0", "x").reason == (
        "dropped; the changelog says patches went upstream but names none"
    )


#: :data:`PLAIN` forwarded upstream (a patch Debian meant upstream to take).
FORWARDED = PLAIN.replace("Forwarded: not-needed", "Forwarded: https://github.com/foo/foo/pull/12")
#: What :func:`dropped_upstream_item` says when the statement speaks for the patch.
DROPPED_WHY = "dropped; the changelog says the patches its upload dropped went upstream"


def test_patches_dropped_as_upstream_speak_for_an_unnamed_patch() -> None:
    """ "Drop patches applied upstream" speaks for a patch no item names when nothing else
    between the two versions gives up a patch."""
    entries = _entries(
        (
            "2.1.0-1",
            "  * New upstream version 2.1.0\n"
            "    + Refresh patches\n"
            "    + Drop patches applied upstream\n"
            "  * d/control: bump Standards-Version to 4.7.0.\n",
        ),
        ("2.0.1-2", "  * Add upstream patch to fix the build with GCC 14.\n"),
    )
    quote = "debian/changelog 2.1.0-1: New upstream version 2.1.0 - Drop patches applied upstream"
    old = frozenset({"0001-fix-timeout.patch", "0002-use-system-six.patch"})
    assert truth.dropped_upstream_item(entries, "0001-fix-timeout.patch", old, 2, FORWARDED) == (
        quote
    )
    assert truth.outcome(
        "0001-fix-timeout.patch", FORWARDED, {}, entries, "2.1.0", "x", old, unexplained=2
    ) == truth.Outcome("upstreamed", "", quote, DROPPED_WHY)
    # without the count of unexplained drops the statement is counted, not trusted
    assert truth.outcome("0001-fix-timeout.patch", FORWARDED, {}, entries, "2.1.0", "x").reason == (
        "dropped; the changelog says patches went upstream but names none"
    )
    # Debian's own change, which upstream was never asked to take
    assert truth.dropped_upstream_item(entries, "0001-fix-timeout.patch", old, 2, PLAIN) is None
    # the newer series continues it under another number, or with the same subject
    renamed = {"0004-fix-timeout.patch": REWRITTEN}
    assert (
        truth.dropped_upstream_item(entries, "0001-fix-timeout.patch", old, 2, FORWARDED, renamed)
        is None
    )
    retitled = {"client-timeout.patch": REWRITTEN.replace("Forwarded: not-needed", "")}
    assert (
        truth.dropped_upstream_item(entries, "0001-fix-timeout.patch", old, 2, FORWARDED, retitled)
        is None
    )


@pytest.mark.parametrize(
    "statement",
    [
        "  * Drop patches applied upstream.\n",
        "  * patches: Drop upstreamed patches.\n",
        "  * d/patches: drop patches merged upstream\n",
        "  * [0a1b2c3] Drop upstreamed patches, refresh the rest\n",
        "  * Refresh patches and drop patches that have been applied upstream\n",
        "  * Remove patches included in the new upstream release.\n",
        "  * Drop patches (applied upstream)\n",
    ],
)
def test_statements_of_patches_dropped_as_upstream(statement: str) -> None:
    entries = _entries(("3.0-1", "  * New upstream release.\n" + statement))
    said = truth.dropped_upstream_item(
        entries, "fix-build.patch", frozenset({"fix-build.patch"}), 1, FORWARDED
    )
    assert said == "debian/changelog 3.0-1: " + statement.strip()[2:]


@pytest.mark.parametrize(
    "statement",
    [
        # qualified, listed, or with another reason beside upstream: not about every patch
        "  * Drop PCISDK patches, included upstream.\n",
        "  * Drop patches applied upstream:\n    - 0001-fix-timeout.patch\n",
        "  * patches: Drop upstreamed or obsolete patches.\n",
        "  * Drop patches to fix tests on OpenSSL 1.1.1, fixed in other ways upstream.\n",
        "  * Drop all current patches, included upstream or no longer needed.\n",
    ],
)
def test_what_is_no_statement_of_patches_dropped_as_upstream(statement: str) -> None:
    entries = _entries(("3.0-1", "  * New upstream release.\n" + statement))
    old = frozenset({"fix-build.patch", "0001-fix-timeout.patch"})
    assert truth.dropped_upstream_item(entries, "fix-build.patch", old, 1, FORWARDED) is None


def test_a_patch_given_up_otherwise_between_the_versions_blocks_the_statement() -> None:
    """The changelog does not say which upload dropped an unnamed patch: a patch given up in
    other words anywhere between the two versions may be it."""
    old = frozenset({"fix-build.patch", "skip-network-tests.patch"})

    def said(*blocks: tuple[str, str], unexplained: int = 1) -> str | None:
        entries = _entries(*blocks)
        return truth.dropped_upstream_item(entries, "fix-build.patch", old, unexplained, FORWARDED)

    statement = ("3.0-1", "  * New upstream release.\n  * Drop patches applied upstream.\n")
    assert said(statement) == "debian/changelog 3.0-1: Drop patches applied upstream."
    for other in (
        "  * Drop obsolete patch.\n",
        "  * drop old patches\n",
        "  * Use dh_python3 to fix the shebang instead of a patch.\n",
        "  * Replace patch by using a variable in d/rules.\n",
        "  * Get rid of a patch for removing install instructions, address it in d/clean\n",
        "  * Refresh fix-build.patch.\n",
    ):
        assert said(statement, ("2.9-2", other)) is None, other
    # a patch the older series has, dropped by name for its own reason in another upload,
    # speaks for that patch only; in the statement's own upload it is another reason there
    named = "  * Drop skip-network-tests.patch, no longer needed.\n"
    assert (
        said(statement, ("2.9-2", named))
        == "debian/changelog 3.0-1: Drop patches applied upstream."
    )
    assert said((statement[0], statement[1] + named)) is None
    # a sentence that drops something else beside a patch added is no patch given up
    added = "  * Add patch from upstream to fix a regression. So drop the Breaks on foo.\n"
    assert (
        said(statement, ("2.9-2", added))
        == "debian/changelog 3.0-1: Drop patches applied upstream."
    )


def test_a_counted_statement_speaks_for_as_many_patches() -> None:
    """ "Remove patch included upstream" speaks for one patch: it must be the only unexplained
    drop, and no patch added before it may be the one it removed."""
    one = _entries(
        ("3.5.1-1", "  * New upstream version 3.5.1\n  * Remove patch included upstream\n")
    )
    old = frozenset({"fix-build.patch"})
    quote = "debian/changelog 3.5.1-1: Remove patch included upstream"
    assert truth.dropped_upstream_item(one, "fix-build.patch", old, 1, FORWARDED) == quote
    assert truth.dropped_upstream_item(one, "fix-build.patch", old, 2, FORWARDED) is None
    added = one + _entries(("3.5.0-2", "  * Add patch to fix the armel build\n"))
    assert truth.dropped_upstream_item(added, "fix-build.patch", old, 1, FORWARDED) is None
    four = _entries(
        ("1.4.2-1", "  * New upstream release\n  * Remove 4 patches applied in new release\n")
    )
    assert truth.dropped_upstream_item(four, "fix-build.patch", old, 4, FORWARDED) == (
        "debian/changelog 1.4.2-1: Remove 4 patches applied in new release"
    )
    assert truth.dropped_upstream_item(four, "fix-build.patch", old, 5, FORWARDED) is None


def test_unexplained_drops_counts_patches_dropped_with_nothing_of_their_own() -> None:
    entries = _entries(
        (
            "2.1.0-1",
            "  * New upstream release.\n  * Drop patches applied upstream.\n"
            "  * Remove skip-network-tests.patch, no longer needed.\n",
        )
    )
    # each with other changed lines (a patch with the kept one's lines is a rename)
    old = {
        "keep.patch": PLAIN,
        "gone.patch": FORWARDED.replace("timeout = 30", "timeout = 45"),
        "skip-network-tests.patch": FORWARDED.replace("timeout = 30", "timeout = 50"),
        "header.patch": PATCH.replace("timeout = 30", "timeout = 90"),
    }
    assert truth.unexplained_drops(old, {"keep.patch": PLAIN}, entries, "2.1.0") == 1


def test_a_dropped_patch_continued_under_another_name_is_kept() -> None:
    """A series exported again renumbers and moves its patches; a patch rewritten and
    renamed keeps its DEP-3 subject: where nothing else speaks, the newer patch continues
    it."""
    old = frozenset({"0001-fix-timeout.patch", "0002-use-system-six.patch"})
    moved = {"debian/fix-timeout.patch": REWRITTEN, "0001-use-system-six.patch": PLAIN}
    assert truth.continuation("0001-fix-timeout.patch", PLAIN, moved, old) == (
        "debian/fix-timeout.patch",
        "the same name but for its number or directory",
    )
    assert truth.outcome(
        "0001-fix-timeout.patch",
        FORWARDED,
        {"debian/fix-timeout.patch": REWRITTEN},
        [],
        "2.1.0",
        "forky 2.1.0-1",
        old,
    ) == truth.Outcome(
        "port",
        "",
        "forky 2.1.0-1 debian/patches/series keeps it as debian/fix-timeout.patch "
        "(the same name but for its number or directory)",
        "renamed to debian/fix-timeout.patch, rewritten changed lines",
    )
    retitled = {"0004-client-timeout.patch": REWRITTEN}
    assert truth.continuation("0001-fix-timeout.patch", PLAIN, retitled, old) == (
        "0004-client-timeout.patch",
        "the same DEP-3 subject",
    )
    # two candidates, a candidate of an older name, a short subject, a name too plain
    twice = {"fix-timeout.patch": REWRITTEN, "debian/fix-timeout.patch": REWRITTEN}
    assert truth.continuation("0001-fix-timeout.patch", "", twice, old) is None
    assert (
        truth.continuation("0001-fix-timeout.patch", "", {"0002-use-system-six.patch": PLAIN}, old)
        is None
    )
    short = PLAIN.replace("Subject: Fix the timeout\n of the client", "Subject: Fix it")
    assert truth.continuation("0001-fix-timeout.patch", short, {"x.patch": short}, old) is None
    assert (
        truth.continuation("0001-typos.patch", "", {"0002-typos.patch": PLAIN}, frozenset()) is None
    )
    # the header speaks first: a patch upstream has is not kept by a look-alike name
    assert (
        truth.outcome(
            "0001-fix-timeout.patch",
            PATCH,
            {"debian/fix-timeout.patch": PLAIN.replace("timeout = 30", "timeout = 60")},
            [],
            "2.1.0",
            "x",
            old,
        )
        == BY_HEADER
    )


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        ("https://git.example.org/foo.git/commit/?id=" + "b1406607" * 5, True),
        ("https://git.example.org/?p=foo.git;a=commitdiff;h=" + "5ff19e36" * 5, True),
        ("https://git.kernel.example/linus/" + "7dc4a18d" * 5, True),
        ("https://src.example.org/rpms/foo/c/" + "45a1c444" * 5 + ".patch", False),
        ("https://github.com/foo/foo/pull/7349", False),
    ],
)
def test_origin_urls_that_name_a_commit(origin: str, expected: bool) -> None:
    patch = f"Subject: x\nOrigin: {origin}\n---\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
    said = truth.header_says(patch, "2.1.0")
    assert said == (("upstreamed", f"Origin: {origin}") if expected else None)


def test_the_header_is_quoted_before_the_wider_reading() -> None:
    """Where the header and only the wider reading of the changelog say upstream has a
    patch, the header is quoted (rows read before the wider reading stay as they were)."""
    entries = _entries(("2.0-1", "  * Drop 0003-fix-timeout.patch, superseded upstream.\n"))
    assert truth.outcome("0007-fix-timeout.patch", PATCH, {}, entries, "2.0", "x") == BY_HEADER
    assert truth.outcome("0007-fix-timeout.patch", PLAIN, {}, entries, "2.0", "x") == (
        truth.Outcome(
            "upstreamed",
            "",
            "debian/changelog 2.0-1: Drop 0003-fix-timeout.patch, superseded upstream.",
            "dropped; the changelog says upstream has it",
        )
    )


OLD_ADDS = """\
Description: list the plugins the entry points need
Forwarded: no
---
--- a/etc/foo/plugins.conf
+++ b/etc/foo/plugins.conf
@@ -3,6 +3,8 @@ [plugins]
 load = foo.core
 load = foo.cache
 load = foo.auth
+load = foo.metrics
+load = foo.tracing
 load = foo.storage
 load = foo.web
 load = foo.cli
"""


def _refreshed(context_before: list[str], context_after: list[str]) -> str:
    """The patch of :data:`OLD_ADDS`, refreshed against a release whose file holds the given
    lines before and after the two added ones (its offsets moved by one line)."""
    body = "".join(f" {line}\n" for line in context_before)
    body += "+load = foo.metrics\n+load = foo.tracing\n"
    body += "".join(f" {line}\n" for line in context_after)
    header = f"@@ -4,{len(context_before) + len(context_after)} +4,"
    header += f"{len(context_before) + len(context_after) + 2} @@ [plugins]\n"
    return OLD_ADDS.split("@@")[0] + header + body


AFTER = ["load = foo.storage", "load = foo.web", "load = foo.cli"]


@pytest.mark.parametrize(
    ("before", "expected"),
    [
        pytest.param(
            ["load = foo.cache", "load = foo.auth", "load = foo.metrics"],
            truth.Outcome(
                "port",
                "",
                "trixie 2.1.0-1 debian/patches/plugins.patch @@ -4,6 +4,8 @@ [plugins] holds "
                "what it adds: context 'load = foo.metrics'",
                "kept and refreshed; upstream wrote 1 of the 2 lines it adds at its place, "
                "the rest is still carried",
            ),
            id="one-of-two",
        ),
        pytest.param(
            ["load = foo.metrics", "load = foo.auth", "load = foo.tracing"],
            truth.Outcome(
                "upstreamed",
                "",
                "trixie 2.1.0-1 debian/patches/plugins.patch @@ -4,6 +4,8 @@ [plugins] holds "
                "what it adds: context 'load = foo.metrics'; context 'load = foo.tracing'",
                "kept and refreshed, but upstream wrote every line it adds at its place: twice now",
            ),
            id="both",
        ),
        pytest.param(
            # the twin stands beyond a line the patch adds that upstream lacks: another
            # statement that reads the same, not upstream's copy of this one
            ["load = foo.cache", "load = foo.auth", "load = foo.tracing"],
            truth.Outcome(
                "carried",
                "",
                "trixie 2.1.0-1 debian/patches/series keeps plugins.patch",
                "kept with the same 2 changed lines",
            ),
            id="beyond-an-added-line",
        ),
        pytest.param(
            ["load = foo.cache", "load = foo.auth", "load = foo.extra"],
            truth.Outcome(
                "carried",
                "",
                "trixie 2.1.0-1 debian/patches/series keeps plugins.patch",
                "kept with the same 2 changed lines",
            ),
            id="none",
        ),
    ],
)
def test_a_kept_patch_whose_context_holds_what_it_adds(before: list[str], expected: object) -> None:
    """A patch kept with the same lines whose refreshed context holds lines it adds: upstream
    wrote them, and the refreshed patch adds them a second time."""
    series = {"plugins.patch": _refreshed(before, AFTER)}
    assert truth.outcome("plugins.patch", OLD_ADDS, series, [], "2.1.0", "trixie 2.1.0-1") == (
        expected
    )


def test_a_line_already_there_at_the_older_release_is_not_upstream_work() -> None:
    """A line the older patch's place held too was added beside it on purpose."""
    old = OLD_ADDS.replace(" load = foo.auth\n", " load = foo.tracing\n")
    new = _refreshed(["load = foo.cache", "load = foo.tracing", "load = foo.auth"], AFTER)
    written = truth.upstream_wrote(old, new)
    assert written == truth.Written(2, (), False, "")
    assert truth.outcome(
        "plugins.patch", old, {"plugins.patch": new}, [], "2", "sid 2-1"
    ).truth == ("carried")


C_OLD = """\
--- a/src/bindings/fields.cpp
+++ b/src/bindings/fields.cpp
@@ -9,6 +9,9 @@
 #include <lib/extension/Plugin.h>
 #include <lib/extension/Registry.h>
 
+#ifdef USE_GROUPS
+#include <lib/packages/groups/Group.h>
+#endif
 
 #ifdef USE_OCTAVE
 // not in octave
"""
C_NEW = """\
--- a/src/bindings/fields.cpp
+++ b/src/bindings/fields.cpp
@@ -12,6 +12,9 @@
 #include <lib/packages/groups/Group.h>
 #endif // USE_GROUPS
 
+#ifdef USE_GROUPS
+#include <lib/packages/groups/Group.h>
+#endif
 
 
 #ifdef USE_OCTAVE
"""


def _tree(root: Path, lines: list[str]) -> truth.FileReader:
    path = root / "src" / "bindings" / "fields.cpp"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def read(name: str) -> list[str] | None:
        file = root / name
        return file.read_text(encoding="utf-8").splitlines() if file.is_file() else None

    return read


def test_the_new_file_around_the_hunk_holds_what_it_adds(tmp_path: Path) -> None:
    """A line upstream wrote just before the kept hunk's context is read from the new file;
    a line of one word (``#endif``) says nothing, so it does not count."""
    head = [f"// line {n}" for n in range(1, 8)]
    includes = ["#include <lib/extension/Plugin.h>", "#include <lib/extension/Registry.h>"]
    octave = ["#ifdef USE_OCTAVE", "// not in octave"]
    pin = _tree(tmp_path / "pin", [*head, "", *includes, "", "", *octave])
    group = ["#ifdef USE_GROUPS", "#include <lib/packages/groups/Group.h>", "#endif // USE_GROUPS"]
    new = _tree(tmp_path / "new", [*head, "", *includes, *group, "", "", "", *octave])
    trees = truth.Trees(pin, new)
    assert truth.upstream_wrote(C_OLD, C_NEW, trees=trees) == truth.Written(
        2,
        (
            ("#ifdef USE_GROUPS", "src/bindings/fields.cpp line 11"),
            ("#include <lib/packages/groups/Group.h>", "context"),
        ),
        False,
        "@@ -12,6 +12,9 @@",
    )
    kept = truth.outcome(
        "fields.patch", C_OLD, {"fields.patch": C_NEW}, [], "5", "sid 5-1", trees=trees
    )
    assert kept.truth == "upstreamed"
    # without the trees only the context is read: the `#ifdef` has no twin there, and the
    # `#include`'s twin stands beyond it
    alone = truth.outcome("fields.patch", C_OLD, {"fields.patch": C_NEW}, [], "5", "sid 5-1")
    assert alone.truth == "carried"
    # a file an earlier patch of the series changed does not stand at the hunk's numbers:
    # its lines around the hunk are not read
    shifted = _tree(tmp_path / "shifted", ["// added by an earlier patch", *head, "", *includes])
    assert truth.around(truth.hunks(C_NEW)[0], shifted) == ([], [])


def test_a_moved_line_or_a_removal_is_not_upstreamed(tmp_path: Path) -> None:
    """A line the hunk removes is not what upstream holds at its place, and a patch that
    still removes a line is partly carried even when upstream wrote all it adds."""
    moves = (
        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n-import os.path\n import sys\n+import os.path\n"
    )
    assert truth.upstream_wrote(moves, moves).held == ()
    root = tmp_path / "t"
    root.mkdir()
    (root / "m.py").write_text("import os.path\nimport sys\nx = 1\n", encoding="utf-8")

    def read(name: str) -> list[str] | None:
        return (root / name).read_text(encoding="utf-8").splitlines()

    assert truth.upstream_wrote(moves, moves, trees=truth.Trees(None, read)).held == ()
    replaces = (
        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n import sys\n-x = 1\n+x = 2 + y\n x = 2 + y\n"
    )
    old = replaces.replace(" x = 2 + y\n", " pass\n")
    out = truth.outcome("m.patch", old, {"m.patch": replaces}, [], "2", "sid 2-1")
    assert (out.truth, out.why) == (
        "port",
        "kept and refreshed; upstream wrote every line it adds at its place, but the patch "
        "still removes lines upstream has",
    )


IMPORT_OLD = """\
--- a/tests/test_keygen.py
+++ b/tests/test_keygen.py
@@ -10,6 +10,8 @@
 import getpass
 import sys
 
+import os
+os.environ["TERM"] = "dumb"
 from keygen import main
 
 
"""
IMPORT_NEW = """\
--- a/tests/test_keygen.py
+++ b/tests/test_keygen.py
@@ -10,6 +10,8 @@
 import getpass
 import os
 
+import os
+os.environ["TERM"] = "dumb"
 from keygen import main
 
 
"""


def test_an_import_beside_added_code_is_not_upstream_work() -> None:
    """Upstream importing the module the patch imports, for code of its own, says nothing
    of the fix the patch adds beside the import; a patch that adds only the import is the
    import, and upstream writing it is upstream having it."""
    series = {"keygen.patch": IMPORT_NEW}
    kept = truth.outcome("keygen.patch", IMPORT_OLD, series, [], "24", "trixie 24-1")
    assert (kept.truth, kept.why) == ("carried", "kept with the same 2 changed lines")
    only_old = IMPORT_OLD.replace('+os.environ["TERM"] = "dumb"\n', "").replace("+8 @@", "+7 @@")
    only_new = IMPORT_NEW.replace('+os.environ["TERM"] = "dumb"\n', "").replace("+8 @@", "+7 @@")
    alone = truth.outcome("k.patch", only_old, {"k.patch": only_new}, [], "24", "trixie 24-1")
    assert (alone.truth, alone.why) == (
        "upstreamed",
        "kept and refreshed, but upstream wrote every line it adds at its place: twice now",
    )
