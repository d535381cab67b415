"""What a port works with: the series, both pins' trees and versions, the history.

Built the same way for a new port and for every ``--continue`` (which replays the port from
the work directory's copy of the series).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.config import Config
from patchkeeper.constants import OPTION_FROM, OPTION_TO
from patchkeeper.errors import ConfigError, FetchError, TargetError
from patchkeeper.port.history import UpstreamHistory, find_tag
from patchkeeper.port.instructions import TERMINAL, GoOn
from patchkeeper.port.memo import Memo
from patchkeeper.port.settings import port_settings
from patchkeeper.port.workdir import PortState, WorkDir
from patchkeeper.series.model import Patch, Series
from patchkeeper.series.parse import load_patches, parse_series
from patchkeeper.system.pyproject import project_string
from patchkeeper.trees.tree import (
    Tree,
    check_paths,
    pin_unfetchable,
    refuse_changed_pin,
    refuse_misplaced,
    refuse_unpacked_parent,
    requirement_tree,
    spec_tree,
    warn_wheel_for_sdist,
)


@dataclass
class PortContext:
    """The inputs of one port (see the module docstring)."""

    config: Config
    state: PortState
    work: WorkDir
    series: Series
    patches: list[Patch]
    old: Tree
    new: Tree
    old_version: str | None
    new_version: str
    history: UpstreamHistory | None
    #: the judgements of this run (:mod:`patchkeeper.port.memo`), kept when the port stops
    memo: Memo | None = None
    #: ``new_version`` was read from the new tree's directory name (:func:`name_version`)
    version_from_name: bool = False
    #: how a stop's ``INSTRUCTIONS.md`` names the ways on (a terminal's, or an agent's)
    go_on: GoOn = TERMINAL


def tree_version(tree: Tree) -> str | None:
    """The version of an upstream tree: known from the fetch, else ``PKG-INFO``'s
    ``Version:``, else ``[project] version`` of its ``pyproject.toml``."""
    if tree.version:
        return tree.version
    return directory_version(tree.root)


def directory_version(root: Path) -> str | None:
    """The version an upstream tree in the directory ``root`` says it is: ``PKG-INFO``'s
    ``Version:`` (an unpacked sdist), else ``[project] version`` of its ``pyproject.toml``;
    ``None`` when neither says (a checkout whose version its build computes)."""
    pkg_info = root / "PKG-INFO"
    if pkg_info.is_file():
        for line in pkg_info.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
    return project_string(root, "version")


def configured_pin(config: Config) -> str:
    """The tree the series is cut against: the configured ``pristine`` (a directory relative
    to the downstream, or a requirement), else ``upstream==pin``."""
    if config.pristine:
        local = config.root / config.pristine
        if local.is_dir() or config.pristine.startswith((".", "/", "~")):
            return str(local.expanduser())
        return config.pristine
    return config.pin_requirement()


def stable_spec(spec: str) -> str:
    """A TARGET spec that still means the same after the current directory changes: a
    directory made absolute as the user wrote it, its symlinks kept (``../v2`` through a
    symlinked folder keeps that folder's name, which the ``pristine`` setting is written
    with), resolved only when tidying its ``..`` would name another directory; any other
    spec as it is."""
    if not os.path.isdir(spec):
        return spec
    given = os.path.join(os.getcwd(), os.path.expanduser(spec))
    tidy = os.path.normpath(given)
    if os.path.isdir(tidy) and os.path.samefile(tidy, given):
        return tidy
    return str(Path(given).resolve())


#: How errors name the trees a port reads: ``--to``'s, and ``--from``'s (or the pin's).
NEW_TREE = "the new upstream (--to)"
OLD_TREE = "the old upstream (--from, or the configured pin)"


def port_base(config: Config, source: str | None) -> str:
    """The release a port (or an upgrade) carries the series from, as a stable spec
    (:func:`stable_spec`): ``source`` (``--from``) when given, else the configured pin
    (:func:`configured_pin`). The port reads this tree, and its evidence names it as the
    ``--from`` the command ran with, given or not."""
    return stable_spec(source or configured_pin(config))


def same_release(one: str | None, other: str | None) -> bool:
    """Whether two versions are known and the same release (as versions: ``3.1`` is
    ``3.1.0``; two strings that are no version are compared as written).

    >>> same_release("3.1", "3.1.0"), same_release("3.1", "3.2"), same_release("", "")
    (True, False, False)
    """
    from packaging.version import InvalidVersion, Version

    if not one or not other:
        return False
    try:
        return Version(one) == Version(other)
    except InvalidVersion:
        return one == other


def check_a_newer_release(
    config: Config | None,
    target: str | None,
    pinned: str | None,
    *,
    configured: bool,
    command: str,
    at: str = "the release the downstream is at",
    hint: str = "to write the record again, run 'patchkeeper report'",
) -> None:
    """Refuse a ``port``, ``upgrade`` or ``runtime port`` (``command``) to the very release
    the downstream is at (``--from``, by default the configured pin: ``configured``), before
    anything is written: it would find every patch clean and, saved, replace the evidence of
    the real upgrade in the record with that. ``at`` names that release in the message,
    ``hint`` says what to run instead.

    Raises:
        ConfigError: both versions are known and equal (:func:`same_release`), naming the
            configured pin's line when the pin is the configured one.
    """
    if same_release(target, pinned):
        from patchkeeper.config import dotted_key_line

        source = config.source if config is not None and configured else None
        key = "pristine" if config is not None and config.pristine else "pin"
        raise ConfigError(
            f"nothing to {command}: --to is {target}, {at}",
            path=source,
            line=dotted_key_line(source, key),
            hint=f"pass a newer release as --to; {hint}",
        )


def older_release(one: str | None, other: str | None) -> bool:
    """Whether two versions are known and ``one`` is an older release than ``other``
    (strings that are no version: never).

    >>> older_release("0.3.3", "0.32.0"), older_release("0.33.0", "0.32.0"), older_release("", "1")
    (True, False, False)
    """
    from packaging.version import InvalidVersion, Version

    if not one or not other:
        return False
    try:
        return Version(one) < Version(other)
    except InvalidVersion:
        return False


def refuse_an_older_release(
    config: Config | None, target: str | None, pinned: str | None, *, configured: bool
) -> None:
    """Refuse an ``upgrade`` to a release older than the one the downstream is at (``--from``,
    by default the configured pin: ``configured``), before anything is written: a version
    mistyped (``0.3.3`` for ``0.33.0``) would otherwise move the whole downstream back and
    write the record of that as an upgrade. Moving back on purpose is ``port --to`` (and
    ``runtime port --write``), which takes any release.

    Raises:
        ConfigError: both versions are known and ``target`` is older, naming the configured
            pin's line when the pin is the configured one, else ``--from`` (a mistyped
            ``--from`` is as likely as a mistyped ``--to``).
    """
    if older_release(target, pinned):
        from patchkeeper.config import dotted_key_line

        source = config.source if config is not None and configured else None
        key = "pristine" if config is not None and config.pristine else "pin"
        at = "the release the downstream is at" if configured else "the release --from names"
        fix = OPTION_TO
        if not configured:
            fix += ", or as --from the release the series applies to"
        raise ConfigError(
            f"--to is {target}, older than {pinned}, {at}: "
            "upgrade moves a downstream to a newer release",
            path=source,
            line=dotted_key_line(source, key),
            hint=f"pass a newer release as {fix}; to move the downstream back on purpose, run "
            "'patchkeeper port --to RELEASE' (and 'patchkeeper runtime port --to RELEASE "
            "--write' for runtime patches)",
        )


def old_tree(config: Config, spec: str) -> Tree:
    """The tree the port reads the series' old pin from: ``spec`` (``--from``, by default
    the configured pin, :func:`configured_pin`), fetched when it is a requirement.

    Raises:
        FetchError: it cannot be fetched; the configured pin's error names the line of
            ``pin`` in the configuration.
        TargetError: ``spec`` is a directory that does not exist, or a file that is no
            release.
    """
    instead = 'pass --from DIR|REQUIREMENT, or set pristine = "DIR" in the configuration'
    if config.upstream and config.pin and spec == config.pin_requirement():
        try:  # the configured pin, named where it is written
            return requirement_tree(spec, config)
        except FetchError as exc:
            raise pin_unfetchable(config, exc, "the old upstream", instead) from None
    return spec_tree(spec, config, OLD_TREE, hint=instead)


def build_context(
    config: Config, state: PortState, work: WorkDir, series_path: Path
) -> PortContext:
    series = parse_series(series_path)
    patches = load_patches(series, config.strip)
    old = old_tree(config, state.old)
    new = spec_tree(state.new, config, NEW_TREE)
    refuse_unpacked_parent(old, "the old upstream", 'pass --from {0}, or set pristine = "{0}"')
    refuse_unpacked_parent(new, "the new upstream (--to)", "pass --to {}")
    refuse_misplaced(
        new, patches, "the new upstream (--to)", OPTION_TO, config.upstream, config.series
    )
    check_paths(old, patches)
    check_paths(new, patches)
    refuse_changed_pin(new, old, patches, config, "the new upstream (--to)")
    warn_wheel_for_sdist(new, old, patches, OPTION_FROM)
    new_version = tree_version(new)
    named = None
    if new_version is None and os.path.isdir(state.new):
        named = new_version = name_version(Path(state.new).name, config.upstream)
    if new_version is None:
        raise TargetError(
            "cannot tell the version of the new pin",
            path=new.root,
            hint="pass a requirement (NAME==VERSION), or a tree with PKG-INFO or pyproject.toml",
        )
    old_version = old_pin_version(config, state.old, old)
    history = None
    if state.upstream_repo:
        repo = Path(state.upstream_repo)
        tags = port_settings(config).tags
        if old_version is None:
            raise TargetError("cannot tell the version of the old pin", path=old.root)
        history = UpstreamHistory(
            repo,
            find_tag(repo, old_version, tags),
            find_tag(repo, new_version, tags),
            config.directory,
            {config.upstream or "", repo.name},
        )
    return PortContext(
        config,
        state,
        work,
        series,
        patches,
        old,
        new,
        old_version,
        new_version,
        history,
        version_from_name=named is not None,
    )


def old_pin_version(config: Config, spec: str, old: Tree) -> str | None:
    """The version of the release a port carries the series from (``spec``, the tree
    ``old``): what the tree says (:func:`tree_version`), else what a directory's name says
    (``minihttp-1.0``, as for the new pin), else the configured ``pin`` when ``spec`` is the
    configured pin's tree (a ``pristine`` directory with no metadata: the pin is the version
    it was given as); ``None`` when none of them tells."""
    version = tree_version(old)
    if version is None and os.path.isdir(spec):
        version = name_version(Path(spec).name, config.upstream)
    if version is None and config.pin and spec == port_base(config, None):
        version = config.pin
    return version


def name_version(name: str, upstream: str | None) -> str | None:
    """The version a directory named ``<project>-<version>`` (an unpacked sdist, a checkout
    named so) gives, when ``<project>`` is the configured ``upstream`` (names compared as
    PEP 503 normalizes them) and ``<version>`` is a PEP 440 version, in its normal form;
    ``None`` otherwise.

    >>> name_version("vllm-0.32.0", "vllm"), name_version("Foo_Bar-1.0rc1", "foo-bar")
    ('0.32.0', '1.0rc1')
    >>> name_version("vllm-main", "vllm"), name_version("vllm-0.32.0", "torch")
    (None, None)
    """
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    project, _, text = name.rpartition("-")
    if not upstream or not project or canonicalize_name(project) != canonicalize_name(upstream):
        return None
    try:
        return str(Version(text))
    except InvalidVersion:
        return None


def default_output(series_dir: Path, ctx: PortContext) -> Path:
    """``patches-<new pin>`` beside ``patches``; a ``-<old pin>`` suffix is replaced.

    >>> from types import SimpleNamespace as NS
    >>> default_output(Path("d/patches-0.28.0"), NS(old_version="0.28.0", new_version="0.32.0"))
    PosixPath('d/patches-0.32.0')
    """
    name = series_dir.name
    if ctx.old_version and name.endswith(f"-{ctx.old_version}"):
        name = name[: -len(ctx.old_version) - 1]
    return series_dir.with_name(f"{name}-{ctx.new_version}")
