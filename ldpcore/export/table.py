"""The paper-style report table (Erlingsson et al. 2020, Table IV): one row of displayed strings per
cell, each cell's caption, and the table as CSV and Markdown."""

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
    """The one number format shared by the page and every export: two decimals."""
    if x is None:
        return ""
    return "inf" if math.isinf(x) else f"{x:.2f}"


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
                "messages": "" if messages is None else f"{messages:,.2f}",
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
    rmse = f"RMSE={row['rmse']}" if not row.get("postprocess") else f"RMSE {row['postprocess']}={row['rmse']}"
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


def table_csv(cells) -> str:
    """The rows of table_rows as CSV for a spreadsheet (csv module, every cell made inert:
    ldpcore.export.spreadsheet)."""
    rows = table_rows(cells)
    return csv_text([list(rows[0])] + [[inert(v) for v in row.values()] for row in rows])


def table_markdown(cells) -> str:
    eps, methods, at = table_grid(table_rows(cells))
    lines = ["| eps_c | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for e in eps:
        lines.append(f"| {e} | " + " | ".join("<br>".join(cell_caption(at[(e, m)])) for m in methods) + " |")
    return "\n".join(lines) + "\n"
