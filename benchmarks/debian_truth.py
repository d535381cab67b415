"""What Debian's maintainers did with each patch of a series across one upgrade: the truth.

The pure part of the miner (``benchmarks/mine_debian.py``): no network, no cache, only text.
Given the older suite's series (its patches' text) and the newer suite's series and
``debian/changelog``, each patch of the older series gets one outcome:

- ``upstreamed``: dropped, and the changelog entries between the two Debian versions name it
  with words that say upstream has it ("applied upstream", "merged upstream", "included in
  the new upstream release", ...), or its DEP-3 header says so (``Applied-Upstream`` with no
  version or a version at or below the new upstream version; ``Origin: upstream`` or
  ``Origin: backport`` with a commit or URL; an ``Origin`` URL naming a commit, unless it says
  ``vendor`` or ``other``; ``Forwarded`` naming a commit). Whether that commit is in the new
  release is not checked: the maintainers dropped the patch at that release. Phrases that tell
  where a patch came from ("Applied upstream patch: ...") never count. Where neither speaks,
  these say it too: a wider reading of the changelog (:func:`changelog_says`: a renumbered
  name, a list under a sub-bullet, more words), an item announcing the new release that
  lists the CVE of the patch's name as fixed (:func:`release_fixes`), one item saying all
  patches were dropped as upstream has them (:func:`all_upstream_item`), or a statement
  that the patches an upload dropped went upstream ("Drop patches applied upstream") when
  nothing else between the two versions could have dropped this one
  (:func:`dropped_upstream_item`). A maintainer retires such a patch.
- ``carried``: kept (same series name, a name with the same CVE id, or another name with the
  same changed lines) with the same ``+``/``-`` lines: a maintainer carries it (refreshing
  offsets or context at most; where the lines go is not compared). A patch kept under its
  name or its CVE id is compared as :func:`same_lines` does: trailing whitespace and blank
  ``+``/``-`` lines aside, because regenerating a patch against new context (``quilt
  refresh``, ``gbp pq export``) may count a blank line next to a hunk as context or as
  changed while the patch does the same; a rename found by its lines alone needs the exact
  lines. Unless upstream wrote what it adds (:func:`upstream_wrote`): when the kept patch's
  place in the new release (its context lines, or the new upstream file a few lines around
  the hunk, when the miner gives the trees) holds lines it adds, next to them, that the same
  place did not hold at the older release, the maintainers refreshed a patch that now adds
  them a second time: ``upstreamed`` when upstream holds every added line that says
  something and the patch removes none, ``port`` (partly upstream) when it holds some (a
  Python import beside other added code is not counted: :func:`supports`).
- ``port``: kept with rewritten ``+``/``-`` lines: a maintainer carried it and had to rework it.
  A patch is also kept when exactly one newer patch, not of an older patch's name, has its
  DEP-3 subject and ``Origin`` (or ``Bug``) (:func:`identity`): the same change renamed, as
  when a backport is dropped with the new release and taken again, rewritten, under a new
  number because that release lacks it. That comes before any changelog or header evidence
  that upstream has it: the newer series shows the maintainers still carry the change.
  Where nothing else speaks for a dropped patch, it is kept too when exactly one newer
  patch continues it under its name less its number or directory, or under its DEP-3
  subject (:func:`continuation`): a series exported again renames its patches.
- left out, with a reason: dropped for another stated reason ("no longer needed", ...), or
  with no stated reason, or ``Applied-Upstream`` naming a later release.

Every outcome carries ``source``: the changelog item, the header line or the series fact it
was read from, quoted (one line, at most :data:`QUOTE_LIMIT` characters).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

#: The longest quote kept in a truth row's ``source``, in characters.
QUOTE_LIMIT = 240

UPSTREAMED = "upstreamed"
CARRIED = "carried"
PORT = "port"

#: Left-out reasons, as counted in the miner's report.
OTHER_REASON = "dropped for another stated reason"
NO_REASON = "dropped with no stated reason"
GENERIC_REASON = "dropped; the changelog says patches went upstream but names none"
LATER_RELEASE = "Applied-Upstream names a later release"

#: Words of a changelog item that say upstream has the change.
_UPSTREAM_WORDS = re.compile(
    r"(applied|merged|included|incorporated|integrated|accepted|fixed|adopted|landed|"
    r"present|available|released|shipped|contained|implemented|resolved)\b[^.;]{0,40}"
    r"\bupstream"
    r"|\bupstream(ed)?\b[^.;]{0,30}\b(applied|merged|included|incorporated|integrated|"
    r"accepted|fixed|has|now|contains|includes|ships|released|implemented)\b"
    r"|\bupstreamed\b"
    r"|\b(applied|merged|included|fixed) in (the )?(new |latest )?(upstream|release|version|"
    r"v?\d)"
    r"|\bin (the )?new upstream (release|version)",
    re.IGNORECASE,
)
#: More words that say upstream has the change ("already upstream", "superseded upstream":
#: upstream fixed it its own way, "went upstream", "Dropped, upstream.", "the new release
#: applies Debian patch X"), read by the wider reading (:func:`changelog_says`).
_UPSTREAM_MORE = re.compile(
    r"\balready\s+(applied\s+|merged\s+|included\s+)?(in\s+)?upstream\b"
    r"|\b(superseded|obsoleted)\s+(by\s+|in\s+)?upstream\b"
    r"|\b(went|gone)\s+upstream\b"
    r"|\b(dropped|removed|deleted)\s*[,:;]\s*upstream\s*(\.|$)"
    r"|\b(applies|merges|includes|incorporates)\s+(the\s+)?debian\s+patch",
    re.IGNORECASE,
)
#: Phrases that tell where a patch came from, not that upstream has it ("Applied upstream
#: patch: ...", "cherry-pick upstream commit"): removed before :data:`_UPSTREAM_WORDS` is tried.
_TAKEN_FROM_UPSTREAM = re.compile(
    r"\b(apply|applies|applied|applying|cherry-?pick(s|ed)?|backport(s|ed)?|add(s|ed)?|"
    r"import(s|ed)?|take|took|taken|use|using)\s+(the\s+|an?\s+)?upstream\s+"
    r"(patch|commit|fix|change|pr|pull)",
    re.IGNORECASE,
)
#: A CVE identifier in a patch name.
_CVE = re.compile(r"CVE-\d{4}-\d{4,}", re.IGNORECASE)
#: Words of a changelog item that say a patch was dropped (for any reason).
_DROP_WORDS = re.compile(
    r"\b(drop(ped|s)?|remov(e|ed|es)|delet(e|ed|es)|obsolete|no longer|unneeded|"
    r"not needed|superseded|applied|merged|upstreamed)\b",
    re.IGNORECASE,
)
#: A Debian changelog entry's first line: ``source (version) distributions; urgency=...``.
_ENTRY = re.compile(r"^(?P<source>[a-z0-9][a-z0-9+.-]*) \((?P<version>[^)\s]+)\)\s")
#: A release-like version inside a header value (``1.26.17``, ``v2.0``).
_RELEASE = re.compile(r"\bv?(\d+(?:\.\d+)+(?:(?:a|b|rc|\.post|\.dev)\d+)?)\b")
#: A commit named in a URL or a header value.
_COMMIT = re.compile(
    r"/commits?/[0-9a-f]{7,40}\b|\bcommit[:/ ]+[0-9a-f]{7,40}\b"
    # a commit viewed by its id (``commit/?id=``, ``patch/?id=``, ``a=commitdiff;h=``) or
    # by the kernel's short form of a mainline commit (``/linus/``)
    r"|/(commit|commitdiff|patch)/?\?(\S*[;&])?id=[0-9a-f]{12,40}\b"
    r"|[?;&]a=commit(diff)?;(\S*;)?h=[0-9a-f]{12,40}\b|/linus/[0-9a-f]{12,40}\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Outcome:
    """One patch's outcome: ``truth`` (:data:`UPSTREAMED`, :data:`CARRIED`, :data:`PORT`, or
    None when left out), ``reason`` (the left-out reason, else ``""``), ``source`` (the
    quoted evidence) and ``why`` (one sentence)."""

    truth: str | None
    reason: str
    source: str
    why: str


#: What separates a changelog item's sub-bullets (``    - x``) in :attr:`ChangelogEntry.items`.
SUB = "\n- "


@dataclass(frozen=True)
class ChangelogEntry:
    """One entry of a ``debian/changelog``: its version and its change items, each item a
    top-level ``*`` bullet joined with its continuation lines (whitespace collapsed), its
    sub-bullets after :data:`SUB`."""

    version: str
    items: tuple[str, ...]


def quote(text: str) -> str:
    """``text`` on one line, cut to :data:`QUOTE_LIMIT` characters with ``...``."""
    line = " ".join(text.split())
    return line if len(line) <= QUOTE_LIMIT else line[: QUOTE_LIMIT - 3] + "..."


# --- Debian versions (Debian Policy 5.6.12) -------------------------------------------------


def _order(char: str) -> int:
    """The sort weight of one non-digit character: ``~`` first, then end, letters, others."""
    if char == "~":
        return -1
    if char.isalpha():
        return ord(char)
    return ord(char) + 256


def _compare_part(a: str, b: str) -> int:
    """Compare an upstream version or a Debian revision, as dpkg does (-1, 0, 1)."""
    while a or b:
        a_text = re.match(r"[^0-9]*", a).group()  # type: ignore[union-attr]
        b_text = re.match(r"[^0-9]*", b).group()  # type: ignore[union-attr]
        for i in range(max(len(a_text), len(b_text))):
            x = _order(a_text[i]) if i < len(a_text) else 0
            y = _order(b_text[i]) if i < len(b_text) else 0
            if x != y:
                return -1 if x < y else 1
        a, b = a[len(a_text) :], b[len(b_text) :]
        a_num = re.match(r"[0-9]*", a).group()  # type: ignore[union-attr]
        b_num = re.match(r"[0-9]*", b).group()  # type: ignore[union-attr]
        x, y = int(a_num or 0), int(b_num or 0)
        if x != y:
            return -1 if x < y else 1
        a, b = a[len(a_num) :], b[len(b_num) :]
    return 0


def compare_versions(a: str, b: str) -> int:
    """Compare two Debian versions ``[epoch:]upstream[-revision]``: -1, 0 or 1.

    >>> compare_versions("1.0~rc1-1", "1.0-1"), compare_versions("1:0.9", "2.0")
    (-1, 1)
    """
    parts = []
    for version in (a, b):
        epoch, _, rest = version.rpartition(":") if ":" in version else ("0", "", version)
        upstream, _, revision = rest.rpartition("-") if "-" in rest else (rest, "", "")
        parts.append((int(epoch or 0), upstream, revision))
    if parts[0][0] != parts[1][0]:
        return -1 if parts[0][0] < parts[1][0] else 1
    return _compare_part(parts[0][1], parts[1][1]) or _compare_part(parts[0][2], parts[1][2])


def upstream_version(debian_version: str) -> str:
    """The upstream release a Debian version packages: epoch and revision removed, repack
    suffixes (``+dfsg``, ``+ds``, ``+repack``, ``~dfsg``...) removed, ``~`` pre-release
    separators dropped (Debian's ``1.0~rc1`` is PyPI's ``1.0rc1``).

    >>> upstream_version("1:2.28.1+dfsg-1+deb12u1"), upstream_version("3.0~rc2-1")
    ('2.28.1', '3.0rc2')
    """
    version = debian_version.split(":", 1)[-1]
    if "-" in version:
        version = version.rsplit("-", 1)[0]
    version = re.sub(r"[+~.](dfsg|ds|repack|really|debian|nmu)[0-9a-z.+~]*$", "", version)
    version = re.sub(r"[+~](dfsg|ds|repack)[0-9]*", "", version)
    return version.replace("~", "")


# --- debian/changelog -----------------------------------------------------------------------


def parse_changelog(text: str) -> list[ChangelogEntry]:
    """The entries of a ``debian/changelog``, newest first."""
    entries: list[ChangelogEntry] = []
    version: str | None = None
    items: list[str] = []
    current: list[str] = []

    def close_item() -> None:
        if current:
            parts = " ".join(current).split(SUB)
            items.append(SUB.join(" ".join(part.split()) for part in parts))
            current.clear()

    for line in text.splitlines():
        match = _ENTRY.match(line)
        if match:
            close_item()
            if version is not None:
                entries.append(ChangelogEntry(version, tuple(items)))
            version, items = match["version"], []
            continue
        if version is None or line.startswith(" -- "):
            close_item()
            continue
        stripped = line.strip()
        if re.match(r"^ {1,3}\* ", line):
            close_item()
            current.append(stripped[2:])
        elif re.match(r"^ {3,}[-+o*] ", line) and current:
            current.append(SUB + stripped[2:])
        elif stripped and not re.fullmatch(r"\[.*\]", stripped) and current:
            current.append(stripped)
        elif not stripped or re.fullmatch(r"\[.*\]", stripped):
            close_item()
    close_item()
    if version is not None:
        entries.append(ChangelogEntry(version, tuple(items)))
    return entries


def entries_between(entries: list[ChangelogEntry], older: str, newer: str) -> list[ChangelogEntry]:
    """The entries after Debian version ``older`` up to and including ``newer``."""
    return [
        entry
        for entry in entries
        if compare_versions(entry.version, older) > 0 >= compare_versions(entry.version, newer)
    ]


#: The number ``gbp pq`` and ``git format-patch`` put before a patch's subject (``0007-``).
_NUMBER = re.compile(r"^\d{1,4}[-_]")


def _specific(stem: str) -> bool:
    """Whether a name without its suffix is specific enough to be matched in prose: at least
    8 characters with a ``-``, ``_`` or digit (a word like ``typos`` is not)."""
    return len(stem) >= 8 and bool(re.search(r"[-_0-9]", stem))


def name_forms(name: str, wider: bool = False) -> list[str]:
    """How a changelog may name a series entry: the path, the file name, and the file name
    without ``.patch``/``.diff`` when that stem is specific (:func:`_specific`); with
    ``wider``, also both without a leading patch number (``0007-``) when what is left is
    specific: a series exported again renumbers its patches, and a changelog may name a
    patch by its number in another upload (:func:`names` then also allows a number before
    any form)."""
    base = name.rsplit("/", 1)[-1]
    forms = [name, base]
    stem = re.sub(r"\.(patch|diff)$", "", base)
    if stem != base and _specific(stem):
        forms.append(stem)
    bare = _NUMBER.sub("", stem)
    if wider and bare != stem and _specific(bare):
        forms += [bare + base[len(stem) :], bare] if stem != base else [bare]
    return list(dict.fromkeys(forms))


def names(item: str, name: str, wider: bool = False) -> bool:
    """Whether a changelog item names the series entry ``name``: a whole-word match of one
    of its :func:`name_forms`, after a directory (``d/p/``) at most; with ``wider``, after
    a patch number (``0007-``) too."""
    number = r"(?:\d{1,4}[-_])?" if wider else ""
    for form in name_forms(name, wider):
        pattern = rf"(?<![\w.-]){number}{re.escape(form)}(?![\w-]|\.\w)"
        if re.search(pattern, item, re.IGNORECASE):
            return True
    return False


def says_upstream(item: str, wider: bool = False) -> bool:
    """Whether a changelog item says upstream has a change (not where a patch came from);
    with ``wider``, in the words of :data:`_UPSTREAM_MORE` too."""
    text = _TAKEN_FROM_UPSTREAM.sub(" ", item)
    return bool(_UPSTREAM_WORDS.search(text) or (wider and _UPSTREAM_MORE.search(text)))


def changelog_says(
    entries: list[ChangelogEntry], name: str, wider: bool = False
) -> tuple[str, str] | None:
    """``(verdict, quote)`` from the first item naming ``name``: ``("upstreamed", item)`` when
    it says upstream has it, ``("other", item)`` when it names it with other words, None when
    no item names it.

    The wider reading (``wider``) also finds a patch by its name without its number
    (:func:`name_forms`), reads :data:`_UPSTREAM_MORE`, and gives a sub-bullet that only
    names the patch the reason of the sub-bullet before it that ends with ``:`` (a list
    inside the list, its indentation lost in :func:`parse_changelog`).
    """
    other: tuple[str, str] | None = None
    for entry in entries:
        for item in entry.items:
            if not names(item, name, wider):
                continue
            head, *subs = item.split(SUB)
            at = next((i for i, sub in enumerate(subs) if names(sub, name, wider)), None)
            sub = subs[at] if at is not None else None
            own = sub is not None and bool(
                says_upstream(sub, wider) or _DROP_WORDS.search(sub) or re.search(r"\(.+\)", sub)
            )
            # a sub-bullet with its own reason speaks for its patch; one that only names it
            # takes the reason of the bullet above it
            heading = None
            if wider and at is not None:
                heading = next((s for s in reversed(subs[:at]) if s.endswith(":")), None)
            above = f"{head} - {heading}" if heading else head
            said = item if sub is None else sub if own else f"{above} - {sub}"
            text = f"debian/changelog {entry.version}: {quote(said)}"
            if says_upstream(said, wider):
                return UPSTREAMED, text
            reason = own or _DROP_WORDS.search(_TAKEN_FROM_UPSTREAM.sub(" ", said))
            if other is None and reason:
                other = ("other", text)
    return other


#: The head of a changelog item that announces a new upstream release.
_NEW_RELEASE = re.compile(
    r"\bnew upstream\b|\b(update|upgrade)[ds]?\s+to\s+(the\s+)?(new\s+|latest\s+)?upstream\b"
    r"|\bmerging upstream version\b|\bupdate upstream source from tag\b",
    re.IGNORECASE,
)
#: Words that say a patch or a fix was added (to the package, not by the release).
_ADDS_PATCH = re.compile(
    r"\b(add|apply|cherry-?pick|backport|import|take|took|include)\w*\b[^.;]{0,40}"
    r"\b(patch|fix|commit)",
    re.IGNORECASE,
)


#: A first line that starts with a name and a release number (``Python 3.13.6.``).
_NAMED_RELEASE = re.compile(r"^[A-Za-z][\w.+-]*\s+v?(\d+\.\d+\.\d+)\b")


def announces_release(head: str, version: str, pin: str = "") -> bool:
    """Whether an item's first line announces a new upstream release: "New upstream
    release", "Update to upstream 2.0.1", or it starts with a name and a release number of
    three parts (``Python 3.13.6.``, ``Foo 2.4.1 fixed some security issues:``) above
    ``pin`` and at most the upstream version of the entry's Debian ``version``.

    >>> announces_release("Python 3.13.6.", "3.13.6-1", "3.13.5")
    True
    >>> announces_release("Python 3.13.6.", "3.13.6-1", "3.13.6")
    False
    >>> announces_release("d/changelog: fix the 3.13.6-1 entry", "3.13.6-2", "3.13.5")
    False
    """
    if _NEW_RELEASE.search(head):
        return True
    named = _NAMED_RELEASE.match(head)
    if not (pin and named):
        return False
    number = named.group(1)
    return compare_versions(pin, number) < 0 <= compare_versions(upstream_version(version), number)


def release_fixes(entries: list[ChangelogEntry], name: str, pin: str = "") -> str | None:
    """The changelog item, quoted, that says a new upstream release fixes the CVE named in
    the patch's ``name``: an item whose first line announces the release
    (:func:`announces_release`) and whose first line or one of whose sub-bullets names the
    CVE id without saying a patch or fix was added for it (Debian lists there what the
    release fixes: "New upstream release: - fixes CVE-2024-1234 (Closes: #1)"); None when
    the name has no CVE id or no item says so."""
    cves = {cve.upper() for cve in _CVE.findall(name)}
    if not cves:
        return None
    for entry in entries:
        for item in entry.items:
            head, *subs = item.split(SUB)
            if not announces_release(head, entry.version, pin) or _ADDS_PATCH.search(head):
                continue
            for part in [head, *subs]:
                named = cves & {cve.upper() for cve in _CVE.findall(part)}
                if named and not _ADDS_PATCH.search(part):
                    said = head if part is head else f"{head} - {part}"
                    return f"debian/changelog {entry.version}: {quote(said)}"
    return None


#: "all patches", "all the Debian patches": a statement about every patch of the series.
_ALL_PATCHES = re.compile(r"\ball\s+(the\s+)?([\w-]+\s+)?patches\b", re.IGNORECASE)
#: Words that give a statement about patches another reason beside upstream.
_ALTERNATIVE = re.compile(
    r"\b(or|obsolete|no longer|not needed|unneeded|needless|except|but|some|most(ly)?)\b",
    re.IGNORECASE,
)
#: A changelog item that speaks of a patch (a word or a file name).
_PATCH_ITEM = re.compile(r"\bpatch(es)?\b|\S\.(patch|diff)\b", re.IGNORECASE)


def all_upstream_item(entries: list[ChangelogEntry]) -> str | None:
    """The changelog item, quoted, that says every patch was dropped because upstream has
    them ("Drop all patches, applied upstream."), with no other reason beside it
    (:data:`_ALTERNATIVE`); None when there is none, or when another item of its entry or
    of an earlier entry after the older version speaks of dropping a patch (a patch dropped
    before may have gone for another reason).

    Every patch of the older series that no item names was in the series when all were
    dropped: that one statement speaks for each of them.
    """
    for index, entry in enumerate(entries):
        for item in entry.items:
            if not (_ALL_PATCHES.search(item) and _DROP_WORDS.search(item)):
                continue
            if not says_upstream(item) or _ALTERNATIVE.search(item):
                continue
            earlier = [
                other
                for older in entries[index:]
                for other in older.items
                if other is not item and _PATCH_ITEM.search(other) and _DROP_WORDS.search(other)
            ]
            if earlier:
                return None
            return f"debian/changelog {entry.version}: {quote(item)}"
    return None


def generic_upstream_item(entries: list[ChangelogEntry]) -> str | None:
    """The first item that says patches went upstream without naming a patch file, quoted."""
    for entry in entries:
        for item in entry.items:
            names_none = not re.search(r"\S+\.(patch|diff)\b", item)
            if re.search(r"\bpatch(es)?\b", item, re.I) and says_upstream(item) and names_none:
                return f"debian/changelog {entry.version}: {quote(item)}"
    return None


#: A changelog statement, whole, that an upload dropped patches because upstream has them,
#: naming none: "Drop patches applied upstream.", "patches: Drop upstreamed patches.",
#: "Remove patch included in upstream release", "Remove 4 patches applied in new release",
#: "[c477642] Drop upstreamed patch, refresh the rest". A statement that qualifies the
#: patches ("Drop PCISDK patches, ..."), lists them (ends with ``:``) or gives another reason
#: beside upstream is not one. ``count``: how many patches it speaks for (none: every patch
#: its upload dropped).
_DROPPED_UPSTREAM = re.compile(
    r"(?:\[[0-9a-f]{7,40}\]\s*)?"
    r"(?:(?:d|debian)/(?:patches|p)/?\s*:?\s*|patches\s*:\s*)?"
    r"(?:refresh(?:ed)?\s+(?:the\s+)?(?:remaining\s+)?patches\s*(?:,\s*|\s+and\s+))?"
    r"(?:drop|remov|delet)\w*\s+"
    r"(?:(?:all\s+)?the\s+|(?P<count>an?|one|two|three|four|five|\d{1,2})\s+)?"
    r"(?:(?P<done>upstreamed|merged)\s+)?"
    r"patch(?P<plural>es)?"
    r"(?(done)|\s*[,(]?\s*(?:that\s+(?:have|had)\s+been\s+|which\s+(?:have\s+been|were)\s+"
    r"|already\s+|now\s+)?(?:applied|merged|included|incorporated|accepted)\s+"
    r"(?:(?:in|into|by)\s+)?(?:the\s+)?(?:new\s+|latest\s+)?"
    r"(?:upstream(?:\s+(?:release|version))?|release|version)\)?)"
    r"\s*(?:[.,;]\s*(?:refresh\w*\s+(?:the\s+)?(?:rest|others|remaining(?:\s+patches)?)"
    r"\s*\.?)?)?",
    re.IGNORECASE,
)
#: Number words of :data:`_DROPPED_UPSTREAM`'s count.
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
#: Words of a changelog part that tell a patch was dropped or given up, for any reason.
_GIVEN_UP = re.compile(
    r"\b(drop\w*|remov\w*|delet\w*|obsolete|no longer|unneeded|un-needed|not needed|"
    r"needless|useless|superseded|replac\w*|get rid|got rid|instead of)\b",
    re.IGNORECASE,
)
#: A changelog part that speaks of a patch, or of patching.
_PATCH_WORD = re.compile(r"\bpatch(es|ing)?\b|\S\.(patch|diff)\b", re.IGNORECASE)
#: A DEP-3 ``Forwarded`` value saying upstream has no use for the patch (Debian's own).
_NOT_NEEDED = re.compile(r"^\s*forwarded\s*:\s*not[- ]needed\b", re.IGNORECASE)


def _sentences(text: str) -> list[str]:
    """The sentences of a changelog part (split after ``.``, ``;`` or ``!`` and a space)."""
    return re.split(r"(?<=[.;!])\s+", text)


def _bare(name: str) -> str:
    """A series name without its directory, patch number and ``.patch``/``.diff``, folded."""
    stem = re.sub(r"\.(patch|diff)$", "", name.rsplit("/", 1)[-1], flags=re.IGNORECASE)
    return _NUMBER.sub("", stem).lower()


def _subject(patch: str) -> str:
    """A patch's DEP-3 ``Subject`` (or ``Description``), ``[PATCH n/m]`` removed, folded."""
    for line in header_lines(patch):
        key, _, value = line.partition(":")
        if key.strip().lower() in ("subject", "description"):
            value = re.sub(r"^\[PATCH[^\]]*\]\s*", "", value.strip(), flags=re.IGNORECASE)
            return " ".join(value.lower().split())
    return ""


def _continued(name: str, patch: str, new_series: dict[str, str] | None) -> bool:
    """Whether the newer series (name -> text) has a patch of ``name`` under another number
    or directory (the same :func:`_bare` name) or with the same DEP-3 subject: a series
    exported again renames its patches, and a patch rewritten under a new name is not
    found by its lines."""
    subject = _subject(patch)
    return any(
        _bare(other) == _bare(name) or (subject and _subject(text) == subject)
        for other, text in (new_series or {}).items()
    )


def continuation(
    name: str, patch: str, new_series: dict[str, str], old_names: frozenset[str]
) -> tuple[str, str] | None:
    """``(newer name, how it was found)`` when exactly one patch of the newer series (name
    -> text), not of a name the older series has, continues the dropped patch ``name``
    (text ``patch``) under another name: the same name without its directory, patch number
    and suffix (:func:`_bare`, when what is left is specific: :func:`_specific`), as a
    series exported again by ``gbp pq`` renumbers and moves its patches; or the same DEP-3
    subject of three words or more, as a patch renamed after its rewritten subject keeps
    its description. None when none or several do, or when another patch of the older
    series has the same bare name or subject (which of them continues is unknown).

    >>> continuation("0005-use-system-six.patch", "", {"use-system-six.patch": ""}, frozenset())
    ('use-system-six.patch', 'the same name but for its number or directory')
    """
    bare, subject = _bare(name), _subject(patch)
    by_name = [
        other
        for other in new_series
        if other not in old_names and _specific(bare) and _bare(other) == bare
    ]
    if len(by_name) == 1 and not any(_bare(old) == bare for old in old_names if old != name):
        return by_name[0], "the same name but for its number or directory"
    if len(subject.split()) < 3:
        return None
    by_subject = [
        other
        for other, text in new_series.items()
        if other not in old_names and _subject(text) == subject
    ]
    if len(by_subject) == 1 and by_name in ([], by_subject):
        return by_subject[0], "the same DEP-3 subject"
    return None


def dropped_upstream_item(
    entries: list[ChangelogEntry],
    name: str,
    old_names: frozenset[str],
    unexplained: int,
    patch: str = "",
    new_series: dict[str, str] | None = None,
) -> str | None:
    """The changelog statement, quoted, that says the patches an upload dropped went
    upstream (:data:`_DROPPED_UPSTREAM`: "Drop patches applied upstream"), when it speaks
    for ``name``, one of the ``unexplained`` patches of the older series (``old_names``)
    that the newer series lacks and no changelog item names; else None.

    The changelog does not tell which upload dropped an unnamed patch, so the statement
    speaks for it only when nothing between the two Debian versions could have dropped it
    otherwise:

    - no part of an item (its first line or a sub-bullet) gives up a patch in other words
      (:data:`_GIVEN_UP`: "Drop obsolete patch", "drop old patches", "Replace patch by a
      rule") or beside another reason (:data:`_ALTERNATIVE`), unless it names another
      patch of the older series by its file name in an upload with no statement (it speaks
      for that patch alone);
    - no part names ``name`` (a patch named in a later upload was not dropped before it);
    - statements that count their patches ("Drop patch applied upstream", "Remove 4
      patches ...") speak for exactly ``unexplained`` patches together, and no patch was
      added before the last of them (it might be the one dropped); a statement of
      patches uncounted speaks for every patch its upload dropped;
    - the patch's DEP-3 header does not say ``Forwarded: not-needed`` (Debian's own change,
      which upstream was never asked to take), and the newer series (``new_series``, name
      -> text) has no patch that continues it under another name (:func:`_continued`).
    """
    if unexplained < 1 or any(_NOT_NEEDED.match(line) for line in header_lines(patch)):
        return None
    if _continued(name, patch, new_series):
        return None
    statements: list[tuple[int, str, int | None]] = []
    others: list[tuple[int, str]] = []
    for index, entry in enumerate(entries):
        for item in entry.items:
            head, *subs = item.split(SUB)
            for part in (head, *subs):
                text = part.strip()
                match = _DROPPED_UPSTREAM.fullmatch(text)
                if match is None:
                    others.append((index, text))
                    continue
                count = match["count"]
                number = None
                if count is not None or not match["plural"]:
                    number = _COUNTS.get((count or "a").lower()) or int(count)
                said = text if part is head else f"{head} - {text}"
                statements.append(
                    (index, f"debian/changelog {entry.version}: {quote(said)}", number)
                )
    if not statements:
        return None
    stated = {index for index, _quote, _number in statements}
    for index, text in others:
        if names(text, name, wider=True):
            return None
        if not any(_PATCH_WORD.search(s) and _GIVEN_UP.search(s) for s in _sentences(text)):
            continue
        if says_upstream(text, wider=True) and not _ALTERNATIVE.search(text):
            continue
        named = any(names(text, other, wider=True) for other in old_names if other != name)
        if named and index not in stated:
            continue
        return None
    counted = [number for _index, _quote, number in statements]
    if None not in counted:
        if sum(n for n in counted if n is not None) != unexplained:
            return None
        last = min(index for index, _quote, _number in statements)
        for index, text in others:
            if index > last and (_ADDS_PATCH.search(text) or re.search(r"\bnew patch", text, re.I)):
                return None
    return statements[0][1]


# --- DEP-3 headers and diffs ----------------------------------------------------------------


def header_lines(patch: str) -> list[str]:
    """The DEP-3 header of a patch: the lines before its first diff (``---``, ``diff ``,
    ``Index:``), with continuation lines joined to their field."""
    fields: list[str] = []
    for line in patch.splitlines():
        if line.startswith(("--- ", "diff ", "Index: ", "===")) or line == "---":
            break
        if line[:1] in (" ", "\t") and fields and line.strip() not in ("", "."):
            fields[-1] += " " + line.strip()
        elif re.match(r"^[A-Za-z][A-Za-z0-9-]*:", line):
            fields.append(line.rstrip())
    return fields


def header_says(patch: str, new_upstream: str) -> tuple[str, str] | None:
    """``(verdict, quote)`` from the DEP-3 header: ``("upstreamed", line)`` when it says the
    new release has the change, ``("later", line)`` when ``Applied-Upstream`` names a later
    release than ``new_upstream``, None when it says neither.

    Release numbers are compared with :func:`compare_versions` on their digits.
    """
    for line in header_lines(patch):
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip()
        low = value.lower()
        if key == "applied-upstream" and low and not low.startswith(("no", "not", "n/a")):
            release = _RELEASE.search(value)
            plain = release and not _COMMIT.search(value) and "http" not in low[: release.start()]
            if plain and compare_versions(release.group(1), new_upstream) > 0:  # type: ignore[union-attr]
                return "later", quote(line)
            return UPSTREAMED, quote(line)
        upstream_origin = re.match(r"(upstream|backport)\b", low) and (
            "http" in low or re.search(r"\b[0-9a-f]{12,40}\b", low)
        )
        if key == "origin" and (
            upstream_origin or (not re.match(r"(vendor|other)\b", low) and _COMMIT.search(value))
        ):
            return UPSTREAMED, quote(line)
        if key == "forwarded" and _COMMIT.search(value):
            return UPSTREAMED, quote(line)
    return None


#: A reference that names one change: a URL or a commit id.
_REFERENCE = re.compile(r"https?://\S+|\b[0-9a-f]{12,40}\b", re.IGNORECASE)


def identity(patch: str) -> tuple[str, str] | None:
    r"""What names a patch's change in its DEP-3 header, whatever the file is called:
    ``(subject, reference)``, the ``Subject`` (or ``Description``) with a ``[PATCH n/m]``
    prefix removed, case and spacing folded, and the ``Origin`` (else ``Bug``) value, which
    must hold a URL or a commit id; None when either is missing.

    >>> identity("Subject: [PATCH] Fix  it\nOrigin: upstream, https://x.org/c/1\n---\n")
    ('fix it', 'upstream, https://x.org/c/1')
    >>> identity("Subject: Fix it\nOrigin: vendor\n---\n") is None
    True
    """
    fields: dict[str, str] = {}
    for line in header_lines(patch):
        key, _, value = line.partition(":")
        fields.setdefault(key.strip().lower(), value.strip())
    subject = fields.get("subject") or fields.get("description") or ""
    subject = " ".join(re.sub(r"^\[PATCH[^\]]*\]\s*", "", subject, flags=re.I).lower().split())
    reference = fields.get("origin") or fields.get("bug") or ""
    if not subject or not _REFERENCE.search(reference):
        return None
    return subject, reference


def changed_lines(patch: str) -> list[str]:
    """The ``+`` and ``-`` lines of a patch's hunks, in order, trailing whitespace removed
    (``+++``/``---`` file lines and the header left out)."""
    lines: list[str] = []
    remaining = [0, 0]
    for line in patch.splitlines():
        if remaining[0] <= 0 and remaining[1] <= 0:
            match = re.match(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@", line)
            if match:
                remaining = [int(match[1] or 1), int(match[2] or 1)]
            continue
        if line.startswith("-"):
            remaining[0] -= 1
            lines.append(line.rstrip())
        elif line.startswith("+"):
            remaining[1] -= 1
            lines.append(line.rstrip())
        elif line.startswith("\\"):
            continue
        else:
            remaining[0] -= 1
            remaining[1] -= 1
    return lines


def compared_lines(lines: list[str]) -> list[str]:
    """The changed lines (:func:`changed_lines`) that decide whether two versions of a patch
    make the same change: the blank ones (a ``+`` or ``-`` and whitespace only) left out."""
    return [line for line in lines if line[1:].strip()]


def same_lines(old: list[str], new: list[str]) -> bool:
    """Whether two versions of a patch have the same changed lines (:func:`changed_lines`),
    in order, blank ``+``/``-`` lines aside (:func:`compared_lines`).

    A blank line added or removed next to a hunk is where the diff tool put the hunk's edge,
    not what the patch does: a patch appending a function after a file's last line adds a
    blank line before it, and its refresh against a release whose file already ends with a
    blank line does not. Any other difference, in whitespace inside a line too (indentation
    is code in Python), is a rewrite.

    >>> same_lines(["+", "+def f():", "+    pass"], ["+def f():", "+    pass"])
    True
    >>> same_lines(["+def f():", "+    pass"], ["+def f():", "+  pass"])
    False
    """
    return compared_lines(old) == compared_lines(new)


#: How many lines of an upstream file either side of a hunk count as the hunk's place: the
#: context a unified diff gives by default.
PLACE_MARGIN = 3


@dataclass(frozen=True)
class Hunk:
    """One hunk of a patch: the file's ``path`` (after the strip level), the first line of
    the hunk in the file it applies to (``start``, 1-based) and how many lines it spans there
    (``length``), the ``@@`` line, and its body lines with their `` ``/``-``/``+`` prefix
    (trailing whitespace removed)."""

    path: str
    start: int
    length: int
    header: str
    lines: tuple[str, ...]


def hunks(patch: str, strip: int = 1) -> list[Hunk]:
    """The hunks of a patch, each with the path of its ``---`` line after ``strip``
    components (a hunk of a created file, ``--- /dev/null``, has the path ``""``)."""
    found: list[Hunk] = []
    path = ""
    remaining = [0, 0]
    body: list[str] = []
    for line in patch.splitlines():
        if remaining[0] <= 0 and remaining[1] <= 0:
            file_line = re.match(r"^--- (\S+)", line)
            if file_line:
                parts = file_line.group(1).split("/")[strip:]
                path = "" if file_line.group(1) == "/dev/null" else "/".join(parts)
                continue
            match = re.match(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@", line)
            if match:
                remaining = [int(match[2] or 1), int(match[3] or 1)]
                body = []
                found.append(Hunk(path, int(match[1]), remaining[0], line.rstrip(), ()))
            continue
        if line.startswith("\\"):
            continue
        prefix = line[:1] or " "
        if prefix == "-":
            remaining[0] -= 1
        elif prefix == "+":
            remaining[1] -= 1
        else:
            remaining[0] -= 1
            remaining[1] -= 1
        body.append(prefix + line[1:].rstrip())
        found[-1] = Hunk(path, found[-1].start, found[-1].length, found[-1].header, tuple(body))
    return found


def says_something(line: str) -> bool:
    """Whether a line (without its diff prefix) has at least two words: a blank line or one
    of a single word (``#endif``, ``pass``, ``else:``, ``}``) is found in most files, so
    finding it near a hunk does not tell that upstream wrote it there.

    >>> says_something("#ifdef USE_FBC"), says_something("#endif"), says_something("  }")
    (True, False, False)
    """
    return len(re.findall(r"\w+", line)) >= 2


_IMPORT = re.compile(r"^\s*(?:import\s+[\w.]+|from\s+[\w.]+\s+import\s)")


def supports(line: str, only_imports: bool) -> bool:
    """Whether an added line that says something counts as part of what a patch adds:
    a Python import statement beside other added code only supports that code (upstream
    importing the same module for code of its own says nothing of the fix), unless the
    patch adds nothing but imports (``only_imports``: then the import is the fix).

    >>> supports("import os", False), supports("import os", True), supports("x = 1", False)
    (False, True, True)
    """
    return only_imports or not _IMPORT.match(line)


#: Reads an upstream file by its path in the tree: its lines, or None when it has no such file.
FileReader = Callable[[str], "list[str] | None"]
#: A line of a place and where it was seen.
Seen = tuple[str, str]


def around(hunk: Hunk, read: FileReader | None) -> tuple[list[Seen], list[Seen]]:
    """The upstream file's lines just before and just after a hunk (at most
    :data:`PLACE_MARGIN` each), each with where it was seen (``"PATH line N"``), when
    ``read`` gives the file and the hunk's context and removed lines stand at its line
    numbers there; else none (an earlier patch of the series that changes the same file
    moves the numbers, and a place that is not found is not read)."""
    lines = read(hunk.path) if read is not None and hunk.path else None
    if lines is None:
        return [], []
    old_side = [line[1:] for line in hunk.lines if line[:1] != "+"]
    stands = [line.rstrip() for line in lines[hunk.start - 1 : hunk.start - 1 + len(old_side)]]
    if hunk.start < 1 or stands != old_side:
        return [], []
    first = max(1, hunk.start - PLACE_MARGIN)
    end = min(len(lines), hunk.start + len(old_side) - 1 + PLACE_MARGIN)
    before = [(lines[n - 1].rstrip(), f"{hunk.path} line {n}") for n in range(first, hunk.start)]
    after = range(hunk.start + len(old_side), end + 1)
    return before, [(lines[n - 1].rstrip(), f"{hunk.path} line {n}") for n in after]


def patched_place(hunk: Hunk, read: FileReader | None = None) -> list[Seen]:
    """A hunk's place in the patched file, in order: the upstream lines just before it
    (:func:`around`), its context lines (``"context"``) and added lines (``"+"``), the
    upstream lines just after it. The lines it removes are not there (a patch that moves a
    line does not find it upstream)."""
    before, after = around(hunk, read)
    body = [
        (line[1:], "+" if line[:1] == "+" else "context") for line in hunk.lines if line[:1] != "-"
    ]
    return [*before, *body, *after]


def place(hunk: Hunk, read: FileReader | None = None) -> set[str]:
    """The upstream lines at a hunk's place: its context and removed lines and the file's
    lines just around it (:func:`around`)."""
    before, after = around(hunk, read)
    held = {line[1:] for line in hunk.lines if line[:1] != "+"}
    return held | {line for line, _where in (*before, *after)}


@dataclass(frozen=True)
class Trees:
    """The two upstream trees of an upgrade, as the miner gives them to :func:`outcome`:
    readers of the older release's files (``pin``) and the newer one's (``new``), and each
    series' strip levels by patch name (``old_strips``, ``new_strips``; 1 when absent)."""

    pin: FileReader | None = None
    new: FileReader | None = None
    old_strips: dict[str, int] = field(default_factory=dict)
    new_strips: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Written:
    """What upstream wrote of a kept patch (:func:`upstream_wrote`): the added lines that say
    something (``added``), those the newer place holds and the older one did not, each with
    where it was seen (``held``), whether the patch removes a line that says something
    (``removes``) and the ``@@`` line of the first hunk that holds one (``header``)."""

    added: int
    held: tuple[tuple[str, str], ...]
    removes: bool
    header: str


def _twin(seq: list[Seen], twins: dict[int, str], i: int, step: int) -> str | None:
    """Where the twin of the added line ``seq[i]`` stands, looking one way (``step`` -1 or
    1) with nothing between but upstream lines and added lines that say nothing or have a
    twin (``twins``, by index); None when there is none."""
    j = i + step
    while 0 <= j < len(seq):
        text, where = seq[j]
        if where == "+":
            if says_something(text) and j not in twins:
                return None
        elif text == seq[i][0]:
            return where
        j += step
    return None


def upstream_wrote(
    old_patch: str,
    new_patch: str,
    old_strip: int = 1,
    new_strip: int = 1,
    trees: Trees | None = None,
) -> Written:
    """Which lines the kept patch ``new_patch`` adds that upstream wrote next to them between
    the two releases.

    An added line that says something (:func:`says_something`) and is part of what the
    patch adds (:func:`supports`) counts when its twin, an
    upstream line equal to it, stands at the hunk's place in the new release
    (:func:`patched_place`, read with ``trees.new``) with nothing between them but upstream
    lines and added lines that count too or say nothing, and when no place of
    ``old_patch`` on the same file held it in the older release (:func:`place`, read with
    ``trees.pin``): a line that was already there was added beside it on purpose, and a
    twin beyond other lines the patch adds is another statement that happens to read the
    same (a test ending like the test before it)."""
    trees = trees or Trees()
    before: dict[str, set[str]] = {}
    for hunk in hunks(old_patch, old_strip):
        before.setdefault(hunk.path, set()).update(place(hunk, trees.pin))
    added, removes, header = 0, False, ""
    held: list[Seen] = []
    new_hunks = hunks(new_patch, new_strip)
    only_imports = all(
        _IMPORT.match(line[1:])
        for hunk in new_hunks
        for line in hunk.lines
        if line[:1] == "+" and says_something(line[1:])
    )
    for hunk in new_hunks:
        removes = removes or any(
            line[:1] == "-" and says_something(line[1:]) for line in hunk.lines
        )
        seq = patched_place(hunk, trees.new)
        old = before.get(hunk.path, set())
        adds = [
            i
            for i, (text, where) in enumerate(seq)
            if where == "+" and says_something(text) and supports(text, only_imports)
        ]
        added += len(adds)
        twins: dict[int, str] = {}

        eligible = [i for i in adds if seq[i][0] not in old]
        for i in eligible:
            found = _twin(seq, twins, i, -1)
            if found is not None:
                twins[i] = found
        for i in reversed(eligible):
            found = twins.get(i) or _twin(seq, twins, i, 1)
            if found is not None:
                twins[i] = found
        held += [(seq[i][0], twins[i]) for i in sorted(twins)]
        if twins:
            header = header or hunk.header
    return Written(added, tuple(held), removes, header)


def _upstream_wrote_outcome(
    kept: Outcome, name: str, other: str, old_text: str, new_text: str, label: str, trees: Trees
) -> Outcome:
    """``kept`` (a carried outcome of ``name``, kept as ``other``), or the outcome the kept
    patch's place says when upstream wrote lines it adds (:func:`upstream_wrote`)."""
    written = upstream_wrote(
        old_text,
        new_text,
        trees.old_strips.get(name, 1),
        trees.new_strips.get(other, 1),
        trees,
    )
    if not written.held:
        return kept
    seen = "; ".join(f"{where} {line.strip()!r}" for line, where in written.held)
    source = f"{label} debian/patches/{other} {written.header} holds what it adds: {seen}"
    if len(written.held) == written.added and not written.removes:
        why = "kept and refreshed, but upstream wrote every line it adds at its place: twice now"
        return Outcome(UPSTREAMED, "", quote(source), why)
    why = (
        f"kept and refreshed; upstream wrote {len(written.held)} of the {written.added} lines "
        "it adds at its place, the rest is still carried"
        if len(written.held) < written.added
        else "kept and refreshed; upstream wrote every line it adds at its place, but the "
        "patch still removes lines upstream has"
    )
    return Outcome(PORT, "", quote(source), why)


def _same_why(count: int, old: list[str], new: list[str]) -> str:
    """``kept with the same N changed lines``, saying when blank lines differed."""
    aside = "" if old == new else " (blank + or - lines aside)"
    return f"kept with the same {count} changed lines{aside}"


def outcome(
    name: str,
    old_text: str,
    new_series: dict[str, str],
    entries: list[ChangelogEntry],
    new_upstream: str,
    new_label: str,
    old_names: frozenset[str] = frozenset(),
    pin: str = "",
    trees: Trees | None = None,
    unexplained: int = 0,
) -> Outcome:
    """The outcome of one patch of the older series.

    Args:
        name: the series name.
        old_text: the patch's text in the older suite.
        new_series: the newer suite's series, name -> patch text (missing files as ``""``).
        entries: the newer ``debian/changelog`` entries between the two Debian versions.
        new_upstream: the newer suite's upstream version.
        new_label: how to name the newer series in a quote (``"trixie 2.32.3+dfsg-5"``).
        old_names: the older series' names: a newer patch of one of these names continues
            that patch, so it is never taken as another patch's new name.
        pin: the older suite's upstream version (a release a changelog item names above
            it is a new one: :func:`announces_release`).
        trees: the upstream trees, read around a kept patch's hunks (:func:`upstream_wrote`);
            without them only the kept patch's context lines are read.
        unexplained: how many patches of the older series the newer one drops with no item
            naming them (:func:`unexplained_drops`); 0 leaves out a statement of dropped
            patches in general (:func:`dropped_upstream_item`).
    """
    old_lines = changed_lines(old_text)
    count = len(old_lines)

    def carried(other: str, source: str, why: str) -> Outcome:
        kept = Outcome(CARRIED, "", source, why)
        wrote = trees or Trees()
        return _upstream_wrote_outcome(
            kept, name, other, old_text, new_series[other], new_label, wrote
        )

    if name in new_series:
        series_line = f"{new_label} debian/patches/series keeps {name}"
        new_lines = changed_lines(new_series[name])
        if same_lines(old_lines, new_lines):
            return carried(name, series_line, _same_why(count, old_lines, new_lines))
        new_count = len(new_lines)
        why = f"kept with rewritten changed lines ({count} before, {new_count} after)"
        return Outcome(PORT, "", series_line, why)
    if old_lines:
        for other, text in new_series.items():
            # a rename is found by its lines alone: exact lines, blank ones included (a
            # one-line patch with a blank line aside could match an unrelated patch)
            if changed_lines(text) == old_lines:
                source = f"{new_label} debian/patches/series has {other} with the same lines"
                return carried(other, source, f"renamed to {other}, same changed lines")
    cves = {cve.upper() for cve in _CVE.findall(name)}
    for other, text in new_series.items():
        if cves and cves & {cve.upper() for cve in _CVE.findall(other)}:
            source = f"{new_label} debian/patches/series keeps the same CVE fix as {other}"
            if same_lines(old_lines, changed_lines(text)):
                return carried(other, source, f"renamed to {other}, same changed lines")
            return Outcome(PORT, "", source, f"renamed to {other}, rewritten changed lines")
    # the same change under another name: one newer patch, not the continuation of another
    # older one, whose header names it with the same subject and the same Origin (or Bug)
    own = identity(old_text)
    same = [
        other
        for other, text in new_series.items()
        if own is not None and other not in old_names and identity(text) == own
    ]
    if len(same) == 1:
        other = same[0]
        source = (
            f"{new_label} debian/patches/series keeps the same change as {other} "
            "(the same DEP-3 subject and origin)"
        )
        if same_lines(old_lines, changed_lines(new_series[other])):
            return carried(other, source, f"renamed to {other}, same changed lines")
        return Outcome(PORT, "", source, f"renamed to {other}, rewritten changed lines")
    # the narrow reading of the changelog first, then the header, then the wider reading:
    # where both speak, the plainer evidence is quoted
    said = changelog_says(entries, name)
    if said is not None and said[0] == UPSTREAMED:
        return Outcome(UPSTREAMED, "", said[1], "dropped; the changelog says upstream has it")
    header = header_says(old_text, new_upstream)
    if header is not None and header[0] == UPSTREAMED:
        why = "dropped; its DEP-3 header says upstream has it"
        return Outcome(UPSTREAMED, "", header[1], why)
    said = changelog_says(entries, name, wider=True) or said
    if said is not None and said[0] == UPSTREAMED:
        return Outcome(UPSTREAMED, "", said[1], "dropped; the changelog says upstream has it")
    if header is not None:
        return Outcome(None, LATER_RELEASE, header[1], "")
    fixed = release_fixes(entries, name, pin)
    if fixed is not None:
        why = "dropped; the changelog says the new upstream release fixes its CVE"
        return Outcome(UPSTREAMED, "", fixed, why)
    if said is not None:
        return Outcome(None, OTHER_REASON, said[1], "")
    every = all_upstream_item(entries)
    if every is not None:
        why = "dropped; the changelog says all patches were dropped as upstream has them"
        return Outcome(UPSTREAMED, "", every, why)
    continued = continuation(name, old_text, new_series, old_names)
    if continued is not None:
        other, how = continued
        source = f"{new_label} debian/patches/series keeps it as {other} ({how})"
        if same_lines(old_lines, changed_lines(new_series[other])):
            return carried(other, source, f"renamed to {other}, same changed lines")
        return Outcome(PORT, "", source, f"renamed to {other}, rewritten changed lines")
    dropped = dropped_upstream_item(entries, name, old_names, unexplained, old_text, new_series)
    if dropped is not None:
        why = "dropped; the changelog says the patches its upload dropped went upstream"
        return Outcome(UPSTREAMED, "", dropped, why)
    generic = generic_upstream_item(entries)
    if generic is not None:
        return Outcome(None, GENERIC_REASON, generic, "")
    return Outcome(None, NO_REASON, "", "")


def unexplained_drops(
    old_texts: dict[str, str],
    new_series: dict[str, str],
    entries: list[ChangelogEntry],
    new_upstream: str,
    pin: str = "",
) -> int:
    """How many patches of the older series (name -> text, in series order) the newer
    series (name -> text) drops with nothing of their own to say why: no changelog item
    naming them, no DEP-3 header, no CVE the new release fixes (:func:`outcome`'s left-out
    reasons :data:`GENERIC_REASON` and :data:`NO_REASON`)."""
    old_names = frozenset(old_texts)
    return sum(
        outcome(name, text, new_series, entries, new_upstream, "", old_names, pin).reason
        in (GENERIC_REASON, NO_REASON)
        for name, text in old_texts.items()
    )
