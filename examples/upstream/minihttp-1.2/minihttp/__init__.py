"""minihttp: a tiny HTTP client, the upstream of patchkeeper's bundled example."""

from minihttp.client import Client
from minihttp.retry import Retry

__all__ = ["Client", "Retry"]
__version__ = "1.2"
