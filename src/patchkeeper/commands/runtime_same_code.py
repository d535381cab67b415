"""``runtime same-code LEFT RIGHT``: two files or ``FILE::QUALNAME`` definitions compared as
syntax trees without docstrings."""

from __future__ import annotations

from patchkeeper.runtime.judge.samecode import SameCode, same_code


def run(left: str, right: str) -> SameCode:
    """Compare ``left`` and ``right``.

    Raises: as :func:`patchkeeper.runtime.judge.samecode.same_code`.
    """
    return same_code(left, right)
