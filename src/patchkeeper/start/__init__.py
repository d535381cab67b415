"""Starting a downstream (``patchkeeper init``): which form of patch series a directory holds
(quilt, Debian, a ``git format-patch`` directory, a git branch over an upstream tag), the
upstream project and pin its metadata names, and the configuration and ledger written for it.

See docs/starting.md (the rules, for users) and docs/architecture.md (the layers).
"""
