"""Header fields: the ledger schema, DEP-3, git mail headers, Yocto; in-place rewrites."""

from __future__ import annotations

import pytest

from patchkeeper.series.headers import format_field, parse_headers, remove_field, set_field

SEED_PATCH = (
    b"Pass quant_config to the token embedding.\n"
    b"\n"
    b"Kind: fix\n"
    b"What: pass `quant_config` to the token embedding (main model and MTP module)\n"
    b"Upstream: none yet\n"
    b"Cut-against: 0.32.0: the draft_lm_head skip follows #60152's\n"
    b"  is_unused_checkpoint_weight check in remap_weight_names\n"
    b"Retires-when: upstream PR\n"
    b"--- exported from 3f1c2a9d0b7e4c5f8a6b1d2e3f4a5b6c7d8e9f01\n"
    b"diff --git a/envs.py b/envs.py\n"
    b"--- a/envs.py\n"
    b"+++ b/envs.py\n"
    b"@@ -1 +1 @@\n"
    b"-Kind: old\n"
    b"+Kind: new\n"
)

GBP_PATCH = (
    b"From: =?utf-8?q?Rapha=C3=ABl_Hertzog?= <hertzog@debian.org>\n"
    b"Date: Sun, 11 Oct 2015 11:43:19 +1100\n"
    b"Subject: [PATCH] [4.2.x] Fixed CVE-2024-39329 -- Standarized timing of\n"
    b"  verify_password() when checking unusuable passwords.\n"
    b"\n"
    b" We do this to save some space.\n"
    b" .\n"
    b" This is a Debian specific patch.\n"
    b"Origin: upstream, https://github.com/django/django/commit/2ee4caf\n"
    b"Bug-Debian: https://bugs.debian.org/645094\n"
    b"Bug-Ubuntu: https://launchpad.net/bugs/1047054\n"
    b"bug: https://code.djangoproject.com/ticket/33367\n"
    b"Forwarded: not-needed\n"
    b"Upstream-Status: Backport [https://github.com/django/django/commit/2ee4caf]\n"
    b"See https://example.org/x for more.\n"
    b"Patch-Name: 02_disable-sources.diff\n"
    b"---\n"
    b" docs/conf.py | 5 ++++-\n"
    b"Not-A-Field: after the separator\n"
)


def test_seed_ledger_fields_with_line_numbers_and_continuation() -> None:
    headers = parse_headers(SEED_PATCH)
    assert [(f.name, f.line_no, f.end_line) for f in headers.fields] == [
        ("Kind", 3, 3),
        ("What", 4, 4),
        ("Upstream", 5, 5),
        ("Cut-against", 6, 7),
        ("Retires-when", 8, 8),
    ]
    assert headers.value("cut-against") == (
        "0.32.0: the draft_lm_head skip follows #60152's "
        "is_unused_checkpoint_weight check in remap_weight_names"
    )
    assert headers.value("KIND") == "fix"
    assert headers.get("Retires-When").value == "upstream PR"


def test_reading_stops_at_exported_from_line() -> None:
    headers = parse_headers(SEED_PATCH)
    assert "kind" in [f.key for f in headers.fields]
    assert len(headers.all("Kind")) == 1  # the '-Kind: old' diff line is not a field
    assert headers.end == SEED_PATCH.index(b"--- exported from")


def test_gbp_mail_headers_dep3_bug_vendor_and_unknown_fields() -> None:
    headers = parse_headers(GBP_PATCH)
    assert headers.names() == (
        "From",
        "Date",
        "Subject",
        "Origin",
        "Bug-Debian",
        "Bug-Ubuntu",
        "bug",
        "Forwarded",
        "Upstream-Status",
        "Patch-Name",
    )
    assert headers.value("From") == "Raphaël Hertzog <hertzog@debian.org>"
    assert headers.value("Author") == "Raphaël Hertzog <hertzog@debian.org>"  # DEP-3 alias
    assert headers.value("Description") == (
        "[4.2.x] Fixed CVE-2024-39329 -- Standarized timing of "
        "verify_password() when checking unusuable passwords."
    )
    assert headers.get("Subject").line_no == 3
    assert headers.get("Subject").end_line == 4
    assert headers.bugs() == {
        "Debian": ("https://bugs.debian.org/645094",),
        "Ubuntu": ("https://launchpad.net/bugs/1047054",),
        "": ("https://code.djangoproject.com/ticket/33367",),
    }
    assert headers.value("upstream-status") == (
        "Backport [https://github.com/django/django/commit/2ee4caf]"
    )
    assert headers.get("Not-A-Field") is None


def test_dep3_description_dot_lines_are_paragraph_breaks() -> None:
    headers = parse_headers(
        b"Description: Disable sources\n Long text\n .\n second paragraph\nForwarded: no\n"
    )
    assert headers.value("Description") == "Disable sources Long text\nsecond paragraph"
    assert headers.get("Forwarded").line_no == 5


def test_mbox_from_line_is_not_a_field() -> None:
    data = (
        b"From 3f1c2a9d0b7e4c5f8a6b1d2e3f4a5b6c7d8e9f01 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\n"
    )
    headers = parse_headers(data)
    assert [(f.name, f.value, f.line_no) for f in headers.fields] == [("From", "A <a@b>", 2)]


def test_empty_value_and_url_line() -> None:
    headers = parse_headers(b"Kind:\nhttps://example.org/not-a-field\nWhat:   x  \n")
    assert [(f.name, f.value) for f in headers.fields] == [("Kind", ""), ("What", "x")]


def test_first_line_and_offset_shift_positions() -> None:
    headers = parse_headers(b"Kind: fix\n", first_line=10, offset=100)
    field = headers.fields[0]
    assert (field.line_no, field.start, field.end) == (10, 100, 110)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("Kind", "local", SEED_PATCH.replace(b"Kind: fix\n", b"Kind: local\n", 1)),
        (
            "cut-against",
            "0.33.0",
            SEED_PATCH.replace(
                b"Cut-against: 0.32.0: the draft_lm_head skip follows #60152's\n"
                b"  is_unused_checkpoint_weight check in remap_weight_names\n",
                b"Cut-against: 0.33.0\n",
            ),
        ),
        (
            "Upstream",
            "vllm #1 (open)\nsecond line",
            SEED_PATCH.replace(
                b"Upstream: none yet\n", b"Upstream: vllm #1 (open)\n  second line\n"
            ),
        ),
    ],
)
def test_set_field_rewrites_one_field_and_keeps_every_other_byte(
    name: str, value: str, expected: bytes
) -> None:
    assert set_field(SEED_PATCH, name, value) == expected


def test_set_field_adds_a_missing_field_after_the_last_one() -> None:
    out = set_field(SEED_PATCH, "Bug-Debian", "https://bugs.debian.org/1")
    assert out == SEED_PATCH.replace(
        b"Retires-when: upstream PR\n",
        b"Retires-when: upstream PR\nBug-Debian: https://bugs.debian.org/1\n",
    )
    assert parse_headers(out).get("bug-debian").line_no == 9


def test_set_field_keeps_crlf_line_endings() -> None:
    data = b"Kind: fix\r\nWhat: x\r\n--- exported from abcdef0\r\n"
    assert set_field(data, "what", "y") == b"Kind: fix\r\nWhat: y\r\n--- exported from abcdef0\r\n"


def test_set_field_into_a_preamble_without_fields() -> None:
    data = b"--- exported from abcdef0\ndiff --git a/x b/x\n"
    assert set_field(data, "Kind", "own") == b"Kind: own\n" + data


def test_remove_field_and_format_field() -> None:
    assert remove_field(SEED_PATCH, "upstream") == SEED_PATCH.replace(b"Upstream: none yet\n", b"")
    assert remove_field(SEED_PATCH, "Nope") == SEED_PATCH
    assert format_field("What", "a\n\nb") == b"What: a\n  .\n  b\n"
    assert format_field("Kind", "") == b"Kind:\n"


GIT_SHOW_PATCH = (
    b"commit 3f1c2a9d0b7e4c5f8a6b1d2e3f4a5b6c7d8e9f01 (HEAD -> main, tag: v1.1)\r\n"
    b"Merge: 1a2b3c4 5d6e7f8\r\n"
    b"Author: Ann Author <ann@example.org>\r\n"
    b"Date:   Tue Nov 14 22:13:20 2023 +0000\r\n"
    b"\r\n"
    b"    Return two from f, as the caller\r\n"
    b"    of the sum expects\r\n"
    b"    \r\n"
    b"    Fixes #12: the old value broke the sum.\r\n"
    b"\r\n"
    b"diff --git a/mod.py b/mod.py\r\n"
)


def test_git_show_message_is_an_unwritten_subject() -> None:
    """The first paragraph of the indented message, its lines joined; the header lines of
    the commit are fields; the rest of the message is no field."""
    headers = parse_headers(GIT_SHOW_PATCH)
    assert [(f.name, f.value, f.line_no, f.end_line, f.written) for f in headers.fields] == [
        ("Merge", "1a2b3c4 5d6e7f8", 2, 2, True),
        ("Author", "Ann Author <ann@example.org>", 3, 3, True),
        ("Date", "Tue Nov 14 22:13:20 2023 +0000", 4, 4, True),
        ("Subject", "Return two from f, as the caller of the sum expects", 6, 7, False),
    ]
    assert headers.value("Description") == "Return two from f, as the caller of the sum expects"
    subject = headers.get("Subject")
    assert GIT_SHOW_PATCH[subject.start : subject.end] == (
        b"    Return two from f, as the caller\r\n    of the sum expects\r\n"
    )


def test_set_field_leaves_a_git_show_message_alone() -> None:
    """A field added goes after the commit's last header line, never into the message; the
    unwritten subject is neither replaced nor removed."""
    assert set_field(GIT_SHOW_PATCH, "Cut-against", "1.1") == GIT_SHOW_PATCH.replace(
        b"+0000\r\n", b"+0000\r\nCut-against: 1.1\r\n"
    )
    assert set_field(GIT_SHOW_PATCH, "Subject", "x") == GIT_SHOW_PATCH.replace(
        b"+0000\r\n", b"+0000\r\nSubject: x\r\n"
    )
    assert remove_field(GIT_SHOW_PATCH, "Subject") == GIT_SHOW_PATCH


def test_only_a_commit_line_starts_a_message() -> None:
    """Prose indented after a blank line is no subject without git's ``commit <sha>``."""
    data = b"Author: A <a@b>\n\n    Return two from f\n"
    assert [(f.name, f.written) for f in parse_headers(data).fields] == [("Author", True)]
    data = b"commit 3f1c2a9 is where it broke\nAuthor: A <a@b>\n\n    Return two\n"
    assert [(f.name, f.written) for f in parse_headers(data).fields] == [("Author", True)]
