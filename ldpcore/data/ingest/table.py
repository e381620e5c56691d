"""Records -> the Numeric page's ``NumericTable`` (read_table): one respondent per complete row, numeric
columns mapped onto [-1, 1] over their ranges (values outside clipped, as a client clips before
randomizing), categorical columns as codes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ldpcore.data.ingest.input_file import MEMORY_LIMIT, InputFile, ident
from ldpcore.data.ingest.report import KEPT, NOT_NUMBER, NULL, IngestReport, missing_note
from ldpcore.data.ingest.rules import ONE_ROW, natural_order, parse_range
from ldpcore.data.ingest.tally import check_numbers, tally
from ldpcore.data.numeric_table import (
    MAX_CATEGORIES,
    MAX_ROWS,
    NumericTable,
    clipped_note,
    inferred_ranges_note,
    table_of,
)
from ldpcore.data.scaling import to_unit
from ldpcore.errors import require


def read_table(
    source,
    columns,
    *,
    categorical=(),
    ranges: dict | None = None,
    name: str | None = None,
    delimiter: str | None = None,
    memory_limit: str = MEMORY_LIMIT,
    threads: int | None = None,
) -> tuple[NumericTable, IngestReport]:
    """Records -> the Numeric page's NumericTable: one respondent per row with the given
    columns, numeric unless named in categorical (their values become codes in the order
    of read_categorical's labels).

    Rows with a NULL, empty, NaN or infinite value in any of the columns are counted (as
    nulls or empty) and left out: a table has no missing values. Numeric columns map to [-1, 1] over ranges[column] =
    (lo, hi); values outside it are clipped into it, as a client clips before randomizing,
    so their rows stay in kept and out_of_domain counts them among the kept rows. A column
    without a range uses the data's min and max, stated in a note. The table itself is
    held in memory: at most numeric.table.MAX_ROWS rows and MAX_CATEGORIES categories.
    """
    columns, categorical, ranges = list(columns), list(categorical), dict(ranges or {})
    require(len(columns) > 0, "name at least one column for the table.")
    require(len(set(columns)) == len(columns), f"a column is named twice in {columns}.")
    for col in categorical + list(ranges):
        require(col in columns, f"{col!r} is named in categorical or ranges but not in columns.")
    with InputFile(source, name, delimiter, memory_limit, threads) as inp:
        numeric = [c for c in columns if c not in categorical]
        nums = {c: inp.number(c) for c in numeric}
        texts = {c: inp.text(c) for c in categorical}
        status = _status(inp, columns, nums)
        counted = tally(inp, "NULL", status, None, None, None, 1)  # rows per status (one value, NULL)
        check_numbers(inp, counted, numeric)
        kept = counted.status_rows.get(KEPT, 0)
        require(kept > 0, f"{inp.name}: no row has a value in every column of {', '.join(columns)}.")
        require(kept <= MAX_ROWS, f"{inp.name} has {kept:,} complete rows; a table holds at most {MAX_ROWS:,}.")
        rows = f"(SELECT * FROM {inp.scan()} WHERE {status} IS NULL)"
        labels = _levels(inp, rows, texts)
        bounds, inferred = _bounds(inp, rows, nums, ranges)
        clipped, notes = _clipped(inp, rows, nums, bounds)
        if inferred:
            notes.append(inferred_ranges_note(inferred))
        select = [f"{x} AS {ident(c)}" for c, x in nums.items()]
        select += [
            f"(SELECT code FROM levels_{j} WHERE v = {texts[c]}) AS {ident(c)}" for j, c in enumerate(categorical)
        ]
        got = inp.fetch(f"SELECT {', '.join(select)} FROM {rows}")
        report = IngestReport.from_status(
            inp.name, "table", columns, counted.status_rows, distinct=0, users=None, respondents=int(kept), rule=ONE_ROW
        )
        report = replace(report, out_of_domain=clipped)  # clipped values stay in their (kept) rows
        units = {c: to_unit(np.asarray(got[c], dtype=np.float64), lo, hi) for c, (lo, hi) in zip(nums, bounds)}
        codes = {c: np.asarray(got[c], dtype=np.int64) for c in texts}
        return table_of(units, bounds, codes, labels, inp.name, missing_note(report) + tuple(notes)), report


def _status(inp: InputFile, columns: list[str], nums: dict[str, str]) -> str:
    """SQL: a row's status (NULL = kept): a missing value in any column, else NOT_NUMBER for a numeric
    column's text that is not a number, else NULL for a NaN or an infinity."""
    not_number = " OR ".join(f"{x} IS NULL" for x in nums.values()) or "false"
    not_finite = " OR ".join(f"NOT isfinite({x})" for x in nums.values()) or "false"
    return (
        f"coalesce({', '.join(inp.missing(c) for c in columns)}, CASE WHEN {not_number} THEN {NOT_NUMBER} "
        f"WHEN {not_finite} THEN {NULL} END)"
    )


def _levels(inp: InputFile, rows: str, texts: dict[str, str]) -> list[tuple[str, ...]]:
    """Each categorical column's levels among the rows (natural_order), at most MAX_CATEGORIES, kept in
    the table levels_j (v, code) for the codes."""
    labels = []
    for j, (col, text) in enumerate(texts.items()):
        levels = [v for (v,) in inp.query(f"SELECT DISTINCT {text} FROM {rows} LIMIT {MAX_CATEGORIES + 1}")]
        require(
            len(levels) <= MAX_CATEGORIES,
            f"{inp.name}: column {col!r} has more than {MAX_CATEGORIES:,} categories; the limit is {MAX_CATEGORIES:,}.",
        )
        labels.append(tuple(natural_order(levels)))
        inp.execute(
            f"CREATE TABLE levels_{j} AS SELECT unnest($l) AS v, generate_subscripts($l, 1) - 1 AS code",
            {"l": list(labels[-1])},
        )
    return labels


def _bounds(
    inp: InputFile, rows: str, nums: dict[str, str], ranges: dict
) -> tuple[list[tuple[float, float]], list[str]]:
    """(each numeric column's (lo, hi): its declared range, else the data's min and max; the columns
    whose range was taken from the data)."""
    bounds, inferred = [], []
    for col, x in nums.items():
        if col in ranges:
            lo, hi = parse_range(ranges[col], f"column {col!r}")
        else:
            lo, hi = (float(v) for v in inp.query(f"SELECT min({x}), max({x}) FROM {rows}")[0])
            require(lo < hi, f"{inp.name}: column {col!r} holds the single value {lo:g}; give it a range or drop it.")
            inferred.append(col)
        bounds.append((lo, hi))
    return bounds, inferred


def _clipped(
    inp: InputFile, rows: str, nums: dict[str, str], bounds: list[tuple[float, float]]
) -> tuple[int, list[str]]:
    """(the rows with a value outside its column's range, a note per column with such values)."""
    ranged = list(zip(nums.items(), bounds))
    outside = [f"count(*) FILTER (WHERE NOT ({x} BETWEEN {lo!r} AND {hi!r}))" for (_, x), (lo, hi) in ranged]
    any_outside = " OR ".join(f"NOT ({x} BETWEEN {lo!r} AND {hi!r})" for (_, x), (lo, hi) in ranged)
    per_column = inp.query(
        f"SELECT count(*) FILTER (WHERE {any_outside or 'false'}) {''.join(', ' + o for o in outside)} FROM {rows}"
    )[0]
    notes = [clipped_note(c, k, lo, hi) for ((c, _), (lo, hi)), k in zip(ranged, per_column[1:]) if k]
    return int(per_column[0]), notes
