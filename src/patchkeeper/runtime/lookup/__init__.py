"""An upstream tree read statically (its modules, summaries and name index) and a patched target
resolved in it; an audit target given as a directory or a requirement.

See docs/architecture.md (the layers inside runtime).
"""
