"""Inputs -> a ``Histogram``: images, histogram CSVs, the synthetic heavy-hitter data.

An image is a histogram over its pixels: a pixel of luminance L (0-255) is held by
round(L * scale) respondents (seeds/000 Sec. VII; the paper's Map uses scale 2.5), so
n = the sum of the counts and d = width * height.
"""
from __future__ import annotations

import csv
import io
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from .errors import InputError, require

ASSETS = Path(__file__).resolve().parent.parent / "assets"
MAX_PIXELS = 50_000_000        # decompression-bomb guard: refuse larger images
MAX_FILE_BYTES = 200 * 2**20   # refuse larger files before parsing them
MAX_CSV_ROWS = 20_000_000
CSV_SUFFIXES = ("csv", "txt")  # file names read as histogram CSVs; anything else as an image


@dataclass(frozen=True)
class Histogram:
    """Counts of respondents over a domain of d values.

    counts: int64 array of length d. shape: (height, width) for images, else None.
    peak: the largest value the input could hold (255 * scale for images); PSNR uses it.
    labels: the value names of a value,count CSV, else None (values are 0..d-1).
    notes: what the loader did that the user should know (e.g. downsampling).
    """

    counts: np.ndarray
    name: str
    shape: tuple[int, int] | None = None
    peak: float | None = None
    labels: tuple[str, ...] | None = None
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self):
        counts = np.asarray(self.counts)
        require(counts.ndim == 1 and counts.size > 0, "a histogram needs at least one bin.")
        require(np.issubdtype(counts.dtype, np.integer), "histogram counts must be whole numbers.")
        require(bool((counts >= 0).all()), "histogram counts must be >= 0.")
        require(int(counts.sum()) > 0, f"{self.name} has no respondents (every count is 0).")
        if self.shape is not None:
            require(self.shape[0] * self.shape[1] == counts.size, "image shape does not match the counts.")
        object.__setattr__(self, "counts", counts.astype(np.int64, copy=False))
        if self.peak is None:
            object.__setattr__(self, "peak", float(counts.max()))

    @property
    def n(self) -> int:
        """Number of respondents."""
        return int(self.counts.sum())

    @property
    def d(self) -> int:
        """Domain size (bins)."""
        return int(self.counts.size)

    @property
    def is_image(self) -> bool:
        return self.shape is not None

    @property
    def max_count(self) -> int:
        """The input maximum: estimates are clipped to [0, max_count]."""
        return int(self.counts.max())


def read_source(source, allow_empty: bool = False) -> tuple[bytes, str]:
    """Bytes and a display name from a path, bytes, or a file-like object (uploads);
    allow_empty leaves an empty input to the caller's own message."""
    if isinstance(source, (bytes, bytearray)):
        data, name = bytes(source), "upload"
    elif isinstance(source, (str, Path)):
        path = Path(source)
        require(path.is_file(), f"no such file: {path}")
        require(path.stat().st_size <= MAX_FILE_BYTES,
                f"{path.name} is {path.stat().st_size / 2**20:.0f} MB; the limit is {MAX_FILE_BYTES // 2**20} MB.")
        data, name = path.read_bytes(), path.name
    else:
        data, name = source.read(), getattr(source, "name", "upload")
    require(allow_empty or len(data) > 0, f"{name} is empty.")
    require(len(data) <= MAX_FILE_BYTES, f"{name} is larger than {MAX_FILE_BYTES // 2**20} MB.")
    return data, str(name)


def read_text(source, allow_empty: bool = False) -> tuple[str, str]:
    """UTF-8 text (a BOM allowed) and a display name, for the CSV loaders."""
    data, name = read_source(source, allow_empty)
    if isinstance(data, str):
        return data, name
    try:
        return data.decode("utf-8-sig"), name
    except UnicodeDecodeError:
        raise InputError(f"{name} is not a UTF-8 text file.") from None


def load_image(source, scale: float = 1.0, max_side: int | None = None, name: str | None = None) -> Histogram:
    """Grayscale luminance per pixel = respondents (seeds/000 Sec. VII).

    scale multiplies luminance before rounding to counts (Map: 2.5). max_side, if given,
    downsamples with box (area) averaging so that mean luminance is preserved.
    Images above MAX_PIXELS are refused before decoding (decompression-bomb guard).
    """
    require(scale > 0 and math.isfinite(scale), f"scale must be a finite number > 0 (got {scale:g}).")
    require(max_side is None or max_side >= 1, f"max_side must be >= 1 pixel (got {max_side}).")
    data, fname = read_source(source)
    name = name or fname
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own limit is lower
            img = Image.open(io.BytesIO(data))
            w, h = img.size
            require(w * h <= MAX_PIXELS,
                    f"{name} is {w}x{h} = {w * h / 1e6:.1f} megapixels; the limit is "
                    f"{MAX_PIXELS / 1e6:.0f} megapixels (downsample it before loading).")
            img.load()
    except UnidentifiedImageError:
        raise InputError(f"{name} is not an image Pillow can read (PNG, JPEG, GIF, BMP, TIFF, WebP).") from None
    except Image.DecompressionBombError:
        raise InputError(f"{name} has over {2 * Image.MAX_IMAGE_PIXELS / 1e6:.0f} megapixels; the limit is "
                         f"{MAX_PIXELS / 1e6:.0f} megapixels (downsample it before loading).") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise InputError(f"{name} is a truncated or corrupt image ({exc}).") from None
    img = ImageOps.exif_transpose(img)
    notes = []
    if img.mode in ("I;16", "I;16B", "I;16L"):
        lum = np.asarray(img, dtype=np.float64) / 257.0
        img = None
    else:
        if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
            rgba = img.convert("RGBA")
            base = Image.new("RGBA", rgba.size, (0, 0, 0, 255))
            img = Image.alpha_composite(base, rgba)  # transparent = black = nobody there
            notes.append("transparent pixels were counted as black (no respondents).")
        img = img.convert("L")
    if max_side is not None and max(w, h) > max_side:
        factor = max_side / max(w, h)
        size = (max(1, round(w * factor)), max(1, round(h * factor)))
        if img is None:
            img = Image.fromarray(lum.astype(np.float32), mode="F")
        img = img.resize(size, Image.Resampling.BOX)
        notes.append(f"downsampled from {w}x{h} to {size[0]}x{size[1]} (max side {max_side} px).")
    if img is not None:
        lum = np.asarray(img, dtype=np.float64)
    counts = np.rint(lum * scale).astype(np.int64)
    require(counts.sum() > 0, f"{name} has no respondents: every pixel is black.")
    return Histogram(counts=counts.ravel(), name=name, shape=counts.shape, peak=255.0 * scale,
                     notes=tuple(notes))


def _parse_count(text: str, line: int, name: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{name}, line {line}: count {text!r} is not a number.") from None
    require(math.isfinite(value), f"{name}, line {line}: count {text!r} is not a finite number.")
    require(value >= 0, f"{name}, line {line}: count {text} is negative; counts must be >= 0.")
    require(value == int(value), f"{name}, line {line}: count {text} is not a whole number.")
    return int(value)


def load_csv(source, name: str | None = None) -> Histogram:
    """A histogram CSV: one count per line, or value,count rows (a header line allowed).

    Blank lines and lines starting with '#' are skipped. Counts must be whole numbers >= 0.
    """
    text, fname = read_text(source)
    name = name or fname
    rows = [(i, r) for i, r in enumerate(csv.reader(io.StringIO(text)), start=1)
            if r and any(c.strip() for c in r) and not r[0].lstrip().startswith("#")]
    require(len(rows) > 0, f"{name} holds no rows.")
    require(len(rows) <= MAX_CSV_ROWS, f"{name} has {len(rows):,} rows; the limit is {MAX_CSV_ROWS:,}.")
    width = len(rows[0][1])
    require(width in (1, 2), f"{name}, line {rows[0][0]}: expected 1 column (count) or 2 (value,count), found {width}.")
    for line, row in rows:
        require(len(row) == width, f"{name}, line {line}: expected {width} column(s), found {len(row)}.")
    if width == 2:
        try:
            float(rows[0][1][1])
        except ValueError:
            rows = rows[1:]  # header
            require(len(rows) > 0, f"{name} has a header but no rows.")
    counts = np.fromiter((_parse_count(r[-1].strip(), i, name) for i, r in rows), dtype=np.int64, count=len(rows))
    labels = None
    if width == 2:
        labels = tuple(r[0].strip() for _, r in rows)
        if len(set(labels)) != len(labels):
            seen = {}
            for (line, _), label in zip(rows, labels):
                require(label not in seen, f"{name}, line {line}: value {label!r} already appeared on line {seen.get(label)}.")
                seen[label] = line
    require(counts.sum() > 0, f"{name} has no respondents: every count is 0.")
    return Histogram(counts=counts, name=name, labels=labels)


def synthetic_heavy_hitters(rng: np.random.Generator, d: int = 1_778_120, n: int = 203_950_512,
                            hitters: int = 100, hitter_share: float = 0.4, exponent: float = 1.35) -> Histogram:
    """Heavy hitters mixed with a power law, like seeds/000 Table III.

    ``hitters`` values share ``hitter_share`` of the reports (weights Zipf(1) over the
    hitters); the other values follow p(x) ~ x^-exponent by rank. Values are numbered by
    rank (value 0 is the most likely). Counts are one multinomial draw of n reports.
    """
    require(d > hitters >= 1, f"d must exceed the number of heavy hitters ({hitters}); got d={d}.")
    require(n >= 1, f"n must be >= 1 (got {n}).")
    require(0 <= hitter_share < 1, f"hitter_share must lie in [0, 1) (got {hitter_share}).")
    head = 1.0 / np.arange(1, hitters + 1)
    tail = np.arange(1, d - hitters + 1, dtype=np.float64) ** -exponent
    probs = np.concatenate([hitter_share * head / head.sum(), (1 - hitter_share) * tail / tail.sum()])
    counts = rng.multinomial(n, probs / probs.sum())
    return Histogram(counts=counts, name=f"heavy hitters (d={d:,}, n={n:,})")


@dataclass(frozen=True)
class Dataset:
    """A bundled input: an asset image or a seeded generator, with the paper's delta."""

    name: str
    description: str
    delta: float
    file: str | None = None
    scale: float = 1.0

    def load(self, max_side: int | None = None, seed: int = 0) -> Histogram:
        if self.file is not None:
            return load_image(ASSETS / self.file, scale=self.scale, max_side=max_side, name=self.name)
        return synthetic_heavy_hitters(np.random.default_rng(seed))


DATASETS = {d.name: d for d in (
    Dataset("horse", "sparse white sketch on black (stands in for the paper's Horse)", 5e-8, "horse.png"),
    Dataset("child", "dense portrait without black pixels (stands in for Child)", 5e-9, "child.png"),
    Dataset("map", "city lights, luminance x2.5 (stands in for Map)", 5e-10, "map.png", 2.5),
    Dataset("heavy-hitters", "about 100 heavy hitters mixed with a power law x^-1.35 (Table III)", 5e-10),
)}


def load_dataset(name: str, max_side: int | None = None, seed: int = 0) -> Histogram:
    """A bundled dataset by name (see DATASETS)."""
    require(name in DATASETS, f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}.")
    return DATASETS[name].load(max_side=max_side, seed=seed)


def load_upload(data: bytes, name: str, scale: float = 1.0, max_side: int | None = None) -> Histogram:
    """A file's bytes: a histogram CSV if its name ends in one of CSV_SUFFIXES, else an image."""
    if Path(name).suffix.lower().lstrip(".") in CSV_SUFFIXES:
        return load_csv(data, name=name)
    return load_image(data, scale=scale, max_side=max_side, name=name)


def load_path(path, scale: float = 1.0, max_side: int | None = None) -> Histogram:
    """A CSV (by its suffix, see load_upload) or an image file."""
    return load_upload(*read_source(path), scale=scale, max_side=max_side)
