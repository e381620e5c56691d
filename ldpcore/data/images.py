"""Images -> a ``Histogram``: a pixel of luminance L (0-255) is held by round(L * scale) respondents
(Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar, Thakurta, Encode, Shuffle, Analyze Privacy
Revisited (2020), Sec. VII; the paper's Map uses scale 2.5), so n = the sum of the counts and d =
width * height. Images above MAX_PIXELS are refused from their header, before decoding."""

from __future__ import annotations

import io
import math
import re
import warnings

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from ldpcore.data.histogram import Histogram
from ldpcore.data.sources import read_source
from ldpcore.errors import MAX_COUNT, MAX_COUNT_TEXT, MAX_D, InputError, check_whole, require

MAX_PIXELS = MAX_D  # decompression-bomb guard: refuse larger images (50 megapixels)


def load_image(source, scale: float = 1.0, max_side: int | None = None, name: str | None = None) -> Histogram:
    """Grayscale luminance per pixel = respondents (Erlingsson et al. 2020 Sec. VII).

    scale multiplies luminance before rounding to counts (Map: 2.5). max_side, if given,
    downsamples with box (area) averaging so that mean luminance is preserved.
    Images above MAX_PIXELS are refused from their header, before decoding; the number of
    respondents a pixel and the whole image hold is checked before the counts are allocated.
    """
    require(
        isinstance(scale, (int, float)) and scale > 0 and math.isfinite(scale),
        f"scale must be a finite number > 0 (got {scale}).",
    )
    if max_side is not None:
        max_side = check_whole(max_side, 1, "max_side (pixels)")
    data, name = read_source(source, name=name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own limit is lower
        try:
            img: Image.Image = Image.open(io.BytesIO(data))
        except UnidentifiedImageError:
            raise InputError(f"{name} is not an image Pillow can read (PNG, JPEG, GIF, BMP, TIFF, WebP).") from None
        except Image.DecompressionBombError as exc:
            raise InputError(
                f"{name} has too many pixels: {_bomb_pixels(exc)}; the limit is {MAX_PIXELS / 1e6:.0f} "
                f"megapixels ({MAX_PIXELS:,} pixels): downsample it before loading."
            ) from None
        except (OSError, SyntaxError, ValueError) as exc:
            raise InputError(f"{name} is a truncated or corrupt image ({exc}).") from None
        w, h = img.size
        require(
            w * h <= MAX_PIXELS,
            f"{name} has too many pixels: {w}x{h} = {w * h:,} pixels = {w * h / 1e6:.1f} "
            f"megapixels; the limit is {MAX_PIXELS / 1e6:.0f} megapixels ({MAX_PIXELS:,} "
            "pixels): downsample it before loading.",
        )
        try:
            img.load()
        except (OSError, SyntaxError, ValueError) as exc:
            raise InputError(f"{name} is a truncated or corrupt image ({exc}).") from None
    img = ImageOps.exif_transpose(img)
    notes = []
    if img.mode not in ("I;16", "I;16B", "I;16L"):
        if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
            rgba = img.convert("RGBA")
            base = Image.new("RGBA", rgba.size, (0, 0, 0, 255))
            img = Image.alpha_composite(base, rgba)  # transparent = black = nobody there
            notes.append("transparent pixels were counted as black (no respondents).")
        img = img.convert("L")
    if max_side is not None and max(w, h) > max_side:
        factor = max_side / max(w, h)
        size = (max(1, round(w * factor)), max(1, round(h * factor)))
        if img.mode != "L":  # 16 bits: resampled as floats on the 0-255 scale
            img = Image.fromarray(np.asarray(img, dtype=np.float32) / np.float32(257.0), mode="F")
        img = img.resize(size, Image.Resampling.BOX)
        notes.append(f"downsampled from {w}x{h} to {size[0]}x{size[1]} (max side {max_side} px).")
    counts = _pixel_counts(img, scale, name)
    return Histogram(
        counts=counts.ravel(),
        name=name,
        shape=counts.shape,
        peak=255.0 * scale,
        notes=tuple(notes),
        count_unit="gray levels" if scale == 1 else "respondents",  # one respondent per unit of luminance
        cell="pixel",
    )


def _bomb_pixels(exc: Exception) -> str:
    """The pixels of an image Pillow refused from its header (more than twice Image.MAX_IMAGE_PIXELS), as its
    message states them ("Image size (N pixels) exceeds ..."): Pillow keeps no size for a refused image."""
    found = re.search(r"\((\d+) pixels\)", str(exc))
    if found is None:
        return f"more than {2 * (Image.MAX_IMAGE_PIXELS or MAX_PIXELS):,} pixels"
    pixels = int(found.group(1))
    return f"{pixels:,} pixels = {pixels / 1e6:,.1f} megapixels"


def _pixel_counts(img: Image.Image, scale: float, name: str) -> np.ndarray:
    """round(luminance * scale) per pixel as int64, after checking, before allocating them, that no pixel
    and not the whole image holds more than MAX_COUNT respondents (8-bit: n from the image's histogram)."""
    at = f" at scale {scale:g}" if scale != 1 else ""
    if img.mode == "L":
        table = np.rint(np.arange(256) * float(scale))  # = rint(luminance * scale) of each grey level
        per_level = img.histogram()
        levels = [v for v in range(256) if per_level[v]]
        top = table[levels[-1]]
    else:  # 16-bit greys as floats (divided by 257 to 0-255)
        lum = np.asarray(img, dtype=np.float64) / (1.0 if img.mode == "F" else 257.0)
        top = np.rint(lum.max() * scale)
    require(
        top <= MAX_COUNT,
        f"{name}{at} puts {int(top):,} respondents on one pixel; a count must be at "
        f"most {MAX_COUNT_TEXT} (lower the scale).",
    )
    if img.mode == "L":
        n = sum(per_level[v] * int(table[v]) for v in levels)
        counts = table.astype(np.int64)[np.asarray(img)]
    else:
        counts = np.rint(lum * scale)
        n = counts.sum()
    require(
        n <= MAX_COUNT,
        f"{name}{at} holds n = {int(n):,} respondents; n must be at most {MAX_COUNT_TEXT} (lower the scale).",
    )
    if n == 0:
        raise InputError(
            f"{name} has no respondents: every pixel is black."
            if img.getextrema()[1] == 0
            else f"{name} has no respondents{at}: every pixel rounds to 0 (raise the scale)."
        )
    return counts.astype(np.int64, copy=False)
