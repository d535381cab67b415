"""``patchkeeper.guard.check(lock_file)``: the import-time guard a plugin calls (standard
library only); see :mod:`patchkeeper.runtime.guard`."""

from patchkeeper.runtime.guard import Difference, GuardError, GuardWarning, check, differences

__all__ = ["Difference", "GuardError", "GuardWarning", "check", "differences"]
