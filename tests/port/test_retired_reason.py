"""The Retired table's reason for a patch ``port --retire`` retires is the first clause of
its verdict: cut at a ``;`` that ends a clause, never inside the changelog line the evidence
quotes, a code span or a parenthesis."""

from __future__ import annotations

from patchkeeper.system.english import first_clause

LISTED = (
    "the new release's changelog lists its subject: NEWS line 12: 'Fix xmlBufferResize "
    "overflow; check the length (Nick Wellnhofer)', which the old pin's changelogs do not; "
    "retry.py #1 fails at fuzz 0; to do: retire"
)


def test_a_quoted_changelog_line_with_a_semicolon_stays_whole() -> None:
    assert first_clause(LISTED) == (
        "the new release's changelog lists its subject: NEWS line 12: 'Fix xmlBufferResize "
        "overflow; check the length (Nick Wellnhofer)', which the old pin's changelogs do not"
    )


def test_a_code_span_and_a_parenthesis_stay_whole() -> None:
    text = "upstream has it: `a = 1; b = 2` (at 2 places; both fit); to do: retire"
    assert first_clause(text) == "upstream has it: `a = 1; b = 2` (at 2 places; both fit)"


def test_an_apostrophe_in_a_word_opens_no_quote() -> None:
    assert first_clause("every hunk's post-image is there; to do: retire") == (
        "every hunk's post-image is there"
    )


def test_without_a_clause_end_the_text_is_whole() -> None:
    assert first_clause("every hunk reverse-applies") == "every hunk reverse-applies"


def test_an_unclosed_quote_cuts_at_the_first_semicolon() -> None:
    assert first_clause("NEWS line 3: 'rock; roll; to do: retire") == "NEWS line 3: 'rock"
