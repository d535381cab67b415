"""Header fields in a patch's preamble: read them with line numbers, rewrite one in place.

Three conventions share one reader, because all three are RFC 2822-like ``Name: value``
lines whose long values continue on lines that start with white space:

- the ledger schema of the series workflow (docs/glossary.md): ``Kind``, ``What``, ``Upstream``,
  ``Cut-against``, ``Retires-when``, one per line, at the end of the preamble;
- DEP-3 (``Description``/``Subject``, ``Origin``, ``Author``/``From``, ``Bug``,
  ``Bug-<Vendor>``, ``Forwarded``, ``Applied-Upstream``, ``Last-Update``; a ``.`` line is an
  empty line of a long description) and the mail headers ``From``/``Date``/``Subject`` that
  ``git format-patch`` and ``gbp pq`` write at the top, with RFC 2047 encoded words;
- Yocto's ``Upstream-Status``.

A patch written by ``git show`` or ``git log -p`` starts with ``commit <sha>``, the commit's
header lines (``Author:``, ``Date:``, with ``--format=fuller`` ``AuthorDate:``, ``Commit:``,
``CommitDate:``; ``Merge:``), read as fields, then a blank line and the commit message
indented by four spaces. The message's first paragraph, its lines joined by one space, is read
as the ``Subject`` (DEP-3's alias of ``Description``), as ``git log --format=%s`` reads it and
as ``git format-patch`` of the same commit writes it; the rest of the message is the long
description outside the fields, as with ``format-patch``. That field is not written in the
file (:attr:`HeaderField.written` is false): :func:`set_field` neither replaces it nor adds
after it.

Fields are read from the start of the preamble up to git's ``---`` separator (after which
``format-patch`` puts a diffstat) or the series workflow's ``--- exported from`` line. Unknown
fields are kept (gbp keeps them as pseudo-headers); names compare case-insensitively (b4's trailer
equality). :func:`set_field` rewrites one field and keeps every other byte of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from patchkeeper import constants as C

#: A field line: ``Cut-against: 0.32.0: re-anchored after #57169`` (the name has no space;
#: ``https://...`` is not a field because a space or the line end must follow the colon).
FIELD_LINE = re.compile(rb"^(?P<name>[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*):(?=[ \t\r\n]|$)")

#: git format-patch's separator before the diffstat: ``---``
SEPARATOR = (b"---\n", b"---\r\n", b"---")

#: An mbox ``From`` line, first in ``git format-patch`` output:
#: ``From 3f1c2a9d0b7e4c5f8a6b1d2e3f4a5b6c7d8e9f01 Mon Sep 17 00:00:00 2001``
MBOX_FROM = re.compile(rb"^From [0-9a-f]{7,64} ")

#: The first line of ``git show`` or ``git log -p`` output, with or without ``--decorate``:
#: ``commit 3f1c2a9d0b7e4c5f8a6b1d2e3f4a5b6c7d8e9f01 (HEAD -> main, tag: v1.2)``
GIT_COMMIT = re.compile(rb"^commit [0-9a-f]{7,64}(?: \(.*\))?\r?\n?$")

#: How git indents a commit message in ``git show`` and ``git log`` output: four spaces.
MESSAGE_INDENT = b"    "

#: The name the first paragraph of such a commit message is read under.
COMMIT_SUBJECT = "Subject"

#: A ``[PATCH]`` prefix of a mail subject: ``[PATCH] [4.2.x] Fixed ...``, ``[PATCH 2/5] ...``
PATCH_PREFIX = re.compile(r"^\[PATCH[^\]]*\]\s*")

#: Names looked up under another name when absent (DEP-3: ``Description`` may be
#: ``Subject``, ``Author`` may be ``From``).
ALIASES: dict[str, tuple[str, ...]] = {
    "description": ("description", "subject"),
    "subject": ("subject", "description"),
    "author": ("author", "from"),
}

#: Mail headers whose values may hold RFC 2047 encoded words (``=?utf-8?q?...?=``).
MAIL_HEADERS = frozenset({"from", "subject", "to", "cc"})

#: A name ending in this names a family of fields: ``Bug*`` is ``Bug`` and every
#: ``Bug-<Vendor>`` (DEP-3: ``Bug-Debian``, ``Bug-Ubuntu``; Debian also writes
#: ``Bug-Debian-Security``).
FAMILY = "*"


def in_family(family: str, name: str) -> bool:
    """Whether field ``name`` belongs to ``family`` (``Bug*``): the family's name itself, or
    that name, ``-`` and more; any case.

    >>> [in_family("Bug*", n) for n in ("BUG", "Bug-Debian", "Bugs", "Debian-Bug")]
    [True, True, False, False]
    """
    base = normalize(family.removesuffix(FAMILY))
    key = normalize(name)
    return key == base or key.startswith(base + "-")


def family_label(family: str, name: str) -> str:
    """The prefix a member's value gets in a family's value: ``""`` for the family's own
    name, else the vendor as written and ``": "``.

    >>> family_label("Bug*", "Bug"), family_label("Bug*", "Bug-Debian-Security")
    ('', 'Debian-Security: ')
    """
    vendor = name.strip()[len(family.removesuffix(FAMILY)) + 1 :]
    return f"{vendor}: " if vendor else ""


def normalize(name: str) -> str:
    """Return the comparison key of a field name: lower case, surrounding blanks removed.

    >>> normalize(" Cut-Against ")
    'cut-against'
    """
    return name.strip().lower()


@dataclass(frozen=True)
class HeaderField:
    """One ``Name: value`` field of a preamble.

    Attributes:
        name: the name as written (``"Bug-Debian"``).
        value: the value, unfolded: continuation lines joined by one space, a ``.`` line
            (DEP-3) as ``"\\n"``, encoded words of mail headers decoded.
        line_no: 1-based line of the name in the patch file.
        end_line: 1-based last line (the last continuation line).
        start: byte offset of the field's first line in the file.
        end: byte offset just after its last line (its line ending included).
        written: ``False`` for the subject read from a ``git show`` commit message (the
            module docstring): no ``Name: value`` line holds it.
    """

    name: str
    value: str
    line_no: int
    end_line: int
    start: int
    end: int
    written: bool = True

    @property
    def key(self) -> str:
        """The comparison key (:func:`normalize`)."""
        return normalize(self.name)


@dataclass(frozen=True)
class Headers:
    """Every field of one preamble, in file order.

    Attributes:
        fields: the fields.
        end: byte offset where reading stopped (the ``---`` or ``--- exported from`` line,
            or the end of the preamble).
    """

    fields: tuple[HeaderField, ...]
    end: int = 0

    def all(self, name: str) -> tuple[HeaderField, ...]:
        """Every field called ``name`` (any case), in order; no aliases."""
        key = normalize(name)
        return tuple(item for item in self.fields if item.key == key)

    def get(self, name: str, *, aliases: bool = True) -> HeaderField | None:
        """The first field called ``name``, else (``aliases``) the first of its DEP-3 aliases.

        >>> h = parse_headers(b"Subject: [PATCH] Fix it\\nBug-Debian: https://bugs/1\\n")
        >>> h.get("description").value, h.get("BUG-DEBIAN").line_no
        ('[PATCH] Fix it', 2)
        """
        keys = ALIASES.get(normalize(name), (normalize(name),)) if aliases else (normalize(name),)
        for key in keys:
            for item in self.fields:
                if item.key == key:
                    return item
        return None

    def value(self, name: str, *, aliases: bool = True) -> str:
        """Every value of ``name`` (or of its first present alias) joined by ``", "``; ``""``.

        A ``Subject`` loses its ``[PATCH ...]`` prefix, as ``git am`` drops it. A family name
        (``Bug*``) gives the value of every member in file order, a vendor's labelled:

        >>> h = parse_headers(b"Bug-Debian: https://bugs/1\\nBug: https://gh/2\\n")
        >>> h.value("Bug*")
        'Debian: https://bugs/1, https://gh/2'
        """
        if name.endswith(FAMILY):
            return ", ".join(
                family_label(name, item.name) + item.value
                for item in self.fields
                if in_family(name, item.name)
            )
        first = self.get(name, aliases=aliases)
        if first is None:
            return ""
        values = [item.value for item in self.all(first.name)]
        if first.key == "subject":
            values = [PATCH_PREFIX.sub("", value) for value in values]
        return ", ".join(values)

    def bugs(self) -> dict[str, tuple[str, ...]]:
        """DEP-3 bug references: ``{"": upstream Bug values, "Debian": Bug-Debian values}``."""
        out: dict[str, list[str]] = {}
        for item in self.fields:
            if item.key == "bug" or item.key.startswith("bug-"):
                vendor = item.name[4:] if item.key.startswith("bug-") else ""
                out.setdefault(vendor, []).append(item.value)
        return {vendor: tuple(values) for vendor, values in out.items()}

    def names(self) -> tuple[str, ...]:
        """The distinct field names, as first written, in order."""
        seen: dict[str, str] = {}
        for item in self.fields:
            seen.setdefault(item.key, item.name)
        return tuple(seen.values())


def _decode_words(text: str) -> str:
    """Decode RFC 2047 encoded words (``=?utf-8?q?Rapha=C3=ABl?=`` -> ``Raphaël``)."""
    if "=?" not in text:
        return text
    from email.header import decode_header, make_header

    try:
        return str(make_header(decode_header(text)))
    except (ValueError, LookupError, UnicodeDecodeError):
        return text


def _decode(line: bytes) -> str:
    return line.decode("utf-8", "surrogateescape")


def _unfold(first: bytes, continuation: list[bytes], key: str) -> str:
    value = _decode(first).strip()
    for raw in continuation:
        part = _decode(raw).strip()
        if part == ".":
            value += "\n"
        elif value.endswith("\n") or not value:
            value += part
        else:
            value += " " + part
    if key in MAIL_HEADERS:
        value = _decode_words(value)
    return value


def _is_continuation(line: bytes) -> bool:
    return line[:1] in (b" ", b"\t") and bool(line.strip())


def _stops_fields(line: bytes) -> bool:
    return line in SEPARATOR or bool(C.EXPORTED_FROM.match(line.rstrip(b"\r\n")))


def commit_subject(lines: list[bytes], first_line: int, offset: int) -> HeaderField | None:
    """The first paragraph of the commit message of a ``git show`` / ``git log -p`` preamble
    (``lines``, with their line endings), as an unwritten ``Subject`` field; ``None`` when the
    preamble is not of that shape or the message is empty.

    >>> text = b"commit 3f1c2a9\\nAuthor: A <a@b>\\nDate:   Mon\\n\\n    Fix the sum\\n    of f\\n"
    >>> found = commit_subject(text.splitlines(keepends=True), 1, 0)
    >>> found.value, found.line_no, found.end_line, found.written
    ('Fix the sum of f', 5, 6, False)
    """
    if not lines or not GIT_COMMIT.match(lines[0]):
        return None
    index = 1
    while index < len(lines) and lines[index].strip():  # the commit's header lines
        index += 1
    index += 1  # the blank line before the message
    first = index
    while index < len(lines) and lines[index].startswith(MESSAGE_INDENT) and lines[index].strip():
        index += 1
    if index == first:
        return None
    value = " ".join(_decode(line).strip() for line in lines[first:index])
    return HeaderField(
        name=COMMIT_SUBJECT,
        value=value,
        line_no=first_line + first,
        end_line=first_line + index - 1,
        start=offset + sum(len(line) for line in lines[:first]),
        end=offset + sum(len(line) for line in lines[:index]),
        written=False,
    )


def parse_headers(preamble: bytes, *, first_line: int = 1, offset: int = 0) -> Headers:
    """Read the header fields of ``preamble`` (the bytes before a patch's first diff).

    Args:
        preamble: the preamble bytes (:attr:`patchkeeper.series.model.Patch.preamble`); a whole
            patch file works too, reading stops at ``---``.
        first_line: the file line number of the preamble's first line.
        offset: the file byte offset of the preamble's first byte.

    Returns:
        :class:`Headers` with every field, unknown ones included, in file order; a ``git
        show`` commit message's subject among them (:func:`commit_subject`).

    >>> text = b"Prose.\\n\\nKind: fix\\nWhat: a long\\n  value\\n--- exported from abcdef0\\n"
    >>> h = parse_headers(text)
    >>> [(f.name, f.value, f.line_no, f.end_line) for f in h.fields]
    [('Kind', 'fix', 3, 3), ('What', 'a long value', 4, 5)]
    """
    lines = preamble.splitlines(keepends=True)
    subject = commit_subject(lines, first_line, offset)
    fields: list[HeaderField] = [] if subject is None else [subject]
    position = 0
    index = 0
    stop = len(preamble)
    while index < len(lines):
        line = lines[index]
        if _stops_fields(line):
            stop = position
            break
        match = FIELD_LINE.match(line)
        if match is None or (index == 0 and MBOX_FROM.match(line)):
            position += len(line)
            index += 1
            continue
        start = position
        name = _decode(match.group("name"))
        first = line[match.end() :]
        continuation: list[bytes] = []
        position += len(line)
        index += 1
        while index < len(lines) and _is_continuation(lines[index]):
            continuation.append(lines[index])
            position += len(lines[index])
            index += 1
        fields.append(
            HeaderField(
                name=name,
                value=_unfold(first, continuation, normalize(name)),
                line_no=first_line + index - 1 - len(continuation),
                end_line=first_line + index - 1,
                start=offset + start,
                end=offset + position,
            )
        )
    in_order = sorted(fields, key=lambda item: item.start)
    return Headers(
        fields=tuple(item for item in in_order if item.start < offset + stop), end=offset + stop
    )


def _line_ending(data: bytes, field: HeaderField | None) -> bytes:
    if field is not None and data[field.start : field.end].rstrip(b"\n").endswith(b"\r"):
        return b"\r\n"
    return b"\n"


def format_field(name: str, value: str, newline: bytes = b"\n") -> bytes:
    """Return the bytes of a field: ``Name: value``; a ``"\\n"`` in ``value`` starts a
    continuation line (two spaces), an empty line becomes DEP-3's `` .``.

    >>> format_field("What", "one\\ntwo")
    b'What: one\\n  two\\n'
    """
    parts = value.split("\n")
    head = f"{name}: {parts[0]}".rstrip() if parts[0] else f"{name}:"
    out = [head]
    for part in parts[1:]:
        out.append(f"  {part}" if part.strip() else "  .")
    return newline.join(item.encode("utf-8", "surrogateescape") for item in out) + newline


def set_field(data: bytes, name: str, value: str) -> bytes:
    """Return ``data`` with field ``name`` set to ``value``; every other byte is kept.

    The first field of that name (any case) is replaced, keeping its spelling and line
    ending. A missing field is added after the last field before the ``---`` or
    ``--- exported from`` line (or at that line, or at the end of the preamble).

    >>> set_field(b"Kind: fix\\nWhat: x\\n--- exported from abcdef0\\ndiff\\n", "kind", "local")
    b'Kind: local\\nWhat: x\\n--- exported from abcdef0\\ndiff\\n'
    >>> set_field(b"Kind: fix\\n--- exported from abcdef0\\n", "Upstream", "none")
    b'Kind: fix\\nUpstream: none\\n--- exported from abcdef0\\n'
    """
    headers = parse_headers(_preamble_of(data))
    written = [item for item in headers.fields if item.written]
    existing = next((item for item in written if item.key == normalize(name)), None)
    if existing is not None:
        new = format_field(existing.name, value, _line_ending(data, existing))
        return data[: existing.start] + new + data[existing.end :]
    last = written[-1] if written else None
    at = last.end if last is not None else headers.end
    newline = _line_ending(data, last)
    prefix = data[:at]
    if prefix and not prefix.endswith(b"\n"):
        prefix += newline
    return prefix + format_field(name, value, newline) + data[at:]


def _preamble_of(data: bytes) -> bytes:
    """The bytes before the first diff of a patch file (header fields cannot be past it)."""
    for marker in (b"\ndiff ", b"\nIndex: ", b"\n--- a/", b"\n--- /dev/null"):
        found = data.find(marker)
        if found != -1:
            data = data[: found + 1]
    if data.startswith((b"diff ", b"Index: ")):
        return b""
    return data


def remove_field(data: bytes, name: str) -> bytes:
    """Return ``data`` without the first field called ``name`` (unchanged when absent)."""
    existing = parse_headers(_preamble_of(data)).get(name, aliases=False)
    if existing is None or not existing.written:
        return data
    return data[: existing.start] + data[existing.end :]
