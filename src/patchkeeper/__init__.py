"""patchkeeper: apply, verify, audit and port a downstream patch series."""

__version__ = "0.1.0"
