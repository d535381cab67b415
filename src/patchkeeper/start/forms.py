"""Which form of patch series a directory holds, and why (``patchkeeper init``).

The five forms and how each lays its series out:

- *quilt*: ``patches/series`` lists the patches of ``patches/`` in apply order, one a line,
  with an optional ``-pN`` (quilt's layout; the environment variable ``QUILT_PATCHES`` names
  another directory than ``patches``, and is honoured here too).
- *Debian*: ``debian/patches/series`` in a source package of the "3.0 (quilt)" format
  (``debian/source/format``); ``gbp pq export`` writes the same file. Patch headers follow
  DEP-3.
- *git format-patch*: a directory of ``NNNN-subject.patch`` files (four digits or more, from
  ``0001``; ``-v N`` prefixes ``vN-``) and no series file: the numbers are the order.
  ``0000-cover-letter.patch`` carries no diff and is left out
  (:mod:`patchkeeper.series.cover_letter`).
- *RPM spec*: a ``NAME.spec`` file whose ``Patch`` tags name the patches beside it and whose
  ``%prep`` applies them (:mod:`patchkeeper.start.rpm_spec`); init writes the series, in
  ``%prep``'s order with each statement's ``-pN``, beside the spec.
- *git branch*: a git checkout whose commits since an upstream tag are the downstream's
  changes; ``git format-patch TAG..HEAD`` turns them into the series (merge commits are not
  patches: ``git format-patch`` skips them).

A series file or a patch directory wins over the git branch: nearly every downstream is a git
repository with tags of its own, so the branch form is taken only when nothing else is found
or when ``--tag`` asks for it. Two series files found at once are ambiguous: ``--patches``
chooses.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from patchkeeper.errors import PatchFormatError, PatchkeeperError
from patchkeeper.series.cover_letter import is_cover_letter
from patchkeeper.series.parse import parse_series
from patchkeeper.start.branch_check import branch_warnings
from patchkeeper.start.plugin import (
    RuntimePlugin,
    RuntimePluginHere,
    runtime_plugin,
    wheel_plugin,
)
from patchkeeper.start.rpm_spec import (
    SpecSeries,
    holds_patches,
    parse_spec,
    read_spec,
    spec_text,
)
from patchkeeper.system.regular import read_regular
from patchkeeper.upstream import gitops

QUILT = "quilt"
DEBIAN = "debian"
FORMAT_PATCH = "format-patch"
RPM = "rpm"
GIT = "git"

#: A ``git format-patch`` file name: an optional reroll prefix, the number, the subject.
NUMBERED = re.compile(r"^(?:v\d+-)?(\d{4,})-.+\.patch$")

#: What to tell a user whose directory holds no series init recognises.
CHOOSE = (
    "run init in the directory that holds the series, or pass --patches PATH (a series file, "
    "an RPM spec, or a directory of git format-patch files), or --tag TAG in a git checkout whose "
    "commits since TAG are the patches"
)


@dataclass(frozen=True)
class Found:
    """A series found in a directory, or to be made from a git branch.

    Attributes:
        form: :data:`QUILT`, :data:`DEBIAN`, :data:`FORMAT_PATCH` or :data:`GIT`.
        series: the series file (absolute; written by init for the last two forms).
        reason: why this form, in a sentence (what was found where).
        names: the series entries, in apply order, relative to the series' directory.
        new_files: the files init writes besides the configuration and the ledger (the
            series file, and the patch files of a git branch): ``(path, bytes)``.
        tag: the upstream tag of a git branch, else ``None``.
        notes: what the user should know (a cover letter left out, merge commits skipped).
        warnings: what makes the series one ``apply`` refuses or one that is not the branch
            (a git branch: :func:`patchkeeper.start.branch_check.branch_warnings`).
        lines: the 1-based line of each of ``names`` in a series file that existed, or of
            its ``Patch`` tag in an RPM spec (empty for the other series init writes), so an
            unreadable entry is named by its line.
        source: the file the series was read from when init writes the series (an RPM
            spec), else ``None``.
        spec: what the RPM spec ``source`` says, parsed once when the form was found (its
            upstream name and version give the pin), else ``None``.
    """

    form: str
    series: Path
    reason: str
    names: tuple[str, ...]
    new_files: tuple[tuple[Path, bytes], ...] = ()
    tag: str | None = None
    notes: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    source: Path | None = None
    spec: SpecSeries | None = None
    warnings: tuple[str, ...] = ()

    def patch_bytes(self, name: str) -> tuple[Path, bytes]:
        """The path and bytes of the series entry ``name`` (a file init writes, or one on disk).

        Raises:
            PatchkeeperError: the file listed in the series cannot be read (naming the series
                and its line, or for an RPM spec the spec and the patch's tag line).
        """
        path = self.series.parent / name
        for new_path, data in self.new_files:
            if new_path == path:
                return path, data
        try:
            return path, read_regular(path)
        except OSError as exc:
            if self.source is not None:
                raise PatchkeeperError(
                    f"{name}, which the spec's %prep applies, cannot be read beside the spec: "
                    f"{exc.strerror}",
                    path=self.source,
                    line=dict(zip(self.names, self.lines)).get(name),
                    hint="put the patch file beside the spec; or, when the build the downstream "
                    "follows does not apply it, write a series file beside the spec without it "
                    "and run init with --patches SERIES --upstream NAME==VERSION",
                ) from None
            raise PatchkeeperError(
                f"{name} is listed in the series but cannot be read: {exc.strerror}",
                path=self.series,
                line=dict(zip(self.names, self.lines)).get(name),
                hint="restore the patch file, or take its line out of the series",
            ) from None


def shown(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (POSIX form), the directory ``init`` runs in: below it
    (``patches/series``), or up from it (``../shared/series``) for a series given from
    elsewhere, so every line of ``init``'s output names its files one way. A path on
    another drive (Windows), which no relative path reaches, is given as it is.

    >>> shown(Path("/w/ds/patches/series"), Path("/w/ds")), shown(Path("/w/s/x"), Path("/w/ds"))
    ('patches/series', '../s/x')
    """
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        pass
    try:
        return Path(os.path.relpath(path, root)).as_posix()
    except ValueError:
        return path.as_posix()


def detect(
    root: Path,
    *,
    patches: Path | None = None,
    tag: str | None = None,
    upstream: str | None = None,
    patching: Callable[[Path, str | None], RuntimePlugin | None] | None = None,
) -> Found:
    """The series form of the downstream directory ``root`` (absolute).

    Args:
        patches: ``--patches``: a series file, or a directory holding one or holding git
            format-patch files (relative paths are read from ``root``).
        tag: ``--tag``: the upstream tag a git checkout's commits sit on.
        upstream: the upstream's distribution name (``init --upstream``), or ``None``.
        patching: ``patching(root, upstream)``, the runtime plugin a directory with no series
            is by its modules alone, or ``None`` (the runtime inventory's detection:
            :func:`patchkeeper.commands.init.patching_plugin`, which this layer cannot
            import); ``None``: not asked.

    Raises:
        PatchkeeperError: none found, two found (naming each and ``--patches``), or the
            chosen path holds no series (exit 2).
    """
    if tag is not None and patches is not None:
        raise PatchkeeperError(
            "--tag makes the series from git commits, --patches names one that exists: "
            "give one of them",
            path=root,
        )
    if tag is not None:
        return _from_git(root, tag, reason=f"--tag {tag}")
    if patches is not None:
        return _chosen(root, (root / patches).resolve())
    found = _candidates(root)
    if len(found) > 1:
        listed = "; ".join(f"{shown(item.series.parent, root)} ({item.reason})" for item in found)
        choices = " or ".join(f"--patches {shown(_argument(item), root)}" for item in found)
        raise PatchkeeperError(
            f"more than one patch series here: {listed}",
            path=root,
            hint=f"choose one: {choices}",
        )
    if found:
        return found[0]
    described = _described_tag(root)
    if described is not None:
        return _from_git(root, described, reason=f"git describe found the tag {described}")
    message = (
        "no patch series here: no patches/series (quilt), no debian/patches/series (Debian), "
        "no git format-patch files (0001-*.patch) in patches/ or here, no RPM spec with Patch "
        "tags or a %patchlist here, and no git branch with commits since a tag"
    )
    plugin = runtime_plugin(root)
    if plugin is not None:  # patches its upstream at run time: the runtime commands read it
        raise RuntimePluginHere(
            f"no patch series here: pyproject.toml declares a runtime plugin of "
            f"{plugin.upstream} ({plugin.reason}), whose patches are made at run time",
            plugin,
            path=root,
        )
    wheel = wheel_plugin(root)
    if wheel is not None:  # an unpacked wheel: read as it is, configured in its source tree
        declared, info = wheel
        old = f"{declared.upstream}=={declared.pin or 'VERSION'}"
        plugin_options = f"--plugin . --package {declared.package or 'PACKAGE'}"
        raise PatchkeeperError(
            f"no patch series here: {info}/entry_points.txt declares a runtime plugin of "
            f"{declared.upstream} ({declared.reason}), an unpacked wheel whose patches are "
            "made at run time",
            path=root,
            hint=f"the runtime commands read it as it is: 'patchkeeper runtime inventory "
            f"{plugin_options}', then 'patchkeeper runtime audit {plugin_options} --from "
            f"{old} --to {declared.upstream}==VERSION'; init configures a plugin in its source "
            "tree, where its pyproject.toml is",
        )
    undeclared = _unpacked_wheel(root)
    if undeclared is not None:  # no entry point: loaded by a name its users give (a worker)
        info, package = undeclared
        raise PatchkeeperError(
            f"{message}; {info} is an unpacked wheel of the package {package}, which "
            "declares no entry point in a plugin group; if it is a plugin its users load by "
            "name (a worker class given as vLLM's --worker-cls), its patches are made at run "
            "time",
            path=root,
            hint=f"the runtime commands read it as it is: 'patchkeeper runtime inventory "
            f"--plugin . --package {package}' lists its patches, then runtime audit, port and "
            "lock; name the function or class that loads it as activation in "
            "[tool.patchkeeper.runtime] (docs/commands/runtime.md), or the activation of its "
            "patches is untraced",
        )
    patched = patching(root, upstream) if patching is not None else None
    if patched is not None:  # declared nowhere, but its modules patch the upstream
        raise RuntimePluginHere(
            f"no patch series here: the runtime inventory finds that {patched.reason}, so "
            f"this is a runtime plugin of {patched.upstream}, whose patches are made at run "
            "time",
            patched,
            path=root,
        )
    raise PatchkeeperError(message, path=root, hint=CHOOSE)


def _unpacked_wheel(root: Path) -> tuple[str, str] | None:
    """``(dist-info directory, package)`` when ``root`` is an unpacked wheel (one
    ``NAME-VERSION.dist-info`` with a ``METADATA`` file) beside a package directory (its
    ``__init__.py``), or with one under ``NAME-VERSION.data/purelib`` (or ``platlib``),
    where a wheel may keep it; the package is ``PACKAGE`` when there are several. ``None``
    otherwise."""
    infos = [p for p in sorted(root.glob("*.dist-info")) if (p / "METADATA").is_file()]
    inits = [*root.glob("*/__init__.py"), *root.glob("*.data/*lib/*/__init__.py")]
    packages = sorted({p.parent.name for p in inits})
    if len(infos) != 1 or not packages:
        return None
    return infos[0].name, packages[0] if len(packages) == 1 else "PACKAGE"


def _argument(item: Found) -> Path:
    """What ``--patches`` takes to choose ``item``: the spec of an RPM form, the series file
    when it exists, else the directory of the git format-patch files."""
    if item.source is not None:
        return item.source
    return item.series if item.series.exists() else item.series.parent


def _candidates(root: Path) -> list[Found]:
    """Every series form found in ``root``. A directory's git format-patch files that an
    RPM spec there names are that spec's patches (Fedora keeps ``0001-*.patch`` files beside
    its specs), not a second series."""
    found = []
    debian = root / "debian" / "patches" / "series"
    if debian.is_file():
        found.append(_series_form(root, debian))
    quilt_dir = root / os.environ.get("QUILT_PATCHES", "patches")
    quilt = quilt_dir / "series"
    if quilt.is_file() and quilt.resolve() != debian.resolve():
        found.append(_series_form(root, quilt))
    for directory in (quilt_dir, root):
        if directory.is_dir() and not (directory / "series").exists():
            numbered = _numbered(directory)
            if numbered:
                found.append(_format_patch(root, directory, numbered))
    for spec in sorted(root.glob("*.spec")):
        rpm = _spec_form(root, spec)
        if rpm is not None:
            found = [
                item
                for item in found
                if not (
                    item.form == FORMAT_PATCH
                    and item.series.parent == spec.parent
                    and set(item.names) <= set(rpm.names)
                )
            ]
            found.append(rpm)
    return found


def _chosen(root: Path, path: Path) -> Found:
    if path.is_file() and path.suffix == ".spec":
        return _rpm_form(root, path, read_spec(path))
    if path.is_file():
        return _series_form(root, path)
    if not path.is_dir():
        raise PatchkeeperError(
            "--patches names nothing here", path=path, hint="give a series file or a directory"
        )
    if (path / "series").is_file():
        return _series_form(root, path / "series")
    numbered = _numbered(path)
    if not numbered:
        raise PatchkeeperError(
            "no series file and no git format-patch files (0001-*.patch) in this directory",
            path=path,
            hint="give the series file itself, or the directory git format-patch -o wrote",
        )
    return _format_patch(root, path, numbered)


def _series_form(root: Path, series: Path) -> Found:
    """A series file that exists: Debian's when it is ``debian/patches/series``, else quilt's.

    Raises:
        PatchFormatError: the series file cannot be read or has a bad line.
    """
    entries = parse_series(series).entries
    names = tuple(entry.name for entry in entries)
    lines = tuple(entry.line_no for entry in entries)
    where = shown(series, root)
    if series.parent.name == "patches" and series.parent.parent.name == "debian":
        source_format = series.parent.parent / "source" / "format"
        try:
            declared = read_regular(source_format).decode("utf-8", "replace").strip()
        except OSError:
            declared = ""
        said = f', and debian/source/format says "{declared}"' if declared else ""
        reason = f"{where} is a Debian source package's patch series{said}"
        return Found(DEBIAN, series, reason, names, lines=lines)
    return Found(
        QUILT, series, f"{where} lists the patches in apply order (quilt)", names, lines=lines
    )


def _numbered(directory: Path) -> list[tuple[int, str]]:
    """The ``git format-patch`` files of ``directory``: ``(number, name)`` in number order."""
    out = []
    for path in directory.iterdir():
        match = NUMBERED.match(path.name)
        if match and path.is_file() and not is_cover_letter(path):
            out.append((int(match[1]), path.name))
    return sorted(out)


def _format_patch(root: Path, directory: Path, numbered: list[tuple[int, str]]) -> Found:
    """A directory of ``git format-patch`` files: the series init writes lists them in order.

    Raises:
        PatchkeeperError: two files carry one number (two rerolls mixed in one directory).
    """
    seen: dict[int, str] = {}
    for number, name in numbered:
        if number in seen:
            raise PatchkeeperError(
                f"two git format-patch files are number {number:04d}: {seen[number]} and {name}",
                path=directory,
                hint="keep one series in the directory (git format-patch -v N writes a reroll "
                "with the prefix vN-), or write the series file yourself",
            )
        seen[number] = name
    names = tuple(name for _, name in numbered)
    series = directory / "series"
    notes: tuple[str, ...] = ()
    letters = sorted(path.name for path in directory.iterdir() if is_cover_letter(path))
    notes = tuple(f"the cover letter ({name}) holds no diff: it is not listed" for name in letters)
    where = "this directory" if directory == root else shown(directory, root)
    reason = (
        f"{where} holds {len(names)} git format-patch file(s) ({names[0]} ...) and no series "
        "file: their numbers give the order"
    )
    text = "# the git format-patch files, in the order of their numbers\n" + "".join(
        f"{name}\n" for name in names
    )
    return Found(FORMAT_PATCH, series, reason, names, ((series, text.encode()),), notes=notes)


def _spec_form(root: Path, spec: Path) -> Found | None:
    """The RPM form of the spec file ``spec`` met while looking through ``root``, read and
    parsed once; ``None`` when it is no readable file or has no ``Patch`` tag and no
    ``%patchlist`` (a spec of a package that carries no patch is no series).

    Raises:
        PatchkeeperError: as :func:`_rpm_form`.
        PatchFormatError: the spec is UTF-16 or UTF-32 text
            (:func:`patchkeeper.start.rpm_spec.spec_text`).
    """
    if not spec.is_file():
        return None
    try:
        text = spec_text(spec)
    except PatchFormatError:
        raise  # a spec in UTF-16 is one to convert, not one that carries no patch
    except PatchkeeperError:
        return None
    if not holds_patches(text):
        return None
    return _rpm_form(root, spec, parse_spec(text, spec))


def _rpm_form(root: Path, spec: Path, read: SpecSeries) -> Found:
    """The series of the RPM spec file ``spec``, whose parsed form is ``read``
    (:func:`patchkeeper.start.rpm_spec.parse_spec`): the series init writes beside it lists
    the patches in ``%prep``'s order, each with its ``-pN`` unless it is ``-p1``, the
    configuration's default.

    Raises:
        PatchkeeperError: ``%prep`` applies no patch (naming the spec).
    """
    where = shown(spec, root)
    if not read.patches:
        raise PatchkeeperError(
            "the spec's %prep applies no patch (no %autosetup, %autopatch or %patch)",
            path=spec,
            hint="apply the patches in %prep, or list them in a quilt series and give it with "
            "--patches",
        )
    names = tuple(patch.name for patch in read.patches)
    series = spec.parent / "series"
    lines = [
        patch.name if patch.strip in (None, 1) else f"{patch.name} -p{patch.strip}"
        for patch in read.patches
    ]
    text = f"# the patches {spec.name}'s %prep applies, in its order\n" + "".join(
        f"{line}\n" for line in lines
    )
    notes = tuple(
        f"{patch.name} is applied without -p: patch would take the files' base names; the "
        "series takes the configured strip (1)"
        for patch in read.patches
        if patch.strip is None
    )
    reason = f"{where} names {len(names)} patch(es) that its %prep applies (an RPM spec)"
    return Found(
        RPM,
        series,
        reason,
        names,
        ((series, text.encode()),),
        notes=notes,
        lines=tuple(patch.line for patch in read.patches),
        source=spec,
        spec=read,
    )


def _described_tag(root: Path) -> str | None:
    """The nearest tag below ``HEAD`` with commits on top of it (``git describe``), or
    ``None``: not a git checkout, no tag, or ``HEAD`` is the tag itself."""
    done = gitops.call(["describe", "--tags", "--abbrev=0", "HEAD"], root)
    if done.returncode != 0:
        return None
    tag = done.stdout.decode("utf-8", "replace").strip()
    if not tag:
        return None
    count = gitops.call(["rev-list", "--count", "--no-merges", f"{tag}..HEAD"], root)
    if count.returncode != 0 or count.stdout.strip() in (b"", b"0"):
        return None
    return tag


def _from_git(root: Path, tag: str, *, reason: str) -> Found:
    """The commits of the git checkout ``root`` since ``tag``, as ``git format-patch`` writes
    them (``-N``: no ``[PATCH n/m]`` numbering in the subjects, which would change as the
    series grows; ``--no-signature``: no git version at the end), into ``patches/``.

    Raises:
        PatchkeeperError: ``root`` is not a git checkout, ``tag`` is no tag of it, or there
            is no commit since it.
    """
    inside = gitops.call(["rev-parse", "--is-inside-work-tree"], root)
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        raise PatchkeeperError(
            "--tag reads the commits of a git checkout, and this is not one",
            path=root,
            hint="run init in the checkout of the upstream with your commits on top",
        )
    prefix = gitops.run_text(["rev-parse", "--show-prefix"], root).rstrip("/")
    if prefix:  # format-patch names files from the top: the downstream belongs there
        top = gitops.run_text(["rev-parse", "--show-toplevel"], root)
        raise PatchkeeperError(
            f"this is the folder {prefix}/ of the git checkout {top}, whose branch would be "
            "the series: git format-patch names its files from the checkout's top, so the "
            "downstream is made there",
            path=root,
            hint=f"run init in the checkout's top: patchkeeper -C {top} init",
        )
    if gitops.call(["rev-parse", "--verify", "--quiet", f"refs/tags/{tag}"], root).returncode:
        raise PatchkeeperError(
            f"no tag {tag} in this git checkout",
            path=root,
            hint="name the upstream release's tag (git tag --list shows them); fetch the "
            "upstream tags first if they are missing",
        )
    commits = gitops.run_text(["rev-list", "--count", "--no-merges", f"{tag}..HEAD"], root)
    if commits == "0":
        raise PatchkeeperError(
            f"no commits on top of {tag}: the series would be empty",
            path=root,
            hint="check out the branch that carries your changes",
        )
    merges = gitops.run_text(["rev-list", "--count", "--merges", f"{tag}..HEAD"], root)
    directory = root / "patches"
    with tempfile.TemporaryDirectory(prefix="patchkeeper-init-") as scratch:
        gitops.run(
            ["format-patch", "-q", "-N", "--no-signature", "-o", scratch, f"{tag}..HEAD"], root
        )
        files = sorted(Path(scratch).iterdir())
        written = [(directory / path.name, path.read_bytes()) for path in files]
    # git format-patch writes an empty file for a commit that changes no file (git commit
    # --allow-empty): such a file is no patch, and every command would refuse the series.
    new = [(path, data) for path, data in written if data]
    empty = [path.name for path, data in written if not data]
    if not new:
        raise PatchkeeperError(
            f"no commit on top of {tag} changes a file: the series would be empty",
            path=root,
            hint="check out the branch that carries your changes",
        )
    names = tuple(path.name for path, _ in new)
    series = directory / "series"
    text = f"# the commits of HEAD since {tag}, by git format-patch\n" + "".join(
        f"{name}\n" for name in names
    )
    warnings = tuple(branch_warnings(root, tag, new))
    new.append((series, text.encode()))
    notes: tuple[str, ...] = ()
    if merges != "0" and not warnings:
        notes = (f"{merges} merge commit(s) since {tag} are not patches: format-patch skips them",)
    if empty:
        notes += (
            f"{len(empty)} commit(s) since {tag} change no file and are not patches "
            f"(git format-patch would write them empty): {', '.join(empty)}",
        )
    why = f"{reason}: {len(names)} commit(s) on top of it become patches/ (git format-patch)"
    return Found(GIT, series, why, names, tuple(new), tag=tag, notes=notes, warnings=warnings)
