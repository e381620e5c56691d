"""Which loader reads a file: a histogram CSV by its suffix (CSV_SUFFIXES), anything else as an image.

Limits, each checked before the work it bounds: files up to sources.MAX_FILE_BYTES (read in blocks,
refused as soon as the limit is passed), images up to images.MAX_PIXELS (from the header, before
decoding), CSVs up to histogram_csv.MAX_CSV_ROWS rows (counted while reading), every count and n up to
errors.MAX_COUNT (checked before the counts are allocated), counts read exactly (no float).
A protocol accepts at most errors.MAX_N respondents (ldpcore.experiment.protocol.spec.plan checks it).
"""

from __future__ import annotations

from pathlib import Path

from ldpcore.data.histogram import Histogram
from ldpcore.data.histogram_csv import load_csv
from ldpcore.data.images import load_image

CSV_SUFFIXES = ("csv", "txt")  # file names read as histogram CSVs; anything else as an image


def is_csv(name: str) -> bool:
    """Whether a file of this name is read as a histogram CSV (by its suffix, CSV_SUFFIXES) rather than an image."""
    return Path(name).suffix.lower().lstrip(".") in CSV_SUFFIXES


def load_upload(data: bytes, name: str, scale: float = 1.0, max_side: int | None = None) -> Histogram:
    """A file's bytes: a histogram CSV if its name ends in one of CSV_SUFFIXES, else an image;
    messages name the file by name."""
    if is_csv(name):
        return load_csv(data, name=name)
    return load_image(data, scale=scale, max_side=max_side, name=name)


def load_path(path, scale: float = 1.0, max_side: int | None = None) -> Histogram:
    """A CSV (by its suffix, see load_upload; read from the file block by block) or an image file."""
    if is_csv(str(path)):
        return load_csv(path)
    return load_image(path, scale=scale, max_side=max_side)


__all__ = ["CSV_SUFFIXES", "is_csv", "load_path", "load_upload"]
