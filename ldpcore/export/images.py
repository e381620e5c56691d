"""Pictures of histograms: an image on the original's grey scale, a 1-D histogram as a column plot or a
bar thumbnail, the signed error map, and PNG bytes."""

from __future__ import annotations

import io
import math

import numpy as np
from PIL import Image, ImageDraw

from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.protocol.metrics import clip_estimate
from ldpcore.export.estimates import CSV_ROWS_PER_CHUNK


def to_gray(values: np.ndarray, shape: tuple[int, int], vmax: float) -> Image.Image:
    """An image on the fixed scale [0, vmax] -> [0, 255] (same scale for original and estimate)."""
    scaled = np.asarray(values, dtype=np.float64) / max(vmax, 1e-12)  # one float copy, then worked in place
    np.clip(scaled, 0, 1, out=scaled)
    scaled *= 255
    return Image.fromarray(np.rint(scaled, out=scaled).astype(np.uint8).reshape(shape), mode="L")


def column_tops(values: np.ndarray, width: int) -> np.ndarray:
    """The largest value (negative ones as 0) in each of min(width, len(values)) column ranges of equal
    width: what one pixel column of a histogram's picture shows, so heavy hitters stay visible."""
    values = np.clip(np.asarray(values, dtype=np.float64), 0, None)
    edges = np.linspace(0, values.size, min(width, values.size) + 1).astype(np.int64)
    return np.maximum.reduceat(values, edges[:-1])


def histogram_plot(values: np.ndarray, vmax: float, width: int = 1024, height: int = 320) -> Image.Image:
    """A 1-D histogram as a white-on-black column plot on a log1p scale (max per pixel column)."""
    tops = column_tops(values, width)
    img = Image.new("L", (tops.size, height), 0)
    draw = ImageDraw.Draw(img)
    scale = (height - 1) / math.log1p(max(vmax, 1.0))
    for x, top in enumerate(tops):
        draw.line([(x, height - 1), (x, height - 1 - int(math.log1p(top) * scale))], fill=255)
    return img


def render(hist: Histogram, values: np.ndarray | None = None) -> Image.Image:
    """The original (values=None) or an estimate, on the original's scale."""
    values = hist.counts if values is None else values
    if hist.shape is not None:  # an image
        return to_gray(values, hist.shape, hist.max_count)
    return histogram_plot(values, hist.max_count)


def png_bytes(img: Image.Image, compress_level: int = 6) -> bytes:
    """img as a PNG file; compress_level 1 encodes a few times faster than the default 6 for files about
    10% larger (what a page shows and throws away on the next step)."""
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=compress_level)
    return buf.getvalue()


def thumbnail(hist: Histogram, values: np.ndarray | None, width: int) -> Image.Image:
    """A small picture of the original (values=None) or an estimate on the original's scale: an image
    resized to width, a histogram as dark bars on white (each column the largest bin it covers, so heavy
    hitters stay visible whatever d is)."""
    values = hist.counts if values is None else values
    if hist.shape is not None:  # an image
        img = render(hist, values)
        height = max(1, round(img.height * width / img.width))
        return img.resize((width, height), Image.Resampling.BOX).convert("RGB")
    height = max(40, width // 2)
    tops = column_tops(values, width)
    bar = width / tops.size
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    scale = (height - 2) / max(hist.max_count, 1.0)
    for i, top in enumerate(tops):
        h = min(height - 2, int(round(top * scale)))
        if h > 0:
            draw.rectangle(
                [int(i * bar), height - 1 - h, max(int(i * bar), int((i + 1) * bar) - 1), height - 1], fill=(40, 40, 40)
            )
    draw.line([(0, height - 1), (width - 1, height - 1)], fill=(150, 150, 150))
    return img


def error_map(hist: Histogram, estimate: np.ndarray) -> Image.Image:
    """Signed error of the clipped estimate: red over, blue under, white exact (scale +-input max);
    made CSV_ROWS_PER_CHUNK pixels at a time, so a 50-megapixel map needs no float copies of the image."""
    if hist.shape is None:
        raise InputError(f"{hist.name} is not an image: an error map needs one.")
    shape = hist.shape
    rgb = np.empty((hist.d, 3), dtype=np.uint8)
    scale = max(hist.max_count, 1)
    for start in range(0, hist.d, CSV_ROWS_PER_CHUNK):
        part = slice(start, start + CSV_ROWS_PER_CHUNK)
        t = np.clip((clip_estimate(estimate[part], hist.max_count) - hist.counts[part]) / scale, -1, 1)
        rgb[part] = np.rint(np.stack([1 - np.maximum(-t, 0), 1 - np.abs(t), 1 - np.maximum(t, 0)], axis=-1) * 255)
    return Image.fromarray(rgb.reshape(shape + (3,)), mode="RGB")
