"""``runtime port``: a plugin's copies merged with upstream's change, moved targets retargeted,
version gates cut, headers marked reviewed.

See docs/architecture.md (the layers inside runtime).
"""
