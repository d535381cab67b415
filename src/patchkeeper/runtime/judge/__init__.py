"""The runtime audit's decision per entry (retain, update, migrate, remove, look) with
its evidence: drift, same code, noise, hooks, landed changes, findings across entries:
``runtime audit``.

See docs/architecture.md (the layers inside runtime).
"""
