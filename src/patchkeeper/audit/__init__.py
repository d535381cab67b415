"""The audit of a series against a new upstream release: a verdict with evidence per patch.

See docs/architecture.md (the layers) and docs/glossary.md (the verdicts).
"""
