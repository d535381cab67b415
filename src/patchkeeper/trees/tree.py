"""Upstream trees: a directory, an installed distribution, or a fetched requirement.

A tree has a *root* (an unpacked sdist's top directory, a checkout, site-packages) and a
*base*, ``root / directory``, which patch paths are relative to (the configured
``directory``: ``vllm`` for a vLLM fork's series, empty for a Debian series). Every path a patch
names is checked before use: an absolute path, a ``..`` component, or a path that leaves the
base through a symlink is refused (docs/architecture.md, "nothing is ever written outside the
target").
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.config import Config
from patchkeeper.constants import OPTION_PRISTINE, OPTION_TO
from patchkeeper.errors import (
    ConfigError,
    FetchError,
    NoSuchRelease,
    PatchkeeperError,
    TargetError,
)
from patchkeeper.series.engine import FileState
from patchkeeper.series.model import Patch
from patchkeeper.series.parse import sha256_hex
from patchkeeper.system.patch_paths import escapes, name_problem, shown_path
from patchkeeper.trees.target_label import TargetLabel, declared_metadata

if TYPE_CHECKING:  # the installed-distribution code is imported when a tree is one
    from patchkeeper.trees.installed import AppliedRecord, InstalledDistribution
    from patchkeeper.upstream.fetch import FetchedTree
DIRECTORY = "directory"
INSTALLED = "installed"
REQUIREMENT = "requirement"


@dataclass(frozen=True)
class Tree:
    """An upstream tree patchkeeper reads (and, for a target, writes).

    Attributes:
        kind: :data:`DIRECTORY`, :data:`INSTALLED` or :data:`REQUIREMENT`.
        root: the tree's root directory.
        base: ``root / directory``: where patch paths start.
        label: a one-line description for reports (``urllib3 1.26.20 (sdist ...)``).
        dist: the installed distribution, for :data:`INSTALLED`.
        version: the upstream version when known.
        sha256: the hash of the downloaded file, for :data:`REQUIREMENT`.
    """

    kind: str
    root: Path
    base: Path
    label: str
    dist: InstalledDistribution | None = None
    version: str | None = None
    sha256: str | None = None
    #: Paths already checked by :meth:`path_of` (a command checks, reads and writes the same
    #: paths; patchkeeper never creates symlinks, so an answer holds for the tree's life).
    _checked: dict[str, Path] = field(default_factory=dict, compare=False, repr=False)
    _real_dirs: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def path_of(self, relative: str) -> Path:
        """The absolute path of a patch path, refused if it leaves the base.

        Raises:
            TargetError: the path is absolute, has a ``..`` component, or resolves (through a
                symlink) outside the base.
        """
        path = self._checked.get(relative)
        if path is None:
            if self._plain_path(relative) is not None:
                # what safe_path gives, for one lstat: verify reads 762 pristine files so
                path = self.base / relative
            else:
                path = safe_path(
                    self.base,
                    relative,
                    resolved_base=self._resolved_base,
                    real_dirs=self._real_dirs,
                )
            self._checked[relative] = path
        return path

    def _plain_path(self, relative: str) -> tuple[str, int] | None:
        """The absolute path (a string) of a patch path that :func:`safe_path` accepts, found
        the fast way, with its ``lstat`` mode (0: absent), or ``None`` when it takes the
        general checks (which give the errors).

        The common case costs one ``lstat`` and string operations: a plain relative path (no
        empty or ``.`` component, no name :func:`name_problem` refuses) whose file is not a
        symlink lies where the real path of its directory (resolved once per directory)
        says."""
        parts = relative.split("/")
        if "" in parts or "." in parts or ".." in parts or relative.startswith("/"):
            return None
        if name_problem(relative):
            return None
        base = str(self.base)
        full = f"{base}/{relative}" if base != "/" else f"/{relative}"
        try:
            mode = os.lstat(full).st_mode
        except (OSError, ValueError):
            mode = 0
        if stat.S_ISLNK(mode):
            return None
        parent, _, name = full.rpartition("/")
        try:
            real_parent = self._real_dir(parent, base)
        except (OSError, RuntimeError):
            return None
        real_base = str(self._resolved_base)
        real = os.path.join(real_parent, name)
        if not (real == real_base or real.startswith(real_base.rstrip("/") + "/")):
            return None
        return full, mode

    @cached_property
    def _resolved_base(self) -> Path:
        return self.base.resolve()

    def checked_path(self, relative: str, state: tuple[str, ...]) -> Path:
        """:meth:`path_of` and :func:`check_target_file` in one: the absolute path of a patch
        path that stays inside the base and is a regular file, a directory or absent there,
        outside patchkeeper's own ``state`` (:func:`own_state` as strings).

        The common case costs one ``lstat`` and string operations: a plain relative path
        (no empty or ``.`` component) whose file is not a symlink lies where the real path
        of its directory (resolved once per directory) says. Anything else takes the general
        checks, with the same errors.

        Raises:
            TargetError: as :meth:`path_of` and :func:`check_target_file`.
        """
        known = self._checked.get(relative)
        if known is not None:
            check_target_file(self, known, relative, state)
            return known
        plain = self._plain_path(relative)
        if plain is None:
            return self._slow_checked(relative, state)
        full, mode = plain
        if mode and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            return self._slow_checked(relative, state)
        for place in state:
            if full == place or full.startswith(place.rstrip("/") + "/"):
                return self._slow_checked(relative, state)
        # joined to the base rather than parsed whole: a third less for each of 762 files
        path = self._checked[relative] = self.base / relative
        return path

    def _real_dir(self, directory: str, base: str) -> str:
        """The real path of ``directory`` (``base`` or below it), each directory resolved
        once: ``realpath(parent)/name`` unless ``name`` is itself a symlink.

        Raises:
            RuntimeError: a symlink loop (as :meth:`pathlib.Path.resolve`).
        """
        real = self._real_dirs.get(directory)
        if real is not None:
            return real
        if directory == base or not directory.startswith(base + "/"):
            real = str(Path(directory or "/").resolve())
        else:
            above, _, name = directory.rpartition("/")
            try:
                link = stat.S_ISLNK(os.lstat(directory).st_mode)
            except (OSError, ValueError):
                link = False
            if link:
                real = str(Path(directory).resolve())
            else:
                real = os.path.join(self._real_dir(above, base), name)
        self._real_dirs[directory] = real
        return real

    def _slow_checked(self, relative: str, state: tuple[str, ...]) -> Path:
        path = self.path_of(relative)
        check_target_file(self, path, relative, state)
        return path

    def reader(self) -> Callable[[str], FileState | None]:
        """``read(path) -> FileState | None`` for an engine workspace over this tree."""
        return lambda relative: read_file(self.path_of(relative))

    @property
    def state_dir(self) -> Path:
        """Where the lock's directory and the journal live."""
        if self.dist is not None:
            return self.dist.dist_info
        return self.root

    @property
    def journal_dir(self) -> Path:
        if self.dist is not None:
            return self.dist.dist_info / "patchkeeper-journal"
        return self.root / ".patchkeeper" / "journal"


#: What to do about a file of the tree that cannot be read.
_UNREADABLE_HINT = "make the file readable by this user; every file a patch names is read"
#: What to do, by ``errno``, about a file a patch names that cannot be read for another
#: reason than its permissions: the name comes from the patch, so the fix is there.
_READ_HINTS = {
    errno.ENAMETOOLONG: (
        "the patch names a file whose name or path is longer than this file system allows "
        "(most allow 255 bytes a name, 4096 a path): shorten it in the patch, or check the "
        "strip level"
    ),
}


def _unreadable(exc: OSError, path: Path) -> TargetError:
    """The error for a file a patch names that cannot be read: what to do depends on why
    (no permission, a name longer than the file system takes)."""
    hint = _READ_HINTS.get(exc.errno or 0, _UNREADABLE_HINT)
    return TargetError(f"cannot read: {exc.strerror}", path=path, hint=hint)


def safe_path(
    base: Path,
    relative: str,
    *,
    resolved_base: Path | None = None,
    real_dirs: dict[str, str] | None = None,
) -> Path:
    """Join ``relative`` (POSIX) to ``base``, refusing anything that escapes ``base``.

    ``resolved_base`` (``base.resolve()``) and ``real_dirs`` (directory -> its real path,
    filled as directories are resolved) let a caller that checks many paths resolve each
    directory once.

    Raises:
        TargetError: as :meth:`Tree.path_of`.

    >>> safe_path(Path("/t"), "a/b.py").as_posix()
    '/t/a/b.py'
    """
    if escapes(relative):
        raise TargetError(
            f"the patch path {shown_path(relative)} escapes the target {base}",
            hint="a patch may only name files inside the target; fix the patch",
        )
    problem = name_problem(relative)
    if problem:
        raise TargetError(
            f"the patch path {shown_path(relative)} {problem}",
            hint="rename the file in the patch; nothing was written",
        )
    path = base.joinpath(*relative.split("/"))
    try:
        if real_dirs is None:
            inside = path.resolve().is_relative_to(resolved_base or base.resolve())
        else:
            real_base = str(resolved_base or base.resolve())
            real = _resolve(path, real_dirs)
            inside = real == real_base or real.startswith(real_base.rstrip("/") + "/")
    except (OSError, RuntimeError):
        inside = False
    if not inside:
        raise TargetError(
            f"the patch path {relative!r} leads outside the target through a symlink",
            path=path,
            hint="remove the symlink or fix the patch; nothing was written",
        )
    return path


def _resolve(path: Path, real_dirs: dict[str, str]) -> str:
    """``str(path.resolve())``, with the real path of its directory taken from or added to
    ``real_dirs``: the real path of ``dir/name`` is ``realpath(dir)/name`` unless ``name``
    is itself a symlink.

    Raises:
        RuntimeError: a symlink loop (as :meth:`pathlib.Path.resolve`).
    """
    parent, name = os.path.split(str(path))
    real_parent = real_dirs.get(parent)
    if real_parent is None:
        real_parent = real_dirs[parent] = str(Path(parent).resolve())
    leaf = os.path.join(real_parent, name)
    return str(Path(leaf).resolve()) if os.path.islink(leaf) else leaf


def read_file(path: Path) -> FileState | None:
    """Read a file's bytes and permission bits; ``None`` when it does not exist.

    One ``open``, one ``fstat`` and one ``read`` per file (apply reads every file a series
    touches).

    Raises:
        TargetError: it is a directory or cannot be read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not hang the read
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise TargetError(
            "a patch names a file under this path, but one of its parent directories is a "
            "file in the target (a file turned into a directory)",
            path=path,
            hint="patchkeeper does not turn files into directories or back; make that change "
            "outside the series, or check the strip level; nothing was written",
        ) from None
    except OSError as exc:
        raise _unreadable(exc, path) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise TargetError(
                "a patch names this path as a file, but it is a directory",
                path=path,
                hint="patchkeeper does not turn directories into files or back; make that "
                "change outside the series, or check the strip level; nothing was written",
            )
        if not stat.S_ISREG(info.st_mode):
            raise TargetError(
                "a patch names this path as a file, but it is not a regular file", path=path
            )
        data = _read_all(fd, info.st_size)
    except OSError as exc:
        raise _unreadable(exc, path) from None
    finally:
        os.close(fd)
    return FileState.from_bytes(data, stat.S_IMODE(info.st_mode))


def _read_all(fd: int, size: int) -> bytes:
    """The bytes of an open regular file of ``size`` bytes: one ``read`` (a regular file
    reads short only at its end), more if it grew meanwhile."""
    data = os.read(fd, size + 1)
    if len(data) <= size:
        return data
    parts = [data]
    while chunk := os.read(fd, 1 << 20):
        parts.append(chunk)
    return b"".join(parts)


def _base(root: Path, directory: str) -> Path:
    return root.joinpath(*directory.split("/")) if directory else root


#: What to do when a tree is given as a path that is no directory.
NOT_A_TREE_HINT = "give the upstream tree's directory (an unpacked sdist or wheel, a checkout)"


def _missing_tree(path: Path, what: str) -> TargetError:
    """The error for the tree ``path`` (``what``: its role) where nothing is."""
    # a relative path is read from -C's directory when one is given, as git -C does: a
    # user who typed it from elsewhere is told where it was looked for
    if not path.expanduser().is_absolute():
        from patchkeeper.upstream.unpack import is_archive

        kind = "file" if is_archive(path.name) else "directory"
        hint = (
            f"relative paths start at {Path.cwd()} (-C DIR's, when given), and there is no "
            f"{kind} {path.resolve()}"
        )
    else:
        # a typo is usually one part of the path: the deepest folder that exists shows which;
        # when only the file system's root does, the path's first part is the one to check
        full = path.expanduser()
        nearest = full.parent
        while not nearest.is_dir() and nearest != nearest.parent:
            nearest = nearest.parent
        if nearest != nearest.parent:
            hint = f"the nearest directory that exists is {nearest}: check the path"
        else:
            top = full.parts[1] if len(full.parts) > 1 else full.name
            hint = f"{nearest} holds no {top}: check the path, or {NOT_A_TREE_HINT}"
    return TargetError(f"{what} does not exist", path=path, hint=hint)


def check_tree_given(spec: str | None, what: str) -> None:
    """Refuse ``spec``, a tree given as an option (``what``: its role, ``"the new upstream
    (--to)"``), when it can only be a path (:func:`patchkeeper.upstream.requirements.
    looks_like_path`) and nothing is there: :func:`spec_tree`'s error, said before any state
    is read (a port in progress), so that the value typed wrong is named first. Anything
    else (a requirement, a file, a directory) is judged where the tree is read.

    Raises:
        TargetError: as :func:`directory_tree` for a path that does not exist.
    """
    from patchkeeper.upstream.requirements import looks_like_path

    if not spec or not spec.strip():
        return
    path = Path(spec).expanduser()
    if os.path.lexists(path) or not looks_like_path(spec):
        return
    raise _missing_tree(path, what)


def directory_tree(path: Path, config: Config, what: str = "the target directory") -> Tree:
    """A tree from a directory given on the command line; ``what`` names its role in the
    error (``"the pristine reference (--pristine)"``), which says where a relative path was
    looked for when it does not exist.

    Raises:
        TargetError: it does not exist, is no directory (a file, a named pipe, a device), or
            lacks the configured ``directory``.
    """
    root = path.resolve()
    if not root.is_dir():
        from patchkeeper.system.regular import not_a_directory

        there = not_a_directory(root)
        if there is not None:
            # something is there (a file, a named pipe, a device): saying it does not exist
            # would send the user looking for a path they can list
            raise TargetError(f"{what} {there}", path=path, hint=NOT_A_TREE_HINT)
        raise _missing_tree(path, what)
    base = _base(root, config.directory)
    if not base.is_dir():
        from patchkeeper.trees.layout_hint import sole_tree

        inner = sole_tree(root)
        hint = (
            f"it holds only the upstream tree {inner}: give that directory"
            if inner is not None and _base(inner, config.directory).is_dir()
            else "pass the tree's root (the directory holding "
            f"{config.directory}/), or fix 'directory' in the configuration"
        )
        raise TargetError(
            f"{what} has no {config.directory}/ directory, which patch paths are relative to",
            path=root,
            hint=hint,
        )
    name, version = declared_metadata(root)
    label = TargetLabel(f"directory {root}", kind=DIRECTORY, path=root, name=name, version=version)
    return Tree(DIRECTORY, root, base, label, version=version)


def installed_tree(config: Config, python: Path | None = None) -> Tree:
    """The configured upstream as installed in an environment.

    Raises:
        ConfigError: no upstream is configured.
        TargetError: it is not installed (see :func:`locate_distribution`).
    """
    if not config.upstream:
        raise ConfigError(
            "no upstream distribution is configured, so there is no default target",
            path=config.source,
            hint='set upstream = "NAME" in [tool.patchkeeper], or pass --target DIR',
        )
    from patchkeeper.trees.installed import locate_distribution

    dist = locate_distribution(config.upstream, python, config.source, config.pin)
    base = _base(dist.site, config.directory)
    label = TargetLabel(
        f"{dist.name} {dist.version} installed in {dist.site} (python {dist.python})",
        kind=INSTALLED,
        path=dist.site,
        name=dist.name,
        version=dist.version,
    )
    return Tree(INSTALLED, dist.site, base, label, dist=dist, version=dist.version)


def requirement_tree(requirement: str, config: Config) -> Tree:
    """A requirement (``urllib3==1.26.20``), fetched once into the cache, read-only.

    Raises:
        FetchError: it cannot be found, downloaded, checked or unpacked.
        TargetError: the unpacked tree lacks the configured ``directory``.
    """
    from patchkeeper.progress import note
    from patchkeeper.upstream.fetch import fetch_requirement, find_cached

    if find_cached(requirement, config.fetch) is None:
        note(f"fetching {requirement} ({config.fetch}) into the cache ...")
    return _fetched_tree(fetch_requirement(requirement, kind=config.fetch), config)


def _fetched_tree(fetched: FetchedTree, config: Config) -> Tree:
    """The tree of a release unpacked in the cache (fetched, or a local archive).

    Raises:
        TargetError: the unpacked tree lacks the configured ``directory``.
    """
    base = _base(fetched.root, config.directory)
    if not base.is_dir():
        raise TargetError(
            f"{fetched.filename} has no {config.directory}/ directory",
            path=fetched.root,
            hint="fix 'directory' in the configuration",
        )
    label = TargetLabel(
        f"{fetched.name} {fetched.version} ({fetched.kind} {fetched.filename}, sha256 "
        f"{fetched.sha256[:12]})",
        kind=REQUIREMENT,
        path=fetched.root,
        name=fetched.name,
        version=fetched.version,
    )
    return Tree(
        REQUIREMENT, fetched.root, base, label, version=fetched.version, sha256=fetched.sha256
    )


def archive_tree(archive: Path, config: Config) -> Tree:
    """A release given as a local sdist or wheel file, unpacked into the cache once
    (:func:`patchkeeper.upstream.fetch.unpack_local`) and read as a fetched release is: the
    same tree, label and checks as ``NAME==VERSION`` gives, with the file's sha256.

    Raises:
        FetchError: the file cannot be read or unpacked, or its name is no release's.
        TargetError: it is a release of another project than the configured upstream, or
            its tree lacks the configured ``directory``.
    """
    from patchkeeper.upstream.fetch import unpack_local

    return _fetched_tree(unpack_local(archive.expanduser(), config.upstream), config)


def local_releases(config: Config) -> tuple[Path, dict[str, Path]] | None:
    """The directory the downstream keeps its upstream's releases in, and the releases
    there (version -> path, as ``audit --releases`` reads them:
    :func:`patchkeeper.trees.releases.directory_releases`): the directory of the configured
    ``pristine`` when that is a local release of the configured upstream beside others
    (``pristine = "../upstream/minihttp-1.0"`` with ``minihttp-1.1`` there). ``None`` when
    the pristine is no such release (a requirement, a checkout, a directory of another
    name, or alone in its directory): its releases come from the package indexes."""
    if not config.pristine or not config.upstream:
        return None
    from packaging.requirements import InvalidRequirement, Requirement

    pristine = Path(os.path.normpath(config.root / Path(config.pristine).expanduser()))
    if not os.path.lexists(pristine) or not pristine.parent.is_dir():
        return None
    from patchkeeper.trees.releases import directory_releases

    try:
        found = directory_releases(Requirement(config.upstream), pristine.parent)
    except (InvalidRequirement, TargetError, OSError):
        return None
    kept = {Path(os.path.normpath(path)) for path in found.values()}
    if len(found) < 2 or not {pristine, pristine / pristine.name} & kept:
        return None
    return pristine.parent, found


def local_release(spec: str, config: Config, what: str) -> Tree | None:
    """The release ``spec`` names exactly (``minihttp==1.1``), read from the directory the
    downstream keeps its releases in (:func:`local_releases`), not fetched: the project
    of that name on the package index may be another one (the example's *minihttp* is not
    the index's). ``None`` when there is no such directory, or ``spec`` is no exact
    requirement of the configured upstream: it is fetched as usual.

    Raises:
        TargetError: the directory holds no release of that version, naming it, the
            releases there and how to add one; the package indexes are not asked.
    """
    local = local_releases(config)
    if local is None:
        return None
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    try:
        requirement = Requirement(spec)
    except InvalidRequirement:
        return None
    specifiers = list(requirement.specifier)
    upstream = canonicalize_name(config.upstream or "")
    if (
        canonicalize_name(requirement.name) != upstream
        or len(specifiers) != 1
        or specifiers[0].operator not in ("==", "===")
        or "*" in specifiers[0].version
    ):
        return None
    where, found = local
    wanted = specifiers[0].version
    for version, path in found.items():
        try:
            same = Version(version) == Version(wanted)
        except InvalidVersion:
            same = version == wanted
        if same:
            return (
                directory_tree(path, config, what) if path.is_dir() else archive_tree(path, config)
            )
    from patchkeeper.config import dotted_key_line

    listed = sorted(found, key=_version_order)
    raise TargetError(
        f"{what} {spec} is not among the releases in {where}: {', '.join(listed)} (the "
        f"directory of the configured pristine, where this downstream keeps "
        f"{requirement.name}'s releases; the package indexes were not asked)",
        path=config.source,
        line=dotted_key_line(config.source, "pristine"),
        hint=f"pass one of those ({requirement.name}=={listed[-1]}), or the release's "
        "directory or sdist file; a release from the package index goes there first: pip "
        f"download --no-deps --no-binary :all: {requirement.name}=={wanted} -d {where}",
    )


def _version_order(version: str) -> tuple[int, object]:
    """A sort key of versions, oldest first; a version that is no PEP 440 one last."""
    from packaging.version import InvalidVersion, Version

    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def spec_tree(
    spec: str, config: Config, what: str = "the target directory", hint: str | None = None
) -> Tree:
    """A tree from a TARGET spec: an existing directory, else a requirement; ``what`` names
    its role in the error when the directory does not exist or the requirement cannot be
    fetched (a user who typed no requirement, the configured pin, learns which tree was
    being fetched); ``hint``, when given, replaces the fetch error's own hint.

    Raises:
        TargetError: ``spec`` is an existing file (neither a directory nor a requirement).
        FetchError: the requirement cannot be fetched (naming ``what`` and ``spec``).
    """
    if os.path.isfile(spec):
        # imported for a file only: a directory or a requirement does without tarfile
        from patchkeeper.upstream.unpack import is_archive

        if is_archive(spec):
            return archive_tree(Path(spec), config)
        raise TargetError(
            "this is a file; a target is an upstream tree (a directory), an sdist or wheel "
            "file, or a requirement such as NAME==VERSION",
            path=spec,
            hint="pass the release's sdist (.tar.gz) or wheel (.whl), its unpacked directory, "
            "or NAME==VERSION",
        )
    from patchkeeper.upstream.requirements import looks_like_path

    if os.path.exists(os.path.expanduser(spec)) or looks_like_path(spec):
        # a path that is there is a path (:func:`parsed_requirement` reads it so, and skips
        # the project check): a named pipe called ``pipe`` fetched as the project pipe
        return directory_tree(Path(spec).expanduser(), config, what)
    local = local_release(spec, config, what)
    if local is not None:
        return local
    try:
        return requirement_tree(spec, config)
    except FetchError as exc:
        raise FetchError(
            f"{what} {spec} cannot be fetched: {exc.message}",
            path=exc.path,
            line=exc.line,
            hint=hint or exc.hint,
        ) from None


@dataclass(frozen=True, kw_only=True)
class TargetChoice:
    """Which tree a command works on when the command line says it (``--target``,
    ``--python``, as :func:`patchkeeper.commands.options.target_options` declares them):
    ``apply``'s request, and the fields the requests of ``verify``, ``status`` and
    ``unapply`` share; :func:`target_tree` turns it into the tree.

    Attributes:
        target: an upstream tree (an unpacked sdist, a checkout, a site-packages
            directory); default ``None``, the installed upstream.
        python: the interpreter whose environment's installed upstream is the target;
            default ``None``, the running one. At most one of the two is given.
    """

    target: Path | None = None
    python: Path | None = None


def target_tree(config: Config, target: Path | None, python: Path | None) -> Tree:
    """The tree ``apply``/``verify`` work on: ``--target DIR``, else the installed upstream."""
    if target is not None and python is not None:
        raise ConfigError(
            "--target and --python exclude each other",
            hint="--target names a directory; --python an environment",
        )
    if target is not None:
        site = site_distribution(target, config)
        if site is not None:
            return site
        return directory_tree(target, config)
    return installed_tree(config, python)


def refuse_environment_root(tree: Tree, patches: Sequence[Patch]) -> None:
    """Refuse ``--target`` a virtual environment's root (a directory holding ``pyvenv.cfg``)
    when none of the files the series reads is under it.

    The upstream is installed in the environment's ``site-packages``
    (``lib/pythonX.Y/site-packages``), not at its root: taken as a directory, every patch
    would miss its files and ``verify`` would report the interpreter and every installed
    package as drift. A directory that holds ``pyvenv.cfg`` and the series' files (an
    environment made inside a checkout) is a tree like any other.

    Raises:
        TargetError: naming the environment and its ``site-packages`` to pass instead (and
            its interpreter for ``--python``); nothing was changed.
    """
    root = tree.root
    if tree.kind != DIRECTORY or not (root / "pyvenv.cfg").is_file():
        return
    reads = sorted(
        {diff.old_path for patch in patches for diff in patch.files if diff.old_path is not None}
    )
    if not reads or any(os.path.isfile(tree.base / path) for path in reads):
        return
    sites = sorted(root.glob("lib/python*/site-packages")) + sorted(root.glob("Lib/site-packages"))
    pythons = [root / "bin" / "python", root / "Scripts" / "python.exe"]
    python = next((path for path in pythons if path.exists()), None)
    named = " or ".join(f"--target {site}" for site in sites)
    hint = (
        f"pass the site-packages where the upstream is installed: {named}"
        if sites
        else "pass --target the site-packages where the upstream is installed"
    )
    if python is not None:
        hint += f"; or the environment's interpreter: --python {python}"
    raise TargetError(
        "the target is a virtual environment's root (it holds pyvenv.cfg), not the upstream's "
        "tree: none of the files the series patches is there; nothing was changed",
        path=root,
        hint=hint,
    )


def refuse_fetch_cache(tree: Tree, command: str) -> None:
    """Refuse to write into a tree of the fetch cache (``command``, ``"apply"`` or
    ``"unapply"``, with ``--target`` a directory under it).

    The cache's unpacked releases are the pristine references that ``verify``, ``status``,
    ``unapply`` and ``audit`` compare with, trusted as downloaded (their sha256 is checked on
    download, not on each read): patched in place, every later check would report the
    series' files as drift in the user's own trees, and no command would say why.

    Raises:
        TargetError: the target's root is inside the cache; nothing was changed.
    """
    if tree.kind != DIRECTORY:
        return
    from patchkeeper.upstream.fetch import cache_location

    cache = cache_location().resolve()
    if not tree.root.resolve().is_relative_to(cache):
        return
    raise TargetError(
        f"the target is inside patchkeeper's fetch cache ({cache}), whose trees are the "
        "pristine references verify, unapply and audit compare with; nothing was changed",
        path=tree.root,
        hint=(
            f"copy it and work on the copy: cp -R {tree.root} COPY && patchkeeper apply "
            "--target COPY"
            if command == "apply"
            else f"if it was patched, delete it (rm -rf {tree.root}): the next command that "
            "needs it downloads it again"
        ),
    )


def _holds_dist_info(directory: Path) -> bool:
    """Whether ``directory`` is a directory with a ``*.dist-info`` entry (an installation:
    a plain source tree is not probed further)."""
    try:
        with os.scandir(directory) as entries:
            return any(entry.name.endswith(".dist-info") for entry in entries)
    except OSError:
        return False


def site_distribution(directory: Path, config: Config) -> Tree | None:
    """``--target SITE_PACKAGES`` holding the configured upstream's ``.dist-info``: the
    installed distribution there (so ``RECORD`` is kept true), else ``None``.

    Raises:
        TargetError: as :func:`patchkeeper.trees.installed.check_installed`.
    """
    if not config.upstream or not _holds_dist_info(directory):
        return None
    import importlib.metadata as metadata

    from packaging.utils import canonicalize_name

    from patchkeeper.trees.installed import InstalledDistribution, check_installed

    wanted = canonicalize_name(config.upstream)
    for dist in metadata.distributions(path=[str(directory.resolve())]):
        if canonicalize_name(dist.metadata["Name"] or "") != wanted:
            continue
        info = Path(str(dist._path))  # type: ignore[attr-defined]
        if not info.name.endswith(".dist-info"):
            continue  # an sdist's or checkout's .egg-info: a source tree, not an install
        site = directory.resolve()
        found = InstalledDistribution(
            name=dist.metadata["Name"],
            version=dist.version,
            dist_info=info,
            site=site,
            python="(none: found by --target)",
        )
        check_installed(found, dist.read_text("direct_url.json"))
        base = _base(site, config.directory)
        label = TargetLabel(
            f"{found.name} {found.version} installed in {site}",
            kind=INSTALLED,
            path=site,
            name=found.name,
            version=found.version,
        )
        return Tree(INSTALLED, site, base, label, dist=found, version=found.version)
    return None


# --------------------------------------------------------------------------- pristine content


class Pristine:
    """The pristine reference for the files a series touches.

    Either a tree (its files are the pristine content) or an installed distribution's
    ``RECORD`` (the hashes; files the series created are pristine when absent).
    """

    def __init__(
        self,
        label: str,
        tree: Tree | None = None,
        hashes: dict[str, str] | None = None,
        created: frozenset[str] = frozenset(),
        record_prefix: str = "",
    ) -> None:
        self.label = label
        self._tree = tree
        self._hashes = hashes or {}
        self._created = created
        self._prefix = record_prefix

    def expected_sha256(self, relative: str) -> str | None:
        """The sha256 the file must have, ``None`` when it must be absent."""
        if self._tree is not None:
            state = read_file(self._tree.path_of(relative))
            return sha256_hex(state.data) if state is not None else None
        key = self._prefix + relative
        if key in self._created:
            return None
        return self._hashes.get(key)

    def expected_file(
        self, relative: str, data: bytes | None
    ) -> tuple[str | None, str | None, int | None]:
        """``(expected, actual, mode)``: the sha256 the file must have (``None``: must be
        absent), the sha256 of ``data``, the file's bytes in the tree being checked
        (``None``: absent there), and, for a pristine tree, the pristine file's permission
        bits (``None``: unknown, as in ``RECORD``, or absent). One read; bytes equal to the
        pristine file's are hashed once."""
        if self._tree is not None:
            state = read_file(self._tree.path_of(relative))
            if state is None:
                return None, _sha256_or_none(data), None
            expected = sha256_hex(state.data)
            actual = expected if data == state.data else _sha256_or_none(data)
            return expected, actual, state.mode
        return self.expected_sha256(relative), _sha256_or_none(data), None

    @property
    def at_site_root(self) -> bool:
        """For a ``RECORD`` reference: the base is site-packages itself (``directory = ""``)."""
        return self._tree is None and self._prefix == ""

    @property
    def tree(self) -> Tree | None:
        """The pristine tree, when the reference is one (not ``RECORD`` hashes)."""
        return self._tree

    def recorded(self) -> dict[str, str]:
        """For a ``RECORD`` reference: every hashed file under the base, as a patch path
        (relative to the base) -> sha256, without the files the series created."""
        out = {}
        for key, sha in self._hashes.items():
            if key in self._created or not key.startswith(self._prefix):
                continue
            out[key[len(self._prefix) :]] = sha
        return out

    def read(self, relative: str) -> FileState | None:
        """The pristine content when it is known (a tree), for showing drift; else ``None``."""
        if self._tree is None:
            return None
        return read_file(self._tree.path_of(relative))

    def matches(self, relative: str, state: FileState | None) -> bool:
        expected = self.expected_sha256(relative)
        actual = sha256_hex(state.data) if state is not None else None
        return expected == actual


def _sha256_or_none(data: bytes | None) -> str | None:
    return sha256_hex(data) if data is not None else None


def record_pristine(tree: Tree) -> tuple[Pristine, AppliedRecord | None]:
    """The pristine reference of an installed tree: its ``RECORD`` minus what we created."""
    from patchkeeper.trees.installed import AppliedRecord, read_record

    assert tree.dist is not None
    applied = AppliedRecord.load(tree.dist.applied_record_path)
    hashes = {e.path: e.sha256 for e in read_record(tree.dist) if e.sha256}
    created = frozenset(applied.created) if applied else frozenset()
    prefix = tree.base.relative_to(tree.dist.site).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    label = f"RECORD of {tree.dist.name} {tree.dist.version}"
    return Pristine(label, hashes=hashes, created=created, record_prefix=prefix), applied


def applied_landing(tree: Tree) -> dict[tuple[str, str], tuple[tuple[int, ...], ...]]:
    """Where ``apply`` put each hunk on an installed tree: its install manifest's landing
    lines, by ``(patch name, sha256 of the patch file)``
    (:meth:`patchkeeper.trees.installed.AppliedRecord.landing`); empty for another tree, or
    one without a manifest. Read under the tree's lock, after any roll-back.

    Raises:
        TargetError: the manifest exists but is not one patchkeeper wrote.
    """
    if tree.kind != INSTALLED or tree.dist is None:
        return {}
    from patchkeeper.trees.installed import AppliedRecord

    applied = AppliedRecord.load(tree.dist.applied_record_path)
    return applied.landing() if applied is not None else {}


def pristine_for(
    config: Config, tree: Tree, spec: str | None, patches: Sequence[Patch] | None = None
) -> Pristine | None:
    """The pristine reference for ``tree``: ``--pristine`` if given, ``RECORD`` for an
    installed tree, else the configured ``pristine`` (a directory relative to the downstream,
    or a requirement), else ``upstream==pin`` when both are configured, else ``None``.

    A pristine directory that holds none of the files the series changes is refused
    (:func:`refuse_misplaced`); ``patches``, the configured series' patches when the caller
    has read them already, spares reading the series again for that check.

    Raises:
        FetchError: the reference is a requirement that cannot be fetched.
        TargetError: the reference is a directory that does not exist.
    """
    if spec is not None:
        other = spec_tree(spec, config, "the pristine reference (--pristine)")
        refuse_unpacked_parent(other, "the pristine reference", "pass --pristine {}")
        _refuse_misplaced_pristine(config, other, patches)
        return Pristine(other.label, tree=other)
    if tree.kind == INSTALLED:
        return record_pristine(tree)[0]
    if config.pristine:
        configured = config.pristine
        local = config.root / configured
        # a path that is there (a file, a named pipe) is read as one, and refused as no
        # tree, not looked up on the package index as a project of that name
        if os.path.lexists(local) or configured.startswith((".", "/", "~")):
            what = f"the pristine reference (pristine = {configured!r} in {config.source})"
            other = directory_tree(local.expanduser(), config, what)
            refuse_unpacked_parent(
                other, "the pristine reference", 'set pristine = "{}"', config.source
            )
            _refuse_misplaced_pristine(config, other, patches)
        else:
            from patchkeeper.upstream.requirements import check_release_option

            check_release_option(configured, "pristine =", config.upstream, config.source)
            other = requirement_tree(configured, config)
        return Pristine(other.label, tree=other)
    if config.upstream and config.pin:
        try:
            other = requirement_tree(config.pin_requirement(), config)
        except FetchError as exc:
            raise pin_unfetchable(
                config,
                exc,
                "the pristine reference",
                'pass --pristine DIR|REQUIREMENT, or set pristine = "DIR" in the configuration',
            ) from None
        return Pristine(other.label, tree=other)
    return None


def pin_unfetchable(config: Config, exc: FetchError, what: str, instead: str) -> FetchError:
    """The error for the configured pin's release (``upstream==pin``, ``what`` in the
    command: the pristine reference, the old upstream) that ``exc`` says cannot be fetched,
    naming the configuration file. When the index has the project but not that release
    (:class:`NoSuchRelease`: a typo in the pin), it names the line of ``pin`` too, and the
    hint keeps the versions the index has before what to do: fix the pin, or ``instead``.
    A pin in Debian's form (``0.39.1+ds``:
    :func:`patchkeeper.system.debian_versions.debian_pin_upstream`) is said to be one in the
    message (which ``audit`` and ``status`` show too), and the hint gives the upstream
    version as the pin to set, whatever the index answered;
    otherwise the hint is ``instead`` (the project is not on the index at all, or it cannot
    be reached). The error is named from the configuration file, so ``exc``'s own file (a
    download that cannot be unpacked) is named in the message."""
    from patchkeeper.config import dotted_key_line
    from patchkeeper.system.debian_versions import debian_pin_upstream

    why = exc.located()
    message = f"{what} {config.pin_requirement()} (upstream==pin) cannot be fetched: {why}"
    upstream = debian_pin_upstream(config.pin) if config.pin else None
    if upstream is not None:
        message += f" ({config.pin} is a Debian version of upstream {upstream})"
    if not isinstance(exc, NoSuchRelease) and upstream is None:
        return FetchError(message, path=config.source, hint=instead)
    hint = f"{exc.hint}; " if exc.hint and isinstance(exc, NoSuchRelease) else ""
    fix = (
        f'set pin = "{upstream}", the upstream release (an index has no Debian repack or revision)'
        if upstream is not None
        else "set 'pin' to the release the series is cut against"
    )
    return FetchError(
        message,
        path=config.source,
        line=dotted_key_line(config.source, "pin"),
        hint=f"{hint}{fix}, or {instead}",
    )


def _refuse_misplaced_pristine(
    config: Config, other: Tree, patches: Sequence[Patch] | None = None
) -> None:
    """:func:`refuse_misplaced` for a pristine directory, with the configured series' patches:
    ``patches`` when given, else read here (none when the series cannot be read: the command
    reports that itself)."""
    from patchkeeper.series.load import load_series

    if other.kind != DIRECTORY:
        return
    if patches is None:
        try:
            patches = load_series(config)[1]
        except PatchkeeperError:
            return
    refuse_misplaced(
        other, patches, "the pristine reference", OPTION_PRISTINE, config.upstream, config.series
    )


def refuse_unpacked_parent(tree: Tree, what: str, advice: str, source: Path | None = None) -> None:
    """Refuse a reference directory (``what``: "the pristine reference", "the new upstream
    (--to)") that only holds the unpacked sdist's own directory (``urllib3-1.26.12/`` inside
    it): every file would be missing there, and ``verify``, ``audit`` and ``port`` would
    weigh the series against an empty tree. ``advice`` is the hint, with ``{}`` where the
    inner directory goes ("pass --to {}").

    Raises:
        TargetError: naming the directory and the one inside it to give instead.
    """
    from patchkeeper.trees.layout_hint import sole_tree

    if tree.kind != DIRECTORY:
        return
    inner = sole_tree(tree.root)
    if inner is None:
        return
    raise TargetError(
        f"{what} {tree.root} holds only the upstream tree {inner.name}/",
        path=source,
        hint=advice.format(inner),
    )


def refuse_misplaced(
    tree: Tree,
    patches: Sequence[Patch],
    what: str,
    option: str,
    upstream: str | None = None,
    series: Path | None = None,
) -> None:
    """Refuse a directory (``what``: "the new upstream (--to)") that holds none of the files
    the series changes while they are all in another tree nearby: one level too deep
    (``--to jinja2-3.1.6/src``), or a directory of several unpacked releases. Judged against
    such a tree every patch's file is gone, and the audit would call patches upstreamed
    ("docs/conf.py is gone upstream") and advise to retire them. With ``upstream`` (the
    configured project), such a directory is refused too when it is empty, or when its own
    metadata (``PKG-INFO``, a checkout's ``pyproject.toml``) names another project: another
    release's sdist given by mistake, which a release's file name or a requirement would
    have been refused for; so is one whose metadata names another project and that holds
    at most half of those files (the few every project has, ``pyproject.toml``). With
    ``series`` (the configured series file), a directory that holds none of those files and
    holds the series itself is refused: the downstream given for the upstream (``--to .``),
    whose packaging would be read as the release (a Debian changelog naming each patch's CVE
    reads as "upstream has it", to retire).

    Raises:
        TargetError: naming the directory, with where the files are and what to pass
            (:func:`patchkeeper.trees.layout_hint.layout_hint`, ``option`` the option to
            name: ``"--to"``), or the project its metadata names.
    """
    from patchkeeper.trees.layout_hint import layout_hint

    if tree.kind != DIRECTORY:
        return
    paths = sorted(
        {diff.old_path for patch in patches for diff in patch.files if diff.old_path is not None}
    )
    if not paths:
        return
    present = sum(1 for path in paths if os.path.isfile(tree.base / path))
    if present:
        # another project's sdist shares a few of the files every project has
        # (pyproject.toml, MANIFEST.in): judged as the new release, the patches to the
        # others would be 'target gone', and those that delete tests 'upstreamed', retire
        if upstream and present * 2 <= len(paths):
            _refuse_other_project(tree, upstream, what, option, len(paths), present)
        return
    directory = tree.base.relative_to(tree.root).as_posix()
    hint = layout_hint(tree.root, "" if directory == "." else directory, paths, option)
    # Only another directory to pass is a slip: "set directory" or "strip one more" is also
    # what an upstream that moved every file (a flat layout turned src/) looks like.
    if f"pass {option} " in hint:
        raise TargetError(
            f"{what} holds none of the files the series changes "
            f"({len(paths)} file{'s' if len(paths) != 1 else ''})",
            path=tree.root,
            hint=hint.removeprefix("hint: "),
        )
    if series is not None and Path(os.path.abspath(series)).is_relative_to(
        Path(os.path.abspath(tree.root))
    ):
        raise TargetError(
            f"{what} holds the downstream's own series "
            f"({Path(os.path.abspath(series)).relative_to(Path(os.path.abspath(tree.root)))}) "
            f"and none of the {len(paths)} file{'s' if len(paths) != 1 else ''} the series "
            "changes: it is no upstream release",
            path=tree.root,
            hint=f"pass {option} the upstream release: its unpacked tree (an sdist, a "
            f"checkout), its sdist or wheel file, or {upstream or 'NAME'}==VERSION",
        )
    if upstream:
        _refuse_other_project(tree, upstream, what, option, len(paths))


def _refuse_other_project(
    tree: Tree, upstream: str, what: str, option: str, count: int, present: int = 0
) -> None:
    """Refuse a directory that holds ``present`` (at most half) of the ``count`` files the
    series changes and declares another project than ``upstream``, or holds none of them
    and is empty (:func:`refuse_misplaced`)."""
    from patchkeeper.upstream.fetch import canonical_name

    files = f"{count} file{'s' if count != 1 else ''} the series changes"
    none = f"only {present} of the {files}" if present else f"none of the {files}"
    label = tree.label
    declared = label.name if isinstance(label, TargetLabel) else None
    if declared and canonical_name(declared) != canonical_name(upstream):
        version = label.version if isinstance(label, TargetLabel) else None
        release = f"{declared} {version}" if version else declared
        raise TargetError(
            f"{what} is {release}, as its own metadata says, not {upstream}, the configured "
            f"upstream, and it holds {none}",
            path=tree.root,
            hint=f"pass {option} a tree of {upstream} ({upstream}==VERSION fetches its "
            "release), or fix 'upstream' in the configuration",
        )
    if present:
        return
    try:
        empty = not any(tree.root.iterdir())
    except OSError:
        return
    if empty:
        raise TargetError(
            f"{what} is an empty directory: it holds {none}",
            path=tree.root,
            hint=f"pass {option} the unpacked release of {upstream}, or {upstream}==VERSION, "
            "which fetches it",
        )


def _file_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def _is_wheel_tree(root: Path) -> bool:
    """Whether ``root`` is an unpacked wheel: a ``.dist-info`` at its top and no ``PKG-INFO``
    (an sdist's, which also ships ``*.egg-info``, never a ``.dist-info``, at its top)."""
    try:
        return not (root / "PKG-INFO").exists() and any(root.glob("*.dist-info"))
    except OSError:
        return False


def warn_wheel_for_sdist(
    tree: Tree, old: Tree | None, patches: Sequence[Patch], old_option: str = OPTION_PRISTINE
) -> None:
    """Warn when one of the two trees is a wheel and the other is not: a wheel holds only
    the files it installs, so a file of the sdist outside them (``MANIFEST.in``,
    ``setup.py``, ``requirements.txt``, ``tests/``, ``docs/``) that a patch changes is not in
    it. In the new upstream it reads as gone upstream, which it need not be; in the old
    pin's tree (a wheel given as the pristine tree) the patch reads as not applying at its
    pin, which it does on the sdist it was cut against. The warning names those files (the
    first five) and the way to judge them: the release's sdist, given as ``--to`` or as
    ``old_option`` (the option that names the old pin's tree: ``--pristine`` of ``audit``,
    ``--from`` of ``port``). A package file of a ``src/`` layout (``src/pkg/mod.py``) is in
    the wheel without its leading directory (``pkg/mod.py``): it is named apart, as there
    without ``src/``, not as a file a wheel does not install. Nothing is refused: the
    verdicts of the package's own files hold."""
    if old is None:
        return
    if _is_wheel_tree(tree.root) and not _is_wheel_tree(old.root):
        _warn_wheel(tree, old, patches, "the new upstream", OPTION_TO, "gone upstream")
    elif _is_wheel_tree(old.root) and not _is_wheel_tree(tree.root):
        _warn_wheel(old, tree, patches, "the old pin's tree", old_option, "missing at the pin")


def _warn_wheel(
    wheel: Tree, sdist: Tree, patches: Sequence[Patch], role: str, option: str, reads: str
) -> None:
    """The warning of :func:`warn_wheel_for_sdist` for the tree ``wheel`` (``role``: which
    of the two it is; ``option``: the option that gives it; ``reads``: how a file it lacks
    reads), when the series changes files the unpacked sdist ``sdist`` holds and it lacks."""
    from patchkeeper.progress import warn
    from patchkeeper.trees.layout_hint import installed_prefix

    paths = sorted(
        {diff.old_path for patch in patches for diff in patch.files if diff.old_path is not None}
    )
    only_sdist = [p for p in paths if os.path.isfile(sdist.base / p)]
    only_sdist = [p for p in only_sdist if not os.path.lexists(wheel.base / p)]
    if not only_sdist:
        return
    # a src/ layout's package file is in the wheel without its leading directory: said
    # apart, since the audit may follow it there (a file it finds by content) or not
    moved = {p: prefix for p in only_sdist if (prefix := installed_prefix(wheel.base, p))}
    absent = [p for p in only_sdist if p not in moved]
    parts = []
    if absent:
        are = "is" if len(absent) == 1 else "are"
        parts.append(
            f"{_files(absent)} the series changes ({_first_five(absent)}) {are} not among "
            "the files a wheel installs"
        )
    if moved:
        leading = ", ".join(sorted(set(moved.values())))
        are = "is" if len(moved) == 1 else "are"
        what = _files(list(moved)) + ("" if absent else " the series changes")
        parts.append(
            f"{what} ({_first_five(list(moved))}) {are} in it without the leading {leading}"
        )
    one = len(only_sdist) == 1
    they = "it reads" if one else "they read"
    how = reads if not moved else f"{reads} or moved"
    new = role == "the new upstream"
    other = "the old pin's tree" if new else "the new upstream"
    release = "the release's" if new else "the pin's"
    warn(
        f"{role} is a wheel and {other} is not: {', and '.join(parts)}, so {they} as {how}; "
        f"pass {option} {release} sdist (NAME==VERSION fetches it) to judge "
        f"{'it' if one else 'them'}"
    )


def _files(paths: Sequence[str]) -> str:
    return f"{len(paths)} file{'' if len(paths) == 1 else 's'}"


def _first_five(paths: Sequence[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def refuse_changed_pin(
    tree: Tree, old: Tree | None, patches: Sequence[Patch], config: Config, what: str
) -> None:
    """Refuse a new upstream (``what``: "the new upstream (--to)") that is the pin's own
    release with changed files: a copy with the series applied, or a site-packages directory
    patched in place. Judged against it, every applied patch "reverse-applies" and reads as
    upstreamed, and the audit would advise to retire the whole series. The tree's version
    (its ``PKG-INFO``, or the ``.dist-info`` of the configured upstream in it; never a
    checkout's ``pyproject.toml``) must equal the pin and a file the series touches must
    differ from the pin's tree ``old``; an unchanged copy of the pin is audited as any
    release.

    Raises:
        TargetError: naming the first patch, the line of its file diff and the file that
            differs, with what to pass instead.
    """
    if old is None or tree.kind != DIRECTORY or not config.pin:
        return
    # Only a release's own metadata counts: PKG-INFO (an unpacked sdist) or the .dist-info
    # of an install. A checkout's pyproject.toml often keeps the last release's version
    # while its files move on, and auditing such a checkout is a fair question.
    version = tree.version if (tree.root / "PKG-INFO").is_file() else None
    if version is None:
        try:
            site = site_distribution(tree.root, config)
        except TargetError:
            site = None
        version = site.version if site is not None else None
    if version is None or _canonical_version(version) != _canonical_version(config.pin):
        return
    for patch in patches:
        for diff in patch.files:
            for path in dict.fromkeys(p for p in (diff.old_path, diff.new_path) if p is not None):
                if _file_bytes(tree.base / path) == _file_bytes(old.base / path):
                    continue
                raise TargetError(
                    f"{what}, {tree.root}, is {version}, the pin itself, but its {path} differs "
                    f"from the pin's tree ({old.label}): it is a changed tree (the series "
                    "applied?), not a release, and every patch applied in it would read as "
                    "upstreamed",
                    path=patch.path,
                    line=diff.line_no,
                    hint="pass the new release (NAME==VERSION, its sdist or unpacked "
                    "directory); 'patchkeeper verify --target DIR' tells what is applied in a "
                    "changed tree; if this tree is the pin as another source ships it, pass it "
                    "as --pristine too",
                )


def _canonical_version(version: str) -> str:
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(version))
    except InvalidVersion:
        return version


def check_paths(tree: Tree, patches: list[Patch]) -> None:
    """Refuse, before anything is read or written, any patch path that escapes ``tree``.

    Raises:
        TargetError: naming the patch file, the line of the file diff and the path (see
            :func:`safe_path`).
    """
    checked: set[str] = set()
    state = tuple(str(path) for path in own_state(tree))
    for patch in patches:
        for diff in patch.files:
            for path in (diff.old_path, diff.new_path):
                if path is None or path in checked:
                    continue
                try:
                    tree.checked_path(path, state)
                except TargetError as exc:
                    where = f" at {exc.path}" if exc.path is not None else ""
                    # the message says nothing was written: the hint need not say it again
                    hint = exc.hint.removesuffix("; nothing was written") if exc.hint else None
                    raise TargetError(
                        f"{exc.message}{where}; nothing was written",
                        path=patch.path,
                        line=diff.line_no,
                        hint=hint,
                    ) from None
                checked.add(path)


def check_target_file(
    tree: Tree, path: Path, relative: str, state: tuple[str, ...] | None = None
) -> None:
    """Refuse a patch path that is a symlink or another non-regular file in the target (GNU
    patch: "not a regular file"; writing it would replace the link), or that lies in
    patchkeeper's own state (``.patchkeeper/``, the journal, ``patchkeeper.json``).

    ``state``: :func:`own_state` as strings, when the caller checks many paths.

    Raises:
        TargetError: naming the path.
    """
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):
        mode = 0
    if stat.S_ISLNK(mode):
        raise TargetError(
            f"the patch path {relative!r} is a symbolic link in the target; patchkeeper "
            "patches regular files only (GNU patch: not a regular file)",
            path=path,
            hint="patch the file the link points to, or remove the link",
        )
    if mode and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise TargetError(
            f"the patch path {relative!r} is not a regular file in the target",
            path=path,
        )
    text = str(path)
    for place in state if state is not None else tuple(str(p) for p in own_state(tree)):
        if text == place or text.startswith(place.rstrip("/") + "/"):
            raise TargetError(
                f"the patch path {relative!r} lies in patchkeeper's own state ({place})",
                path=path,
                hint="a patch may not change patchkeeper's state; fix the patch",
            )


def own_state(tree: Tree) -> tuple[Path, ...]:
    """Where patchkeeper keeps its state in ``tree``: the journal, and ``.patchkeeper/`` of a
    directory or ``patchkeeper.json`` and ``RECORD`` of an installed distribution."""
    if tree.dist is not None:
        dist = tree.dist
        return (tree.journal_dir, dist.applied_record_path, dist.record_path)
    return (tree.root / ".patchkeeper", tree.journal_dir)
