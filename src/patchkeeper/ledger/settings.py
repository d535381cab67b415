"""The configuration sub-tables of headers, the ledger, lint, git and non-patch entries.

A sample, in ``patchkeeper.toml`` (the same under ``[tool.patchkeeper.*]`` in pyproject)::

    [headers]
    schema = "ledger"        # "ledger" (the series workflow's Kind/What/...) or "dep3" (Debian)
    required = ["Kind", "What", "Upstream", "Cut-against", "Retires-when"]
    kinds = ["backport", "fix", "feature", "local", "own"]
    columns = ["Kind", "What", "Upstream", "Cut-against", "Retires-when"]
                             # a name ending in * is a family: "Bug*" is Bug and Bug-<Vendor>

    [ledger]
    file = "PATCHES.md"
    begin-marker = "<!-- table:begin"      # a line starting with this opens the table
    end-marker = "<!-- table:end -->"

    [lint]
    knob-pattern = "VLLM_*"                # fnmatch pattern of environment knobs
    registry = "envs.py"                   # the knob registry, relative to 'directory'

    [git]
    tag = "qwen38"                         # topic commits are "[qwen38] <topic>"
    pin-tag = "v{pin}"                     # the upstream tag of the pin

    [entries.overlays.kvarn-files]         # files copied into the upstream tree
    source = "kvarn/files"
    fields = { Kind = "own", What = "KVarN kernels", Upstream = "none",
               Cut-against = "0.32.0", Retires-when = "rides with KVarN" }

The series workflow (docs/glossary.md) is the source of every default.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.config import Bounds, Config, NotEmpty, OneOf, register_section
from patchkeeper.errors import ConfigError
from patchkeeper.ledger.findings import CODES

#: The series workflow's ledger schema (docs/glossary.md), in table order.
LEDGER_FIELDS = ("Kind", "What", "Upstream", "Cut-against", "Retires-when")
#: The series workflow's kinds (its list "Kinds: backport, fix, feature, local, own").
KINDS = ("backport", "fix", "feature", "local", "own")
#: DEP-3's required field (``Description``, or its alias ``Subject``) and a useful table;
#: ``Bug*`` is one column for ``Bug`` and every ``Bug-<Vendor>`` (:func:`headers.in_family`),
#: so Debian's ``Bug-Debian`` lines show (the user-test report, bug 19).
DEP3_REQUIRED = ("Description",)
DEP3_COLUMNS = ("Description", "Origin", "Bug*", "Forwarded", "Last-Update")

#: What to do about an empty marker of ``[ledger]``: an empty one is found on every line.
MARKER_HINT = (
    'the HTML comments around the ledger\'s tables: begin-marker = "<!-- table:begin", '
    'end-marker = "<!-- table:end -->" (retired-begin, retired-end likewise)'
)

register_section(
    "headers",
    {
        "schema": (
            str,
            "ledger",
            OneOf(
                ("ledger", "dep3"),
                hint='"ledger" reads Kind/What/Upstream/Cut-against/Retires-when (the ledger '
                'schema), "dep3" reads Debian\'s DEP-3 fields (Description, Origin, Bug, '
                "Forwarded, ...)",
            ),
        ),
        "required": (list, None),
        "kinds": (list, list(KINDS)),
        "columns": (list, None),
        "placeholders": (list, ["TODO", "TBD", "FIXME", "XXX"]),
    },
)
register_section(
    "ledger",
    {
        "file": (str, "PATCHES.md", NotEmpty('the ledger\'s Markdown file: file = "PATCHES.md"')),
        "begin-marker": (str, "<!-- table:begin", NotEmpty(MARKER_HINT)),
        "end-marker": (str, "<!-- table:end -->", NotEmpty(MARKER_HINT)),
        "retired-begin": (str, "<!-- retired:begin -->", NotEmpty(MARKER_HINT)),
        "retired-end": (str, "<!-- retired:end -->", NotEmpty(MARKER_HINT)),
        "name-column": (
            str,
            "patch",
            NotEmpty('the column naming each row\'s patch: name-column = "patch"'),
        ),
    },
)
register_section(
    "lint",
    {
        "knob-pattern": (
            str,
            "VLLM_*",
            NotEmpty(
                'the environment knobs a patch must register: knob-pattern = "VLLM_*"; '
                'disable = ["PK..."] turns a check off'
            ),
        ),
        "registry": (
            str,
            "envs.py",
            NotEmpty('the file knobs are registered in: registry = "envs.py"'),
        ),
        "knob-scope": (str, "patch", OneOf(("patch", "series"))),
        "knob-allow": (list, []),
        "patch-files": (list, ["*.patch", "*.diff"]),
        "disable": (list, [], OneOf(tuple(CODES), hint="the codes are listed in docs/ci.md")),
    },
)
register_section(
    "git",
    {
        "tag": (
            str,
            None,
            NotEmpty('the topic commits\' tag: tag = "qwen38"; leave the key out for none'),
        ),
        "pin-tag": (str, "v{pin}", NotEmpty('the upstream tag of the pin: pin-tag = "v{pin}"')),
        "checkout": (
            str,
            None,
            NotEmpty('the upstream checkout: checkout = "../vllm"; leave the key out for none'),
        ),
        "branch": (
            str,
            "patchkeeper/{pin}",
            NotEmpty(
                'the branch import writes and check-branch reads: branch = "patchkeeper/{pin}"'
            ),
        ),
        "index-abbrev": (int, 40, Bounds(7, 40, hint="git abbreviates blob ids to 7..40 digits")),
        "notes-ref": (
            str,
            "refs/notes/patchkeeper",
            NotEmpty('the git notes ref: notes-ref = "refs/notes/patchkeeper"'),
        ),
    },
)
register_section(
    "entries",
    {
        "overlays": (dict, {}),
        "foreign-diffs": (dict, {}),
        "vendored": (dict, {}),
    },
)


@dataclass(frozen=True)
class HeaderSettings:
    """``[headers]``: which fields a patch must carry, the kinds, the table's columns."""

    schema: str
    required: tuple[str, ...]
    kinds: tuple[str, ...]
    columns: tuple[str, ...]
    placeholders: tuple[str, ...]


@dataclass(frozen=True)
class LedgerSettings:
    """``[ledger]``: the Markdown file and its markers (paths absolute)."""

    file: Any
    begin_marker: str
    end_marker: str
    retired_begin: str
    retired_end: str
    name_column: str


@dataclass(frozen=True)
class LintSettings:
    """``[lint]``: the knob rule and which files in the patch directory are patches."""

    knob_pattern: str
    registry: str
    knob_scope: str
    knob_allow: tuple[str, ...]
    patch_files: tuple[str, ...]
    disable: tuple[str, ...]


@dataclass(frozen=True)
class GitSettings:
    """``[git]``: the topic tag, the pin's tag, the default checkout and branch."""

    tag: str | None
    pin_tag: str
    checkout: Any
    branch: str
    index_abbrev: int
    notes_ref: str


def _section(config: Config, name: str) -> dict[str, Any]:
    from patchkeeper.config import SCHEMA, validate

    values = config.sections.get(name)
    if values is None:  # a Config built before this module registered its sections
        values = validate({}, config.source or config.root, SCHEMA[name], prefix=f"{name}.")
    return values


def header_settings(config: Config) -> HeaderSettings:
    """Read ``[headers]`` with the schema's defaults filled in (``schema`` was checked to be
    ``"ledger"`` or ``"dep3"`` when the configuration was loaded)."""
    values = _section(config, "headers")
    schema = values["schema"]
    required = LEDGER_FIELDS if schema == "ledger" else DEP3_REQUIRED
    columns = LEDGER_FIELDS if schema == "ledger" else DEP3_COLUMNS
    return HeaderSettings(
        schema=schema,
        required=tuple(values["required"] if values["required"] is not None else required),
        kinds=tuple(values["kinds"]),
        columns=tuple(values["columns"] if values["columns"] is not None else columns),
        placeholders=tuple(values["placeholders"]),
    )


def ledger_settings(config: Config) -> LedgerSettings:
    """Read ``[ledger]``; ``file`` is made absolute against the downstream root."""
    values = _section(config, "ledger")
    return LedgerSettings(
        file=(config.root / values["file"]).resolve(),
        begin_marker=values["begin-marker"],
        end_marker=values["end-marker"],
        retired_begin=values["retired-begin"],
        retired_end=values["retired-end"],
        name_column=values["name-column"],
    )


def lint_settings(config: Config) -> LintSettings:
    """Read ``[lint]`` (its values were checked when the configuration was loaded)."""
    values = _section(config, "lint")
    return LintSettings(
        knob_pattern=values["knob-pattern"],
        registry=values["registry"].strip("/"),
        knob_scope=values["knob-scope"],
        knob_allow=tuple(values["knob-allow"]),
        patch_files=tuple(values["patch-files"]),
        disable=tuple(values["disable"]),
    )


def git_settings(config: Config) -> GitSettings:
    """Read ``[git]``; ``checkout`` is made absolute against the downstream root."""
    values = _section(config, "git")
    checkout = values["checkout"]
    return GitSettings(
        tag=values["tag"],
        pin_tag=values["pin-tag"],
        checkout=(config.root / checkout).resolve() if checkout else None,
        branch=values["branch"],
        index_abbrev=values["index-abbrev"],
        notes_ref=values["notes-ref"],
    )


def topic_checkout(
    config: Config, command: str, checkout: Path | None, tag: str | None
) -> tuple[GitSettings, str, Path]:
    """``[git]``, the topic tag and the upstream checkout that ``command`` (``"import"``,
    ``"check-branch"``) works with: ``checkout`` and ``tag`` from the command line when given,
    else the configured ones.

    Raises:
        ConfigError: there is no topic tag or no checkout; the message names only what is
            missing.
    """
    settings = git_settings(config)
    tag = tag or settings.tag
    chosen = checkout or settings.checkout
    missing = [("the topic tag", "tag")] if not tag else []
    if chosen is None:
        missing.append(("an upstream checkout", "checkout"))
    if not tag or chosen is None:
        keys = [key for _, key in missing]
        raise ConfigError(
            f"{command} needs {' and '.join(what for what, _ in missing)}",
            path=config.source,
            hint=f"set {' and '.join(keys)} in [tool.patchkeeper.git], or pass "
            + " and ".join(f"--{key}" for key in keys),
        )
    return settings, tag, Path(chosen)


def entries_table(config: Config) -> dict[str, dict[str, Any]]:
    """The raw ``[entries]`` sub-tables: ``{"overlays": {...}, "foreign-diffs": ..., ...}``."""
    return _section(config, "entries")


def pin_tag(config: Config) -> str:
    """The upstream tag of the pin (``v0.27.1``).

    Raises:
        ConfigError: no pin is configured.
    """
    if not config.pin:
        raise ConfigError(
            "no pin is configured",
            path=config.source,
            hint='set pin = "VERSION" in [tool.patchkeeper]',
        )
    return git_settings(config).pin_tag.format(pin=config.pin)


def pin_commit(config: Config, root: Path) -> tuple[str, str]:
    """The pin's tag (:func:`pin_tag`) and the id of the commit it names in the checkout
    ``root``.

    Upstreams write their tags as ``v1.2.3`` or ``1.2.3`` (Jinja, Django), and ``pin-tag``
    says which; a missing tag is named as the pin's, with both ways on.

    Raises:
        ConfigError: no pin is configured.
        GitError: the tag is not in the checkout.
    """
    from patchkeeper.errors import GitError
    from patchkeeper.upstream import gitops

    tag = pin_tag(config)
    if not gitops.has_revision(root, f"{tag}^{{commit}}"):
        form = git_settings(config).pin_tag
        other = "{pin}" if form != "{pin}" else "v{pin}"
        raise GitError(
            f"the pin's tag {tag} is not in the checkout {root} (pin-tag = {form!r})",
            path=config.source,
            hint="fetch the upstream's tags (git fetch --tags), or set pin-tag in [git] to "
            f'the form its tags take (pin-tag = "{other}" gives '
            f"{other.format(pin=config.pin)})",
        )
    return tag, gitops.commit_id(root, tag)
