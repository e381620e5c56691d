"""Numeric columns in bins, as numpy.histogram makes them: the outer edges (given, or the data's finite
min and max), the number of bins (given, or a rule that needs only n and the span), and the SQL that puts
each row in its bin (or bins, one per axis, for a 2-D grid) beside its status."""

from __future__ import annotations

import numpy as np

from ldpcore.data.ingest.input_file import InputFile
from ldpcore.data.ingest.report import NOT_NUMBER, NULL, OUT_OF_DOMAIN
from ldpcore.data.ingest.rules import parse_range
from ldpcore.errors import check_whole, require

BIN_RULES = ("sturges", "rice", "sqrt")  # numpy's bin-count rules that need only n, min and max


def numeric_range(inp: InputFile, x: str, value_range, want_stats: bool, what: str):
    """(lo, hi, n, data min, data max, taken from the data): the outer edges as
    numpy.histogram takes them (the finite data's min and max, v +- 0.5 for a single value
    v, (0, 1) for none) and, when asked or needed, the count and span of the values in them."""
    given = value_range is not None
    lo, hi = parse_range(value_range, what) if given else (0.0, 1.0)
    n, dmin, dmax = 0, 0.0, 0.0
    if want_stats or not given:
        where = f"{x} BETWEEN $lo AND $hi" if given else f"isfinite({x})"
        n, dmin, dmax = inp.query(
            f"SELECT count(*), min({x}), max({x}) FROM {inp.scan()} WHERE {where}",
            {"lo": lo, "hi": hi} if given else {},
        )[0]
        n, dmin, dmax = int(n), float(dmin or 0.0), float(dmax or 0.0)
    if not given and n > 0:
        lo, hi = (dmin - 0.5, dmax + 0.5) if dmin == dmax else (dmin, dmax)
    return lo, hi, n, dmin, dmax, not given


def bin_count(bins, n: int, data_min: float, data_max: float, lo: float, hi: float) -> int:
    """bins as given, or numpy.histogram_bin_edges' rule of that name (Sturges, Rice or
    square root: each needs only n and the data's span, so one streaming pass finds it)."""
    if not isinstance(bins, str):
        return check_whole(bins, 1, "bins")
    require(bins in BIN_RULES, f"bins must be a whole number >= 1 or one of {', '.join(BIN_RULES)} (got {bins!r}).")
    ptp = data_max - data_min
    width = (
        {
            "sturges": lambda: ptp / (np.log2(n) + 1.0),
            "rice": lambda: ptp / (2.0 * n ** (1.0 / 3)),
            "sqrt": lambda: ptp / np.sqrt(n),
        }[bins]()
        if n > 0
        else 0.0
    )
    return int(np.ceil((hi - lo) / width)) if width else 1


def binned(inp: InputFile, row_order: bool, missing: str, axes) -> str:
    """SQL: the file with _st (the row's status, NULL = kept) and _b0, _b1, ... (each axis's
    bin, NULL unless kept). axes: (x, nbins) per axis, x SQL for a DOUBLE, binned over
    [$lo_j, $hi_j] with edges $e_j = numpy.linspace(lo, hi, nbins + 1) as numpy.histogram's
    equal-bin path does (numpy/lib/_histograms_impl.py): scale and truncate, then correct
    by one against the edges; the last bin includes its right edge. One stage per step, so
    that DuckDB computes each once."""
    xs = ", ".join(f"{x} AS _x{j}" for j, (x, _) in enumerate(axes))
    any_of = lambda test: " OR ".join(test.format(j=j) for j in range(len(axes)))  # noqa: E731
    inside = " AND ".join(f"_x{j} BETWEEN $lo_{j} AND $hi_{j}" for j in range(len(axes)))
    status = (
        f"CASE WHEN _miss IS NOT NULL THEN _miss WHEN {any_of('_x{j} IS NULL')} THEN {NOT_NUMBER} "
        f"WHEN {any_of('isnan(_x{j})')} THEN {NULL} WHEN NOT ({inside}) THEN {OUT_OF_DOMAIN} END"
    )
    i0 = ", ".join(
        f"CASE WHEN _st IS NULL THEN least(floor((_x{j} - $lo_{j}) / ($hi_{j} - $lo_{j}) * {n}), {n - 1})"
        f"::BIGINT END AS _i{j}"
        for j, (_, n) in enumerate(axes)
    )
    i1 = ", ".join(f"_i{j} - (_x{j} < $e_{j}[_i{j} + 1])::BIGINT AS _k{j}" for j in range(len(axes)))
    i2 = ", ".join(
        f"_k{j} + (_x{j} >= $e_{j}[_k{j} + 2] AND _k{j} <> {n - 1})::BIGINT AS _b{j}" for j, (_, n) in enumerate(axes)
    )
    sql = f"SELECT *, {xs}, {missing} AS _miss FROM {inp.scan(row_order)}"
    for stage in (f"{status} AS _st", i0, i1, i2):
        sql = f"SELECT *, {stage} FROM ({sql})"
    return f"({sql})"


def edges(lo: float, hi: float, nbins: int, what: str) -> np.ndarray:
    """numpy.linspace(lo, hi, nbins + 1); an InputError when the bins are too narrow for their edges
    to differ as floats."""
    edges = np.linspace(lo, hi, nbins + 1)
    require(
        bool(np.all(edges[:-1] < edges[1:])), f"{nbins:,} bins are too many for the range [{lo:g}, {hi:g}] of {what}."
    )
    return edges
