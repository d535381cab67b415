"""Reading the configured series: the series file and every patch it lists."""

from __future__ import annotations

from patchkeeper.config import Config
from patchkeeper.errors import PatchFormatError
from patchkeeper.series.model import Patch, Series
from patchkeeper.series.parse import load_patches, parse_series


def load_series(config: Config) -> tuple[Series, list[Patch]]:
    """Read the configured series file and every patch it lists.

    Raises:
        PatchFormatError: naming the series or patch file and line.
    """
    series = parse_series(config.series)
    return series, load_patches(series, config.strip)


def load_series_tolerant(
    config: Config,
) -> tuple[Series, list[Patch], list[tuple[str, PatchFormatError]]]:
    """:func:`load_series`, with a patch that cannot be read left out and returned apart:
    ``(series, patches, [(name, error)])``.

    Raises:
        PatchFormatError: the series file itself cannot be read, or lists a patch twice.
    """
    series = parse_series(config.series)
    unreadable: list[tuple[str, PatchFormatError]] = []
    patches = load_patches(series, config.strip, unreadable=unreadable)
    return series, patches, unreadable
