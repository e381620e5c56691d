"""Exports: PNG renderings of histograms, the estimate as CSV, the run record as JSON."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from ldpcore.data.loaders import Histogram
from ldpcore.errors import InputError
from ldpcore.experiment.metrics import clip_estimate
from ldpcore.experiment.planner import Z95, standard_errors

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


INTERVAL_NOTE = (
    "per bin, the 95% normal interval estimate -+ 1.96 x std_error of the raw (unbiased) estimate; std_error by "
    "plug-in: the oracle's analytic variance at the estimate clipped to [0, n] and rounded (the central Gaussian "
    "baseline: its sigma)"
)


def std_errors(hist: Histogram, estimate: np.ndarray, plan=None, sigma: float | None = None) -> np.ndarray:
    """Every bin's standard error: an LDP run's (its Plan) by plug-in (ldpcore.experiment.planner.standard_errors),
    the central Gaussian baseline's (no plan) its sigma."""
    if plan is not None:
        return standard_errors(plan.oracle(), hist.n, estimate)
    if sigma is None:
        raise InputError("a standard error needs the run's plan, or the Gaussian baseline's sigma.")
    return np.full(hist.d, float(sigma))


def uncertainty(std_error: np.ndarray) -> dict:
    """The run record's summary of the per-bin intervals (the bins themselves are in the estimate CSV)."""
    return {
        "level": 0.95,
        "z": Z95,
        "mean_std_error": float(np.mean(std_error)),
        "rms_std_error": float(np.sqrt(np.mean(np.square(std_error)))),
        "max_std_error": float(np.max(std_error)),
        "how": INTERVAL_NOTE,
        "per_bin": "estimate.csv: std_error, ci95_low, ci95_high",
    }


def estimate_csv_chunks(hist: Histogram, estimate: np.ndarray, std_error: np.ndarray):
    """The estimate CSV (value,true,estimate,clipped,std_error,ci95_low,ci95_high rows; value = label, pixel index
    or bin index; the interval as INTERVAL_NOTE says) as pieces of text of CSV_ROWS_PER_CHUNK rows, so that a file
    of millions of rows is never held whole."""
    yield "value,true,estimate,clipped,std_error,ci95_low,ci95_high\n"
    labels = iter(hist.labels) if hist.labels is not None else None
    for start in range(0, hist.d, CSV_ROWS_PER_CHUNK):
        stop = min(start + CSV_ROWS_PER_CHUNK, hist.d)
        values = [next(labels) for _ in range(stop - start)] if labels is not None else range(start, stop)
        part, se = estimate[start:stop], std_error[start:stop]
        clipped = clip_estimate(part, hist.max_count)
        low, high = part - Z95 * se, part + Z95 * se
        yield "".join(
            f"{v},{t},{e:.6g},{c:.6g},{s:.6g},{lo:.6g},{hi:.6g}\n"
            for v, t, e, c, s, lo, hi in zip(
                values,
                hist.counts[start:stop].tolist(),
                part.tolist(),
                clipped.tolist(),
                se.tolist(),
                low.tolist(),
                high.tolist(),
            )
        )


def estimate_csv(hist: Histogram, estimate: np.ndarray, std_error: np.ndarray) -> str:
    """The estimate CSV of estimate_csv_chunks in one string."""
    return "".join(estimate_csv_chunks(hist, estimate, std_error))


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


def write_run(result, record: dict, out: Path, std_error: np.ndarray) -> list[Path]:
    """original.png, reconstruction.png, estimate.csv (with every bin's std_error and interval) and run.json (the
    record, result.as_dict() with uncertainty(std_error)) in the folder out (made if needed); InputError if they
    cannot be written."""
    out = output_folder(out)
    hist = result.histogram
    files = {
        "original.png": lambda: [png_bytes(render(hist))],
        "reconstruction.png": lambda: [png_bytes(render(hist, result.estimate))],
        "estimate.csv": lambda: (chunk.encode() for chunk in estimate_csv_chunks(hist, result.estimate, std_error)),
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


# --- paper-style report tables (Erlingsson et al. 2020, Table IV) ------------------------------


@dataclass(frozen=True)
class TableInfo:
    """What a report table was made from, for its title and caption."""

    dataset: str
    n: int
    delta: float
    seed: int
    accountant: str

    def title(self) -> str:
        return f"{self.dataset}: n = {self.n:,}, delta = {self.delta:g}, seed {self.seed}, accountant {self.accountant}"


def fmt(x: float | None) -> str:
    """The one number format shared by the page and every export: two decimals."""
    if x is None:
        return ""
    return "inf" if math.isinf(x) else f"{x:.2f}"


def table_rows(cells) -> list[dict]:
    """One row per cell with the displayed strings: eps_c, method, eps_l_inf, eps_l_1, sigma, rmse, messages
    (expected anonymous messages per respondent; empty for the central baseline, which sends raw data)."""
    rows = []
    for c in cells:
        p, m = ({}, {}) if c.error is not None else (c.privacy, c.metrics)
        messages = p.get("expected_messages")
        rows.append(
            {
                "eps_c": f"{c.eps_c:g}",
                "method": c.method,
                "eps_l_inf": fmt(p.get("eps_l_inf")),
                "eps_l_1": fmt(p.get("eps_l_1")),
                "sigma": fmt(p.get("sigma")),
                "rmse": fmt(m.get("rmse")),
                "messages": "" if messages is None else f"{messages:,.2f}",
                "neighbouring": p.get("neighbouring", ""),
                # a cell restated under another notion (ldpcore.experiment.compare): its own one, unconverted
                "native": (
                    f"{p['native_neighbouring']}: eps_c={p['native_eps_c']:g}"
                    + ("" if p.get("sigma") else f", eps_inf={fmt(p['native_eps_l_inf'])}")
                    if "native_neighbouring" in p
                    else ""
                ),
                "note": c.error or "",
            }
        )
    return rows


def cell_caption(row: dict) -> list[str]:
    """The lines under a cell's image (ASCII, so any font renders them)."""
    if row["note"]:
        return ["not defined", row["note"]]
    if row["sigma"]:
        return [f"sigma={row['sigma']}, eps_l=inf", f"RMSE={row['rmse']}"] + _native_line(row)
    lines = [f"eps_inf={row['eps_l_inf']}, eps_1={row['eps_l_1']}", f"RMSE={row['rmse']}"]
    lines += [f"messages={row['messages']}"] if row["messages"] else []
    return lines + _native_line(row)


def _native_line(row: dict) -> list[str]:
    """A converted cell's notion and its native numbers (ldpcore.experiment.compare), else nothing."""
    return [f"as {row['neighbouring']} (2 eps, 2 delta); native {row['native']}"] if row.get("native") else []


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


_LATEX_SPECIAL = {c: "\\" + c for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}


def latex_text(text: str) -> str:
    r"""Plain text for LaTeX: special characters escaped, then this project's identifiers in math mode
    (tau=4 -> $\tau=4$, eps_c -> $\varepsilon_c$, eps_l -> $\varepsilon_\ell$, eps_b -> $\varepsilon_b$,
    <= -> $\le$)."""
    out = "".join(_LATEX_SPECIAL.get(c, c) for c in text)
    out = re.sub(r"\btau=(\d+)", r"$\\tau=\1$", out)
    out = re.sub(r"\beps\\_l\b", r"$\\varepsilon_\\ell$", out)
    out = re.sub(r"\beps\\_([a-z0-9]+)\b", r"$\\varepsilon_{\1}$", out)
    return out.replace("<=", r"$\le$").replace(">=", r"$\ge$")


def _latex_number(value: str) -> str:
    """A displayed number in math mode: thousands separators as {,}, inf as infinity."""
    return r"\infty" if value == "inf" else value.replace(",", "{,}")


def _latex_delta(delta: float) -> str:
    """delta in math mode: 5e-08 -> 5\times10^{-8}."""
    mantissa, _, exponent = f"{delta:g}".partition("e")
    return mantissa if not exponent else rf"{mantissa}\times10^{{{int(exponent)}}}"


def _latex_cell(row: dict, image: str | None, width: str) -> str:
    if row["note"]:
        return rf"\parbox[t]{{{width}}}{{\footnotesize\raggedright not defined: {latex_text(row['note'])}}}"
    lines = [rf"\includegraphics[width={width}]{{{image}}}"] if image else []
    if row["sigma"]:
        lines.append(rf"$\sigma={row['sigma']}$, $\varepsilon_\ell=\infty$")
    else:
        lines.append(
            rf"$\varepsilon_{{\ell^\infty}}={_latex_number(row['eps_l_inf'])}$, "
            rf"$\varepsilon_{{\ell^1}}={_latex_number(row['eps_l_1'])}$"
        )
    lines.append(rf"RMSE $={row['rmse']}$")
    if row["messages"]:
        lines.append(rf"messages $={_latex_number(row['messages'])}$")
    lines += [latex_text(line) for line in _native_line(row)]
    return r"\begin{tabular}[t]{@{}c@{}}" + r"\\ ".join(lines) + r"\end{tabular}"


def table_latex(cells, info: TableInfo | None = None, images: dict | None = None, label: str = "tab:ldp") -> str:
    r"""The table as a complete LaTeX `table` environment (needs graphicx when images are given): a caption
    naming the data, n, delta, seed and accountant, epsilon in math mode, each defined cell's reconstruction
    as \includegraphics of images[(eps_c, method)] (file names, as in table_zip) and its numbers beneath,
    each undefined cell with its reason."""
    rows = table_rows(cells)
    eps, methods, at = _grid(rows)
    width = f"{0.9 / max(len(methods), 1):.3f}\\linewidth"
    caption = (
        "Reconstructions at several central $\\varepsilon_c$ with the local guarantees "
        "$\\varepsilon_{\\ell^\\infty}$ (all of one respondent's messages) and $\\varepsilon_{\\ell^1}$ "
        "(one message), the RMSE per bin and the expected messages per respondent"
    )
    if info is not None:
        caption += (
            f" ({latex_text(info.dataset)}, $n={_latex_number(f'{info.n:,}')}$, "
            f"$\\delta={_latex_delta(info.delta)}$, seed {info.seed}, accountant {latex_text(info.accountant)})"
        )
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{caption}.}}",
        rf"\label{{{label}}}",
        r"\footnotesize",
        r"\setlength{\tabcolsep}{2pt}",
        r"\begin{tabular}{l" + "c" * len(methods) + "}",
        r"\hline",
        r"$\varepsilon_c$ & "
        + " & ".join(rf"\parbox[b]{{{width}}}{{\centering {latex_text(m)}}}" for m in methods)
        + r" \\",
        r"\hline",
    ]
    for e in eps:
        cells_tex = [_latex_cell(at[(e, m)], (images or {}).get((e, m)), width) for m in methods]
        lines.append(f"${e}$ & " + " & ".join(cells_tex) + r" \\")
    lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


LATEX_DOCUMENT = r"""\documentclass{article}
\usepackage[margin=1.5cm]{geometry}
\usepackage{graphicx}
\begin{document}
\input{report_table}
\end{document}
"""


def thumbnail(hist: Histogram, values: np.ndarray | None, width: int) -> Image.Image:
    """A small picture of the original (values=None) or an estimate on the original's scale: an image
    resized to width, a histogram as dark bars on white (each column the largest bin it covers, so heavy
    hitters stay visible whatever d is)."""
    values = hist.counts if values is None else values
    if hist.shape is not None:  # an image
        img = to_gray(values, hist.shape, hist.max_count)
        height = max(1, round(img.height * width / img.width))
        return img.resize((width, height), Image.Resampling.BOX).convert("RGB")
    height = max(40, width // 2)
    values = np.clip(np.asarray(values, dtype=np.float64), 0, None)
    edges = np.linspace(0, values.size, min(width, values.size) + 1).astype(np.int64)
    tops = np.maximum.reduceat(values, edges[:-1])
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


def _image_name(i: int, j: int) -> str:
    return f"cells/row{i + 1}_col{j + 1}.png"


def table_zip(cells, hist: Histogram, info: TableInfo, estimate_of=None, thumb_width: int = 400) -> bytes:
    """The table for a paper as one ZIP: report_table.tex (the table environment), main.tex (a document that
    compiles it with pdflatex), cells/*.png (the reconstructions it includes) and report_table.csv."""
    import zipfile

    rows = table_rows(cells)
    eps, methods, _ = _grid(rows)
    estimate_of = estimate_of or (lambda c: c.estimate)
    images = {}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for c in cells:
            if c.error is None:
                key = (f"{c.eps_c:g}", c.method)
                name = _image_name(eps.index(key[0]), methods.index(key[1]))
                z.writestr(name, png_bytes(thumbnail(hist, estimate_of(c), thumb_width)))
                images[key] = name
        z.writestr("report_table.tex", table_latex(cells, info, images))
        z.writestr("main.tex", LATEX_DOCUMENT)
        z.writestr("report_table.csv", table_csv(cells))
    return buf.getvalue()


def table_png(cells, hist: Histogram, estimate_of=None, info: TableInfo | None = None) -> bytes:
    """The whole table as one PNG: a title line (info), reconstructions with their captions wrapped (never
    cut), as in Table IV. estimate_of(cell), if given, supplies each defined cell's estimate as its picture
    is drawn (only one is needed at a time)."""
    from PIL import ImageFont

    rows = table_rows(cells)
    eps, methods, at = _grid(rows)
    estimate_of = estimate_of or (lambda c: c.estimate)
    defined = {(f"{c.eps_c:g}", c.method): c for c in cells if c.error is None}
    font = ImageFont.load_default(size=13)
    tw = 200  # thumbnail width (px)
    th = thumbnail(hist, None, tw).height
    wrap = 30  # characters per caption line at 13 px in a 200 px column
    captions = {key: [w for line in cell_caption(r) for w in textwrap.wrap(line, wrap)] for key, r in at.items()}
    cap_h = 15 * max(len(c) for c in captions.values()) + 6
    title_h = 26 if info is not None else 0
    head_w, head_h, pad = 110, 40 + title_h, 8
    width = head_w + len(methods) * (tw + pad) + pad
    height = head_h + len(eps) * (th + cap_h + pad) + pad
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    if info is not None:
        draw.text((8, 6), info.title(), fill="black", font=ImageFont.load_default(size=15))
    for j, m in enumerate(methods):
        x = head_w + j * (tw + pad) + pad
        for k, line in enumerate(textwrap.wrap(m, wrap, break_long_words=False, break_on_hyphens=False)[:2]):
            draw.text((x, title_h + 4 + 15 * k), line, fill="black", font=font)
    for i, e in enumerate(eps):
        y = head_h + i * (th + cap_h + pad)
        draw.text((8, y + th // 2 - 7), f"eps_c = {e}", fill="black", font=font)
        for j, m in enumerate(methods):
            x = head_w + j * (tw + pad) + pad
            if (e, m) not in defined:
                draw.rectangle([x, y, x + tw - 1, y + th - 1], outline="gray")
            else:
                sheet.paste(thumbnail(hist, estimate_of(defined[(e, m)]), tw), (x, y))
            for k, line in enumerate(captions[(e, m)]):
                draw.text((x, y + th + 3 + 15 * k), line, fill="black", font=font)
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
