"""What the judging reads of the plugin's replacement modules, read on every core.

Before the judges run, the audit reads two things of the plugin modules that hold the
replacements: each compared replacement's :class:`~patchkeeper.runtime.judge.drift.Code`
(:func:`patchkeeper.runtime.judge.replacement.source_code`) and what a version gate binds a
replacement's name to at the new release
(:func:`patchkeeper.runtime.judge.gated_binding.gated_parameters`). Both parse the module;
one job per module file does both from one parse, and the jobs go to the running pool
(:func:`patchkeeper.runtime.parallel.map_records`): the parent, which otherwise parsed and
walked these files one after another while the pool waited, gets back small records. The
results are the ones the two functions give in this process (without a pool the jobs run
here).
"""

from __future__ import annotations

import marshal
import os
from pathlib import Path
from typing import Any

from patchkeeper.runtime.inventory.plugin import ReplacementSource
from patchkeeper.runtime.judge.drift import Code
from patchkeeper.runtime.judge.gated_binding import Gated, gated_parameters
from patchkeeper.runtime.judge.replacement import forget_trees, source_code
from patchkeeper.runtime.model import PatchEntry

#: One module file's job: ``(path, path relative to the plugin's root, the spans of its
#: replacements to compare as (start, end, first decorator line or None), the names whose
#: version-gated binding is asked for, the new release)``.
Job = tuple[str, str, tuple[tuple[int, int, "int | None"], ...], tuple[str, ...], str]


def gated_names(
    module_files: dict[str, tuple[Path, str]], entries: list[PatchEntry]
) -> dict[str, tuple[Path, str, str]]:
    """The replacements whose version-gated binding the judge reads (``module:name``, a
    module-level name of a module with a file), in sorted order, each with its module's
    file, that file relative to the plugin's root, and the name. ``module_files``:
    :attr:`patchkeeper.runtime.inventory.plugin.PluginReading.module_files`."""
    wanted: dict[str, tuple[Path, str, str]] = {}
    for replacement in sorted({e.replacement for e in entries}):
        module, _, name = replacement.partition(":")
        if not name or "." in name or "<" in name:
            continue
        where = module_files.get(module)
        if where is not None:
            wanted[replacement] = (where[0], where[1], name)
    return wanted


def read_replacements(
    sources: dict[str, ReplacementSource],
    gated: dict[str, tuple[Path, str, str]],
    version: str,
) -> tuple[dict[str, Code], dict[str, Gated]]:
    """The :class:`Code` of each replacement of ``sources`` (by replacement, in the order
    of ``sources``) and, of each replacement of ``gated`` (:func:`gated_names`), what the
    version gate live at ``version`` binds its name to, as ``(relative path, gate line,
    parameter shape)`` (by replacement, in the order of ``gated``; a name no gate binds
    is left out, as is every name when ``version`` is ``""``). Each module file is parsed
    once, for both, by one job (:func:`read_file`) on the running pool's workers."""
    from patchkeeper.runtime.parallel import map_records

    # per module file: its path relative to the root, the replacements whose code is
    # read, and those whose gated binding is (without a release no gate is evaluated and
    # nothing is parsed for one)
    files: dict[str, tuple[str, list[ReplacementSource], list[str]]] = {}
    for found in sources.values():
        files.setdefault(str(found.file), (found.relative, [], []))[1].append(found)
    for file, where, name in gated.values() if version else ():
        files.setdefault(str(file), (where, [], []))[2].append(name)
    jobs: list[Job] = [
        (path, where, tuple((f.start, f.end, f.first) for f in found), tuple(named), version)
        for path, (where, found, named) in files.items()
    ]
    sizes = [_size(path) for path in files]
    read = {job[0]: marshal.loads(data) for job, data in map_records(read_file, jobs, sizes)}
    by_span = {
        (path, found.start, found.end, found.first): Code(*record)
        for path, (_where, spans, _named) in files.items()
        for found, record in zip(spans, read[path][0], strict=True)
    }
    by_name = {
        (path, name): bound
        for path, (_where, _spans, named) in files.items()
        for name, bound in zip(named, read[path][1], strict=True)
    }
    codes = {r: by_span[(str(f.file), f.start, f.end, f.first)] for r, f in sources.items()}
    bindings: dict[str, Gated] = {}
    for replacement, (file, where, name) in gated.items() if version else ():
        bound = by_name[(str(file), name)]
        if bound is not None:
            bindings[replacement] = (where, *bound)
    return codes, bindings


def read_file(job: Job) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The records of one module file's job (:data:`Job`): the :class:`Code` of each span
    as a tuple of its fields, and :func:`gated_parameters` of each name. The parse of the
    file is let go at the end (a pool's worker runs many jobs)."""
    path, relative, spans, names, version = job
    file = Path(path)
    try:
        codes = tuple(
            _record(source_code(ReplacementSource(file, relative, start, end, first)))
            for start, end, first in spans
        )
        bound = tuple(gated_parameters(file, name, version) for name in names)
    finally:
        forget_trees()
    return codes, bound


def _record(code: Code) -> tuple[Any, ...]:
    """``code``'s fields in order (:class:`Code` takes them back)."""
    return (
        code.name,
        code.start,
        code.lines,
        code.decorators,
        code.gated,
        code.imports,
        code.gated_names,
    )


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
