"""Exports: PNG renderings of histograms, the estimate as CSV, the run record as JSON."""
from __future__ import annotations

import io
import json
import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from .data import Histogram


def to_gray(values: np.ndarray, shape: tuple[int, int], vmax: float) -> Image.Image:
    """An image on the fixed scale [0, vmax] -> [0, 255] (same scale for original and estimate)."""
    scaled = np.clip(np.asarray(values, dtype=np.float64) / max(vmax, 1e-12), 0, 1) * 255
    return Image.fromarray(np.rint(scaled).astype(np.uint8).reshape(shape), mode="L")


def histogram_plot(values: np.ndarray, vmax: float, width: int = 1024, height: int = 320) -> Image.Image:
    """A 1-D histogram as a white-on-black column plot on a log1p scale (max per pixel column)."""
    values = np.clip(np.asarray(values, dtype=np.float64), 0, None)
    edges = np.linspace(0, values.size, min(width, values.size) + 1).astype(np.int64)
    tops = np.maximum.reduceat(values, edges[:-1])
    img = Image.new("L", (tops.size, height), 0)
    draw = ImageDraw.Draw(img)
    scale = (height - 1) / math.log1p(max(vmax, 1.0))
    for x, top in enumerate(tops):
        draw.line([(x, height - 1), (x, height - 1 - int(math.log1p(top) * scale))], fill=255)
    return img


def render(hist: Histogram, values: np.ndarray | None = None) -> Image.Image:
    """The original (values=None) or an estimate, on the original's scale."""
    values = hist.counts if values is None else values
    if hist.is_image:
        return to_gray(values, hist.shape, hist.max_count)
    return histogram_plot(values, hist.max_count)


def png_bytes(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def estimate_csv(hist: Histogram, estimate: np.ndarray) -> str:
    """value,true,estimate,clipped rows (value = label, pixel index or bin index)."""
    labels = hist.labels or range(hist.d)
    clipped = np.clip(estimate, 0, hist.max_count)
    lines = ["value,true,estimate,clipped"]
    lines += [f"{v},{t},{e:.6g},{c:.6g}" for v, t, e, c in zip(labels, hist.counts, estimate, clipped)]
    return "\n".join(lines) + "\n"


def to_json(record: dict) -> str:
    """JSON with NaN/inf written as null (strict JSON)."""
    def clean(x):
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, np.generic):
            return clean(x.item())
        return x
    return json.dumps(clean(record), indent=2)


def write_run(result, out: Path) -> list[Path]:
    """original.png, reconstruction.png, estimate.csv and run.json in the folder out."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    hist = result.histogram
    files = {
        "original.png": png_bytes(render(hist)),
        "reconstruction.png": png_bytes(render(hist, result.estimate)),
        "estimate.csv": estimate_csv(hist, result.estimate).encode(),
        "run.json": to_json(result.as_dict()).encode(),
    }
    for name, data in files.items():
        (out / name).write_bytes(data)
    return [out / name for name in files]
