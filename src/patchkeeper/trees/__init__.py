"""Upstream trees and the downstream's files: targets, path safety, the pristine reference, the
installed distribution, atomic journaled changes, and which patches are applied.

See docs/architecture.md (the layers) and docs/glossary.md (the words).
"""
