"""patchkeeper for coding agents: the Model Context Protocol server (``patchkeeper mcp``).

``tools`` says which commands are offered as tools and reads each tool's input schema from
the click command's own parameters; ``calls`` checks a call's arguments (the root, the write
rule) and turns it into the command line it runs; ``schemas`` cuts each tool's output schema
from the ``--json`` contract (``json-schema.json``); ``server`` serves them over standard
input and output with the ``mcp`` SDK (the ``patchkeeper[mcp]`` extra), running each call as
a ``patchkeeper ... --json`` subprocess.
"""
