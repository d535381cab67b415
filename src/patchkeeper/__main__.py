"""``python -m patchkeeper``."""

from patchkeeper.main import entry

entry()
