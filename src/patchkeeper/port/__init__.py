"""``port``: carry a patch series to a new upstream release.

Modules: :mod:`~patchkeeper.port.session` (start, ``--continue``, ``--abort``; stop at a
conflict or finish), :mod:`~patchkeeper.port.rebase` (the per-patch loop),
:mod:`~patchkeeper.port.merge` (git's three-way merge per file),
:mod:`~patchkeeper.port.regenerate` (the refreshed patch's bytes),
:mod:`~patchkeeper.port.changes` (the range-diff), :mod:`~patchkeeper.port.workdir` (the work
directory of a stopped port), :mod:`~patchkeeper.port.history` (upstream history as evidence),
:mod:`~patchkeeper.port.context` (the inputs), :mod:`~patchkeeper.port.finish` and
:mod:`~patchkeeper.port.output` (the new series), :mod:`~patchkeeper.port.instructions`,
:mod:`~patchkeeper.port.settings` and :mod:`~patchkeeper.port.results`. The command is
:mod:`patchkeeper.commands.port`.
"""
