"""Getting upstream: requirements fetched with pip's settings, safe unpacking, git, and the
search of a whole tree for where content moved.

See docs/architecture.md (the layers) and docs/glossary.md (the words).
"""
