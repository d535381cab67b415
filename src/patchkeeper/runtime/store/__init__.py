"""What the runtime commands keep and write: the parsed-tree cache in the user's cache directory,
and all-or-nothing writes into a plugin checkout.

See docs/architecture.md (the layers inside runtime).
"""
