"""``patchkeeper init``: the configuration and the ledger of a new downstream, written once.

What is written, all in one journaled transaction (:mod:`patchkeeper.trees.downstream`), so a
failure or a Ctrl-C leaves no file of it behind:

- ``patchkeeper.toml`` with ``upstream``, ``pin``, ``series`` and ``strip`` (and ``directory``
  when given), ``[headers] schema`` and ``[ledger] file``: the keys
  :func:`patchkeeper.config.load_config` reads, checked against its schema before anything
  is written;
- the ledger file (``PATCHES.md``) with the begin and end markers ``patchkeeper ledger``
  looks for, and the table between them already written from the patch headers, so that
  ``patchkeeper ledger --check`` passes at once;
- for a ``git format-patch`` directory, its ``series`` file; for a git branch, ``patches/``
  with one file per commit and the series.

Nothing is ever overwritten: when ``patchkeeper.toml``, a ``[tool.patchkeeper]`` table in
``pyproject.toml``, the ledger file or any file to be written exists, init stops before
writing anything (exit 2, naming the file).

The header schema: a series whose patches carry the ledger schema's fields (``Kind:``,
``What:``, ...) keeps it; a Debian series, a git one, and one whose patches carry DEP-3
fields (``Description:``, ``Subject:``, ``Origin:``, ...) and none of the ledger's get
``schema = "dep3"``; a series with neither keeps the default ledger schema, whose headers
``patchkeeper lint`` then asks for.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.config import (
    CONFIG_FILE,
    PYPROJECT,
    Config,
    _pyproject_table,
    _read_toml,
    validate,
)
from patchkeeper.constants import OPTION_LEDGER
from patchkeeper.errors import Interrupted, PatchkeeperError
from patchkeeper.ledger.rows import LedgerRow
from patchkeeper.ledger.settings import LEDGER_FIELDS, header_settings, ledger_settings
from patchkeeper.ledger.table import encode_text, row_name, table_text
from patchkeeper.progress import warn
from patchkeeper.series.headers import parse_headers
from patchkeeper.series.parse import _first_diff_index, split_lines
from patchkeeper.start.forms import DEBIAN, FORMAT_PATCH, GIT, Found, detect, shown
from patchkeeper.start.pin import Pin, find_pin, from_option
from patchkeeper.start.plugin import (
    PluginInitResult,
    RuntimePlugin,
    RuntimePluginHere,
    plugin_config_text,
)
from patchkeeper.system.english import with_article
from patchkeeper.trees.downstream import commit_files, locked_downstream
from patchkeeper.trees.transaction import Change

#: The default ledger file (``[ledger] file``).
LEDGER_FILE = "PATCHES.md"
#: DEP-3 fields (and git's mail headers, DEP-3's aliases) that mark a DEP-3 series.
DEP3_FIELDS = (
    "Description",
    "Subject",
    "Origin",
    "Bug",
    "Forwarded",
    "Author",
    "From",
    "Applied-Upstream",
    "Last-Update",
    "Reviewed-by",
)


@dataclass(frozen=True)
class InitResult:
    """What ``patchkeeper init`` found and wrote.

    Attributes:
        root: the downstream directory.
        form: the series form (``"quilt"``, ``"debian"``, ``"format-patch"``, ``"git"``).
        form_reason: why that form: what was found where.
        series: the series file.
        patch_count: the patches in the series.
        upstream: the upstream project written.
        pin: the pin written.
        pin_reason: where the project and pin were read.
        schema: the header schema written (``"ledger"`` or ``"dep3"``).
        schema_reason: why that schema.
        config_file: the ``patchkeeper.toml`` written.
        ledger_file: the ledger file written.
        written_files: every file written, in order.
        next_commands: the commands to run next, each with what it does.
        notes: what the user should know (files left out, headers missing).
    """

    root: Path
    form: str
    form_reason: str
    series: Path
    patch_count: int
    upstream: str
    pin: str
    pin_reason: str
    schema: str
    schema_reason: str
    config_file: Path
    ledger_file: Path
    written_files: tuple[Path, ...]
    next_commands: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """0: init either wrote everything or raised before writing anything."""
        return 0


@dataclass(frozen=True)
class InitRequest:
    """What ``init`` is asked to do; each field is the ``init`` option of the same parameter
    name, so the command builds it from click's parsed parameters.

    Attributes:
        upstream: ``--upstream NAME==VERSION``, the upstream and the pin; default ``None``,
            read from the tree's metadata (debian/changelog, PKG-INFO, pyproject.toml, a git
            tag).
        patches: ``--patches``, the series file or the patch directory to use; default
            ``None``, found in the directory.
        tag: ``--tag``, make the series from the git commits since this tag; default
            ``None``.
        ledger: ``--ledger``, the ledger file written, relative to the downstream; default
            :data:`LEDGER_FILE`.
        directory: ``--directory``, the directory inside the upstream tree that patch paths
            are relative to; default ``""``, the tree's root.
    """

    upstream: str | None = None
    patches: Path | None = None
    tag: str | None = None
    ledger: str = LEDGER_FILE
    directory: str = ""


def init(
    root: Path,
    request: InitRequest,
    *,
    patching: Callable[[Path, str | None], RuntimePlugin | None] | None = None,
) -> InitResult | PluginInitResult:
    """Make ``root`` (absolute) a downstream as ``request`` says (:class:`InitRequest`):
    detect its series, find its pin, write the configuration and the ledger (and the
    series, for the forms that have none). A runtime plugin with no series gets its
    runtime configuration instead (:func:`configure_plugin`); ``patching`` tells a plugin by
    its modules alone when nothing declares it (:func:`patchkeeper.start.forms.detect`).

    Raises:
        PatchkeeperError: a file to be written exists, a configuration exists, the form is
            ambiguous or absent, or the pin cannot be told (exit 2); nothing was written.
        TargetError: a write failed (everything put back).
    """
    upstream, patches, tag = request.upstream, request.patches, request.tag
    ledger, directory = request.ledger, request.directory
    _refuse_existing_config(root)
    if ".." in Path(directory).parts or Path(directory).is_absolute():
        raise PatchkeeperError(
            f"--directory {directory!r} must stay inside the upstream tree",
            hint='name a directory of the upstream tree, relative to its root ("vllm")',
        )
    ledger_path = _inside(root, ledger, OPTION_LEDGER)
    _refuse_existing(root, [root / CONFIG_FILE, ledger_path])
    try:
        named = from_option(upstream).upstream if upstream else None
        found = detect(root, patches=patches, tag=tag, upstream=named, patching=patching)
    except RuntimePluginHere as here:  # no series: a plugin, configured when it can be
        return configure_plugin(root, here, from_option(upstream) if upstream else None)
    pin = from_option(upstream) if upstream is not None else find_pin(root, found)
    patches_read = [(name, *found.patch_bytes(name)) for name in found.names]
    schema, schema_reason = _schema(found, [data for _, _, data in patches_read])
    series_key, outside = series_setting(found.series, root)
    text = config_text(
        pin,
        series_key,
        schema,
        shown(ledger_path, root),
        directory.strip("/"),
        pin_tag_form(found.tag, pin.pin) if found.form == GIT else "",
    )
    config = _config(root, text)
    settings = ledger_settings(config)
    columns = header_settings(config).columns
    rows = [_row(name, path, data, columns) for name, path, data in patches_read]
    ledger_text = ledger_body(found, root, settings.begin_marker, settings.end_marker)
    ledger_text = ledger_text.replace(
        "\n" + settings.end_marker, "\n" + table_text(config, rows) + settings.end_marker, 1
    )
    files = [(root / CONFIG_FILE, text.encode()), (ledger_path, encode_text(ledger_text))]
    files += list(found.new_files)
    paths = [path for path, _ in files]
    _refuse_existing(root, paths)
    written: list[Path] = []  # the files, once their one transaction is committed
    try:
        with locked_downstream(config):
            _refuse_existing(root, paths)  # another init in the meantime
            commit_files(config, [Change(path, data) for path, data in files])
            written = paths
        for message in found.warnings:
            warn(message)
        if found.form != GIT:  # a git branch's series is checked against the branch instead
            for message in _unreadable_warnings(config):
                warn(message)
    except KeyboardInterrupt:
        if not written:
            raise  # the transaction put back what it wrote, and says so
        raise interrupted_after_writing(root, written) from None
    notes = list(found.notes)
    if outside:
        notes.append(
            f"the series {series_key} is outside the downstream {root}: {CONFIG_FILE} names it "
            "by this absolute path, which another checkout of the downstream does not have; "
            "to share it, copy the series into the downstream and set series to its path "
            "relative to the downstream"
        )
    if schema == "ledger" and not _has_any(rows):
        notes.append(
            "no patch carries the ledger schema's headers yet (Kind, What, Upstream, "
            "Cut-against, Retires-when): patchkeeper lint names each one missing"
        )
    return InitResult(
        root=root,
        form=found.form,
        form_reason=found.reason,
        series=found.series,
        patch_count=len(found.names),
        upstream=pin.upstream,
        pin=pin.pin,
        pin_reason=pin.reason,
        schema=schema,
        schema_reason=schema_reason,
        config_file=root / CONFIG_FILE,
        ledger_file=ledger_path,
        written_files=tuple(path for path, _ in files),
        next_commands=next_commands(pin, ledger_path, root),
        notes=tuple(notes),
    )


def interrupted_after_writing(root: Path, written: Sequence[Path]) -> Interrupted:
    """The error for a Ctrl-C that ends ``init`` after it wrote its files (``written``, in
    the downstream ``root``), while it gives its warnings or its report: a bare
    "interrupted" left the user to find the files, and the next init refused them
    (:func:`_refuse_existing`). They were written in one transaction, so each is whole: the
    error names them (relative to ``root``), and the two ways on."""
    names = ", ".join(shown(path, root) for path in written)
    many = len(written) > 1
    them = "them" if many else "it"
    return Interrupted(
        f"interrupted after init wrote {names}: {'each file is' if many else 'the file is'} "
        "whole, the rest of init's output is missing",
        hint=f"check {them} with patchkeeper lint and go on from there, or remove {them} and "
        "run patchkeeper init again",
    )


def series_setting(series: Path, root: Path) -> tuple[str, bool]:
    """The configuration's ``series`` value for the series file ``series`` of the downstream
    ``root``, and whether the file is outside it. A file inside is named relative to ``root``
    however it was given (``QUILT_PATCHES=$PWD/patches``, a path through a symbolic link to
    the downstream, ``..`` in it), so the configuration holds in any checkout; a file outside
    keeps its absolute path.

    >>> series_setting(Path("/srv/down/./patches/../patches/series"), Path("/srv/down"))
    ('patches/series', False)
    >>> series_setting(Path("/srv/pkg/debian/patches/series"), Path("/srv/down"))
    ('/srv/pkg/debian/patches/series', True)
    """
    plain = Path(os.path.normpath(series))
    if plain.is_relative_to(root):
        return plain.relative_to(root).as_posix(), False
    real, real_root = plain.resolve(), root.resolve()
    if real.is_relative_to(real_root):
        return real.relative_to(real_root).as_posix(), False
    return plain.as_posix(), True


def _unreadable_warnings(config: Config) -> list[str]:
    """One warning for each patch of the series just written that ``apply`` refuses to read
    (a binary diff, a symbolic link, a malformed hunk), naming its file and line and what to
    do: init writes the series all the same (it is the downstream's), and the first ``apply``
    or ``audit`` is not where the user should learn it."""
    from patchkeeper.series.load import load_series_tolerant

    _, _, unreadable = load_series_tolerant(config)
    out = []
    for name, exc in unreadable:
        where = shown(exc.path, config.root) if exc.path is not None else name
        where += f":{exc.line}" if exc.line is not None else ""
        todo = exc.hint or "regenerate the patch, or take it out of the series"
        out.append(f"apply refuses {name} ({where}): {exc.message}; to do: {todo}")
    return out


def _inside(root: Path, name: str, option: str) -> Path:
    path = (root / name).resolve()
    if not name.strip() or path == root or not path.is_relative_to(root):
        raise PatchkeeperError(
            f"{option} {name!r} must name a file inside the downstream {root}",
            hint=f"give a path relative to it, e.g. {option} {LEDGER_FILE}",
        )
    return path


def _refuse_existing_config(root: Path) -> None:
    """Refuse a directory already configured by a ``[tool.patchkeeper]`` table.

    Raises:
        PatchkeeperError: naming ``pyproject.toml`` (exit 2).
    """
    pyproject = root / PYPROJECT
    if _pyproject_table(pyproject) is not None:
        raise PatchkeeperError(
            "this downstream is configured already: pyproject.toml has a [tool.patchkeeper] "
            "table; init never overwrites",
            path=pyproject,
            hint="the other commands read it as it is: run patchkeeper ledger --check, verify "
            "or audit",
        )


def _refuse_existing(root: Path, paths: list[Path]) -> None:
    """Refuse to go on when any of ``paths`` exists (a dangling symbolic link counts).

    A ``patchkeeper.toml`` among them is most likely an earlier init's (one interrupted by
    Ctrl-C after it wrote its files, :func:`interrupted_after_writing`): the hint names
    every file of ``paths`` there, to check with ``lint`` and go on, or to move away and
    start again.

    Raises:
        PatchkeeperError: naming the first such file (exit 2).
    """
    there = [path for path in paths if path.exists() or path.is_symlink()]
    if not there:
        return
    hint = (
        "keep it and configure the rest by hand (docs/starting.md shows the keys), or move "
        "it away and run patchkeeper init again"
    )
    if root / CONFIG_FILE in there:
        names = ", ".join(shown(path, root) for path in there)
        them = "them" if len(there) > 1 else "it"
        hint = (
            f"an earlier init (even an interrupted one) or a hand wrote {names}: check "
            f"{them} with patchkeeper lint and go on from there, or move {them} away and run "
            "patchkeeper init again"
        )
    raise PatchkeeperError(
        "exists already: init never overwrites a file, and this run wrote nothing",
        path=there[0],
        hint=hint,
    )


def _schema(found: Found, patches: list[bytes]) -> tuple[str, str]:
    """The header schema for ``found``'s patches and why (the module's rules)."""
    if found.form == DEBIAN:
        return "dep3", "a Debian series: DEP-3 headers"
    if found.form in (GIT, FORMAT_PATCH):
        return "dep3", "git format-patch files: their Subject and From are DEP-3's fields"
    fields = set()
    for data in patches:
        lines = split_lines(data)
        preamble = b"".join(lines[: _first_diff_index(lines, found.series)])
        fields |= {item.name for item in parse_headers(preamble).fields}
    if fields & set(LEDGER_FIELDS):
        return "ledger", "the patches carry the ledger schema's fields (Kind, What, ...)"
    if fields & set(DEP3_FIELDS):
        return "dep3", "the patches carry DEP-3 fields (Description, Subject, Origin, ...)"
    return "ledger", "the patches carry neither schema's fields: the default"


def _row(name: str, path: Path, data: bytes, columns: tuple[str, ...]) -> LedgerRow:
    lines = split_lines(data)
    headers = parse_headers(b"".join(lines[: _first_diff_index(lines, path)]))
    first = min((item.line_no for item in headers.fields), default=1)
    values = tuple(headers.value(column) for column in columns)
    return LedgerRow(name=row_name(name), values=values, source=path, line_no=first)


def _has_any(rows: list[LedgerRow]) -> bool:
    return any(value for row in rows for value in row.values)


def _quoted(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False)


def pin_tag_form(tag: str | None, pin: str) -> str:
    """The ``[git] pin-tag`` form of a git branch's upstream ``tag`` for the version ``pin``,
    when it is not the default ``v{pin}``: the tag with the version replaced by ``{pin}``, so
    that ``import``, ``check-branch`` and ``port --upstream-repo`` find the tag init read the
    pin from. ``""`` when the default finds it, or the tag does not hold the version.

    >>> pin_tag_form("v0.27.1", "0.27.1"), pin_tag_form("0.27.1", "0.27.1")
    ('', '{pin}')
    >>> pin_tag_form("release-2.0", "2.0"), pin_tag_form("stable", "2.0")
    ('release-{pin}', '')
    """
    if tag is None or tag == f"v{pin}" or pin not in tag:
        return ""
    return tag.replace(pin, "{pin}", 1)


def config_text(
    pin: Pin, series: str, schema: str, ledger: str, directory: str = "", pin_tag: str = ""
) -> str:
    """The ``patchkeeper.toml`` init writes; ``pin_tag``, when given, as ``[git] pin-tag``.

    >>> print(config_text(Pin("urllib3", "2.0.7", ""), "debian/patches/series", "dep3",
    ...                   "PATCHES.md"), end="")
    # patchkeeper settings, written by patchkeeper init (see docs/starting.md)
    upstream = "urllib3"
    pin = "2.0.7"
    series = "debian/patches/series"
    strip = 1
    <BLANKLINE>
    [headers]
    schema = "dep3"
    <BLANKLINE>
    [ledger]
    file = "PATCHES.md"
    """
    lines = [
        "# patchkeeper settings, written by patchkeeper init (see docs/starting.md)",
        f"upstream = {_quoted(pin.upstream)}",
        f"pin = {_quoted(pin.pin)}",
        f"series = {_quoted(series)}",
        "strip = 1",
    ]
    if directory:
        lines.append(f"directory = {_quoted(directory)}")
    lines += ["", "[headers]", f"schema = {_quoted(schema)}"]
    lines += ["", "[ledger]", f"file = {_quoted(ledger)}"]
    if pin_tag:
        lines += ["", "[git]", f"pin-tag = {_quoted(pin_tag)}  # the form of the upstream's tags"]
    return "\n".join(lines) + "\n"


def _config(root: Path, text: str) -> Config:
    """The :class:`Config` the other commands will read from ``text``, checked as
    :func:`patchkeeper.config.load_config` checks it.

    Raises:
        ConfigError: a value init took from the tree is refused by the schema.
    """
    from patchkeeper.config import SCHEMA, _import_sections

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib

    _import_sections()
    source = root / CONFIG_FILE
    values: dict[str, Any] = validate(tomllib.loads(text), source)
    return Config(
        root=root,
        source=source,
        upstream=values["upstream"],
        pin=values["pin"],
        series=(root / values["series"]).resolve(),
        strip=values["strip"],
        directory=values["directory"],
        sections={k: v for k, v in values.items() if isinstance(SCHEMA[k], dict)},
    )


def ledger_body(found: Found, root: Path, begin: str, end: str) -> str:
    """The ledger file's text with an empty table between its markers."""
    key, _ = series_setting(found.series, root)
    where = Path(key).parent.as_posix()
    return (
        "# Patches\n\n"
        f"What each patch in `{where}/` is, where it came from, and what retires it. The table "
        "is written by `patchkeeper ledger` from the patch headers; `patchkeeper ledger "
        "--check` fails when it is stale.\n\n"
        f"{begin}. patchkeeper ledger writes this table from the patch headers; do not edit "
        f"it -->\n{end}\n"
    )


def next_commands(pin: Pin, ledger: Path, root: Path) -> tuple[str, ...]:
    """The commands to run next, each followed by what it does."""
    return (
        f"patchkeeper ledger --check  # {shown(ledger, root)} is current (CI runs this)",
        "patchkeeper lint  # every patch has its headers",
        "patchkeeper verify --target DIR  # DIR: "
        f"{with_article(pin.upstream)} tree with the series applied",
        f"patchkeeper audit --to {pin.upstream}==VERSION  # how the series fares on a newer "
        "release",
    )


def appended(data: bytes, text: bytes) -> bytes:
    """``data`` (a file's bytes) with ``text`` added after one blank line (``text`` starts
    with its own): the file's last line ended first when it is not, and no second blank line
    made after the file's own trailing blank line; nothing before ``text`` when ``data`` is
    empty or blank. The file's own bytes are kept as they are.

    >>> appended(b"[project]\\n", b"\\n[tool.x]\\n")
    b'[project]\\n\\n[tool.x]\\n'
    >>> appended(b"[project]\\n\\n", b"\\n[tool.x]\\n")
    b'[project]\\n\\n[tool.x]\\n'
    >>> appended(b"[project]", b"\\n[tool.x]\\n")
    b'[project]\\n\\n[tool.x]\\n'
    """
    if not data.strip():
        return data + text.lstrip(b"\n")
    if not data.endswith(b"\n"):
        data += b"\n"
    last = data[:-1].rsplit(b"\n", 1)[-1]
    if not last.strip():  # the file ends with a blank line already
        text = text.lstrip(b"\n")
    return data + text


def configure_plugin(root: Path, found: RuntimePluginHere, pin: Pin | None) -> PluginInitResult:
    """Add :func:`plugin_config_text` to ``root/pyproject.toml`` for the runtime plugin
    ``found`` names; ``pin``: the upstream and pin of ``init --upstream``, ``None`` to take
    the plugin's exact requirement.

    Raises:
        RuntimePluginHere: ``found`` itself (nothing written) when the pin or the package
            cannot be told.
        PatchkeeperError: both are told, but there is no ``pyproject.toml`` to add them to
            (nothing written).
        ConfigError: ``pyproject.toml`` cannot be read or is not TOML (nothing written).
        TargetError: the write failed (the file put back).
    """
    plugin = found.plugin
    if pin is None and plugin.pin is not None:
        where = f"from pyproject.toml (its requirement {plugin.upstream}=={plugin.pin})"
        pin = Pin(plugin.upstream, plugin.pin, where)
    if pin is not None and plugin.package and not (root / PYPROJECT).is_file():
        # the pin and the package are known: what is missing is the file the keys go in
        raise PatchkeeperError(
            f"{found.message}; init writes a plugin's settings into its pyproject.toml, and "
            "there is none here",
            path=root / PYPROJECT,
            hint="run init in the plugin's source tree, where its pyproject.toml is; or write "
            f'[tool.patchkeeper] upstream = "{pin.upstream}", pin = "{pin.pin}" and '
            f'[tool.patchkeeper.runtime] package = "{plugin.package}" into a pyproject.toml '
            "here (docs/commands/runtime.md)",
        )
    if pin is None or not plugin.package:
        raise found
    upstream, version = pin.upstream, pin.pin
    source = root / PYPROJECT
    # The keys are added to the file as text: a file that is not TOML would stay unreadable,
    # and every command after init would stop at it.
    _read_toml(source)
    data = source.read_bytes()
    text = plugin_config_text(upstream, version, plugin.package).encode()
    config = Config(root=root, source=source, upstream=upstream, pin=version)
    with locked_downstream(config):
        written = commit_files(config, [Change(source, appended(data, text))])
    return PluginInitResult(
        root=root,
        upstream=upstream,
        pin=version,
        pin_reason=pin.reason,
        package=plugin.package,
        reason=plugin.reason,
        config_file=source,
        written_files=written,
        next_commands=(
            "patchkeeper runtime inventory  # the runtime patches and whether each is live",
            f"patchkeeper runtime audit --from {upstream}=={version} --to {upstream}==VERSION"
            "  # what a newer release does to each",
        ),
    )
