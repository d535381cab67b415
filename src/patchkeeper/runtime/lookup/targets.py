"""An audit target: a directory, a release's sdist or wheel file (unpacked into the cache
once, :func:`patchkeeper.upstream.fetch.unpack_local`), or a requirement (``vllm==0.32.0``)
fetched as an sdist through :func:`patchkeeper.upstream.fetch.fetch_requirement` (downloaded
once into the corpus cache).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from patchkeeper.errors import TargetError

if TYPE_CHECKING:
    from patchkeeper.runtime.settings import RuntimeSettings


def tree_root(spec: str, what: str | None = None) -> Path:
    """The directory of an upstream tree named by ``spec`` (a directory, a release's sdist
    or wheel file, or a requirement); ``what``, when given, names its role in an error
    (``"the new upstream (--to)"``), so that a user who typed two releases learns which one
    failed.

    Raises:
        TargetError: ``spec`` is neither an existing directory, a release file nor a
            requirement.
        FetchError: the requirement cannot be found, downloaded or unpacked, or the file's
            name is no release's, or it cannot be unpacked.
    """
    path = Path(spec).expanduser()
    if path.is_dir():
        return path.resolve()
    from patchkeeper.errors import FetchError
    from patchkeeper.upstream import fetch  # a requirement or a release file: only then
    from patchkeeper.upstream.unpack import is_archive

    if path.is_file() and is_archive(str(path)):
        # a release's sdist or wheel (what pip download leaves), unpacked into the cache once
        # as the series commands' --to FILE is
        try:
            return Path(fetch.unpack_local(path).root)
        except FetchError as exc:
            if what is None:
                raise
            raise FetchError(
                f"{what} {spec} cannot be read: {exc.message}", path=exc.path, hint=exc.hint
            ) from None
    if not fetch.is_requirement(spec):
        raise _no_tree_error(spec, path, what)
    try:
        return Path(fetch.fetch_requirement(spec, kind="sdist").root)
    except FetchError as exc:
        if what is None:
            raise
        raise FetchError(
            f"{what} {spec} cannot be fetched: {exc.message}",
            path=exc.path,
            line=exc.line,
            hint=exc.hint,
        ) from None


def _no_tree_error(spec: str, path: Path, what: str | None) -> TargetError:
    """The error for ``spec`` (``path`` expanded) naming no tree: a path that is not there,
    or something else than a directory or a release file."""
    from patchkeeper.system.regular import not_a_directory

    there = not_a_directory(path)
    return TargetError(
        f"{what + ': ' if what else ''}"
        + (f"{spec} {there}" if there else f"no such directory: {spec}"),
        hint="give a directory, a release's sdist or wheel file, or a pinned requirement "
        "such as vllm==0.32.0",
    )


def check_tree_spec(spec: str | None, what: str) -> None:
    """Refuse ``spec`` when :func:`tree_root` would, for what it is without reading it: a
    path that is not there, or that is neither a directory nor a release file. Called before
    the plugin is located, so that a value typed wrong is named before a setting left out
    (the package, which the user may not know is needed yet); nothing is fetched or
    unpacked here. ``what`` names the tree's role (:data:`OLD_UPSTREAM`).

    Raises:
        TargetError: as :func:`tree_root`'s for such a value.
    """
    if spec is None or not spec.strip():
        return  # none given (the caller's default), or empty: the option's own refusal
    path = Path(spec).expanduser()
    if path.is_dir():
        return
    from patchkeeper.upstream import fetch
    from patchkeeper.upstream.unpack import is_archive

    if (path.is_file() and is_archive(str(path))) or fetch.is_requirement(spec):
        return
    raise _no_tree_error(spec, path, what)


def upstream_root(root: Path, packages: tuple[str, ...]) -> Path:
    """The directory holding an upstream tree's packages: ``root`` (resolved) when it holds
    one of ``packages`` (``("vllm",)``); else its parent when ``root`` is the package
    directory itself (``.../vllm``); else the source folder that holds them when the tree
    keeps its packages below the top (``waitress-3.0.1/src/waitress``: the src layout, or
    the folder its ``pyproject.toml`` or ``setup.cfg`` names), as an sdist of such a
    project unpacks; else ``root``, for the caller to report."""
    from patchkeeper.system.pyproject import source_dirs

    root = root.resolve()
    if any((root / p).is_dir() for p in packages):
        return root
    if root.name in packages:
        return root.parent
    for folder in source_dirs(root):
        if any((folder / p).is_dir() for p in packages):
            return folder
    return root


def upstream_dir(spec: str, packages: tuple[str, ...], what: str | None = None) -> Path:
    """The directory holding the packages of the audit target ``spec`` (a directory or a
    requirement, :func:`tree_root`; ``what`` names its role in an error), as
    :func:`upstream_root` finds it: what an
    :class:`~patchkeeper.runtime.lookup.upstream_tree.UpstreamTree` is made from.

    Raises: as :func:`tree_root`; TargetError also when ``spec`` is a release file or a
    requirement whose tree holds none of ``packages`` (a release of another project): the
    error names ``spec`` as given and its role, never the directory it was unpacked to in
    the cache, which the user never typed and cannot change. A directory without them is
    left to :class:`~patchkeeper.runtime.lookup.upstream_tree.UpstreamTree`, which names
    it (it is the user's own) with what to pass instead.
    """
    root = upstream_root(tree_root(spec, what), packages)
    if any((root / p).is_dir() for p in packages) or Path(spec).expanduser().is_dir():
        return root
    names = " or ".join(packages)
    held = _top_packages(root)
    given = Path(spec).expanduser().is_file()
    raise TargetError(
        f"{what + ' ' if what else ''}{'' if given else spec + ' '}holds no {names} package"
        + (f" (its packages: {_listed(held)})" if held else ""),
        path=Path(spec) if given else None,
        hint=f"pass a release of the upstream whose package is {names} (its sdist or wheel "
        "file, its unpacked directory or NAME==VERSION), or name the packages to read in "
        "upstream-packages of [runtime] in the configuration",
    )


def with_requirement_packages(settings: RuntimeSettings, old: str, new: str) -> RuntimeSettings:
    """``settings`` with the packages :func:`requirement_packages` takes from the pins
    ``old`` and ``new`` when ``upstream-packages`` is not configured; as they are else.

    Raises: as :func:`requirement_packages`.
    """
    if settings.upstream_packages_set:
        return settings
    packages = requirement_packages(old, new, settings.upstream_packages)
    return replace(settings, upstream_packages=packages)


def requirement_packages(old: str, new: str, packages: tuple[str, ...]) -> tuple[str, ...]:
    """The packages to audit between ``old`` and ``new`` when ``upstream-packages`` is not
    configured (``packages``: the default, the configured upstream's or vLLM's): when both
    are pins of one project (``requests==2.32.3``, ``requests==2.32.5``) whose release
    holds none of ``packages``, that project's top-level packages (:func:`_project_packages`),
    with a warning naming them; ``packages`` otherwise (vLLM's pins, a directory, a file,
    two projects), and when the release holds no package either (its refusal follows).

    Raises: as :func:`tree_root` for ``old``.
    """
    from packaging.utils import canonicalize_name

    from patchkeeper.upstream import fetch

    pins = [fetch.exact_pin(spec) for spec in (old, new)]
    if pins[0] is None or pins[1] is None:
        return packages
    if canonicalize_name(pins[0][0]) != canonicalize_name(pins[1][0]):
        return packages
    root = upstream_root(tree_root(old, OLD_UPSTREAM), packages)
    if any((root / p).is_dir() for p in packages):
        return packages
    found = _project_packages(root, pins[0][0])
    if not found:
        return packages
    from patchkeeper.progress import warn

    warn(
        f"upstream-packages is not set: the packages audited are those of {pins[0][0]} "
        f"({', '.join(found)}, read from {old}); set upstream-packages of [runtime] in "
        "the configuration to audit others"
    )
    return found


def _project_packages(root: Path, project: str) -> tuple[str, ...]:
    """The top-level packages of the release unpacked at ``root`` of ``project``: those its
    ``top_level.txt`` lists (in an ``.egg-info`` folder of the sdist) that the tree holds,
    else the package named as the project is imported (``opentelemetry-api`` ->
    ``opentelemetry_api``), else the one package at its top (:func:`_top_packages`)."""
    from packaging.utils import canonicalize_name

    from patchkeeper.system.pyproject import source_dirs

    folders = (root, *source_dirs(root))
    held = set(_top_packages(root))
    listed: list[str] = []
    for folder in folders:
        for record in sorted(folder.glob("*.egg-info/top_level.txt")):
            try:
                text = record.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            listed += [n.strip() for n in text.splitlines() if n.strip() in held]
    if listed:
        return tuple(dict.fromkeys(listed))
    module = canonicalize_name(project).replace("-", "_")
    if module in held:
        return (module,)
    return tuple(sorted(held)) if len(held) == 1 else ()


def require_upstream(spec: str, packages: tuple[str, ...], what: str) -> Path:
    """:func:`upstream_dir`, and the same refusal as the runtime commands' for a directory
    that holds none of ``packages``: for a caller that must know the tree is usable before
    it writes anything (``upgrade`` keeps ``--to`` and ``--from`` in its state, so a tree
    its runtime steps cannot read would leave an upgrade ``--continue`` cannot finish).

    Raises: as :func:`upstream_dir`; TargetError also for a directory without the packages.
    """
    from patchkeeper.runtime.lookup.upstream_tree import missing_package_error

    root = upstream_dir(spec, packages, what)
    if not any((root / p).is_dir() for p in packages):
        raise missing_package_error(root, packages)
    return root


def _listed(names: list[str], shown: int = 5) -> str:
    """``names`` joined with commas, the first ``shown`` of them and how many more.

    >>> _listed(["a", "b"])
    'a, b'
    >>> _listed(["a", "b", "c"], shown=2)
    'a, b and 1 more'
    """
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _top_packages(root: Path) -> list[str]:
    """The packages (folders with ``__init__.py``) at the top of the tree ``root`` and in its
    source folders (``src``), sorted: what a release of another project holds instead."""
    from patchkeeper.system.pyproject import source_dirs

    found: set[str] = set()
    for folder in (root, *source_dirs(root)):
        try:
            children = list(folder.iterdir())
        except OSError:
            continue
        found.update(c.name for c in children if (c / "__init__.py").is_file())
    return sorted(found)


#: How errors name the trees of the runtime commands' ``--from`` and ``--to``.
OLD_UPSTREAM = "the old upstream (--from)"
NEW_UPSTREAM = "the new upstream (--to)"
