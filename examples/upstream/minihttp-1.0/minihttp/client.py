"""The client: send a request, follow redirects, retry."""

from minihttp.retry import Retry

DEFAULT_TIMEOUT = 10.0


class Client:
    """Send requests with a retry policy."""

    def __init__(self, retries=None, timeout=None):
        self.retries = retries or Retry()
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT

    def headers_for_redirect(self, headers, same_host):
        """The headers to send again after a redirect."""
        if same_host:
            return dict(headers)
        return {
            name: value
            for name, value in headers.items()
            if name not in self.retries.REMOVE_ON_REDIRECT
        }

    def describe(self):
        return "minihttp client (timeout=%s, retries=%s)" % (self.timeout, self.retries.total)
