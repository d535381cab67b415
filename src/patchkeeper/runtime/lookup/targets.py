"""An audit target: a directory, or a requirement (``vllm==0.32.0``) fetched as an sdist
through :func:`patchkeeper.upstream.fetch.fetch_requirement` (downloaded once into the corpus
cache).
"""

from __future__ import annotations

from pathlib import Path

from patchkeeper.errors import TargetError


def tree_root(spec: str) -> Path:
    """The directory of an upstream tree named by ``spec`` (a directory or a requirement).

    Raises:
        TargetError: ``spec`` is neither an existing directory nor a requirement.
        FetchError: the requirement cannot be found, downloaded or unpacked.
    """
    path = Path(spec).expanduser()
    if path.is_dir():
        return path.resolve()
    from patchkeeper.upstream import fetch  # a requirement: only then

    if not fetch.is_requirement(spec):
        raise TargetError(
            f"no such directory: {spec}",
            hint="give a directory or a pinned requirement such as vllm==0.32.0",
        )
    return Path(fetch.fetch_requirement(spec, kind="sdist").root)


def upstream_root(root: Path, packages: tuple[str, ...]) -> Path:
    """The directory holding an upstream tree's packages: ``root`` (resolved), or its parent
    when ``root`` is the package directory itself (``.../vllm``) and holds none of
    ``packages`` (``("vllm",)``)."""
    root = root.resolve()
    if not any((root / p).is_dir() for p in packages) and root.name in packages:
        return root.parent
    return root


def upstream_dir(spec: str, packages: tuple[str, ...]) -> Path:
    """The directory holding the packages of the audit target ``spec`` (a directory or a
    requirement, :func:`tree_root`), as :func:`upstream_root` finds it: what an
    :class:`~patchkeeper.runtime.lookup.upstream_tree.UpstreamTree` is made from.

    Raises: as :func:`tree_root`.
    """
    return upstream_root(tree_root(spec), packages)
