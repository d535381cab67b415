"""The plugin read statically: each file's facts (patch entries, edges, definitions), the
activation search, the header blocks and ledger comment: ``runtime inventory``.

See docs/architecture.md (the layers inside runtime).
"""
