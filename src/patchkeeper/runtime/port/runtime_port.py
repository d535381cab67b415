"""``patchkeeper runtime port --to NEW``: write the mechanical part of a plugin's update.

From the runtime audit (:mod:`patchkeeper.runtime.judge.runtime_audit`) of the plugin from the old
upstream release to ``NEW``, per entry:

- a full-replacement copy (the plugin's own function or class replacing an upstream one)
  whose upstream definition changed: a three-way merge with ``git merge-file`` (base: the old
  upstream definition; ours: the plugin's copy; theirs: the new upstream definition), the
  upstream spans re-indented to the copy's indentation, the copy's gates cut first; the
  conflict regions that differ only in layout are settled
  (:mod:`patchkeeper.runtime.port.layoutmerge`), the others left marked (diff3 style, as
  ``patchkeeper port`` leaves them); a copy that already holds every line the upstream
  change adds and none it deletes (layout aside: the maintainers took the change from
  upstream's development branch) is not merged again; a copy that holds a version gate
  the new release decides (its branch for the new release was written from upstream code
  newer than the old release) is merged, gates cut, only when that merge is clean and
  repeats no line (else the old release is no base to merge it from: the cut gate is the
  update); the copy a patch statement binds inside such a gate is not merged; of a
  plugin subclass, a method that calls upstream's through ``super()`` and keeps less than
  half of its body extends it and inherits the change (by hand when it misses a parameter
  of upstream's new signature);
- a wrapper (the replacement calls the original) and a plugin class of another origin are
  not copies: never merged, left by hand; a copy of a definition upstream left unchanged is
  not said to have the change (by hand when it differs from the old upstream outside its
  Modification banners: an earlier change it lacks); a clean merge of such a copy is *clean
  but behind*;
- a target that moved: the old module path in the patch statement becomes the new one, and
  the file's ``import OLD`` of it is rewritten (or ``import NEW`` added);
- a helper import the new release breaks (``from M import name``, ``import M``): rewritten
  when the name moved to one module, else named, left by hand
  (:mod:`patchkeeper.runtime.port.imports`); every other finding of the audit that a name
  the plugin uses is gone (in a module that holds no patch, a name called through its
  module) is named, left by hand
  (:func:`~patchkeeper.runtime.port.plan.unhandled_findings`);
- a version gate whose live branch changes (true at the old release and false at the new
  one, or the reverse): cut in every file port reads, whatever the entries' decisions
  (:mod:`patchkeeper.runtime.port.gatecut`: the dead branch deleted, the live one kept and
  dedented, the statements after a kept block that returns or raises deleted as
  unreachable, the gate helper's import dropped when unused); a gate it cannot cut (written on
  one line) is listed with its edit, left by hand;
- the header ``Affected versions:`` field of each patch file whose every entry is done
  gains ``Reviewed against NEW.``, one port merged into and left to a human (a conflict, a
  merge behind) ``Ported to NEW, to review.``; a file whose header already says either was
  ported before: its copies are not merged again (the resolution of that port's conflicts
  would meet a second conflict).

Everything else (*remove*, *migrate*, *look*, wrappers whose signature changed, a
conflict) is reported as left by hand; a *remove* whose statement the gate cut deleted is
reported as cut. The result is a unified diff of the plugin
(``a/``/``b/`` paths relative to the plugin root); ``--write`` applies it atomically
(:mod:`patchkeeper.runtime.store.writes`). Nothing is written otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchkeeper.runtime.inventory.runtime_inventory import scan_plugin
from patchkeeper.runtime.inventory.unparsed import refuse_unparsed
from patchkeeper.runtime.judge import runtime_audit
from patchkeeper.runtime.lookup.targets import (
    NEW_UPSTREAM,
    OLD_UPSTREAM,
    check_tree_spec,
    upstream_dir,
    with_requirement_packages,
)
from patchkeeper.runtime.lookup.upstream_tree import UpstreamTree
from patchkeeper.runtime.port.file_edits import unified_diff
from patchkeeper.runtime.port.plan import port_plan
from patchkeeper.runtime.port.results import RuntimePort
from patchkeeper.runtime.settings import PluginLocation, resolve_settings, warn_missing_packages
from patchkeeper.runtime.store.writes import refuse_links_out, write_files

#: The plugin's project and configuration files at its root: never an ``--output``.
PROJECT_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "patchkeeper.toml", "MANIFEST.in")


def _refuse_plugin_output(
    output: Path,
    root: Path,
    patch_directory: str,
    files: tuple[str, ...],
    source: Path | None = None,
) -> None:
    """Refuse an ``--output`` that would overwrite the plugin's own files: a file the diff
    changes, a Python file of the patch directory or of the plugin (a slip such as
    ``--output plugin/patch/patch_x.py`` replaced the patch with its diff), the lock file,
    the configuration ``source`` or a project file at the plugin's root (``--output
    pyproject.toml`` replaced the plugin's configuration with the diff).

    Raises:
        TargetError: naming the file.
    """
    from patchkeeper.errors import TargetError

    target = Path(output).resolve()
    patches = (root / patch_directory).resolve()
    changed = {(root / f).resolve() for f in files}
    own = {(root / name).resolve() for name in PROJECT_FILES}
    own |= {patches / "patchkeeper.lock"}
    if source is not None:
        own.add(source.resolve())
    python = target.suffix == ".py" and (
        target.is_relative_to(patches) or (target.is_file() and target.is_relative_to(root))
    )
    if target in changed or target in own or python:
        raise TargetError(
            "--output names a file of the plugin: the diff would replace its code",
            path=output,
            hint="write the diff outside the patch directory, e.g. --output update.diff",
        )


def _write_output(output: Path, diff: str) -> None:
    """Write the diff to ``output`` (:func:`patchkeeper.system.atomic.write_output`: a
    temporary file renamed into place, or written through a device or named pipe).

    Raises:
        TargetError: the file cannot be written.
    """
    from patchkeeper.errors import TargetError
    from patchkeeper.system.atomic import write_output

    temporary = output.with_name(output.name + ".patchkeeper-tmp")
    try:
        write_output(output, diff.encode("utf-8", errors="surrogateescape"), temporary=temporary)
    except OSError as exc:
        raise TargetError(
            f"cannot write the diff: {exc.strerror}", path=output, hint="choose another --output"
        ) from None


@dataclass(frozen=True, kw_only=True)
class RuntimePortRequest(PluginLocation):
    """What ``runtime port`` is asked to do; each field is the option of the same parameter
    name, so the command builds it from click's parsed parameters; the plugin's location
    as :class:`PluginLocation` says.

    Attributes:
        old: the old upstream (``--from``): a directory or a requirement ``NAME==VERSION``.
        new: the new upstream (``--to``), in the same forms.
        write: apply the diff to the plugin's files, atomically (``--write``); default
            ``False``, nothing of the plugin written.
        output: also write the diff to this file (``--output``); default ``None``.
    """

    old: str
    new: str
    write: bool = False
    output: Path | None = None


def port_runtime(config: Any | None, request: RuntimePortRequest) -> RuntimePort:
    """Port the plugin's runtime patches from upstream ``request.old`` to ``request.new``
    (:class:`RuntimePortRequest`).

    Raises:
        ConfigError, FetchError, GitError; TargetError (also when a patch file does not
        parse, e.g. with the conflict markers of an earlier ``--write``: its copies would be
        merged again into the markers).
    """
    old, new, write, output = request.old, request.new, request.write, request.output
    plugin, package, patch_directory = request.plugin, request.package, request.patch_directory
    check_tree_spec(old, OLD_UPSTREAM)  # a path typed wrong is named before the plugin
    check_tree_spec(new, NEW_UPSTREAM)
    settings = resolve_settings(
        config, plugin=plugin, package=package, patch_directory=patch_directory
    )
    scanned = scan_plugin(settings)
    refuse_unparsed(scanned.inventory, settings.root, "runtime port")
    settings = with_requirement_packages(settings, old, new)
    packages = settings.upstream_packages
    roots = (
        upstream_dir(old, packages, OLD_UPSTREAM),
        upstream_dir(new, packages, NEW_UPSTREAM),
    )
    warn_missing_packages(packages, roots)
    result = runtime_audit.audit_plugin(settings, old, new, roots)
    tree = scanned.tree
    trees = (UpstreamTree(roots[0], packages), UpstreamTree(roots[1], packages))
    entries, changed = port_plan(result, settings.root, trees, tree)
    diff = unified_diff(settings.root, changed)
    files = tuple(sorted(f for f in changed if f"a/{f}" in diff))
    if write:
        refuse_links_out(settings.root, files, "runtime port --write")
    if output is not None:
        source = config.source if config is not None else None
        _refuse_plugin_output(output, settings.root, settings.patch_directory, files, source)
        _write_output(output, diff)
    if write and files:
        data = {
            (settings.root / f).resolve(): changed[f].encode("utf-8", "surrogateescape")
            for f in files
        }
        write_files(settings.root, data)
    return RuntimePort(
        old,
        new,
        tuple(entries),
        diff,
        files,
        write and bool(files),
        str(output or ""),
        write,
        result.old_release,
        result.new_release,
    )


__all__ = ["RuntimePort", "RuntimePortRequest", "port_runtime"]
