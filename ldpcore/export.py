"""Exports: PNG renderings of histograms, the estimate as CSV, the run record as JSON."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import textwrap
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from ldpcore.data.loaders import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.metrics import clip_estimate

CSV_ROWS_PER_CHUNK = 65_536  # the estimate CSV and the error map are made this many values at a time


def to_gray(values: np.ndarray, shape: tuple[int, int], vmax: float) -> Image.Image:
    """An image on the fixed scale [0, vmax] -> [0, 255] (same scale for original and estimate)."""
    scaled = np.asarray(values, dtype=np.float64) / max(vmax, 1e-12)  # one float copy, then worked in place
    np.clip(scaled, 0, 1, out=scaled)
    scaled *= 255
    return Image.fromarray(np.rint(scaled, out=scaled).astype(np.uint8).reshape(shape), mode="L")


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
    if hist.shape is not None:  # an image
        return to_gray(values, hist.shape, hist.max_count)
    return histogram_plot(values, hist.max_count)


def png_bytes(img: Image.Image, compress_level: int = 6) -> bytes:
    """img as a PNG file; compress_level 1 encodes a few times faster than the default 6 for files about
    10% larger (what a page shows and throws away on the next step)."""
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=compress_level)
    return buf.getvalue()


def estimate_csv_chunks(hist: Histogram, estimate: np.ndarray):
    """The estimate CSV (value,true,estimate,clipped rows; value = label, pixel index or bin index) as
    pieces of text of CSV_ROWS_PER_CHUNK rows, so that a file of millions of rows is never held whole."""
    yield "value,true,estimate,clipped\n"
    labels = iter(hist.labels) if hist.labels is not None else None
    for start in range(0, hist.d, CSV_ROWS_PER_CHUNK):
        stop = min(start + CSV_ROWS_PER_CHUNK, hist.d)
        values = [next(labels) for _ in range(stop - start)] if labels is not None else range(start, stop)
        part = estimate[start:stop]
        clipped = clip_estimate(part, hist.max_count)
        yield "".join(
            f"{v},{t},{e:.6g},{c:.6g}\n"
            for v, t, e, c in zip(values, hist.counts[start:stop].tolist(), part.tolist(), clipped.tolist())
        )


def estimate_csv(hist: Histogram, estimate: np.ndarray) -> str:
    """value,true,estimate,clipped rows (value = label, pixel index or bin index)."""
    return "".join(estimate_csv_chunks(hist, estimate))


def to_json(record: object) -> str:
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


def output_folder(out) -> Path:
    """The folder out, made if needed, checked to take files; InputError (naming out and the reason)
    if it is a file or cannot be made or written, before any work is done for it."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"the output folder {out} is a file; give a folder (it is made if needed).")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot make the output folder {out} ({exc.strerror or exc}).") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in the output folder {out} (permission denied).")
    return out


def write_run(result, record: dict, out: Path) -> list[Path]:
    """original.png, reconstruction.png, estimate.csv and run.json (the record, result.as_dict()) in the folder out
    (made if needed); InputError if they cannot be written."""
    out = output_folder(out)
    hist = result.histogram
    files = {
        "original.png": lambda: [png_bytes(render(hist))],
        "reconstruction.png": lambda: [png_bytes(render(hist, result.estimate))],
        "estimate.csv": lambda: (chunk.encode() for chunk in estimate_csv_chunks(hist, result.estimate)),
        "run.json": lambda: [to_json(record).encode()],
    }
    for name, parts in files.items():
        try:
            with open(out / name, "wb") as f:
                for part in parts():
                    f.write(part)
        except OSError as exc:
            raise InputError(f"cannot write {out / name} ({exc.strerror or exc}).") from None
    return [out / name for name in files]


# --- paper-style report tables (Erlingsson et al. 2020 Table IV) ------------------------------------


def fmt(x: float | None) -> str:
    """The one number format shared by the page and every export: two decimals."""
    if x is None:
        return ""
    return "inf" if math.isinf(x) else f"{x:.2f}"


def table_rows(cells) -> list[dict]:
    """One row per cell with the displayed strings: eps_c, method, eps_l_inf, eps_l_1, sigma, rmse."""
    rows = []
    for c in cells:
        p, m = c.privacy or {}, c.metrics or {}
        rows.append(
            {
                "eps_c": f"{c.eps_c:g}",
                "method": c.method,
                "eps_l_inf": fmt(p.get("eps_l_inf")),
                "eps_l_1": fmt(p.get("eps_l_1")),
                "sigma": fmt(p.get("sigma")),
                "rmse": fmt(m.get("rmse")),
                "note": c.error or "",
            }
        )
    return rows


def cell_caption(row: dict) -> list[str]:
    """The lines under a cell's image (ASCII, so any font renders them)."""
    if row["note"]:
        return ["not defined", row["note"]]
    if row["sigma"]:
        return [f"sigma={row['sigma']}, eps_l=inf", f"RMSE={row['rmse']}"]
    return [f"eps_inf={row['eps_l_inf']}, eps_1={row['eps_l_1']}", f"RMSE={row['rmse']}"]


def _grid(rows: list[dict]) -> tuple[list[str], list[str], dict]:
    eps = list(dict.fromkeys(r["eps_c"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    return eps, methods, {(r["eps_c"], r["method"]): r for r in rows}


def table_csv(cells) -> str:
    rows = table_rows(cells)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def table_markdown(cells) -> str:
    eps, methods, at = _grid(table_rows(cells))
    lines = ["| eps_c | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for e in eps:
        lines.append(f"| {e} | " + " | ".join("<br>".join(cell_caption(at[(e, m)])) for m in methods) + " |")
    return "\n".join(lines) + "\n"


def _latex_cell(row: dict) -> str:
    if row["note"]:
        return "not defined"
    if row["sigma"]:
        return rf"\shortstack{{$\sigma={row['sigma']}$, $\varepsilon_\ell=\infty$\\ RMSE$={row['rmse']}$}}"
    return (
        rf"\shortstack{{$\varepsilon_{{\ell^\infty}}={row['eps_l_inf']}$, "
        rf"$\varepsilon_{{\ell^1}}={row['eps_l_1']}$\\ RMSE$={row['rmse']}$}}"
    )


def table_latex(cells) -> str:
    eps, methods, at = _grid(table_rows(cells))
    esc = lambda s: s.replace("_", r"\_")  # noqa: E731
    lines = [
        r"\begin{tabular}{l" + "c" * len(methods) + "}",
        r"\hline",
        r"$\varepsilon_c$ & " + " & ".join(esc(m) for m in methods) + r" \\",
        r"\hline",
    ]
    for e in eps:
        lines.append(f"${e}$ & " + " & ".join(_latex_cell(at[(e, m)]) for m in methods) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def table_png(cells, hist: Histogram, estimate_of=None) -> bytes:
    """The whole table as one PNG: reconstructions with their captions, as in Table IV. estimate_of(cell), if
    given, supplies each defined cell's estimate as its picture is drawn (only one is needed at a time)."""
    from PIL import ImageFont

    rows = table_rows(cells)
    eps, methods, at = _grid(rows)
    estimate_of = estimate_of or (lambda c: c.estimate)
    defined = {(f"{c.eps_c:g}", c.method): c for c in cells if c.error is None}
    font = ImageFont.load_default(size=13)
    ref = render(hist)
    tw = 200  # thumbnail width (px)
    th = max(1, round(ref.height * tw / ref.width))
    head_w, head_h, cap_h, pad = 110, 40, 38, 8
    width = head_w + len(methods) * (tw + pad) + pad
    height = head_h + len(eps) * (th + cap_h + pad) + pad
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    for j, m in enumerate(methods):
        x = head_w + j * (tw + pad) + pad
        for k, line in enumerate(textwrap.wrap(m, 30, break_long_words=False, break_on_hyphens=False)[:2]):
            draw.text((x, 4 + 15 * k), line, fill="black", font=font)
    for i, e in enumerate(eps):
        y = head_h + i * (th + cap_h + pad)
        draw.text((8, y + th // 2 - 7), f"eps_c = {e}", fill="black", font=font)
        for j, m in enumerate(methods):
            x = head_w + j * (tw + pad) + pad
            if (e, m) not in defined:
                draw.rectangle([x, y, x + tw - 1, y + th - 1], outline="gray")
            else:
                picture = render(hist, estimate_of(defined[(e, m)]))
                sheet.paste(picture.resize((tw, th), Image.Resampling.BOX).convert("RGB"), (x, y))
            for k, line in enumerate(cell_caption(at[(e, m)])):
                draw.text((x, y + th + 3 + 15 * k), line[:34], fill="black", font=font)
    return png_bytes(sheet)


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
