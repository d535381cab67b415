"""What a Python text says, read without running it: names bound in a module, version gates,
the nodes of a tree in walk order.

See docs/architecture.md (the layers inside runtime).
"""
