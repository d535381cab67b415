"""The live side: ``runtime check`` (a probe in another interpreter), ``runtime lock`` and the
import-time guard a plugin calls with its lock file.

See docs/architecture.md (the layers inside runtime).
"""
