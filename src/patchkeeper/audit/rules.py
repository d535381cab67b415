"""The rules of the series audit: which one decided a patch's verdict and action.

Every :class:`~patchkeeper.audit.verdicts.PatchVerdict` records, in ``rule``, the rule whose
evidence its action follows: the rule that found the verdict (``reverse-applies``,
``written-differently``, ...) or, when a later rule changed what to do (a *conflict* a
three-way merge places unchanged is carried: ``refresh``; a patch that applies but imports a
module the new release lacks is ported: ``imports-gone``), that later rule. The identifiers
are stable: ``audit --json`` gives them (docs/commands/audit.md lists them with what each
rule does), and the accuracy benchmark counts its right, look and wrong answers per rule.
"""

from __future__ import annotations

from patchkeeper.constants import WordEnum


class Rule(WordEnum):
    """The rule that decided a patch's verdict and action (see docs/commands/audit.md)."""

    # the patch as it is
    APPLIES = "applies"  # applies at fuzz 0: clean or offset
    APPLIES_TWICE = "applies-twice"  # applies only by adding its lines a second time
    ADDED_ELSEWHERE = "added-elsewhere"  # the file already has the block it inserts
    REVERSE_APPLIES = "reverse-applies"  # the new release has its post-image
    HUNKS_PRESENT = "hunks-present"  # every hunk (of its deciding files) is there
    REQUIREMENT = "requirement"  # every such hunk is there by what the requirements admit
    COSMETIC_ASIDE = "cosmetic-aside"  # the same, set aside hunks moving imports and comments
    # upstream wrote it its own way
    WRITTEN_DIFFERENTLY = "written-differently"  # enough of its added lines are there
    TESTS_UPSTREAM = "tests-upstream"  # upstream has its tests, its code moved or rewritten
    WRITTEN_AT_PLACE = "written-at-place"  # upstream wrote lines holding its own at its place
    DROPPED_MODULE = "dropped-module"  # it only swaps imports of a module upstream dropped
    OBSOLETE = "obsolete"  # the code it changes is gone and upstream names the fix
    ONLY_CREATED_LEFT = "only-created-left"  # only the test data files it creates are not there
    PARTLY_PRESENT = "partly-present"  # some hunks are there, the others apply
    MOSTLY_THERE = "mostly-there"  # most of its lines or hunks are there, some fail
    MOST_OF_BOTH = "most-of-both"  # over half its hunks and of its lines are there, some fail
    TESTS_MOSTLY_UPSTREAM = "tests-mostly-upstream"  # its code moves lines, most tests there
    # it does not apply
    HUNKS_FAIL = "hunks-fail"  # a hunk neither applies nor is there
    REWRITTEN_AT_PLACE = "rewritten-at-place"  # upstream rewrote the lines it changes
    REWORDED_AT_PLACE = "reworded-at-place"  # upstream reworded the words it changes
    GONE_AROUND = "gone-around"  # upstream took out the lines it inserts between
    FUNCTION_REWRITTEN = "function-rewritten"  # upstream rewrote the functions it changes
    FIXED_BEFORE_PIN = "fixed-before-pin"  # the pin's changelog names the issue it fixes
    TESTS_CHANGED = "tests-changed"  # upstream changed the tests it skips
    SOME_HUNKS_THERE = "some-hunks-there"  # a hunk adding new code is there, others fail
    INCLUDE_SWAPPED = "include-swapped"  # upstream includes the header it swaps in, its own way
    REFRESH = "refresh"  # git's three-way merge places its hunks unchanged
    REFRESH_MOVED = "refresh-moved"  # its hunks land unchanged in the file their code moved to
    BLOCKED = "blocked"  # it needs lines an earlier failing patch adds
    BLOCKER_CONTEXT_ONLY = "blocker-context-only"  # ... only as context: its own lines fit
    BLOCKER_PARTLY_UPSTREAM = "blocker-partly-upstream"  # ... and upstream took part of it
    BLOCKER_MODULE = "blocker-module"  # it applies, but imports a module a failing patch adds
    CHAIN = "chain"  # later upstreamed patches of the series rewrite the lines it lacks
    # its files
    FILE_MOVED = "file-moved"  # a file it changes moved (found by its content)
    FILE_GONE = "file-gone"  # a file it changes is gone, its content not found elsewhere
    NOT_AT_PIN = "not-at-pin"  # a file it changes is in neither the pin nor the new release
    MOVED_LINES_THERE = "moved-lines-there"  # its file moved, the new place has its lines
    # evidence beside the trees
    CHANGELOG_MENTION = "changelog-mention"  # the new release's changelog names its fix
    APPLIED_UPSTREAM_HEADER = "applied-upstream-header"  # its header names the release
    UPSTREAM_COMMIT = "upstream-commit"  # its Origin is upstream's commit, before the release
    CHANGELOG_SUBJECT = "changelog-subject"  # the new changelog lists its subject as an item
    # a patch that applies, ported all the same
    IMPORTS_GONE = "imports-gone"  # it imports a module the new release lacks
    NEW_PLACES = "new-places"  # the text it rewrites is at more places in the new release
    # upstreamed, left to a person
    FITS_ELSEWHERE = "fits-elsewhere"  # its one line is there, its context fits elsewhere too
    MIXED_ENDINGS = "mixed-endings"  # its hunk lines mix CRLF and LF: apply refuses it
    # the patch file
    UNREADABLE = "unreadable"  # the patch file cannot be read
    # the upgrade horizon (a version range)
    TAKEN_EARLIER = "taken-earlier"  # upstream took it at an earlier release of the range
    BLOCKER_UPSTREAM = "blocker-upstream"  # the patch it needs is upstream at this release


#: Every rule identifier, in the order of :class:`Rule` (the order of the benchmark's table).
RULES = tuple(rule.value for rule in Rule)
