"""The client: send a request, follow redirects, retry.

Version 1.1 reads the default timeout from the environment; version 1.2 names itself in
describe() and keeps every header on a redirect to the same origin.
"""

import os

from minihttp.retry import Retry

DEFAULT_TIMEOUT = float(os.environ.get("MINIHTTP_TIMEOUT", "10.0"))


class Client:
    """Send requests with a retry policy."""

    def __init__(self, retries=None, timeout=None):
        self.retries = retries or Retry()
        self.timeout = DEFAULT_TIMEOUT if timeout is None else float(timeout)

    def headers_for_redirect(self, headers, same_host):
        """The headers to send again after a redirect."""
        if same_host and self.retries.total:
            return dict(headers)
        return {
            name: value
            for name, value in headers.items()
            if name not in self.retries.REMOVE_ON_REDIRECT
        }

    def describe(self):
        from minihttp import __version__

        return "minihttp %s client (timeout=%s, retries=%s)" % (
            __version__,
            self.timeout,
            self.retries.total,
        )
