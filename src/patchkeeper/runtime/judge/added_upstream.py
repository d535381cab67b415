"""The evidence of a copy whose added lines are all in the new upstream (*remove*).

It counts the substantive lines only, as the series audit reads them
(:func:`patchkeeper.series.substantive_lines.substantive`), and says how many others it left
out: a lone ``pass``, ``else:``, ``return`` or bracket stands in almost any upstream body.
"""

from __future__ import annotations

from patchkeeper.series.substantive_lines import substantive


def all_added_upstream(added: list[str]) -> str:
    """The evidence that every line of ``added`` (the normalized lines a copy adds,
    :func:`patchkeeper.runtime.judge.drift.added_lines`) is in the new upstream, counting
    its substantive lines only: a lone ``pass``, ``return``, ``else:`` or bracket, a
    docstring's quotes or ``@staticmethod`` is in almost any upstream body, so it tells
    nothing of how much of the copy upstream has.

    >>> all_added_upstream(["y = x.npu()", "pass", ")"]).split(", and")[0]
    'every substantive line the replacement adds (1) is in the new upstream'
    """
    counted = sum(1 for line in added if substantive(line.encode("utf-8", "replace")))
    if not counted:
        return (
            "every line the replacement adds is in the new upstream, none of them "
            f"substantive ({_NOT_COUNTED})"
        )
    said = f"every substantive line the replacement adds ({counted}) is in the new upstream"
    others = len(added) - counted
    if others:
        more = f"are {others} others" if others > 1 else "is 1 other"
        said += f", and so {more} ({_NOT_COUNTED})"
    return said


#: What :func:`all_added_upstream` does not count, as its evidence says.
_NOT_COUNTED = (
    "a line that says nothing on its own, a lone `pass`, `return` or bracket, is not counted"
)
