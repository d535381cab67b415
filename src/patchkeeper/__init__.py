"""patchkeeper: apply, verify, audit and port a downstream patch series against upstream releases."""

__version__ = "0.1.0"
