"""Where a view's data come from, as typed values a page builds from its inputs, and the code that loads them
again: a bundled dataset by name, an uploaded image or histogram CSV, raw records or points (with their
column, per-user rule, bins or box) read by ldpcore.data.ingest, a bundled sample of those, or n respondents
spread over d values by a shape (the Plan page without data). Each step leaves the data in `hist`.

An upload is read from a file of the same name beside the script (or the notebook): the script says so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ldpcore.data.loaders import is_csv
from ldpcore.export.reproduce.code import Code, Step, assign, atom, call, literal

SHOW_HIST = 'print(f"{hist.name}: n = {hist.n:,} respondents over d = {hist.d:,} values")'
SHOW_REPORT = (
    'print(f"{report.rows:,} rows read, {report.kept:,} kept")\n'
    'print(f"left out: NULL {report.nulls:,}, empty {report.empty:,}")\n'
    'print(f"out of domain {report.out_of_domain:,}")'
)
INGEST_WORDS = (
    "DuckDB aggregates the file into counts (ldpcore.data.ingest); every row is kept or counted as NULL, "
    "empty, out of domain or without a user id, as the dashboard's sidebar shows."
)


def _path(file: str) -> Code:
    return atom(f"HERE / {literal(file)}")


@dataclass(frozen=True)
class Dataset:
    """A bundled dataset of ldpcore.data.datasets.DATASETS by name; images downsampled to max_side pixels
    per side (None: full size)."""

    name: str
    max_side: int | None = None
    seed: int = 0  # the synthetic heavy-hitters dataset's draw

    files: ClassVar[tuple[str, ...]] = ()
    imports: ClassVar[tuple[str, ...]] = ("import ldpcore",)

    def step(self) -> Step:
        options: dict[str, object] = {"max_side": self.max_side} if self.max_side else {}
        if self.seed:
            options["seed"] = self.seed
        code = assign("hist", call("ldpcore.load_dataset", atom(literal(self.name)), **options))
        words = "A dataset bundled with ldpcore, by name" + (
            f", downsampled to at most {self.max_side} pixels per side." if self.max_side else "."
        )
        return Step("The data", words, f"{code}\n{SHOW_HIST}")


@dataclass(frozen=True)
class Upload:
    """An uploaded image (luminance 0-255 per pixel = respondents, times scale; downsampled to max_side) or
    histogram CSV (one count per line, or value,count rows), read from the file of that name."""

    file: str
    scale: float = 1.0
    max_side: int | None = None

    imports: ClassVar[tuple[str, ...]] = ("import ldpcore",)

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file,)

    def step(self) -> Step:
        image = not is_csv(self.file)
        options: dict[str, object] = {}
        if image and self.scale != 1.0:
            options["scale"] = float(self.scale)
        if image and self.max_side:
            options["max_side"] = self.max_side
        code = assign("hist", call("ldpcore.load_path", _path(self.file), **options))
        words = (
            "Your image, read from the file beside this script (or notebook): each pixel's luminance (0-255) "
            "times the scale is the number of respondents holding that pixel (ESA paper, Section V)."
            if image
            else "Your histogram CSV, read from the file beside this script (or notebook): one count per line, or "
            "value,count rows under a header."
        )
        return Step("The data", words, f"{code}\n{SHOW_HIST}")


def _users(user_column: str | None, per_user: str | None, delimiter: str | None) -> dict[str, object]:
    """The per-user rule's arguments (none without a user column) and the delimiter where one is given."""
    users: dict[str, object] = {} if user_column is None else {"user_column": user_column, "per_user": per_user}
    return users | ({} if delimiter is None else {"delimiter": delimiter})


@dataclass(frozen=True)
class Records:
    """Raw records read from a file of that name: one value per row in `column` (categorical, or numbers
    counted in `bins` equal bins over value_range), reduced per user by per_user where user_column is given."""

    file: str
    column: str
    bins: int | str | None = None
    value_range: tuple[float, float] | None = None
    user_column: str | None = None
    per_user: str | None = None
    delimiter: str | None = None

    imports: ClassVar[tuple[str, ...]] = ("import ldpcore",)

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file,)

    def step(self) -> Step:
        users = _users(self.user_column, self.per_user, self.delimiter)
        if self.bins is None:
            read = call("ldpcore.read_categorical", _path(self.file), atom(literal(self.column)), **users)
        else:
            ranged = {} if self.value_range is None else {"value_range": tuple(float(x) for x in self.value_range)}
            read = call(
                "ldpcore.read_numeric", _path(self.file), atom(literal(self.column)), bins=self.bins, **ranged, **users
            )
        words = (
            "Your raw records, read from the file beside this script (or notebook), one value per row"
            + (" (numbers, counted in equal bins)" if self.bins is not None else "")
            + (", one contribution per user by the per-user rule (see the README)" if self.user_column else "")
            + ". "
            + INGEST_WORDS
        )
        return Step("The data", words, f"{assign('hist, report', read)}\n{SHOW_REPORT}\n{SHOW_HIST}")


@dataclass(frozen=True)
class Points:
    """Latitude/longitude points read from a file of that name, counted on a grid `width` cells wide in the
    box bbox ("W,S,E,N"; None: the points' extent); lat, lon None: found by their names."""

    file: str
    lat: str | None = None
    lon: str | None = None
    width: int = 256
    bbox: str | None = None
    user_column: str | None = None
    per_user: str | None = None
    delimiter: str | None = None

    imports: ClassVar[tuple[str, ...]] = ("import ldpcore",)

    @property
    def files(self) -> tuple[str, ...]:
        return (self.file,)

    def step(self) -> Step:
        columns = {k: v for k, v in (("lat", self.lat), ("lon", self.lon)) if v is not None}
        box = {} if self.bbox is None else {"bbox": self.bbox}
        read = call(
            "ldpcore.read_points",
            _path(self.file),
            **columns,
            width=self.width,
            **box,
            **_users(self.user_column, self.per_user, self.delimiter),
        )
        words = (
            "Your location points, read from the file beside this script (or notebook) and counted on a grid "
            "(north up): the grid goes through the image path, so the reconstruction is a map-like picture. "
            + INGEST_WORDS
        )
        return Step("The data", words, f"{assign('hist, report', read)}\n{SHOW_REPORT}\n{SHOW_HIST}")


@dataclass(frozen=True)
class Sample:
    """A bundled raw-records sample of ldpcore.data.ingest.SAMPLES by name (read with its own options)."""

    name: str

    files: ClassVar[tuple[str, ...]] = ()
    imports: ClassVar[tuple[str, ...]] = ("from ldpcore.data.ingest import load_sample",)

    def step(self) -> Step:
        words = "A raw-records sample bundled with ldpcore, aggregated as the dashboard does. " + INGEST_WORDS
        code = assign("hist, report", call("load_sample", atom(literal(self.name))))
        return Step("The data", words, f"{code}\n{SHOW_REPORT}\n{SHOW_HIST}")


@dataclass(frozen=True)
class Shape:
    """n respondents spread over d values by a shape (ldpcore.experiment.planning.Shape: uniform, zipf with
    exponent parameter, geometric with ratio parameter), whole counts by largest remainders."""

    kind: str
    parameter: float | None
    n: int
    d: int

    files: ClassVar[tuple[str, ...]] = ()
    imports: ClassVar[tuple[str, ...]] = (
        "import ldpcore",
        "from ldpcore.experiment.planning import Shape, scaled_counts",
    )

    def step(self) -> Step:
        shape = call(
            "Shape", atom(literal(self.kind)), *([atom(literal(self.parameter))] if self.parameter is not None else [])
        )
        code = "\n".join(
            [
                f"n, d = {self.n}, {self.d}",
                assign("shape", shape),
                "counts = scaled_counts(shape.weights(d), n)",
                'hist = ldpcore.Histogram(counts, f"{shape} (n={n:,}, d={d:,})")',
                SHOW_HIST,
            ]
        )
        words = "No data: n respondents spread over d values by a shape, whole counts by largest remainders."
        return Step("The data", words, code)


Source = Dataset | Upload | Records | Points | Sample | Shape
