"""Reading the configured series: the series file and every patch it lists."""

from __future__ import annotations

from patchkeeper.config import Config
from patchkeeper.series.model import Patch, Series
from patchkeeper.series.parse import load_patches, parse_series


def load_series(config: Config) -> tuple[Series, list[Patch]]:
    """Read the configured series file and every patch it lists.

    Raises:
        PatchFormatError: naming the series or patch file and line.
    """
    series = parse_series(config.series)
    return series, load_patches(series, config.strip)
