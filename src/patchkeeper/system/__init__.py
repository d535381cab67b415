"""What patchkeeper needs from the operating system, each in one place.

``atomic``: the one atomic file write, with the permission bits ``open()`` would give (the
user's umask); ``probes``: the one launcher of a probe in another interpreter; ``platforms``:
the platforms patchkeeper runs on (Linux and macOS); ``cachedir``: the user's cache
directory for patchkeeper's own stores, and pruning it; ``names``: how a file name is shown
in every output (git's quoted form for a name that is not valid UTF-8).
"""
