"""``patchkeeper lint``: the checks the series workflow's scripts made, as one command.

Every problem is a :class:`patchkeeper.errors.Finding`, printed ``file:line: code message``
(or as GitHub annotations). The checks:

- header fields: a required one missing or empty, a ``Kind`` outside the vocabulary, a
  ``Cut-against`` that does not begin with the pin, a template placeholder left in,
  an ``Upstream`` that is neither ``none``, a URL, nor ``PROJECT #NUMBER`` (+ status);
- the series against the directory: a listed file missing, a patch file not listed, a
  duplicate entry;
- a hand-edited patch: hunk line counts that do not add up, or (with a checkout) bytes that
  differ from re-exporting the commit its ``--- exported from`` line names;
- a patch path ``apply`` refuses whatever the tree
  (:func:`patchkeeper.system.patch_paths.path_refusal`: it leaves the tree, or names a file
  the file system cannot be handed), found before an ``apply`` stops at it;
- the knob rule (the series workflow, docs/glossary.md: "a patch that reads an env knob registers it
in envs.py in its
  own hunk ... and reads it through vllm.envs"): a patch adding a read of a knob matching
  the pattern must add the name to the registry file;
- entries that are not patches (:mod:`patchkeeper.ledger.entries`);
- the configured pin against the project's dependency files: a requirement of the upstream
  the pin does not satisfy (:mod:`patchkeeper.ledger.pin_files`).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from patchkeeper.config import Config, dotted_key_line, runtime_only, spelt_for
from patchkeeper.errors import Finding, PatchFormatError
from patchkeeper.ledger.entries import (
    Entry,
    check_foreign_diff,
    check_vendored,
    checkout_for,
    lint_overlay,
    load_entries,
)
from patchkeeper.ledger.findings import display_path
from patchkeeper.ledger.pin_files import check_pin_files
from patchkeeper.ledger.settings import HeaderSettings, LintSettings, header_settings, lint_settings
from patchkeeper.ledger.table import read_preamble
from patchkeeper.series.cover_letter import is_cover_letter
from patchkeeper.series.headers import Headers, parse_headers
from patchkeeper.series.hunks import mixed_endings, mixed_endings_advice
from patchkeeper.series.model import ADDED, Patch, Series, SeriesEntry
from patchkeeper.series.parse import (
    compression,
    entry_file_exists,
    entry_hint,
    entry_problem,
    listed_patch,
    parse_patch,
    parse_series,
    refused_paths,
    wide_encoding,
)
from patchkeeper.system.names import shown_name
from patchkeeper.system.patch_paths import shown_path

#: A reference in ``Upstream:``: a URL or ``PROJECT #NUMBER`` (``vllm #50021``), then an
#: optional status in parentheses (``(open)``) and free text after ``;``, ``,``, ``:`` or ``.``.
#: ``none`` may be followed by anything (``none yet (upstream pads)``).
_REFERENCE = r"(?:https?://\S+|[A-Za-z0-9][\w.-]*(?:/[\w.-]+)?\s+#\d+)"
_TAIL = r"(?:\s*\([^()]*\))?(?:\s*[;,:.]\s*.*)?"
UPSTREAM_VALUE = re.compile(rf"^(?:none\b.*|{_REFERENCE}{_TAIL})$", re.IGNORECASE | re.DOTALL)

#: An identifier that may name a knob.
_NAME = rb"([A-Za-z_][A-Za-z0-9_]*)"
#: Reads of an environment variable in an added Python line, each with a sample:
KNOB_READS: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    # os.environ["VLLM_X"], os.environ.get("VLLM_X"), environ.setdefault('VLLM_X', ...)
    (
        "os.environ",
        re.compile(rb"\benviron\s*(?:\[|\.get\(|\.setdefault\(|\.pop\()\s*[\"']" + _NAME),
    ),
    # "VLLM_X" in os.environ
    ("os.environ", re.compile(rb"[\"']" + _NAME + rb"[\"']\s+(?:not\s+)?in\s+(?:os\.)?environ\b")),
    # os.getenv("VLLM_X", "0")
    ("os.getenv", re.compile(rb"\bgetenv\(\s*[\"']" + _NAME)),
    # envs.VLLM_X (vllm.envs, the series workflow's way)
    ("envs", re.compile(rb"\benvs\." + _NAME)),
)

#: A registration in the registry file, each with a sample: vLLM's envs.py has both forms.
REGISTRATIONS: tuple[re.Pattern[bytes], ...] = (
    # "VLLM_X": lambda: int(os.getenv("VLLM_X", "0")),   (the environment_variables dict)
    re.compile(rb"[\"']" + _NAME + rb"[\"']\s*:"),
    # VLLM_X: int = 0   (the TYPE_CHECKING block), or VLLM_X = ...
    re.compile(rb"^\s*" + _NAME + rb"\s*[:=]", re.M),
)

_HUNK_COUNT_WORDS = ("hunk line counts", "truncated hunk", "more lines than its header")


@dataclass(frozen=True)
class LintResult:
    """What ``patchkeeper lint`` found.

    Attributes:
        findings: every problem, in series order, then entries.
        patches: how many patches the series lists (each name once), read or not.
        entries: how many non-patch entries were checked.
        output_format: ``"text"`` or ``"github"`` (how the terminal renderer prints).
        skipped: checks not run, one sentence each (a vendored tree or foreign diff with no
            checkout to compare it with).
        cwd: the directory the command ran in, relative to the downstream root (POSIX),
            when it is below the root (else ``""``): the text format names each file from
            there, as ``git`` and ``ruff`` do; JSON, Markdown and GitHub annotations keep
            the root-relative paths.
        hint: one sentence after the findings (a Debian series read with the ledger
            schema: the setting to read its DEP-3 headers), or ``""``.
        unread: the names of the patches the series lists that could not be read (no
            file there, a directory, or a file this user cannot read: each has its PK201
            finding), in series order.
    """

    findings: tuple[Finding, ...]
    patches: int
    entries: int
    output_format: str = "text"
    skipped: tuple[str, ...] = ()
    cwd: str = ""
    hint: str = ""
    unread: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return 1 if self.findings else 0


# --------------------------------------------------------------------------- header fields


def _placeholder(value: str, words: tuple[str, ...]) -> bool:
    text = value.strip()
    if re.fullmatch(r"<[^<>]*>", text):
        return True
    return any(re.match(rf"{re.escape(word)}\b", text) for word in words)


def _pin_prefix(value: str, pin: str) -> bool:
    if not value.startswith(pin):
        return False
    rest = value[len(pin) :]
    return not rest or not (rest[0].isalnum() or rest[0] == ".")


def check_fields(
    get: Mapping[str, tuple[str, int | None]],
    where: str,
    fallback_line: int | None,
    settings: HeaderSettings,
    pin: str | None,
    missing: str = "missing header '{}:'",
    missing_hint: str = "",
) -> list[Finding]:
    """Check header values; ``get`` maps a lower-case field name to ``(value, line)``.

    Used for patches (from :class:`Headers`) and for entries (from their ``fields`` table);
    ``missing`` words a required field that is absent and ``missing_hint`` what to do about
    it (``{}``: its name); a header of a patch by default.
    """
    out: list[Finding] = []
    for name in settings.required:
        if name.lower() not in get:
            out.append(
                Finding(
                    "PK101",
                    where,
                    fallback_line,
                    missing.format(name),
                    missing_hint.format(name),
                )
            )
    for key, (value, line) in get.items():
        if not value.strip() and key in {n.lower() for n in settings.required}:
            out.append(Finding("PK102", where, line, f"header '{key}' is empty"))
        elif _placeholder(value, settings.placeholders):
            out.append(Finding("PK105", where, line, f"'{key}' is a placeholder: {value!r}"))
    kind = get.get("kind")
    if kind and kind[0].strip() and kind[0].strip() not in settings.kinds:
        allowed = ", ".join(settings.kinds)
        out.append(Finding("PK103", where, kind[1], f"kind '{kind[0]}' is not one of {allowed}"))
    cut = get.get("cut-against")
    if pin and cut and cut[0].strip() and not _pin_prefix(cut[0].strip(), pin):
        out.append(
            Finding(
                "PK104", where, cut[1], f"Cut-against '{cut[0][:40]}' does not begin with {pin}"
            )
        )
    upstream = get.get("upstream")
    if upstream and upstream[0].strip() and not UPSTREAM_VALUE.match(upstream[0].strip()):
        out.append(
            Finding(
                "PK106",
                where,
                upstream[1],
                f"Upstream '{upstream[0][:60]}' is not none, a URL, or PROJECT #NUMBER",
            )
        )
    return out


def _header_map(headers: Headers, settings: HeaderSettings) -> dict[str, tuple[str, int | None]]:
    out: dict[str, tuple[str, int | None]] = {}
    for item in headers.fields:
        out.setdefault(item.key, (item.value, item.line_no))
    for name in settings.required:  # DEP-3 aliases: Description may be Subject
        found = headers.get(name)
        if found is not None:
            out.setdefault(name.lower(), (found.value, found.line_no))
    return out


# --------------------------------------------------------------------------- knobs


def is_registry(path: str, registry: str, directory: str = "") -> bool:
    """Whether the patched file ``path`` (as the patch names it, after the strip) is the
    registry file ``registry``, which is relative to ``directory``. With no ``directory``
    the patch paths are relative to the sdist root or the site-packages folder, where the
    registry sits in the import package's folder: ``vllm/envs.py`` is the registry
    ``envs.py`` of a series made by ``git format-patch`` on vLLM's repository.

    >>> is_registry("vllm/envs.py", "envs.py"), is_registry("envs.py", "envs.py")
    (True, True)
    >>> is_registry("vllm/envs.py", "envs.py", "vllm"), is_registry("a/b/envs.py", "envs.py")
    (False, False)
    """
    if path == registry:
        return True
    if directory:
        return False
    top, _, rest = path.partition("/")
    return bool(top) and rest == registry


def knob_reads(
    patch: Patch, pattern: str, registry: str, directory: str = ""
) -> list[tuple[str, str, int]]:
    """The knob reads a patch adds: ``(name, how, line)`` for ``+`` lines of ``.py`` files
    other than the registry, whose variable matches ``pattern`` (fnmatch)."""
    out = []
    for diff in patch.files:
        path = diff.new_path
        if path is None or not path.endswith(".py") or is_registry(path, registry, directory):
            continue
        for hunk in diff.hunks:
            for line in hunk.lines:
                if line.kind != ADDED:
                    continue
                for how, regex in KNOB_READS:
                    for match in regex.finditer(line.text):
                        name = match.group(1).decode("ascii")
                        if fnmatch.fnmatchcase(name, pattern):
                            out.append((name, how, line.line_no))
    return out


def registered_names(text: bytes) -> set[str]:
    """Names a registry text registers: dict keys and annotated or assigned names.

    >>> text = b'    VLLM_A: int = 0\\n    "VLLM_B": lambda: os.getenv("VLLM_C")\\n'
    >>> sorted(registered_names(text))
    ['VLLM_A', 'VLLM_B']
    """
    return {m.decode("ascii") for regex in REGISTRATIONS for m in regex.findall(text)}


def knob_registrations(patch: Patch, registry: str, directory: str = "") -> set[str]:
    """Names the patch registers on the ``+`` lines it adds to the registry file
    (:func:`is_registry`)."""
    names: set[str] = set()
    for diff in patch.files:
        if diff.new_path is None or not is_registry(diff.new_path, registry, directory):
            continue
        for hunk in diff.hunks:
            for line in hunk.lines:
                if line.kind == ADDED:
                    names |= registered_names(line.text)
    return names


def upstream_knobs(tree: Path | None, directory: str, registry: str) -> set[str]:
    """Names a pristine upstream tree's registry file registers (knobs upstream has).

    Raises:
        TargetError: ``tree`` (``--upstream``) does not exist or is no directory (a named
            pipe, a device): a mistyped path would otherwise count no knob as registered
            upstream, silently.
    """
    if tree is None:
        return set()
    if not tree.is_dir():
        from patchkeeper.errors import TargetError
        from patchkeeper.system.regular import not_a_directory

        there = not_a_directory(tree)
        raise TargetError(
            f"the upstream tree (--upstream) {there}"
            if there
            else "the upstream tree (--upstream) does not exist",
            path=tree,
            hint="pass --upstream the pristine upstream tree (an unpacked sdist or a checkout) "
            f"whose {registry} registers the knobs upstream has",
        )
    if directory:
        paths = [tree / directory / registry]
    else:  # the registry in the tree's top, else in its import packages' folders
        paths = (
            [tree / registry] if (tree / registry).is_file() else sorted(tree.glob(f"*/{registry}"))
        )
    names: set[str] = set()
    for path in paths:
        if path.is_file():
            names |= registered_names(path.read_bytes())
    return names


def check_knobs(
    patch: Patch, where: str, settings: LintSettings, registered: set[str], directory: str = ""
) -> list[Finding]:
    """The knob rule for one patch; ``registered`` holds names registered elsewhere;
    ``directory`` is the configured one the registry is relative to."""
    own = knob_registrations(patch, settings.registry, directory)
    out = []
    reads = knob_reads(patch, settings.knob_pattern, settings.registry, directory)
    for name, how, line in reads:
        if name in own or name in registered or name in settings.knob_allow:
            continue
        out.append(
            Finding(
                "PK401",
                where,
                line,
                f"reads {name} ({how}) but does not register it in {settings.registry}",
            )
        )
    return out


# --------------------------------------------------------------------------- the series


def _unlisted(
    config: Config, listed: set[str], skip: set[Path], patterns: tuple[str, ...]
) -> Iterator[Path]:
    directory = config.patches_dir
    found: list[Path] = []
    for pattern in patterns:
        found += directory.rglob(pattern)
    for path in sorted(set(found)):
        if not path.is_file() or path.resolve() in skip:
            continue
        if any(path.resolve().is_relative_to(s) for s in skip if s.is_dir()):
            continue
        if path.relative_to(directory).as_posix() not in listed and not is_cover_letter(path):
            yield path


def commented_entries(series: Path) -> set[str]:
    """Patch names on commented-out series lines (``# name.patch  # why``): quilt's way of
    keeping a patch in the directory but out of the series (``port`` writes upstreamed
    patches so); such a file is not "unlisted".

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp(), "series")
    >>> _ = path.write_text("# a note\\n# old.patch  # upstreamed in 1.1\\nnew.patch\\n")
    >>> sorted(commented_entries(path))
    ['a', 'old.patch']
    """
    names = set()
    for raw in series.read_text(encoding="utf-8", errors="surrogateescape").splitlines():
        text = raw.strip()
        if text.startswith("#"):
            words = text.lstrip("#").split()
            if words:
                names.add(words[0])
    return names


def _outside(series: Series, entry: SeriesEntry) -> PatchFormatError | None:
    """The error every command that reads the series gives for a line whose patch file is
    there but leads outside the series directory (a symbolic link to ``/etc/passwd``):
    lint reports it and does not read the file, as they do not; else ``None``."""
    if not entry_file_exists(series, entry):
        return None  # nothing there, or no file: PK201 as such
    try:
        listed_patch(series, entry)
    except PatchFormatError as exc:
        return exc
    return None


def _unreadable(series: Series, entry: SeriesEntry) -> str:
    """Why the regular file a series line names cannot be opened for reading by this user
    (``"Permission denied"``), or ``""`` when it can: lint reports it at the series line
    as the other commands stop on it, and reads the other patches."""
    try:
        with open(series.directory / entry.name, "rb"):
            return ""
    except OSError as exc:
        return exc.strerror or str(exc)


def check_series(config: Config, entries: list[Entry], settings: LintSettings) -> list[Finding]:
    """Series against directory: PK201 missing, PK202 not listed, PK203 listed twice."""
    series = parse_series(config.series)
    where = display_path(series.path, config.root)
    out = []
    seen: dict[str, int] = {}
    for entry in series.entries:
        if entry.name in seen:
            out.append(
                Finding(
                    "PK203",
                    where,
                    entry.line_no,
                    f"{shown_name(entry.name)} is already listed on line {seen[entry.name]}",
                    "remove this line (the series applies each patch once)",
                )
            )
            continue
        seen[entry.name] = entry.line_no
        outside = _outside(series, entry)
        if outside is not None:
            out.append(Finding("PK201", where, entry.line_no, outside.message, outside.hint or ""))
        elif not entry_file_exists(series, entry):
            problem = entry_problem(series, entry)
            message = f"{shown_name(entry.name)} {problem}"
            # the series' line names the file: its name alone, whatever directory lint ran in
            hint = entry_hint(problem, shown_name(entry.name))
            out.append(Finding("PK201", where, entry.line_no, message, hint))
        elif reason := _unreadable(series, entry):
            message = f"{shown_name(entry.name)} cannot be read: {reason}"
            hint = "let this user read it, or take its line out of the series"
            out.append(Finding("PK201", where, entry.line_no, message, hint))
    skip = {entry.path.resolve() for entry in entries}
    disabled = commented_entries(series.path)
    for path in _unlisted(config, set(seen) | disabled, skip, settings.patch_files):
        shown = display_path(path, config.root)
        out.append(Finding("PK202", shown, None, f"not listed in {where}", named_files=(where,)))
    return out


# --------------------------------------------------------------------------- one patch


def _parse_finding(exc: PatchFormatError, where: str) -> Finding:
    # The parser's hint (regenerate the patch, convert it to UTF-8, ship a binary file as
    # an overlay) is what to do about the finding: kept as its hint, as apply prints it.
    code = "PK301" if any(w in exc.message for w in _HUNK_COUNT_WORDS) else "PK304"
    return Finding(code, where, exc.line, exc.message, exc.hint or "")


def lint_patch(
    path: Path,
    name: str,
    strip: int,
    config: Config,
    registered: set[str],
    reexport: Callable[[Patch, str], list[Finding]] | None,
) -> tuple[list[Finding], Patch | None]:
    """Every per-file check of one patch; returns the findings and the parsed patch."""
    hsettings = header_settings(config)
    lsettings = lint_settings(config)
    where = display_path(path, config.root)
    data = path.read_bytes()
    findings: list[Finding] = []
    # A patch in UTF-16, or compressed, has no header line to read either: its PK304 says
    # why, once.
    if wide_encoding(data) is None and compression(data) is None:
        preamble, preamble_lines = read_preamble(path)
        headers = parse_headers(preamble)
        fallback = headers.fields[-1].end_line if headers.fields else max(preamble_lines, 1)
        findings = check_fields(
            _header_map(headers, hsettings), where, fallback, hsettings, config.pin
        )
    try:
        # an empty patch (zero bytes, or a header alone) is a no-op in a series, as in
        # quilt: apply and verify take it, so it is no parse finding
        patch = parse_patch(data, name=name, path=path, strip=strip, allow_empty=True)
    except PatchFormatError as exc:
        return _by_line([*findings, _parse_finding(exc, where)]), None
    findings += refused_path_findings(patch, where)
    findings += mixed_endings_findings(patch, where)
    findings += check_knobs(patch, where, lsettings, registered, config.directory)
    if reexport is not None:
        findings += reexport(patch, where)
    return _by_line(findings), patch


def refused_path_findings(patch: Patch, where: str) -> list[Finding]:
    """PK305 for each path of ``patch`` that ``apply`` refuses in any tree
    (:func:`~patchkeeper.series.parse.refused_paths`), at the line of its file's header."""
    return [
        Finding(
            "PK305",
            where,
            diff.line_no,
            f"the patch path {shown_path(path)} {why}: apply refuses it",
            "rename the file in the patch (and in the commit it was made from)",
        )
        for diff, path, why in refused_paths(patch)
    ]


def mixed_endings_findings(patch: Patch, where: str) -> list[Finding]:
    """PK306 at the first line of ``patch`` where a hunk's line endings change between CRLF
    and LF (:func:`~patchkeeper.series.hunks.mixed_endings`, the check ``audit`` makes):
    ``apply`` refuses such a hunk against a file of one line ending."""
    found = mixed_endings([(diff.path, diff.hunks) for diff in patch.files])
    if found is None:
        return []
    message = (
        f"hunk #{found.hunk} of {found.path} mixes line endings: {found.first} before this "
        f"line, {found.then} here; apply refuses it against a file whose lines end alike "
        "(different line endings)"
    )
    return [Finding("PK306", where, found.line, message, mixed_endings_advice(where))]


def _by_line(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.line or 0, f.code))


# --------------------------------------------------------------------------- entries


def lint_entries(
    config: Config,
    entries: list[Entry],
    checkouts: Mapping[str, Path],
    skipped: list[str] | None = None,
) -> list[Finding]:
    """Fields of every entry, overlay sources, and (with a checkout) foreign diffs and
    vendored trees against their pinned commits; a check left out for want of a checkout is
    described in ``skipped`` (one sentence per entry)."""
    hsettings = header_settings(config)
    source = config.source or config.root
    where = display_path(source, config.root)
    out: list[Finding] = []
    for entry in entries:
        table = entry.table
        at_table = dotted_key_line(config.source, table)
        line = dotted_key_line(config.source, f"{table}.fields") or at_table
        values = {k.lower(): (str(v), line) for k, v in entry.fields.items()}
        add = spelt_for(f'add {{}} = "..." to the fields of [tool.patchkeeper.{table}]', source)
        found = [
            replace(finding, message=f"{entry.name}: {finding.message}")
            for finding in check_fields(
                values, where, line, hsettings, config.pin, "missing field '{}'", add
            )
        ]
        if entry.kind == "overlay":
            found += lint_overlay(entry, config.root, source)
        elif (checkout := checkout_for(entry, checkouts, config.root)) is None:
            if skipped is not None:
                skipped.append(_skipped_check(entry))
        elif entry.kind == "foreign-diff":
            found += check_foreign_diff(entry, checkout, config.root, source)
        else:
            found += check_vendored(entry, checkout, config.root, source)
        # A finding about the entry as a whole is placed at its table.
        out += [
            replace(f, line=at_table) if f.line is None and f.path == where else f for f in found
        ]
    return out


def from_repository_root(findings: tuple[Finding, ...], root: Path) -> tuple[Finding, ...]:
    """``findings`` with paths relative to the top of the git work tree holding ``root`` (the
    downstream), where GitHub looks for an annotation's file (``git rev-parse
    --show-toplevel``); unchanged outside a work tree, or for a path outside it.
    """
    from patchkeeper.errors import GitError
    from patchkeeper.upstream import gitops

    try:
        top = gitops.toplevel(root).resolve()
    except GitError:
        return findings
    out = []
    for finding in findings:
        path = (root / finding.path).resolve()
        if path.is_relative_to(top):
            finding = replace(finding, path=path.relative_to(top).as_posix())
        out.append(finding)
    return tuple(out)


def _skipped_check(entry: Entry) -> str:
    what = "vendored tree" if entry.kind == "vendored" else "foreign diff"
    return (
        f"{what} '{entry.name}' was not compared with its pinned commit: no checkout "
        f"(pass --foreign-checkout {entry.name}=PATH, or set checkout in [{entry.table}])"
    )


# --------------------------------------------------------------------------- the command


@dataclass(frozen=True)
class LintRequest:
    """What ``lint`` is asked to do; each field is the option of the same parameter name,
    so the command builds it from click's parsed parameters.

    Attributes:
        output_format: ``"text"`` or ``"github"`` (``--format``; paths relative to the git
            work tree's top, :func:`from_repository_root`); default ``"text"``.
        checkout: an upstream git checkout (``--checkout``); each patch is compared with a
            re-export of the commit its ``--- exported from`` line names (PK302, PK303);
            default ``None``, no comparison.
        upstream: a pristine upstream tree (``--upstream``); knobs its registry file names
            count as registered; default ``None``.
        foreign_checkouts: ``{entry name or "": checkout}`` for foreign diffs and vendored
            trees (``--foreign-checkout [NAME=]PATH``, each given once); default none.
    """

    output_format: str = "text"
    checkout: Path | None = None
    upstream: Path | None = None
    foreign_checkouts: Mapping[str, Path] = field(default_factory=dict)


def lint_downstream(config: Config, request: LintRequest = LintRequest()) -> LintResult:
    """``patchkeeper lint``, as ``request`` says (:class:`LintRequest`; default: every
    check that needs no checkout or tree, findings as text).

    Raises:
        PatchFormatError: the series file is missing or malformed (exit 2).
        ConfigError: the configuration is invalid.
        TargetError: ``--upstream`` does not exist.
    """
    output_format, checkout, upstream = request.output_format, request.checkout, request.upstream
    lsettings = lint_settings(config)
    entries = load_entries(config)
    if runtime_only(config):  # no series to check: the entries and dependency files
        return _lint_without_series(config, entries, request, lsettings)
    findings = check_series(config, entries, lsettings)
    series = parse_series(config.series)
    registered = upstream_knobs(upstream, config.directory, lsettings.registry)
    reexport = None
    if checkout is not None:
        from patchkeeper.ledger.export import reexport_checker

        reexport = reexport_checker(config, checkout)
    count = 0
    seen: set[str] = set()
    unread: list[str] = []
    for entry in series.entries:
        path = series.directory / entry.name
        if entry.name in seen:
            continue
        seen.add(entry.name)
        if (
            not entry_file_exists(series, entry)
            or _outside(series, entry) is not None
            or _unreadable(series, entry)
        ):
            unread.append(entry.name)
            continue
        count += 1
        strip = entry.strip if entry.strip is not None else config.strip
        found, patch = lint_patch(path, entry.name, strip, config, set(registered), reexport)
        findings += found
        if patch is not None and lsettings.knob_scope == "series":
            registered |= knob_registrations(patch, lsettings.registry, config.directory)
    skipped: list[str] = []
    findings += lint_entries(config, entries, request.foreign_checkouts, skipped)
    findings += check_pin_files(config)
    kept = tuple(f for f in findings if f.code not in lsettings.disable)
    hint = _schema_hint(header_settings(config), kept, count)
    if output_format == "github":
        kept = from_repository_root(kept, config.root)
    return LintResult(
        findings=kept,
        patches=len(seen),
        entries=len(entries),
        output_format=output_format,
        skipped=tuple(skipped),
        hint=hint,
        unread=tuple(unread),
    )


def _lint_without_series(
    config: Config, entries: list[Entry], request: LintRequest, lsettings: LintSettings
) -> LintResult:
    """``lint`` of a downstream of runtime patches alone: its other entries and its
    dependency files against the pin (PK601), the checks that need no series."""
    skipped: list[str] = []
    findings = lint_entries(config, entries, request.foreign_checkouts, skipped)
    findings += check_pin_files(config)
    kept = tuple(f for f in findings if f.code not in lsettings.disable)
    if request.output_format == "github":
        kept = from_repository_root(kept, config.root)
    return LintResult(
        findings=kept,
        patches=0,
        entries=len(entries),
        output_format=request.output_format,
        skipped=tuple(skipped),
        hint="hint: no patch series here, runtime patches alone: lint checked the dependency "
        "files against the pin; 'patchkeeper runtime inventory' lists the runtime patches "
        "and their header findings",
    )


def _schema_hint(settings: HeaderSettings, findings: Sequence[Finding], patches: int) -> str:
    """With the ledger schema, when no patch has any of its headers (every required one
    missing from every patch: a Debian/DEP-3 series read with the default schema), the
    setting that reads the series' own headers; else ``""``."""
    if settings.schema != "ledger" or not patches or not settings.required:
        return ""
    missing = {(f.path, f.message) for f in findings if f.code == "PK101"}
    if len(missing) < patches * len(settings.required):
        return ""
    return (
        "hint: no patch has any of the headers the ledger schema reads; for DEP-3 headers "
        '(Description, Origin, Bug, Forwarded: a Debian series) set schema = "dep3" in '
        "[tool.patchkeeper.headers]"
    )
