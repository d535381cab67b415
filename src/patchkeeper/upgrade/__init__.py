"""``upgrade --to NEWPIN``: the whole upgrade of a downstream as one reviewable piece of work.

The runtime audit workflow's steps, each one the feature function its own command calls:
audit the series and the runtime patches, suggest decisions, write the runtime update, port
the series, write the record; then what is left for a person. ``state.py`` keeps where a run
is (``.patchkeeper-upgrade/``), ``branch.py`` the git branch with one commit per step,
``run.py`` the steps, ``results.py`` the result.
"""
