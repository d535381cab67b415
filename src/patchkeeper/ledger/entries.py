"""Entries that are not patches: an overlay, a foreign diff, a vendored tree.

The series workflow (docs/glossary.md) carries three such things beside its series:

- an *overlay* (``kvarn/files/``): files copied into the upstream tree; ``apply`` copies
  them, ``verify`` checks their bytes (:func:`overlay_files` is what both call);
- a *foreign diff* (``fa2/``): a diff against another repository at a pinned commit, checked
  with ``--foreign-checkout PATH`` that it applies there at fuzz 0 (:func:`check_foreign_diff`);
- a *vendored tree* (``pthfa/``): a directory copied from another repository, with a ``PIN``
  file naming the commit, checked file by file against it (:func:`check_vendored`).

They are configured under ``[tool.patchkeeper.entries]``, get their own ledger rows from a
``fields`` table, and are linted with the rest::

    [entries.overlays.kvarn-files]
    source = "kvarn/files"        # downstream directory whose files are copied
    target = ""                   # where they go, relative to 'directory' upstream
    fields = { Kind = "own", What = "KVarN kernels" }

    [entries.foreign-diffs.fa2]
    diff = "fa2/fp8-kv.diff"      # the diff, downstream-relative
    commit = "0123abcd..."        # the foreign repository's pinned commit (or pin-file)
    strip = 1

    [entries.vendored.pthfa]
    directory = "pthfa"           # the vendored copy
    pin-file = "pthfa/PIN"        # default: DIRECTORY/PIN; a commit id, tag, or Commit: field
    subdirectory = ""             # the matching directory inside the foreign repository
    exclude = ["install.sh"]      # downstream-only files (fnmatch patterns)
    complete = false              # also report files of the commit missing from the copy
"""

from __future__ import annotations

import fnmatch
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchkeeper.config import Bounds, Config, dotted_key_line, validate
from patchkeeper.errors import ConfigError, Finding, GitError, PatchkeeperError, TargetError
from patchkeeper.ledger.findings import display_path
from patchkeeper.ledger.rows import LedgerRow
from patchkeeper.ledger.settings import entries_table
from patchkeeper.upstream import gitops

_OVERLAY_SCHEMA: dict[str, Any] = {"source": (str, None), "target": (str, ""), "fields": (dict, {})}
_FOREIGN_SCHEMA: dict[str, Any] = {
    "diff": (str, None),
    "commit": (str, None),
    "pin-file": (str, None),
    "repository": (str, ""),
    "strip": (int, 1, Bounds(0, hint="strip = 1 drops the a/ and b/ of git's paths; 0 keeps them")),
    "checkout": (str, None),
    "fields": (dict, {}),
}
_VENDORED_SCHEMA: dict[str, Any] = {
    "directory": (str, None),
    "pin-file": (str, None),
    "repository": (str, ""),
    "subdirectory": (str, ""),
    "exclude": (list, []),
    "complete": (bool, False),
    "checkout": (str, None),
    "fields": (dict, {}),
}

#: The ``[entries.*]`` table of each kind of entry.
ENTRY_TABLES = {"overlay": "overlays", "foreign-diff": "foreign-diffs", "vendored": "vendored"}

#: A commit id alone on a line of a PIN file: ``0123456789abcdef0123456789abcdef01234567``
PIN_COMMIT = re.compile(r"^[0-9a-fA-F]{7,64}$")


@dataclass(frozen=True)
class Entry:
    """One configured entry.

    Attributes:
        kind: ``"overlay"``, ``"foreign-diff"`` or ``"vendored"``.
        name: the table key (``kvarn-files``), used as the ledger row name.
        path: the downstream file or directory (overlay source, diff, vendored directory).
        fields: the ledger fields (``{"Kind": "own", ...}``), names as written.
        options: the other validated keys of the entry's table.
    """

    kind: str
    name: str
    path: Path
    fields: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def table(self) -> str:
        """The dotted name of its table as ``patchkeeper.toml`` writes it
        (``entries.overlays.kvarn-files``)."""
        return f"entries.{ENTRY_TABLES[self.kind]}.{self.name}"

    def field_value(self, name: str) -> str:
        """The value of field ``name`` (any case), ``""`` when absent; a family (``Bug*``)
        joins its members as :meth:`patchkeeper.series.headers.Headers.value` does."""
        from patchkeeper.series.headers import FAMILY, family_label, in_family

        if name.endswith(FAMILY):
            return ", ".join(
                family_label(name, key) + str(value)
                for key, value in self.fields.items()
                if in_family(name, key)
            )
        for key, value in self.fields.items():
            if key.lower() == name.lower():
                return str(value)
        return ""


def _inside(root: Path, relative: str, what: str, source: Path | None) -> Path:
    # The downstream is the configuration's directory or, when that is inside a git work
    # tree, the whole work tree: a series directory written by ``port`` (patches-NEWPIN/)
    # names the downstream's files as ../kvarn/files.
    path = (root / relative).resolve()
    if path.is_relative_to(root.resolve()):
        return path
    try:
        top = gitops.toplevel(root).resolve()
    except GitError:
        top = None
    if top is None or not path.is_relative_to(top):
        raise ConfigError(
            f"{what} {relative!r} is outside the downstream",
            path=source,
            hint=f"name a path inside {top or root.resolve()}, relative to {root.resolve()}",
        )
    return path


def _load(
    config: Config,
    table: Mapping[str, Any],
    kind: str,
    schema: dict[str, Any],
    key: str,
    group: str,
) -> list[Entry]:
    """The entries of one ``[entries.<group>]`` table (``group``: ``overlays``,
    ``foreign-diffs`` or ``vendored``), each checked against ``schema``; an error names
    the whole dotted key (``entries.overlays.kvarn-files.source``) and its line."""
    source = config.source or config.root
    entries = []
    for name, raw in table.items():
        dotted = f"entries.{group}.{name}"
        if not isinstance(raw, dict):
            raise ConfigError(
                f"key '{dotted}' must be a table",
                path=source,
                line=dotted_key_line(source, dotted),
                hint=f'write it as a table [tool.patchkeeper.{dotted}] with {key} = "..."',
            )
        values = validate(raw, source, schema, prefix=f"{dotted}.")
        if not (values[key] or "").strip():
            raise ConfigError(
                f"entry '{name}' needs '{key}'",
                path=source,
                line=dotted_key_line(source, f"{dotted}.{key}") or dotted_key_line(source, dotted),
                hint=f'add {key} = "..." to [tool.patchkeeper.{dotted}]',
            )
        fields = {str(k): str(v) for k, v in values.pop("fields").items()}
        path = _inside(config.root, values[key], key, config.source)
        entries.append(Entry(kind=kind, name=name, path=path, fields=fields, options=values))
    return entries


def load_entries(config: Config) -> list[Entry]:
    """Every configured entry: overlays, then foreign diffs, then vendored trees.

    Raises:
        ConfigError: an unknown key, a wrong type, a missing path key, or a path outside the
            downstream directory.
    """
    table = entries_table(config)
    return (
        _load(config, table["overlays"], "overlay", _OVERLAY_SCHEMA, "source", "overlays")
        + _load(
            config, table["foreign-diffs"], "foreign-diff", _FOREIGN_SCHEMA, "diff", "foreign-diffs"
        )
        + _load(config, table["vendored"], "vendored", _VENDORED_SCHEMA, "directory", "vendored")
    )


def entry_rows(config: Config, columns: tuple[str, ...]) -> list[Any]:
    """Ledger rows (:class:`patchkeeper.ledger.rows.LedgerRow`) for the configured entries."""

    source = config.source or config.root
    return [
        LedgerRow(
            name=entry.name,
            values=tuple(entry.field_value(column) for column in columns),
            source=source,
        )
        for entry in load_entries(config)
    ]


# --------------------------------------------------------------------------- overlays


def _overlay_source_files(entry: Entry) -> dict[str, Path]:
    root = entry.path
    files: dict[str, Path] = {}
    for path in sorted(root.rglob("*")):
        if path.is_dir():
            continue
        if path.is_symlink() and not path.resolve().is_relative_to(root.resolve()):
            raise TargetError(
                f"overlay file {path} is a symbolic link out of {root}",
                path=path,
                hint="copy the file into the overlay directory instead of linking it",
            )
        files[path.relative_to(root).as_posix()] = path
    return files


def overlay_files(config: Config) -> dict[str, bytes]:
    """What the overlays put into the upstream tree: ``{path: bytes}``.

    Paths are POSIX, relative to the configured ``directory`` inside the upstream tree (the
    same base as the paths of the series' patches, e.g. ``model_executor/kvarn.py`` for
    ``vllm/model_executor/kvarn.py``). ``apply`` writes these bytes after the series (in the
    same transaction); ``verify`` checks them byte for byte. A later overlay wins on a
    shared path.

    Raises:
        ConfigError: an overlay's configuration is invalid.
        TargetError: an overlay source is missing, or a file links outside it, or a target
            path would leave the tree.
    """
    files: dict[str, bytes] = {}
    for entry in load_entries(config):
        if entry.kind != "overlay":
            continue
        if not entry.path.is_dir():
            raise TargetError(
                f"overlay source {entry.path} is not a directory",
                path=config.source,
                hint=f"create it, or fix entries.overlays.{entry.name}.source",
            )
        target = str(entry.options["target"]).strip("/")
        for relative, path in _overlay_source_files(entry).items():
            destination = f"{target}/{relative}" if target else relative
            if destination.startswith("../") or "/../" in f"/{destination}":
                raise TargetError(f"overlay path {destination} leaves the tree", path=path)
            files[destination] = path.read_bytes()
    return files


def check_overlay_tree(config: Config, tree: Path) -> list[Finding]:
    """Compare the overlay files with an upstream tree's ``directory`` (``verify``'s check).

    Returns one finding per file that is missing or differs in ``tree``.
    """
    base = tree / config.directory if config.directory else tree
    out = []
    source = display_path(config.source or config.root, config.root)
    for relative, data in sorted(overlay_files(config).items()):
        target = base / relative
        if not target.is_file():
            out.append(Finding("PK501", source, None, f"overlay file {relative} is not in {base}"))
        elif target.read_bytes() != data:
            out.append(Finding("PK501", source, None, f"overlay file {relative} differs in {base}"))
    return out


def lint_overlay(entry: Entry, root: Path, source: Path) -> list[Finding]:
    """An overlay's source must be a directory holding at least one file."""
    if entry.path.is_dir() and any(p.is_file() for p in entry.path.rglob("*")):
        return []
    return [
        Finding(
            "PK501",
            display_path(source, root),
            None,
            f"overlay '{entry.name}': {display_path(entry.path, root)} is missing or empty",
        )
    ]


# --------------------------------------------------------------------------- pins


def read_pin(path: Path) -> str:
    """The revision a PIN file names: a ``Commit:`` field, else the first word of the first
    line that is not a comment (a commit id or a tag).

    Raises:
        TargetError: the file is missing or names nothing.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TargetError(
            f"cannot read the PIN file: {exc.strerror}",
            path=path,
            hint="make it a readable file holding the pinned version",
        ) from None
    from patchkeeper.series.headers import parse_headers

    text = data.decode("utf-8", "surrogateescape")  # a stray byte is not a crash
    commit = parse_headers(data).value("Commit")
    if commit:
        return commit.split()[0]
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if words and ":" not in words[0]:
            return words[0]
    raise TargetError(
        "the PIN file names no commit", path=path, hint="write the commit id on its first line"
    )


def _pin_of(entry: Entry, root: Path) -> str:
    if entry.options.get("commit"):
        return str(entry.options["commit"])
    pin_file = entry.options.get("pin-file")
    if pin_file:
        return read_pin(_inside(root, str(pin_file), "pin-file", None))
    if entry.kind == "vendored":
        return read_pin(entry.path / "PIN")
    raise TargetError(f"entry '{entry.name}' has neither 'commit' nor 'pin-file'")


def _pin_finding(entry: Entry, root: Path, source: Path, exc: PatchkeeperError) -> Finding:
    # The error's hint says what to do (fetch the commit, fix the PIN file): kept.
    where = display_path(source, root)
    return Finding("PK506", where, None, f"{entry.name}: {exc.message}", exc.hint or "")


# --------------------------------------------------------------------------- foreign diffs


def check_foreign_diff(entry: Entry, checkout: Path, root: Path, source: Path) -> list[Finding]:
    """Check that a foreign diff applies at its pinned commit in ``checkout`` at fuzz 0.

    The diff is applied by ``git apply --cached --check`` to a temporary index read from the
    commit (git never fuzzes; every context line must match), so the checkout's work tree
    and index are untouched.
    """
    shown = display_path(entry.path, root)
    try:
        commit = gitops.commit_id(checkout, _pin_of(entry, root))
    except (GitError, TargetError) as exc:
        return [_pin_finding(entry, root, source, exc)]
    with tempfile.TemporaryDirectory(prefix="patchkeeper-index-") as temporary:
        env = {"GIT_INDEX_FILE": str(Path(temporary) / "index")}
        gitops.run(["read-tree", commit], checkout, env=env)
        args = ["apply", "--cached", "--check", f"-p{entry.options['strip']}"]
        if entry.options.get("repository"):
            args.append(f"--directory={str(entry.options['repository']).strip('/')}")
        done = gitops.call([*args, str(entry.path)], checkout, env=env)
    if done.returncode == 0:
        return []
    messages = [
        line.removeprefix("error: ")
        for line in done.stderr.decode("utf-8", "replace").splitlines()
        if line.startswith("error: ")
    ] or ["git apply failed"]
    return [
        Finding("PK505", shown, None, f"does not apply at {commit[:12]}: {message}")
        for message in messages
    ]


# --------------------------------------------------------------------------- vendored trees


def _vendored_files(entry: Entry, root: Path) -> dict[str, Path]:
    excluded = ["PIN", *entry.options["exclude"]]
    pin_file = entry.options.get("pin-file")
    pin_path = (root / str(pin_file)).resolve() if pin_file else None
    files: dict[str, Path] = {}
    for path in sorted(entry.path.rglob("*")):
        if not path.is_file() or path.resolve() == pin_path:
            continue
        relative = path.relative_to(entry.path).as_posix()
        if any(fnmatch.fnmatch(relative, pattern) for pattern in excluded):
            continue
        files[relative] = path
    return files


def check_vendored(entry: Entry, checkout: Path, root: Path, source: Path) -> list[Finding]:
    """Check a vendored tree file by file against the commit its PIN names in ``checkout``.

    A file differs (PK502), is not in the commit (PK503), or, with ``complete = true``, a file
    of the commit is missing from the copy (PK504). Blob ids are compared, so nothing is
    checked out.
    """
    try:
        commit = gitops.commit_id(checkout, _pin_of(entry, root))
    except (GitError, TargetError) as exc:
        return [_pin_finding(entry, root, source, exc)]
    subdirectory = str(entry.options["subdirectory"]).strip("/")
    pinned = gitops.ls_tree(checkout, commit, subdirectory)
    local = _vendored_files(entry, root)
    findings = []
    for relative, path in local.items():
        shown = display_path(path, root)
        if relative not in pinned:
            findings.append(Finding("PK503", shown, None, f"not in {commit[:12]}"))
        elif gitops.hash_blob(path.read_bytes()) != pinned[relative][1]:
            findings.append(Finding("PK502", shown, None, f"differs from {commit[:12]}"))
    if entry.options["complete"]:
        excluded = entry.options["exclude"]
        for relative in sorted(set(pinned) - set(local)):
            if not any(fnmatch.fnmatch(relative, pattern) for pattern in excluded):
                shown = display_path(entry.path / relative, root)
                findings.append(Finding("PK504", shown, None, f"missing; {commit[:12]} has it"))
    return findings


def checkout_for(entry: Entry, checkouts: Mapping[str, Path], root: Path) -> Path | None:
    """The checkout to check ``entry`` in: ``NAME=PATH`` given for it, else a bare ``PATH``
    (key ``""``), else the entry's ``checkout`` key; ``None`` when there is none."""
    if entry.name in checkouts:
        return checkouts[entry.name]
    if "" in checkouts:
        return checkouts[""]
    configured = entry.options.get("checkout")
    return (root / str(configured)).resolve() if configured else None
