"""The paper-style report table (Erlingsson et al. 2020, Table IV): one row of displayed strings per
cell (numbers formatted for their size), each cell's caption, the table as Markdown, and its numbers as a
machine-readable CSV (full precision, no thousands separators)."""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

from ldpcore.export.spreadsheet import csv_text, inert

MAX_NAME_CHARS = 80  # a user's name (the data's file name) in a title or caption


def one_line(text: str, limit: int = MAX_NAME_CHARS) -> str:
    """A user's text (a file name) for a title or caption: every run of white space (line breaks, tabs) one
    blank, other control characters left out, at most limit characters (a longer one keeps its start and end,
    where a file name's extension is, around '...')."""
    text = " ".join("".join(c for c in text if c.isspace() or unicodedata.category(c) != "Cc").split())
    if len(text) <= limit:
        return text
    tail = limit // 3
    return text[: limit - tail - 3] + "..." + text[-tail:]


@dataclass(frozen=True)
class TableInfo:
    """What a report table was made from, for its title and caption."""

    dataset: str
    n: int
    delta: float
    seed: int
    accountant: str

    def title(self) -> str:
        return (
            f"{one_line(self.dataset)}: n = {self.n:,}, delta = {self.delta:g}, seed {self.seed}, "
            f"accountant {self.accountant}"
        )


def fmt(x: float | None) -> str:
    """The one number format the page and the readable exports share, for the number's size: two decimals
    (8.55, 327.30), whole numbers with thousands separators from 1,000 on (3,366,030: no decimals on millions),
    two significant digits below 0.01 (0.0012, not 0.00); "inf" for infinity, "" for None."""
    if x is None:
        return ""
    if math.isinf(x):
        return "inf"
    if abs(x) >= 999.995:
        return f"{x:,.0f}"
    return f"{x:.2f}" if x == 0 or abs(x) >= 0.01 else f"{x:.2g}"


def table_rows(cells) -> list[dict]:
    """One row per cell with the displayed strings: eps_c, method, eps_l_inf, eps_l_1, sigma, rmse, messages
    (expected anonymous messages per respondent; empty for the central baseline, which sends raw data), and
    where a cell shows a post-processed estimate, postprocess (its method, "" for a raw cell, whose rmse is clipped
    to [0, input maximum]; otherwise rmse is the post-processed estimate's) and rmse_raw (the raw estimate's)."""
    rows = []
    posted = any(getattr(c, "postprocess", None) for c in cells)  # the two columns only where a cell has one
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
                **(
                    {"postprocess": getattr(c, "postprocess", None) or "", "rmse_raw": fmt(m.get("rmse_raw"))}
                    if posted
                    else {}
                ),
                "messages": fmt(messages),
                "neighbouring": p.get("neighbouring", ""),
                # a cell restated under another notion (ldpcore.experiment.protocol.compare): its own one, unconverted
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
    post = row.get("postprocess")
    rmse = f"RMSE {post}={row['rmse']}" if post else f"clipped RMSE={row['rmse']}"
    if row["sigma"]:
        return [f"sigma={row['sigma']}, eps_l=inf", rmse] + native_line(row)
    lines = [f"eps_inf={row['eps_l_inf']}, eps_1={row['eps_l_1']}", rmse]
    lines += [f"messages={row['messages']}"] if row["messages"] else []
    return lines + native_line(row)


def native_line(row: dict) -> list[str]:
    """A restated cell's notion and its native numbers (ldpcore.experiment.protocol.compare: a zero-out accountant's
    two changed channels composed, the Gaussian at sensitivity sqrt(2)), else nothing."""
    return [f"as {row['neighbouring']}; native {row['native']}"] if row.get("native") else []


def table_grid(rows: list[dict]) -> tuple[list[str], list[str], dict]:
    eps = list(dict.fromkeys(r["eps_c"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    return eps, methods, {(r["eps_c"], r["method"]): r for r in rows}


CSV_FIELDS = (
    "eps_c", "method", "postprocess", "eps_l_inf", "eps_l_1", "sigma", "rmse_clipped", "rmse_postprocessed",
    "rmse_raw", "messages", "neighbouring", "native_neighbouring", "native_eps_c", "native_eps_l_inf", "note",
)  # fmt: skip


def _number(x) -> str:
    """A number as a script reads it back exactly: the shortest text of the float (no thousands separators),
    inf for infinity, empty where it does not apply."""
    return "" if x is None else repr(float(x))


def table_csv(cells) -> str:
    """The report table's numbers, one line per cell, machine-readable: every number at full precision as
    Python's float() and any CSV reader parse it (empty where it does not apply: sigma for a local method, the
    local epsilons and messages for the central baseline); postprocess is the cell's post-processing ("" for a
    raw cell); rmse_clipped is the RMSE per bin of a raw cell's estimate clipped to [0, the input's maximum] (what
    the table shows), rmse_postprocessed that of a post-processed cell's estimate as it is (what the table shows
    then), rmse_raw that of the raw estimate. Written by the csv module, every text cell made inert
    (ldpcore.export.spreadsheet)."""
    rows = []
    for c in cells:
        p, m = ({}, {}) if c.error is not None else (c.privacy, c.metrics)
        central = p.get("sigma") is not None
        post = getattr(c, "postprocess", None) or ""
        row = [
            _number(c.eps_c),
            c.method,
            post,
            "" if central else _number(p.get("eps_l_inf")),
            "" if central else _number(p.get("eps_l_1")),
            _number(p.get("sigma")),
            "" if post else _number(m.get("rmse")),
            _number(m.get("rmse")) if post else "",
            _number(m.get("rmse_raw")),
            _number(p.get("expected_messages")),
            p.get("neighbouring", ""),
            p.get("native_neighbouring", ""),
            _number(p.get("native_eps_c")),
            _number(p.get("native_eps_l_inf")),
            c.error or "",
        ]
        rows.append([inert(v) for v in row])
    return csv_text([list(CSV_FIELDS), *rows])


def table_markdown(cells) -> str:
    eps, methods, at = table_grid(table_rows(cells))
    lines = ["| eps_c | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for e in eps:
        lines.append(f"| {e} | " + " | ".join("<br>".join(cell_caption(at[(e, m)])) for m in methods) + " |")
    return "\n".join(lines) + "\n"
