"""Retry policy: how many times to try again, and how long to wait in between."""


class Retry:
    """Retry a request up to ``total`` times with exponential backoff."""

    #: Status codes that are retried.
    RETRY_STATUS = frozenset([413, 429, 503])

    #: Headers removed when a redirect leaves the host.
    REMOVE_ON_REDIRECT = frozenset(["Authorization", "Cookie"])

    #: The longest wait between two attempts, in seconds.
    BACKOFF_MAX = 120

    def __init__(self, total=3, backoff_factor=0.5):
        self.total = total
        self.backoff_factor = backoff_factor

    def backoff(self, attempt):
        """Seconds to sleep before ``attempt`` (1-based)."""
        return min(self.BACKOFF_MAX, self.backoff_factor * (2 ** (attempt - 1)))

    def is_retry(self, status):
        return status in self.RETRY_STATUS

    def increment(self):
        return Retry(self.total - 1, self.backoff_factor)
