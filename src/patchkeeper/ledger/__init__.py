"""The paperwork of a series: the ledger table, its settings, lint, the entries that are not
patches, and export/import/check-branch against an upstream checkout.

See docs/architecture.md (the layers) and docs/glossary.md (the words).
"""
