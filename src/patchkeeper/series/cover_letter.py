"""The cover letter ``git format-patch --cover-letter`` writes beside a series.

``0000-cover-letter.patch`` (``vN-0000-cover-letter.patch`` for a reroll written with
``-v N``) is a mail that introduces the series: a subject, a blurb and a diffstat, no diff. It
is not a patch, so ``init`` leaves it out of the series it writes and ``lint`` does not report
it as a patch file the series forgot (PK202).
"""

from __future__ import annotations

import re
from pathlib import Path

#: A cover letter's file name: an optional reroll prefix, the number zero, ``cover-letter``.
COVER_LETTER = re.compile(r"^(?:v\d+-)?0+-cover-letter\.patch$")

#: A line that starts a file's diff: git's header, or the old-file line of a unified diff.
_DIFF_START = re.compile(rb"^(?:diff --git |--- )", re.MULTILINE)


def is_cover_letter(path: Path) -> bool:
    """Whether ``path`` is a cover letter: its name has the form and it holds no diff.

    A file so named that does hold a diff is a patch (someone's own naming), and so is not a
    cover letter; a file that cannot be read is not one either.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp(), "v2-0000-cover-letter.patch")
    >>> _ = path.write_bytes(b"Subject: [PATCH v2 0/3] *** SUBJECT HERE ***\\n\\n-- \\n2.39.2\\n")
    >>> is_cover_letter(path)
    True
    """
    if not COVER_LETTER.match(path.name):
        return False
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return _DIFF_START.search(data) is None
