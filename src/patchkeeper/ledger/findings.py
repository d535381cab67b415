"""The lint codes: which rule a lint :class:`~patchkeeper.errors.Finding` comes from.

Shared by :mod:`patchkeeper.ledger.lint` and :mod:`patchkeeper.ledger.entries`. Codes are stable
(a CI configuration may disable one by name); each group of codes is one kind of check:

- ``PK1xx`` header fields (missing, empty, unknown kind, pin, placeholder, Upstream form)
- ``PK2xx`` the series file against the patch directory
- ``PK3xx`` hand-edited patches (hunk counts, bytes against a re-export)
- ``PK4xx`` the knob rule
- ``PK5xx`` entries that are not patches (overlay, foreign diff, vendored tree)
- ``PK6xx`` the configured pin against the project's dependency files
"""

from __future__ import annotations

from pathlib import Path

#: Every code with a one-line description (``patchkeeper lint --json`` and docs/ci.md).
CODES: dict[str, str] = {
    "PK101": "a required header field is missing",
    "PK102": "a header field is empty",
    "PK103": "the Kind is not in the configured vocabulary",
    "PK104": "Cut-against does not begin with the configured pin",
    "PK105": "a header value is still a template placeholder",
    "PK106": "Upstream is neither none, a URL, nor PROJECT #NUMBER",
    "PK201": "the series lists a file that does not exist or cannot be read",
    "PK202": "a patch file in the directory is not in the series",
    "PK203": "the series lists a patch twice",
    "PK301": "a hunk's line counts do not add up (the patch was edited by hand)",
    "PK302": "the patch differs from re-exporting the commit it names",
    "PK303": "the commit the patch names is not in the checkout",
    "PK304": "the patch cannot be parsed",
    "PK305": "the patch names a path apply refuses (outside the tree, or a name it cannot write)",
    "PK306": "a hunk's lines mix CRLF and LF line endings (apply refuses it)",
    "PK401": "a patch reads an environment knob it does not register",
    "PK501": "an overlay's source directory is missing or empty",
    "PK502": "a vendored file differs from the pinned commit",
    "PK503": "a vendored file is not in the pinned commit",
    "PK504": "a file of the pinned commit is missing from the vendored tree",
    "PK505": "a foreign diff does not apply at its pinned commit at fuzz 0",
    "PK506": "an entry's pin cannot be read or resolved",
    "PK601": "a dependency file requires another upstream version than the configured pin",
    "PK602": "a dependency file cannot be read",
}


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when inside it, else as given (POSIX separators).

    The file keeps its own name: a patch that is a symbolic link is shown by the link's
    name, never by the file it points to, since the series lists the link (only the
    directories above it are resolved, so a root reached through a link still matches).
    """
    try:
        return (path.absolute().parent.resolve() / path.name).relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
