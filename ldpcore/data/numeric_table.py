"""Tables of numeric and categorical attributes: the container, the paper's synthetic data (N. Wang,
Xiao, Yang, Zhao, Hui, Shin, Shin, Yu, Collecting and Analyzing Multidimensional Data with Local
Differential Privacy (ICDE 2019), Sec. VI-A; docs/systems.md "Numeric and multidimensional data") and a
CSV loader."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from ldpcore.data.scaling import to_unit, unit_values
from ldpcore.data.sources import read_text
from ldpcore.errors import InputError, check_whole, require

MAX_ROWS = 10_000_000
MAX_COLUMNS = 256
MAX_CATEGORIES = 1000


@dataclass(frozen=True, eq=False, init=False)
class NumericTable:
    """n respondents' tuples: numeric columns in [-1, 1] and categorical integer codes.

    numeric: (n, d_num) floats in [-1, 1] (map data with to_unit); ranges: each numeric
    column's [lo, hi] in the data's units (from_unit maps estimates back). categorical:
    (n, d_cat) codes, column j in [0, domains[j]) (inferred as max + 1 if not given);
    labels: the category names per column. Either part may be absent. notes: what the
    loader did that the user should know (clipping, ranges taken from the data).
    """

    numeric: np.ndarray
    categorical: np.ndarray
    domains: tuple[int, ...]
    ranges: tuple[tuple[float, float], ...]
    numeric_names: tuple[str, ...]
    categorical_names: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]
    name: str = "table"
    notes: tuple[str, ...] = ()

    def __init__(
        self,
        numeric=None,
        categorical=None,
        domains=None,
        ranges=None,
        numeric_names=None,
        categorical_names=None,
        labels=None,
        name: str = "table",
        notes: tuple[str, ...] = (),
    ):
        if numeric is not None:
            n = len(numeric)
        elif categorical is not None:
            n = len(categorical)
        else:
            raise InputError("a table needs at least one column.")
        num = unit_values(np.empty((n, 0)) if numeric is None else numeric, "numeric columns")
        cat = np.empty((n, 0), dtype=np.int64) if categorical is None else np.asarray(categorical)
        num, cat = (num[:, None] if num.ndim == 1 else num), (cat[:, None] if cat.ndim == 1 else cat)
        require(
            num.ndim == 2 and cat.ndim == 2 and num.shape[0] == cat.shape[0] >= 1,
            "numeric and categorical columns need the same number n >= 1 of rows.",
        )
        require(
            num.shape[1] + cat.shape[1] <= MAX_COLUMNS,
            f"a table has at most {MAX_COLUMNS} columns (got {num.shape[1] + cat.shape[1]}).",
        )
        sizes = _domain_sizes(cat, domains)
        given = {
            "ranges": ranges,
            "numeric_names": numeric_names,
            "categorical_names": categorical_names,
            "labels": labels,
        }
        defaults = {
            "ranges": tuple((-1.0, 1.0) for _ in range(num.shape[1])),
            "numeric_names": tuple(f"x{j + 1}" for j in range(num.shape[1])),
            "categorical_names": tuple(f"c{j + 1}" for j in range(cat.shape[1])),
            "labels": tuple(tuple(str(v) for v in range(m)) for m in sizes),
        }
        for key, default in defaults.items():
            value = default if given[key] is None else tuple(given[key])
            require(len(value) == len(default), f"{key} needs {len(default)} entries (got {len(value)}).")
            object.__setattr__(self, key, value)
        require(all(len(lab) == m for lab, m in zip(self.labels, sizes)), "labels need one name per category.")
        object.__setattr__(self, "numeric", num)
        object.__setattr__(self, "categorical", cat.astype(np.int64, copy=False))
        object.__setattr__(self, "domains", sizes)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "notes", notes)

    @property
    def n(self) -> int:
        """Respondents."""
        return int(self.numeric.shape[0])

    @property
    def d_numeric(self) -> int:
        return int(self.numeric.shape[1])

    @property
    def d_categorical(self) -> int:
        return int(self.categorical.shape[1])

    @property
    def d(self) -> int:
        """Attributes, numeric and categorical (Algorithm 4's d)."""
        return self.d_numeric + self.d_categorical

    @cached_property
    def mean_square(self) -> np.ndarray:
        """E[t^2] of each numeric column: every mechanism's variance is affine in t^2."""
        return np.mean(self.numeric**2, axis=0)

    @cached_property
    def frequencies(self) -> tuple[np.ndarray, ...]:
        """The true frequency of every category, per categorical column."""
        return tuple(np.bincount(c, minlength=m) / self.n for c, m in zip(self.categorical.T, self.domains))


def _domain_sizes(cat: np.ndarray, domains) -> tuple[int, ...]:
    """The domain size of each categorical column of the (n, d_cat) codes cat: domains as given, else
    each column's max + 1; checked against the codes."""
    require(np.issubdtype(cat.dtype, np.integer), "categorical columns must hold integer codes.")
    require(bool((cat >= 0).all()), "categorical codes must be >= 0.")
    sizes = tuple(int(m) for m in (cat.max(axis=0) + 1 if domains is None else domains))
    require(len(sizes) == cat.shape[1], f"need one domain size per categorical column ({cat.shape[1]}).")
    require(
        all(1 <= m <= MAX_CATEGORIES for m in sizes),
        f"domain sizes must lie in [1, {MAX_CATEGORIES}] (got {sizes}).",
    )
    require(bool((cat < np.array(sizes, dtype=np.int64)).all()), "categorical codes must be below their domain size.")
    return sizes


def clipped_note(column: str, count: int, lo: float, hi: float) -> str:
    """The note for a numeric column's values clipped into its range (a table loader's)."""
    return f"{column}: {count:,} value(s) outside [{lo:g}, {hi:g}] were clipped."


def inferred_ranges_note(columns) -> str:
    """The note for numeric columns whose range was taken from the data rather than declared."""
    return (
        f"the range of {', '.join(columns)} was taken from the data (min, max); a deployment fixes ranges in advance."
    )


# --- synthetic data (Sec. VI-A) ---------------------------------------------------------


class _Synthetic(Mapping):
    """name -> frozen scipy distribution on [-1, 1], made on first use (importing scipy.stats costs seconds)."""

    def __getitem__(self, name: str):
        return _distributions()[name]

    def __contains__(self, name) -> bool:  # without making the distributions
        return name in SYNTHETIC_DESCRIPTIONS

    def __iter__(self):
        return iter(SYNTHETIC_DESCRIPTIONS)

    def __len__(self) -> int:
        return len(SYNTHETIC_DESCRIPTIONS)


_GAUSS_MEANS = {"gauss-0": 0.0, "gauss-1/3": 1 / 3, "gauss-2/3": 2 / 3, "gauss-1": 1.0}


@cache
def _distributions() -> dict:
    from scipy import stats

    def truncated_gaussian(mu: float, sd: float = 0.25):
        return stats.truncnorm((-1 - mu) / sd, (1 - mu) / sd, loc=mu, scale=sd)

    return {
        **{name: truncated_gaussian(mu) for name, mu in _GAUSS_MEANS.items()},
        "uniform": stats.uniform(-1, 2),
        "power-law": stats.truncpareto(9, 3, loc=-2),
    }


# Frozen scipy distributions on [-1, 1]; SYNTHETIC[name].moment(2) is the E[t^2] that
# decides between the mechanisms. The power law has density ~ (x + 2)^-10: a Pareto
# tail y^-(9+1) truncated to y = x + 2 in [1, 3].
SYNTHETIC = _Synthetic()
# each one in words, with the figure of Wang et al. (ICDE 2019) that uses it
SYNTHETIC_DESCRIPTIONS = {
    "gauss-0": "N(0, 1/16) truncated to [-1, 1] (Wang et al., ICDE 2019, Fig. 5)",
    "gauss-1/3": "N(1/3, 1/16) truncated to [-1, 1] (Wang et al., ICDE 2019, Fig. 5)",
    "gauss-2/3": "N(2/3, 1/16) truncated to [-1, 1] (Wang et al., ICDE 2019, Fig. 5)",
    "gauss-1": "N(1, 1/16) truncated to [-1, 1] (Wang et al., ICDE 2019, Fig. 5)",
    "uniform": "uniform on [-1, 1] (Wang et al., ICDE 2019, Fig. 6)",
    "power-law": "density proportional to (x + 2)^-10 on [-1, 1] (Wang et al., ICDE 2019, Fig. 6)",
}


def synthetic_table(name: str, n: int, d: int, rng: np.random.Generator) -> NumericTable:
    """n tuples of d i.i.d. numeric attributes from SYNTHETIC[name] (the paper uses d = 16):
    truncated Gaussians N(mu, 1/16) on [-1, 1] with mu in {0, 1/3, 2/3, 1}, uniform, power law."""
    require(name in SYNTHETIC, f"unknown synthetic data {name!r}; choose one of {', '.join(SYNTHETIC)}.")
    n, d = check_whole(n, 1, "n (respondents)"), check_whole(d, 1, "d (attributes)")
    require(d <= MAX_COLUMNS, f"d (attributes) must be at most {MAX_COLUMNS} (got {d}).")
    return NumericTable(numeric=_quantile(name, rng.random((n, d))), name=name)  # inverse transform: exact draws


def _quantile(name: str, u: np.ndarray) -> np.ndarray:
    """SYNTHETIC[name].ppf(u) in closed form (numpy and scipy.special only; scipy.stats' truncnorm ppf
    is slow and importing scipy.stats costs about a second): the truncated Gaussian's inverse CDF maps u
    into [Phi(a), Phi(b)] and applies Phi^-1 (ndtri, accurate in both tails; these truncations keep
    Phi(b) <= 1 - 3e-5, so no precision is lost near 1); the power law's CDF (1 - y^-9) / (1 - 3^-9),
    y = x + 2, inverts exactly. Clipped to [-1, 1] against rounding at the ends."""
    if name.startswith("gauss-"):
        from scipy.special import ndtr, ndtri

        mu, sd = _GAUSS_MEANS[name], 0.25
        lo, hi = ndtr((-1 - mu) / sd), ndtr((1 - mu) / sd)
        x = mu + sd * ndtri(lo + u * (hi - lo))
    elif name == "uniform":
        x = 2 * u - 1
    else:  # power-law
        x = (1 - u * (1 - 3.0**-9)) ** (-1 / 9) - 2
    return np.clip(x, -1.0, 1.0)


# --- CSV --------------------------------------------------------------------------------


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _empty(name: str, line: int | None, column: str) -> str:
    return f"{name}, line {line}: column {column!r} is empty; fill in or drop rows with missing values."


def _numbers(cells, lines, column: str, name: str) -> np.ndarray:
    """A numeric column's cells as floats, or an InputError naming the first bad cell."""
    try:
        values = np.array(cells, dtype=np.float64)
        if np.isfinite(values).all():
            return values
    except ValueError:
        pass
    values = np.empty(len(cells))
    for i, (line, cell) in enumerate(zip(lines, cells)):
        require(cell != "", _empty(name, line, column))
        if not _is_number(cell):
            raise InputError(
                f"{name}, line {line}: {cell!r} in column {column!r} is not a number; "
                "list the column in categorical= if it holds categories."
            )
        values[i] = float(cell)
        require(math.isfinite(values[i]), f"{name}, line {line}: {cell!r} in column {column!r} is not a finite number.")
    return values


def _rows(source, name: str | None = None) -> tuple[list[tuple[int, list[str]]], str]:
    """The rows of a CSV as (line number, stripped cells), skipping blank and '#' lines, and the
    name to show (``name`` or the source's); InputError if it is not CSV or holds no rows."""
    text, name = read_text(source, allow_empty=True, name=name)
    try:
        rows = [
            (i, [c.strip() for c in r])
            for i, r in enumerate(csv.reader(io.StringIO(text)), start=1)
            if any(c.strip() for c in r) and not r[0].lstrip().startswith("#")
        ]
    except csv.Error as exc:
        raise InputError(f"{name} is not a valid CSV file ({exc}).") from None
    require(len(rows) > 0, f"{name} holds no rows.")
    return rows, name


def table_columns(source, name: str | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(column names, the columns holding a non-number) of a table CSV, for choosing the
    ``categorical`` argument of load_table_csv; skips what it skips (blank and '#' lines); messages
    name the file ``name`` (or the source's)."""
    (_, header), *body = _rows(source, name)[0]
    text_columns = tuple(
        h for j, h in enumerate(header) if any(j < len(r) and r[j] != "" and not _is_number(r[j]) for _, r in body)
    )
    return tuple(header), text_columns


def load_table_csv(source, categorical=(), ranges: dict | None = None, name: str | None = None) -> NumericTable:
    """A table CSV: a header naming the columns, then one row per respondent.

    Columns are numeric unless named in ``categorical`` (their values become integer codes
    in sorted label order). Numeric columns are mapped to [-1, 1] with to_unit over
    ranges[column] = (lo, hi), clipping values outside it; a column without a given range
    uses its observed min and max, which is fine for exploring but leaks the extremes:
    a deployment fixes ranges in advance. Blank lines and lines starting with '#' are skipped.
    """
    rows, name = _rows(source, name)
    categorical, ranges = tuple(categorical), dict(ranges or {})
    header, body = _checked(rows, name, categorical, ranges)
    lines = [line for line, _ in body]
    numeric, codes, bounds, labels, notes, inferred = {}, {}, [], [], [], []
    for column, cells in zip(header, zip(*(row for _, row in body))):
        if column in categorical:
            levels, codes[column] = _categories(cells, lines, column, name)
            labels.append(levels)
            continue
        x = _numbers(cells, lines, column, name)
        lo, hi = _column_range(x, column, name, ranges)
        if column not in ranges:
            inferred.append(column)
        if clipped := int(((x < lo) | (x > hi)).sum()):
            notes.append(clipped_note(column, clipped, lo, hi))
        numeric[column] = to_unit(x, lo, hi)
        bounds.append((lo, hi))
    if inferred:
        notes.append(inferred_ranges_note(inferred))
    return table_of(numeric, bounds, codes, labels, name, tuple(notes))


def table_of(
    numeric: dict[str, np.ndarray],
    bounds: list[tuple[float, float]],
    codes: dict[str, np.ndarray],
    labels: list[tuple[str, ...]],
    name: str,
    notes: tuple[str, ...],
) -> NumericTable:
    """A table from its columns by name: numeric ones already in [-1, 1] with their (lo, hi) bounds,
    categorical ones as codes with their labels (a table loader's result)."""
    return NumericTable(
        numeric=np.column_stack(list(numeric.values())) if numeric else None,
        categorical=np.column_stack(list(codes.values())) if codes else None,
        domains=tuple(len(lab) for lab in labels),
        ranges=tuple(bounds),
        numeric_names=tuple(numeric),
        categorical_names=tuple(codes),
        labels=tuple(labels),
        name=name,
        notes=notes,
    )


def _checked(
    rows: list[tuple[int, list[str]]], name: str, categorical: tuple[str, ...], ranges: dict
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """(the header, the body rows) of a table CSV's rows, checked: named columns, each once, within
    MAX_COLUMNS; 1 to MAX_ROWS rows as wide as the header; categorical and ranges naming its columns."""
    (hline, header), body = rows[0], rows[1:]
    width = len(header)
    require(width <= MAX_COLUMNS, f"{name} has {width} columns; the limit is {MAX_COLUMNS}.")
    require(all(header), f"{name}, line {hline}: every column needs a name in the header.")
    require(
        not all(_is_number(h) for h in header),
        f"{name}, line {hline}: the first line must name the columns (it holds only numbers).",
    )
    dup = next((h for j, h in enumerate(header) if h in header[:j]), None)
    require(dup is None, f"{name}, line {hline}: the column name {dup!r} appears twice.")
    require(len(body) > 0, f"{name} has a header but no rows.")
    require(len(body) <= MAX_ROWS, f"{name} has {len(body):,} rows; the limit is {MAX_ROWS:,}.")
    for line, row in body:
        require(len(row) == width, f"{name}, line {line}: expected {width} columns as in the header, found {len(row)}.")
    for col in categorical:
        require(col in header, f"{name} has no column {col!r}; its columns are {', '.join(header)}.")
    for col in ranges:
        require(
            col in header and col not in categorical, f"ranges names {col!r}, which is not a numeric column of {name}."
        )
    return header, body


def _categories(cells, lines, column: str, name: str) -> tuple[tuple[str, ...], np.ndarray]:
    """(the sorted labels, each cell's code) of a categorical column; no cell may be empty."""
    empty = next((line for line, cell in zip(lines, cells) if cell == ""), None)
    require(empty is None, _empty(name, empty, column))
    levels, codes = np.unique(np.array(cells), return_inverse=True)
    require(
        len(levels) <= MAX_CATEGORIES,
        f"{name}: column {column!r} has {len(levels):,} categories; the limit is {MAX_CATEGORIES:,}.",
    )
    return tuple(str(v) for v in levels), codes


def _column_range(x: np.ndarray, column: str, name: str, ranges: dict) -> tuple[float, float]:
    """A numeric column's (lo, hi): its range in ranges, checked, else the data's min and max."""
    if column in ranges:
        lo, hi = (float(v) for v in ranges[column])
        require(
            math.isfinite(lo) and math.isfinite(hi) and lo < hi,
            f"the range of column {column!r} needs finite lo < hi (got {lo:g}, {hi:g}).",
        )
        return lo, hi
    lo, hi = float(x.min()), float(x.max())
    require(
        lo < hi,
        f"{name}: column {column!r} holds the single value {lo:g}, so lo == hi; "
        f"give it a range with ranges={{{column!r}: (lo, hi)}} or drop it.",
    )
    return lo, hi
