"""patchkeeper: apply, verify, audit and port a downstream patch series."""

try:
    # written by the build and by pip install from the git tag ([tool.setuptools_scm] in
    # pyproject.toml); the same text as the installed distribution's metadata version
    from patchkeeper._version import __version__ as __version__
except ImportError:  # a source tree no build or install ran in: the version is not known
    __version__ = "0.0+unknown"
