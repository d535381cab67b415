"""``patchkeeper.guard.check(lock_file)``: the import-time guard a plugin calls (standard
library only); see :mod:`patchkeeper.runtime.live.guard`."""

from patchkeeper.runtime.live.guard import Difference, GuardError, GuardWarning, check, differences

__all__ = ["Difference", "GuardError", "GuardWarning", "check", "differences"]
