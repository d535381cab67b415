"""The patch series an RPM spec file applies (Fedora, openSUSE, Photon OS, ...).

A spec names its patches in ``PatchN:`` tags, in its preamble or a ``%package`` preamble as
rpm reads them (``Patch:`` without a number takes the number
after the previous tag's, as rpm 4.15 numbers it; a ``%patchlist`` section lists more, one a
line, numbered the same way) and applies them in ``%prep``:

- ``%autosetup -pN`` or ``%autopatch -pN`` apply every patch in the order of its number
  (``%autopatch -m MIN -M MAX`` only those between; ``%autopatch -pN 3 1`` those numbers, in
  that order; ``%autosetup -N`` none, a later ``%autopatch`` does);
- ``%patch N -pX``, ``%patch -P N -P M -pX`` and the older ``%patchN -pX`` apply the named
  patches, in the order written.

A tag's value is a file name or a URL whose last part is the file (rpm fetches nothing: the
file sits beside the spec). ``%{name}``, ``%{version}``, ``%{nil}`` and names set by
``%global`` or ``%define`` are expanded, the last definition winning (openSUSE's ``%define
psuffix %{nil}`` in an ``%else`` leaves ``Name: python-urllib3%{psuffix}`` as
``python-urllib3``); a name left with a macro in it cannot be read here and is an error
naming its line. ``%if`` blocks are read as if every branch were taken: a patch applied in
one branch only is in the series (what the spec applies on the build the downstream tests is
for its maintainer to say, in the series init writes); one patch number defined in two
branches (``%if`` ... ``%else``) is an error, since the series cannot hold both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import PatchkeeperError
from patchkeeper.series.parse import refuse_wide_text
from patchkeeper.system.regular import read_regular

#: ``Patch12: name`` or ``Patch: name`` (tags are case-insensitive in rpm).
_TAG = re.compile(r"^(patch|source)(\d*)\s*:\s*(\S.*?)\s*$", re.IGNORECASE)
#: ``%if``, ``%ifarch``, ``%else``, ``%elif``, ``%endif`` ... (rpm's conditionals).
_CONDITIONAL = re.compile(r"^%(if|ifarch|ifnarch|ifos|ifnos|elif|elifarch|elifos|else|endif)\b")
#: ``Name:``/``Version:`` and ``%global``/``%define`` definitions.
_HEADER = re.compile(r"^(name|version)\s*:\s*(\S+)\s*$", re.IGNORECASE)
_DEFINE = re.compile(r"^%(?:global|define)\s+(\w+)\s+(.+?)\s*$")
_MACRO = re.compile(r"%\{\??(\w+)\}|%(\w+)")
#: A section header: ``%prep``, ``%build``, ``%patchlist``, ``%description -n x`` ...
_SECTION = re.compile(
    r"^%(prep|build|install|check|files|changelog|description|package|patchlist|sourcelist|"
    r"pre|post|preun|postun|pretrans|posttrans|conf|generate_buildrequires|clean|verifyscript)"
    r"\b"
)
_HINT = (
    "write the patch's file name out in the spec, or list the patches in a quilt series file "
    "and give it with --patches"
)


@dataclass(frozen=True)
class SpecPatch:
    """One patch the spec applies, in apply order.

    Attributes:
        name: the file name (beside the spec).
        strip: the ``-p`` of the statement that applies it, or ``None`` when it gives none.
        line: the 1-based line of its ``Patch`` tag.
    """

    name: str
    strip: int | None
    line: int


@dataclass(frozen=True)
class SpecSeries:
    """What a spec file says of its patches and its upstream.

    Attributes:
        patches: the patches in the order ``%prep`` applies them.
        name: the upstream project's name (``%{pypi_name}``, ``%{srcname}``, else ``Name``
            without a ``python-``/``python3-`` prefix), or ``None``.
        version: the ``Version`` tag, expanded, or ``None``.
    """

    patches: tuple[SpecPatch, ...]
    name: str | None
    version: str | None


def _expand(text: str, macros: dict[str, str], depth: int = 0) -> str:
    """``text`` with the known macros expanded (``%{?x}`` of an unknown ``x`` is empty)."""

    def one(match: re.Match[str]) -> str:
        key = match[1] or match[2]
        if key in macros:
            return macros[key]
        if match[0].startswith("%{?"):
            return ""
        return match[0]

    out = _MACRO.sub(one, text)
    return _expand(out, macros, depth + 1) if out != text and depth < 8 else out


def _strip_option(words: list[str]) -> int | None:
    """The ``-pN`` / ``-p N`` among a statement's words (the last one), or ``None``."""
    strip = None
    for index, word in enumerate(words):
        if word.startswith("-p") and word[2:].isdigit():
            strip = int(word[2:])
        elif word == "-p" and index + 1 < len(words) and words[index + 1].isdigit():
            strip = int(words[index + 1])
    return strip


def _option(words: list[str], flag: str) -> int | None:
    """The number after ``flag`` (``-m 3`` or ``-m3``), or ``None``."""
    for index, word in enumerate(words):
        if word == flag and index + 1 < len(words) and words[index + 1].isdigit():
            return int(words[index + 1])
        if word.startswith(flag) and word[len(flag) :].isdigit():
            return int(word[len(flag) :])
    return None


def _explicit(words: list[str]) -> list[int]:
    """The patch numbers of a ``%patch`` statement: ``%patch 3``, ``%patch -P 3 -P 4``,
    ``%patch -P3``; the older ``%patch3`` is read by the caller."""
    numbers = []
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word == "-P" and index + 1 < len(words) and words[index + 1].isdigit():
            numbers.append(int(words[index + 1]))
            skip = True
        elif word.startswith("-P") and word[2:].isdigit():
            numbers.append(int(word[2:]))
        elif word in ("-p", "-b", "-z", "-F", "-d", "-o", "-m", "-M"):
            skip = True  # an option with its value
        elif word.isdigit():
            numbers.append(int(word))
    return numbers


def spec_text(path: Path) -> str:
    """The text of the spec file ``path`` (UTF-8; bytes that are not UTF-8 kept as surrogate
    escapes, so a Latin-1 changelog does not stop the read).

    Raises:
        PatchkeeperError: the file cannot be read (naming it).
        PatchFormatError: the file is UTF-16 or UTF-32 text, which no line of would read as
            a ``Patch`` tag (naming the encoding and the ``iconv`` command that converts it,
            as for a series file: :func:`patchkeeper.series.parse.refuse_wide_text`).
    """
    try:
        data = read_regular(path)
    except OSError as exc:
        raise PatchkeeperError(
            f"cannot read the spec file: {exc.strerror}",
            path=path,
            hint="give --patches a readable RPM spec file, a series file, or a directory of "
            "git format-patch files",
        ) from None
    refuse_wide_text(data, path, "the spec file")
    return data.decode("utf-8", "surrogateescape")


def read_spec(path: Path) -> SpecSeries:
    """The patches ``path`` (an RPM spec file) applies, in order, with its upstream name and
    version (the module's rules): :func:`parse_spec` of the file's text.

    Raises:
        PatchkeeperError: as :func:`spec_text` and :func:`parse_spec`.
    """
    return parse_spec(spec_text(path), path)


def parse_spec(text: str, path: Path) -> SpecSeries:
    """The patches the spec ``text`` (read from ``path``) applies, in order, with its
    upstream name and version (the module's rules).

    Raises:
        PatchkeeperError: a patch name keeps a macro this reader cannot expand; a ``%prep``
            statement applies a number no tag defines (naming the statement's line); two tags
            define one number (naming the second tag's line); all name ``path``.
    """
    macros: dict[str, str] = {"nil": ""}
    tags: dict[int, tuple[str, int]] = {}
    #: the branch of every open %if around a line: (line of the %if, branch index)
    branches: list[tuple[int, int]] = []
    tag_branches: dict[int, tuple[tuple[int, int], ...]] = {}
    applies: list[tuple[list[int] | None, int | None, int | None, int | None, int]] = []
    last_number = -1
    section = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        conditional = _CONDITIONAL.match(line)
        if conditional:
            if conditional[1].startswith("if"):
                branches.append((number, 0))
            elif branches and conditional[1] == "endif":
                branches.pop()
            elif branches:  # %else, %elif...
                branches[-1] = (branches[-1][0], branches[-1][1] + 1)
            continue
        opened = _SECTION.match(line)
        if opened:
            section = opened[1]
            continue
        defined = _DEFINE.match(line)
        if defined:
            macros[defined[1]] = _expand(defined[2], macros)
            continue
        if section in ("", "package"):
            header = _HEADER.match(line)
            if header and section == "":
                macros[header[1].lower()] = _expand(header[2], macros)
                continue
            tag = _TAG.match(line)
            if tag and tag[1].lower() == "patch":
                last_number = int(tag[2]) if tag[2] else last_number + 1
                _alternatives(tag_branches, last_number, tuple(branches), tags, number, path)
                _add_tag(tags, last_number, _expand(tag[3], macros), number, path)
            continue
        if section == "patchlist":
            last_number += 1
            _add_tag(tags, last_number, _expand(line, macros), number, path)
            continue
        if section != "prep":
            continue
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        head = words[0]
        if head in ("%autosetup", "%autopatch"):
            if head == "%autosetup" and "-N" in words:
                continue
            listed = _explicit(words[1:]) if head == "%autopatch" else []
            applies.append(
                (
                    listed or None,
                    _strip_option(words),
                    _option(words, "-m"),
                    _option(words, "-M"),
                    number,
                )
            )
        elif head == "%patch" or re.fullmatch(r"%patch\d+", head):
            listed = [int(head[6:])] if head != "%patch" else _explicit(words[1:])
            applies.append((listed or [0], _strip_option(words), None, None, number))
    order: list[tuple[int, int | None, int]] = []
    for numbers, strip, low, high, prep_line in applies:
        if numbers is None:
            chosen = [
                n for n in sorted(tags) if (low is None or n >= low) and (high is None or n <= high)
            ]
        else:
            chosen = numbers
        order += [(n, strip, prep_line) for n in chosen]
    patches = []
    for number, strip, prep_line in order:
        if number not in tags:
            raise PatchkeeperError(
                f"%prep applies patch {number}, and no Patch{number} tag defines it",
                path=path,
                line=prep_line,
                hint=(
                    f"define Patch{number} in the spec's preamble (or a %package preamble), "
                    "or take the patch out of %prep"
                ),
            )
        file_name, tag_line = tags[number]
        patches.append(SpecPatch(file_name, strip, tag_line))
    project = macros.get("pypi_name") or macros.get("srcname")
    if project is None and "name" in macros:
        project = re.sub(r"^python3?-", "", macros["name"])
    return SpecSeries(tuple(patches), project, macros.get("version"))


def _alternatives(
    tag_branches: dict[int, tuple[tuple[int, int], ...]],
    number: int,
    here: tuple[tuple[int, int], ...],
    tags: dict[int, tuple[str, int]],
    line: int,
    path: Path,
) -> None:
    """Refuse a second ``Patch<number>`` tag in another branch of an ``%if`` than the first
    (``%if`` ... ``%else``: one build reads one of them, and init, reading every branch,
    cannot tell which); else remember the tag's branches.

    Raises:
        PatchkeeperError: the two tags are alternatives (naming both lines).
    """
    first = tag_branches.get(number)
    if first is None:
        tag_branches[number] = here
        return
    for (if_line, branch), (other_line, other_branch) in zip(first, here):
        if if_line != other_line:
            break
        if branch != other_branch:
            raise PatchkeeperError(
                f"Patch{number} is defined in two branches of the %if at line {if_line} "
                f"(lines {tags[number][1]} and {line}): init reads "
                "every branch and cannot tell which build the downstream follows",
                path=path,
                line=line,
                hint="write a series file beside the spec listing the patches of that build, and "
                "run init with --patches SERIES --upstream NAME==VERSION",
            )


def _add_tag(
    tags: dict[int, tuple[str, int]], number: int, value: str, line: int, path: Path
) -> None:
    """Record ``Patch<number>``'s file name (a URL's last part) from line ``line``."""
    if "%" in value:
        raise PatchkeeperError(
            f"the name of patch {number} keeps a macro this reader cannot expand: {value}",
            path=path,
            line=line,
            hint=_HINT,
        )
    if number in tags:
        raise PatchkeeperError(
            f"two tags define patch {number} (lines {tags[number][1]} and {line})",
            path=path,
            line=line,
            hint="give each patch its own number",
        )
    tags[number] = (value.rstrip("/").rsplit("/", 1)[-1], line)


def holds_patches(text: str) -> bool:
    """Whether the spec ``text`` has a ``Patch`` tag or a ``%patchlist`` section (a cheap
    look, for detection, before :func:`parse_spec`: Fedora's newer specs list their patches
    in ``%patchlist`` alone).

    >>> holds_patches("Name: x\\nPatch3: a.patch\\n"), holds_patches("%patchlist\\na.patch\\n")
    (True, True)
    >>> holds_patches("Name: x\\nSource0: x.tar.gz\\n")
    False
    """
    found = re.search(r"^\s*(patch\d*\s*:|%patchlist\b)", text, re.IGNORECASE | re.MULTILINE)
    return found is not None


#: The ``Version:`` and ``Release:`` tags (``Version:        1.0``), value kept apart from the
#: spacing around it.
_VERSION_TAG = re.compile(r"^(version\s*:\s*)(\S+)(\s*)$", re.IGNORECASE)
_RELEASE_TAG = re.compile(r"^(release\s*:\s*)(\S+)(\s*)$", re.IGNORECASE)
#: A release that counts builds from a number of one or more (``3%{?dist}``, ``12.el9``).
_COUNTED_RELEASE = re.compile(r"^0*[1-9]\d*(?!\d)")


def series_spec(directory: Path, names: tuple[str, ...]) -> tuple[Path, str] | None:
    """The RPM spec of ``directory`` that applies the series' patches ``names`` (the spec
    ``init`` wrote the series beside), with its text: the one ``*.spec`` there with a
    ``Patch`` tag naming one of them; ``None`` when there is none, or more than one, or a
    spec that cannot be read or parsed (nothing to move, or nothing certain)."""
    wanted = set(names)
    found = []
    for spec in sorted(directory.glob("*.spec")):
        try:
            text = spec_text(spec)
            if holds_patches(text) and wanted & {p.name for p in parse_spec(text, spec).patches}:
                found.append((spec, text))
        except PatchkeeperError:
            continue
    return found[0] if len(found) == 1 else None


def move_version(text: str, spec: Path, old: str, new: str) -> tuple[str, tuple[str, ...]]:
    """The spec ``text`` (the file ``spec``) moved from upstream ``old`` to ``new`` as a
    packager does it for a new upstream release (``rpmdev-bumpspec --new``, packit's
    propose-downstream): the main preamble's ``Version:`` set to ``new``, and its
    ``Release:`` started again at 1 when it counts builds from a number (``3%{?dist}`` is
    ``1%{?dist}``); a ``Release:`` of ``0`` (openSUSE's, which the build service counts) or
    written with a macro (``%autorelease``) is left as it is. Returns the text and what is
    left to do by hand: a ``Version:`` written with a macro, or one that is not ``old``
    (the spec does not follow the pin), is not changed and is named with its line.

    >>> text = "Name: x\\nVersion:  1.0\\nRelease:  3%{?dist}\\n%prep\\nVersion: 9\\n"
    >>> move_version(text, Path("x.spec"), "1.0", "1.1")
    ('Name: x\\nVersion:  1.1\\nRelease:  1%{?dist}\\n%prep\\nVersion: 9\\n', ())
    >>> move_version("Version: %{upver}\\nRelease: 0\\n", Path("x.spec"), "1.0", "1.1")[1]
    ('set Version: in x.spec (line 1, %{upver}) to 1.1 by hand: it is written with a macro',)
    """
    lines = text.splitlines(keepends=True)
    version: tuple[int, re.Match[str]] | None = None
    release: tuple[int, re.Match[str]] | None = None
    for index, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if _SECTION.match(body.strip()):
            break  # the main preamble ends at the first section
        found = _VERSION_TAG.match(body)
        if found is not None and version is None:
            version = (index, found)
        found = _RELEASE_TAG.match(body)
        if found is not None and release is None:
            release = (index, found)
    if version is None or version[1][2] == new:
        return text, ()
    index, tag = version
    if tag[2] != old:
        why = "it is written with a macro" if "%" in tag[2] else f"it is not the pin {old}"
        return text, (
            f"set Version: in {spec.name} (line {index + 1}, {tag[2]}) to {new} by hand: {why}",
        )
    lines[index] = f"{tag[1]}{new}{tag[3]}{lines[index][len(tag[0]) :]}"
    counted = _COUNTED_RELEASE.match(release[1][2]) if release is not None else None
    if release is not None and counted is not None:
        index, tag = release
        value = "1" + tag[2][counted.end() :]
        lines[index] = f"{tag[1]}{value}{tag[3]}{lines[index][len(tag[0]) :]}"
    return _names_kept(text, lines, spec)


def _names_kept(text: str, lines: list[str], spec: Path) -> tuple[str, tuple[str, ...]]:
    """The moved spec (``lines``, moved from ``text``) with every patch name that follows
    the version (``Patch0: %{name}-%{version}-fix.patch``) written out as the file it names
    now, and a to-do item for each: under the new ``Version:`` the tag would name a file that
    is not there (``python-x-1.1-fix.patch``), and rpmbuild stops at it. Renaming the file
    is the packager's choice; the series keeps its name until then.

    >>> text = "Version: 1.0\\nPatch0: x-%{version}-a.patch\\n%prep\\n%autosetup -p1\\n"
    >>> moved, todo = move_version(text, Path("x.spec"), "1.0", "1.1")
    >>> moved.splitlines()[:2]
    ['Version: 1.1', 'Patch0: x-1.0-a.patch']
    >>> print(todo[0])  # doctest: +NORMALIZE_WHITESPACE
    x.spec:2: the name x-%{version}-a.patch follows Version: and would name x-1.1-a.patch,
    which is not the patch; written out as x-1.0-a.patch: to have it follow the version
    again, rename the file to x-1.1-a.patch, its series line with it, and put the macro back
    """
    try:
        before = {p.line: p.name for p in parse_spec(text, spec).patches}
        after = {p.line: p.name for p in parse_spec("".join(lines), spec).patches}
    except PatchkeeperError:  # read before, so not expected; then there is nothing to keep
        return "".join(lines), ()
    todo = []
    for line, name in sorted(before.items()):
        moved = after.get(line, name)
        if moved == name:
            continue
        body = lines[line - 1].rstrip("\r\n")
        tag = _TAG.match(body.strip())
        written = (tag[3] if tag else body.strip()).rstrip("/").rsplit("/", 1)[-1]
        at = body.rfind(written)
        lines[line - 1] = (
            body[:at] + name + body[at + len(written) :] + lines[line - 1][len(body) :]
        )
        todo.append(
            f"{spec.name}:{line}: the name {written} follows Version: and would name {moved}, "
            f"which is not the patch; written out as {name}: to have it follow the version "
            f"again, rename the file to {moved}, its series line with it, and put the macro back"
        )
    return "".join(lines), tuple(todo)
