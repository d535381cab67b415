"""The runtime audit workflow's per-file header block and the plugin's ledger comment.

Header (docs/glossary.md, the runtime audit workflow, step 5): every Python file of the patch
directory carries::

    # Note: Describe the concrete issue, trigger, and reason for the difference.
    #
    # Affected versions: State evidence-backed affected versions and the reviewed revision.
    #
    # Remove at: Give a verifiable condition, such as upstream support or a resolved limit.

with meaningful values: a template's ``TODO`` or the template's own wording is a
placeholder. Ledger (vllm-ascend's ``vllm_ascend/patch/__init__.py``): a comment listing, per
``** N. File: platform/patch_x.py**`` heading, the patched targets in backquotes before
``Why:``; every documented target must be matched to code and every patched target
documented.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import Finding
from patchkeeper.runtime.inventory.module_constants import is_computed_key
from patchkeeper.runtime.model import PatchEntry

#: A placeholder value: ``TODO``, ``TBD``, ``FIXME``, ``<fill in>``, or the template's wording
#: (``Describe the concrete issue``, ``State evidence-backed``, ``Give a verifiable``).
PLACEHOLDER = re.compile(
    r"(?i)^\s*$|\bTODO\b|\bTBD\b|\bFIXME\b|\bXXX\b|^<[^>]*>$|"
    r"^Describe the |^State evidence|^Give a verifiable"
)
#: A ledger heading: ``# ** 1. File: platform/patch_balance_schedule.py**``
LEDGER_FILE = re.compile(r"^#\s*\*\*\s*(?:[\w.]+\s+)?File:\s*(?P<file>[\w./-]+\.py)\s*\*\*")
#: A documented target: a dotted name in backquotes, ``\`vllm.v1.core.sched.Scheduler\```,
#: also followed by an item, a call or an assignment inside them, as vllm-ascend writes
#: ``\`vllm.utils.torch_utils.STR_DTYPE_TO_TORCH_DTYPE["fp8"]\``` and
#: ``\`vllm.v1.worker.mamba_utils.batch_memcpy_kernel = batch_memcpy_kernel\```
LEDGER_TARGET = re.compile(r"`(?P<target>[A-Za-z_]\w*(?:\.\w+)+)(?:\[[^\]`]*\]|\(\)|\s*=[^`]*)?`")
#: The end of a section's target list: ``#    Why:``
LEDGER_WHY = re.compile(r"^#\s*Why\s*[:：]")


def _comment_text(line: str) -> str | None:
    stripped = line.strip()
    return stripped[1:].strip() if stripped.startswith("#") else None


def check_header(
    text: str, fields: Iterable[str], file: str, tree: ast.Module | None = None
) -> list[Finding]:
    """Findings for a missing or placeholder header field in one file's comments.

    Args:
        text: the file's source (a leading byte-order mark is no part of its first line).
        fields: the field names (``Note``, ``Affected versions``, ``Remove at``).
        file: the file name used in findings.
        tree: the parse of the file's bytes when the caller has it (the scan kept it):
            the module docstring is read from it where that is the parse of ``text``
            (:func:`_docstring_fields`), rather than parsing ``text`` again.
    """
    fields = tuple(fields)
    lines = text.removeprefix("\ufeff").splitlines()  # a UTF-8 byte-order mark, as Python reads it
    found: dict[str, tuple[int, str]] = {}
    current = ""
    for number, line in enumerate(lines, 1):
        comment = _comment_text(line)
        if comment is None or set(comment) <= set("-=~*#"):
            current = ""
            continue
        for field in fields:
            prefix = f"{field.lower()}:"
            if comment.lower().startswith(prefix) and field not in found:
                found[field] = (number, comment[len(prefix) :].strip())
                current = field
                break
        else:
            if (
                current
                and comment
                and not any(comment.lower().startswith(f"{f.lower()}:") for f in fields)
            ):
                start, value = found[current]
                found[current] = (start, f"{value} {comment}".strip())
            elif not comment:
                current = ""
    findings = []
    missing = [f for f in fields if f not in found]
    if missing:
        named = ", ".join(f"'{f}:'" for f in missing)
        in_docstring = _docstring_fields(text, missing, tree)
        findings.append(
            Finding(
                "header-missing",
                file,
                1,
                f"no {named} in the header's comment lines"
                + (
                    f" (the module docstring has {', '.join(repr(f + ':') for f in in_docstring)}"
                    ", but the header is '#' comment lines, not a docstring)"
                    if in_docstring
                    else ""
                ),
                "write each field as a comment line at the top of the file: "
                + ", ".join(f"'# {f}: ...'" for f in missing),
            )
        )
    template = "template" in file.rsplit("/", 1)[-1].lower()
    for field, (number, value) in found.items():
        if not template and PLACEHOLDER.search(value):
            shown = value or "(empty)"
            findings.append(
                Finding("header-placeholder", file, number, f"'{field}:' is a placeholder: {shown}")
            )
    return findings


def _docstring_fields(text: str, fields: list[str], tree: ast.Module | None = None) -> list[str]:
    """Those of ``fields`` that ``text``'s module docstring has at the start of a line (a
    header written as a docstring, where the header is comment lines); ``[]`` when the file
    does not parse or has no docstring. ``tree``, the parse of the file's bytes, is read
    instead of a parse of ``text`` where the two are the same: an ASCII text without a
    coding declaration (its bytes read alike as the text and as Python reads them)."""
    if tree is not None and text.isascii() and not _declares_coding(text):
        docstring = ast.get_docstring(tree)
    else:
        try:
            docstring = ast.get_docstring(ast.parse(text.removeprefix("\ufeff")))
        except (SyntaxError, ValueError):
            return []
    starts = {line.strip().lower() for line in (docstring or "").splitlines()}
    return [f for f in fields if any(s.startswith(f"{f.lower()}:") for s in starts)]


#: A coding declaration (PEP 263), on one of the first two lines of a file.
CODING_LINE = re.compile(r"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)


def _declares_coding(text: str) -> bool:
    """Whether one of the first two lines of ``text`` declares its encoding."""
    return CODING_LINE.search("\n".join(text.split("\n", 2)[:2])) is not None


@dataclass(frozen=True)
class LedgerItem:
    """A documented target: the file heading it is under (relative to the patch
    directory), the target, and its line in the ledger file. A heading itself is an item
    with the target ``""`` (so that a section whose targets are not recognised is still
    a section)."""

    file: str
    target: str
    line: int


def parse_ledger(text: str) -> list[LedgerItem]:
    """The documented targets of a ledger comment (see the module docstring)."""
    items: list[LedgerItem] = []
    section = ""
    listing = False
    for number, line in enumerate(text.splitlines(), 1):
        heading = LEDGER_FILE.match(line.strip())
        if heading:
            section, listing = heading.group("file"), True
            items.append(LedgerItem(section, "", number))
            continue
        if not line.strip().startswith("#"):
            continue
        if LEDGER_WHY.match(line.strip()):
            listing = False
            continue
        if section and listing:
            for match in LEDGER_TARGET.finditer(line):
                items.append(LedgerItem(section, match.group("target"), number))
    return items


def _tail(path: str, count: int) -> str:
    return ".".join(path.split(".")[-count:])


def _matches(documented: str, entry: PatchEntry) -> bool:
    """Same path, one inside the other, or the same final name (a ledger often names the
    defining module while the code patches a module that imported the name)."""
    target = entry.target
    tail = 2 if documented.count(".") >= 2 and documented.split(".")[-2][:1].isupper() else 1
    return (
        target == documented
        or _tail(target, tail) == _tail(documented, tail)
        or target.startswith(documented + ".")
        or documented.startswith(target + ".")
        or (entry.key is not None and documented.endswith(target.rsplit(".", 1)[-1]))
    )


def ledger_findings(
    root: Path,
    ledger_file: str,
    patch_directory: str,
    entries: list[PatchEntry],
    files: list[str],
) -> list[Finding]:
    """The ledger's findings (:func:`check_ledger`) for the plugin under ``root``.

    The ledger is ``ledger_file`` when configured (its absence is a ``ledger-missing``
    finding), else the patch directory's ``__init__.py``, checked only when it lists a
    target (a plugin without a ledger is not told to write one). ``files``: the patch
    files read, relative to ``root``.
    """
    name = ledger_file or f"{patch_directory}/__init__.py"
    path = root / name
    if not path.is_file():
        return (
            [Finding("ledger-missing", name, None, "the ledger file does not exist")]
            if ledger_file
            else []
        )
    items = parse_ledger(path.read_text(encoding="utf-8", errors="replace"))
    if not any(item.target for item in items) and not ledger_file:
        return []
    return check_ledger(items, entries, patch_directory, name, files)


def check_ledger(
    items: list[LedgerItem],
    entries: Iterable[PatchEntry],
    patch_directory: str,
    ledger: str,
    files: Iterable[str] | None = None,
) -> list[Finding]:
    """Mismatches between the ledger and the code.

    ``ledger-missing-code``: a documented target no entry of its file patches (the message
    names another file that patches it, if any, or says that the file does not exist when
    ``files``, the plugin files relative to the root, does not hold it);
    ``ledger-undocumented``: an entry whose target its file's section does not list (or
    whose file has no section).
    """
    existing = None if files is None else set(files)
    entries = list(entries)
    by_file: dict[str, list[PatchEntry]] = {}
    for entry in entries:
        relative = (
            entry.file[len(patch_directory) + 1 :]
            if entry.file.startswith(patch_directory + "/")
            else entry.file
        )
        by_file.setdefault(relative, []).append(entry)
    documented: dict[str, list[LedgerItem]] = {}
    for item in items:
        documented.setdefault(item.file, []).append(item)
    findings: list[Finding] = []
    for item in items:
        if not item.target or any(_matches(item.target, e) for e in by_file.get(item.file, [])):
            continue
        elsewhere = sorted({e.file for e in entries if _matches(item.target, e)})
        where = f"; patched in {', '.join(elsewhere)}" if elsewhere else ""
        if existing is not None and f"{patch_directory}/{item.file}" not in existing:
            where = f"; {patch_directory}/{item.file} does not exist{where}"
        findings.append(
            Finding(
                "ledger-missing-code",
                ledger,
                item.line or None,
                f"documented target {item.target} is not patched by {item.file}{where}",
            )
        )
    for relative, file_entries in sorted(by_file.items()):
        section = documented.get(relative)
        for entry in file_entries:
            if is_computed_key(entry):  # no ledger can name a module computed at run time
                continue
            if section is None:
                message = f"{entry.target} is patched but {relative} has no section in the ledger"
            elif not any(i.target and _matches(i.target, entry) for i in section):
                message = f"{entry.target} is patched but not documented under {relative}"
            else:
                continue
            findings.append(Finding("ledger-undocumented", entry.file, entry.line, message))
    return findings
