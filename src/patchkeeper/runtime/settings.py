"""``[tool.patchkeeper.runtime]``: where the plugin is and how it patches.

A sample (``pyproject.toml`` of a plugin in the runtime audit workflow's shape)::

    [tool.patchkeeper.runtime]
    package = "vllm_metax"                  # the plugin's import package
    root = "."                              # the directory holding that package
    patch-directory = "vllm_metax/patch"    # default: <package>/patch, else the whole package
    decorators = ["vllm_metax.patch.utils.patch"]   # default: any `patch` inside the plugin
    entry-point-groups = ["vllm.general_plugins", "vllm.platform_plugins"]
    activation = ""                         # or "vllm_metax.patch:apply_all", a function
    ledger-file = ""                        # default: <patch-directory>/__init__.py
    header-fields = ["Note", "Affected versions", "Remove at"]
    markers = ["Modification"]              # banners around downstream changes
    upstream-packages = ["vllm"]            # default: the configured upstream's import name

Command-line options override these keys.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.config import NotBlank, NotEmpty, register_section
from patchkeeper.errors import ConfigError
from patchkeeper.system.pyproject import source_dirs
from patchkeeper.system.regular import not_a_directory

SECTION = "runtime"
DEFAULT_GROUPS = ("vllm.general_plugins", "vllm.platform_plugins")
DEFAULT_HEADER_FIELDS = ("Note", "Affected versions", "Remove at")

register_section(
    SECTION,
    {
        "package": (
            str,
            "",
            NotBlank('the plugin\'s import package: package = "vllm_metax"'),
        ),
        "root": (str, ".", NotEmpty('the plugin directory, relative to this file: root = "."')),
        "patch-directory": (
            str,
            "",
            NotBlank(
                'the patch modules\' folder: patch-directory = "vllm_metax/patch"; "" for '
                "<package>/patch, else the whole package"
            ),
        ),
        "decorators": (list, []),
        "entry-point-groups": (list, list(DEFAULT_GROUPS)),
        "activation": (
            str,
            "",
            NotBlank(
                'the function that applies the patches: activation = "vllm_metax.patch:apply_all"'
            ),
        ),
        "ledger-file": (
            str,
            "",
            NotBlank(
                'the file of the patches\' ledger; "" (the default) for '
                "<patch-directory>/__init__.py"
            ),
        ),
        "header-fields": (list, list(DEFAULT_HEADER_FIELDS)),
        "markers": (list, ["Modification"]),
        "upstream-packages": (list, []),
    },
)


@dataclass(frozen=True, kw_only=True)
class PluginLocation:
    """Where the plugin is when the command line says it (``--plugin``, ``--package``,
    ``--patch-dir``, as :func:`patchkeeper.commands.options.plugin_options` declares them),
    overriding ``[tool.patchkeeper.runtime]``: ``runtime inventory``'s request, and the
    fields the other runtime commands' requests share.

    Attributes:
        plugin: the directory holding the plugin package; default ``None``, the configured
            one.
        package: the plugin's import package; default ``None``, the configured one.
        patch_directory: the patch directory relative to the plugin root; default ``None``,
            ``<package>/patch``.
    """

    plugin: Path | None = None
    package: str | None = None
    patch_directory: str | None = None


@dataclass(frozen=True, kw_only=True)
class RuntimeAuditRequest(PluginLocation):
    """What ``runtime audit`` is asked to do; each field is the option of the same parameter
    name, so the command builds it from click's parsed parameters and the evidence is read
    back from it; the plugin's location as :class:`PluginLocation` says. A module that loads
    no audit holds it, so that a remembered audit is answered without loading one
    (:mod:`patchkeeper.runtime.remembered`).

    Attributes:
        old: the old upstream (``--from``): a directory or a requirement ``NAME==VERSION``.
        new: the new upstream (``--to``), in the same forms.
    """

    old: str
    new: str


@dataclass(frozen=True)
class RuntimeSettings:
    """The resolved settings (absolute ``root``; other paths relative to it, POSIX)."""

    root: Path
    package: str
    patch_directory: str
    decorators: tuple[str, ...] = ()
    entry_point_groups: tuple[str, ...] = DEFAULT_GROUPS
    activation: str = ""
    ledger_file: str = ""
    header_fields: tuple[str, ...] = DEFAULT_HEADER_FIELDS
    markers: tuple[str, ...] = ("Modification",)
    upstream_packages: tuple[str, ...] = ("vllm",)
    #: Whether ``upstream_packages`` was set in the configuration (``upstream-packages``),
    #: rather than taken from the configured upstream or vLLM.
    upstream_packages_set: bool = False


def located_settings(config: Any | None, location: PluginLocation) -> RuntimeSettings:
    """:func:`resolve_settings` with the overrides ``location`` holds.

    Raises: as :func:`resolve_settings`.
    """
    return resolve_settings(
        config,
        plugin=location.plugin,
        package=location.package,
        patch_directory=location.patch_directory,
    )


#: What to do when the plugin's directory is not found: the option, or the key and its table
#: (spelled as the configuration file in use spells it when the error is shown).
ROOT_HINT = (
    'pass --plugin DIR (the directory holding the package), or set root = "DIR" in '
    "[tool.patchkeeper.runtime]"
)


def resolve_settings(
    config: Any | None,
    *,
    plugin: Path | None = None,
    package: str | None = None,
    patch_directory: str | None = None,
) -> RuntimeSettings:
    """Combine ``[tool.patchkeeper.runtime]`` of ``config`` (a
    :class:`patchkeeper.config.Config`, or ``None``) with command-line overrides.

    Raises:
        ConfigError: the package is not known, or the plugin root or patch directory does not
            exist (or is no directory).
    """
    table: dict[str, Any] = dict(config.sections.get(SECTION, {})) if config else {}
    base = config.root if config else Path.cwd()
    root = (plugin if plugin is not None else base / table.get("root", ".")).resolve()
    name = package or table.get("package") or ""
    # A place typed wrong (the plugin's directory, the patch directory) is named before a
    # package left out: the user fixes what they gave before learning what else is needed.
    if not root.is_dir():
        raise ConfigError(
            f"the plugin directory {root} {not_a_directory(root) or 'does not exist'}",
            hint=ROOT_HINT,
        )
    if not name and patch_directory:
        _check_given_patch_dir(root, normal_relative(patch_directory))
    if not name:
        hint = 'pass --package NAME or set package = "NAME" in [tool.patchkeeper.runtime]'
        # what --package can name, as when the name given is not there (a src layout's too)
        found = _nameable_packages(root)
        if found:
            hint = f"the packages in {root}: {', '.join(found)}; {hint}"
        elif archives := _archives_hint(root):
            hint = archives
        raise ConfigError(
            "the plugin package is not configured",
            path=getattr(config, "source", None),
            hint=hint,
        )
    _check_package_name(name, None if package else getattr(config, "source", None))
    if not (root / name.replace(".", "/")).is_dir():
        # a src layout, or the folder the project files name: the package is under DIR/src
        # (DIR/python, ...), its project files in DIR
        holding = [d for d in source_dirs(root) if (d / name.split(".")[0]).is_dir()]
        # a single module there (py-modules in a src layout) is told as one, below
        holding = holding or [
            d for d in source_dirs(root) if (d / (name.replace(".", "/") + ".py")).is_file()
        ]
        root = holding[0] if holding else root
    if not (root / name.replace(".", "/")).is_dir() and (data := _wheel_data(root, name)):
        root = data  # an unpacked wheel: the package under NAME.data/purelib, .dist-info in DIR
    if not (root / name.replace(".", "/")).is_dir():
        module = root / (name.replace(".", "/") + ".py")
        if module.is_file():
            # a plugin of top-level modules (setuptools' py-modules): the directory is right,
            # the shape is not; a copy with the module as its package's __init__ reads the same
            last = name.rsplit(".", 1)[-1]
            raise ConfigError(
                f"the plugin package {name} is not under {root}: {module} is a single module, "
                "and the runtime commands read a package (a directory with its __init__.py)",
                hint=f"to read the module, copy the plugin and move {last}.py to "
                f"{last}/__init__.py in the copy (the import name stays {name}), then pass "
                "the copy as --plugin",
            )
        hint = ROOT_HINT
        if (inside := _inside_package_hint(root, name)) is not None:
            hint = inside
        elif found := _nameable_packages(root):
            hint = f"the packages there: {', '.join(found)}; pass --package NAME, one of them"
        elif archives := _archives_hint(root):
            hint = archives
        raise ConfigError(f"the plugin package {name} is not under {root}", hint=hint)
    _refuse_subpackage(root, name, None if package else getattr(config, "source", None))
    chosen = patch_directory or table.get("patch-directory") or ""
    directory = normal_relative(chosen) if chosen else default_patch_directory(root, name)
    if not (root / directory).resolve().is_relative_to(root):
        raise ConfigError(
            f"the patch directory {directory} leaves the plugin directory {root}",
            hint="give --patch-dir (or patch-directory) relative to the plugin directory, "
            "inside it",
        )
    if not (root / directory).is_dir():
        hint = "pass --patch-dir or set patch-directory in [tool.patchkeeper.runtime]"
        candidates = _patch_dirs(root, name)
        if candidates:
            hint = f"the package has {', '.join(candidates)}: pass --patch-dir {candidates[0]}"
            hint += " (or set patch-directory in [tool.patchkeeper.runtime])"
        holder = posixpath.dirname(directory)
        if (root / directory).is_file() and holder and (root / holder).is_dir():
            # a module of the patch directory given for it: the folder that holds it
            hint = (
                f"the patch directory is the folder holding the patch modules: pass "
                f"--patch-dir {holder} (or set patch-directory in [tool.patchkeeper.runtime])"
            )
        there = not_a_directory(root / directory)
        problem = f"under {root} {there}" if there else f"does not exist under {root}"
        raise ConfigError(f"the patch directory {directory} {problem}", hint=hint)
    upstream = table.get("upstream-packages") or [default_upstream_package(config)]
    return RuntimeSettings(
        root=root,
        package=name,
        patch_directory=directory.strip("/"),
        decorators=tuple(table.get("decorators", ())),
        entry_point_groups=tuple(table.get("entry-point-groups", DEFAULT_GROUPS)),
        activation=table.get("activation", ""),
        ledger_file=table.get("ledger-file", ""),
        header_fields=tuple(table.get("header-fields", DEFAULT_HEADER_FIELDS)),
        markers=tuple(table.get("markers", ("Modification",))),
        upstream_packages=tuple(upstream),
        upstream_packages_set=bool(table.get("upstream-packages")),
    )


def _check_given_patch_dir(root: Path, directory: str) -> None:
    """Refuse ``--patch-dir`` ``directory`` (normalized) before the package is known when no
    plugin layout could hold it: it leads out of the plugin directory ``root``, or it is a
    folder neither of ``root`` nor of a source folder of it (``src/``), where the package
    and so its patch directory would be.

    Raises:
        ConfigError: naming the patch directory and the plugin directory.
    """
    if not (root / directory).resolve().is_relative_to(root):
        raise ConfigError(
            f"the patch directory {directory} leaves the plugin directory {root}",
            hint="give --patch-dir (or patch-directory) relative to the plugin directory, "
            "inside it",
        )
    if any((folder / directory).is_dir() for folder in (root, *source_dirs(root))):
        return
    there = not_a_directory(root / directory)
    problem = f"under {root} {there}" if there else f"does not exist under {root}"
    raise ConfigError(
        f"the patch directory {directory} {problem}",
        hint=f"give --patch-dir relative to the plugin directory {root} (the folder holding "
        "the patch modules, as PACKAGE/patches), and the package: --package NAME or package = "
        '"NAME" in [tool.patchkeeper.runtime]',
    )


def default_upstream_package(config: Any | None) -> str:
    """The upstream package the runtime commands read when ``upstream-packages`` is not set:
    the import name of the configured ``upstream`` (a distribution name: ``vllm-ascend``
    installs ``vllm_ascend``, and no import name holds a ``-``), else ``vllm``."""
    return (getattr(config, "upstream", None) or "vllm").replace("-", "_")


def warn_missing_packages(packages: tuple[str, ...], roots: tuple[Path, Path]) -> None:
    """Warn of each of ``packages`` (the configured ``upstream-packages``) that neither tree
    ``roots`` holds (:func:`patchkeeper.progress.warn`): the audit reads a patch of such a
    package as outside the upstream being upgraded, which is wrong when the package is part
    of the upgrade (trees of vllm_ascend alone with vllm configured besides, a link to the
    package that leads nowhere). Called where an audit is asked for, so that a remembered
    result warns as a computed one does."""
    from patchkeeper.progress import warn

    missing = [p for p in packages if not any((root / p).is_dir() for root in roots)]
    if not missing or len(missing) == len(packages):
        return  # none of them: the trees are refused with their own error
    named = ", ".join(missing)
    warn(
        f"{named} ({'one' if len(missing) == 1 else 'some'} of upstream-packages) "
        f"{'is' if len(missing) == 1 else 'are'} in neither upstream tree ({roots[0]}, "
        f"{roots[1]}): the patches of {named} are taken as outside this upgrade and not "
        "audited; give trees that hold every package listed, or take out of "
        "upstream-packages what this upgrade does not change"
    )


def normal_relative(given: str) -> str:
    """``given``, a POSIX path the user wrote, as it is shown and compared: repeated
    slashes, ``.`` parts and a trailing slash taken out (``./plug//patch/`` ->
    ``plug/patch``), ``..`` parts kept only where they lead out (``plug/../x`` -> ``x``).
    The patch directory is shown in every result and its entries' files are matched
    against it by prefix, so ``plug//patch`` must not stay as written."""
    return posixpath.normpath(re.sub("/{2,}", "/", given))


def _check_package_name(name: str, source: Path | None) -> None:
    """Refuse a package given as a path (``../../etc``, ``src/pkg``, ``/opt/pkg``).

    The package is found as ``ROOT/a/b`` from the import name ``a.b``: a path given for it
    would turn each dot into a slash and name a folder outside the plugin (``//////etc``),
    shown to the user as that. A name that is no path but no import name either
    (``vllm-ascend``) goes on, to be told the packages the plugin has. ``source`` is the
    configuration file when the name comes from there (``None``: from ``--package``).

    Raises:
        ConfigError: ``name`` holds a slash, a backslash or an empty dotted part.
    """
    if "/" not in name and "\\" not in name and all(name.split(".")):
        return
    raise ConfigError(
        f"the plugin package {name!r} is a path, not an import name",
        path=source,
        hint="give the directory holding the package as --plugin DIR (or root) and its "
        "import name as --package NAME (or package), e.g. --plugin . --package vllm_ascend",
    )


def _refuse_subpackage(root: Path, name: str, source: Path | None) -> None:
    """Refuse a package ``name`` (``a.b``) inside a regular package (``a/__init__.py``):
    the plugin is loaded through ``a`` (its entry point names ``a:register``), so with
    ``a.b`` as the plugin package what ``a`` imports is not read, and every patch of ``a.b``
    would be listed as never imported. The patches of ``a.b`` alone are ``--package a
    --patch-dir a/b``. A namespace package (``a`` without ``__init__.py``) is left alone:
    ``a.b`` is then the plugin's top package. ``source`` is the configuration file when the
    name comes from there.

    Raises:
        ConfigError: naming the top package and the options to pass.
    """
    top = name.split(".")[0]
    if name == top or not (root / top / "__init__.py").is_file():
        return
    folder = name.replace(".", "/")
    raise ConfigError(
        f"the plugin package {name} is a subpackage of {top}: the plugin is loaded through "
        f"{top}, which {name} alone would not read (its patches would look never imported)",
        path=source,
        hint=f"pass --package {top} --patch-dir {folder} for the patches of {name} (or set "
        f'package = "{top}" and patch-directory = "{folder}" in [tool.patchkeeper.runtime])',
    )


#: The folders of an unpacked wheel's ``NAME-VERSION.data`` whose packages pip installs
#: beside the others in site-packages (the wheel format's ``purelib`` and ``platlib``
#: schemes): a wheel built with a package there has only its ``.dist-info`` at the top.
WHEEL_SCHEMES = ("purelib", "platlib")


def wheel_root(root: Path) -> Path | None:
    """The unpacked wheel whose ``NAME-VERSION.data/purelib`` (or ``platlib``) folder is
    ``root``, where its ``.dist-info`` is; ``None`` for any other folder."""
    if root.name in WHEEL_SCHEMES and root.parent.name.endswith(".data"):
        return root.parent.parent
    return None


def _wheel_folders(root: Path) -> list[Path]:
    """The ``*.data/purelib`` and ``*.data/platlib`` folders of the unpacked wheel ``root``."""
    return sorted(d for scheme in WHEEL_SCHEMES for d in root.glob(f"*.data/{scheme}"))


def _wheel_data(root: Path, name: str) -> Path | None:
    """The one folder of the unpacked wheel ``root`` (:func:`_wheel_folders`) holding the
    package ``name``, or ``None``."""
    found = [d for d in _wheel_folders(root) if (d / name.replace(".", "/")).is_dir()]
    return found[0] if len(found) == 1 else None


def _wheel_packages(root: Path) -> list[str]:
    """The import packages of the unpacked wheel ``root`` kept under its ``.data``."""
    return sorted({name for d in _wheel_folders(root) for name in _packages(d)})


#: The endings of the archives a plugin comes in (``pip download`` gives a wheel or an sdist).
_ARCHIVES = (".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz")


def _archives_hint(root: Path) -> str | None:
    """What to pass when the plugin directory ``root`` holds no package but archives of one
    (the folder ``pip download -d DIR`` filled), else ``None``: the archives are not read,
    so the advice is to unpack one and pass its directory, as for an archive given as
    ``--plugin``."""
    try:
        archives = sorted(
            f.name for f in root.iterdir() if f.name.endswith(_ARCHIVES) and f.is_file()
        )
    except OSError:
        return None
    if not archives:
        return None
    shown = ", ".join(archives[:3]) + (
        f" and {len(archives) - 3} more" if len(archives) > 3 else ""
    )
    return (
        f"{root} holds archives, not an unpacked plugin ({shown}): unpack the plugin's "
        "(python -m zipfile -e FILE.whl DIR, or tar -xf FILE.tar.gz -C DIR) and pass its "
        "directory as --plugin"
    )


def _inside_package_hint(root: Path, name: str) -> str | None:
    """What to pass when the plugin directory ``root`` is a package or a folder inside one
    (``--plugin plug/vllm_x/sub`` with ``--package vllm_x``), else ``None``.

    The package is looked for under ``--plugin``, so a directory inside it never holds it:
    the plugin directory is the one above the top package (the highest folder of the
    ``__init__.py`` chain ``root`` is in). ``name`` given as the package ``root`` is, when
    that is a subpackage, is read through its top package with its folder as the patch
    directory (as :func:`_refuse_subpackage` advises); any other ``name`` is told the
    directory above the top package, and the packages there when ``name`` is none of them.
    """
    if not (root / "__init__.py").is_file():
        # a plain folder (a package's data, its tests) inside a package: from its parent
        holder = root.parent
        if not (holder / "__init__.py").is_file():
            return None
    else:
        holder = root
    top = holder
    while (top.parent / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    plugin = top.parent
    where = f"{root} is inside the package {top.name} ({top})"
    if top == root:
        where = f"{root} is the package {top.name} itself"
    last = name.rsplit(".", 1)[-1]
    if root == holder and last == root.name and top != root:
        folder = root.relative_to(plugin).as_posix()
        return (
            f"{where}: pass --plugin {shlex.quote(str(plugin))} --package {top.name} "
            f"--patch-dir {shlex.quote(folder)} "
            f"(the plugin is loaded through {top.name})"
        )
    if name.split(".")[0] == top.name or last == root.name:
        return f"{where}: pass --plugin {shlex.quote(str(plugin))}"
    found = _nameable_packages(plugin)
    there = f"{', '.join(found)}" if found else "none"
    return (
        f"{where}: pass --plugin {shlex.quote(str(plugin))} and --package NAME, one of the "
        f"packages there: {there}"
    )


def _nameable_packages(root: Path) -> list[str]:
    """Every package ``--package`` can name under the plugin directory ``root``: those of
    its source folders (a src layout, the folder its project files name) first, then those
    at its top, then an unpacked wheel's; each once. A src layout's project may keep a
    package of its own at the top (``benchmarks/``, ``tests/``): listing that one alone would
    send the user to the wrong package."""
    found = [*_source_packages(root), *_packages(root), *_wheel_packages(root)]
    return list(dict.fromkeys(found))


def _source_packages(project: Path) -> list[str]:
    """The import packages of the first of ``project``'s :func:`source_dirs` that has any."""
    for folder in source_dirs(project):
        found = _packages(folder)
        if found:
            return found
    return []


def _packages(root: Path) -> list[str]:
    """The import packages directly under ``root`` (folders with an ``__init__.py``), sorted;
    what ``--package`` can name (a wheel's distribution name is not always its package's:
    vllm-musa installs ``vllm_musa_platform``)."""
    try:
        return sorted(d.name for d in root.iterdir() if (d / "__init__.py").is_file())
    except OSError:
        return []


def _patch_dirs(root: Path, package: str) -> list[str]:
    """Folders of the plugin package named ``patch*`` (``patches``, ``patch_v2``), relative to
    ``root``, nearest first: where the patch directory most likely is (vllm-rbln and
    vllm-kunlun keep theirs in ``<package>/patches``)."""
    base = root / package.replace(".", "/")
    found = [d for d in base.rglob("patch*") if d.is_dir() and "__pycache__" not in d.parts]
    found.sort(key=lambda d: (len(d.relative_to(base).parts), d.as_posix()))
    return [d.relative_to(root).as_posix() for d in found[:3]]


def default_patch_directory(root: Path, package: str) -> str:
    """The patch directory when none is configured: ``<package>/patch`` where the plugin
    has one, else the whole package (relative to ``root``, POSIX). Many plugins keep their
    patches beside the rest of their code (tpu-inference, vllm-spyre) or in another folder
    (``patches``): scanning the whole package finds them all, where stopping with an error
    would leave a new user with nothing."""
    base = package.replace(".", "/")
    return f"{base}/patch" if (root / base / "patch").is_dir() else base
