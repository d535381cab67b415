"""The patch series: its model, parsing, header fields, hunks and the in-memory engine.

See docs/architecture.md (the layers) and docs/glossary.md (the words).
"""
