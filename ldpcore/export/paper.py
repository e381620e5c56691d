"""The report table for a paper: a ZIP that compiles with pdflatex (the table, a document, the cells'
pictures and the CSV), and the whole table as one PNG."""

from __future__ import annotations

import io
import textwrap

from PIL import Image, ImageDraw

from ldpcore.data.histogram import Histogram
from ldpcore.export.images import png_bytes, thumbnail
from ldpcore.export.latex import LATEX_DOCUMENT, table_latex
from ldpcore.export.table import TableInfo, cell_caption, table_csv, table_grid, table_rows


def _image_name(i: int, j: int) -> str:
    return f"cells/row{i + 1}_col{j + 1}.png"


def table_zip(cells, hist: Histogram, info: TableInfo, estimate_of=None, thumb_width: int = 400) -> bytes:
    """The table for a paper as one ZIP: report_table.tex (the table environment), main.tex (a document that
    compiles it with pdflatex), cells/*.png (the reconstructions it includes) and report_table.csv."""
    import zipfile

    rows = table_rows(cells)
    eps, methods, _ = table_grid(rows)
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
    eps, methods, at = table_grid(rows)
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
