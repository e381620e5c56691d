"""The bundled raw-records samples (assets/make_samples.py generates them with a seed), each with the
reader and arguments that make a histogram of it."""

from __future__ import annotations

import importlib.resources
from collections.abc import Callable
from dataclasses import dataclass

from ldpcore.data.datasets import BUNDLED
from ldpcore.data.histogram import Histogram
from ldpcore.data.ingest.readers import read_categorical, read_points
from ldpcore.data.ingest.report import IngestReport
from ldpcore.errors import require


@dataclass(frozen=True)
class Sample:
    """A bundled raw-records file (assets/make_samples.py generates them with a seed) and the
    reader arguments that make a histogram of it; load(**options) overrides them."""

    name: str
    description: str
    file: str
    reader: Callable[..., tuple[Histogram, IngestReport]]
    options: tuple[tuple[str, object], ...]

    def load(self, **options) -> tuple[Histogram, IngestReport]:
        with importlib.resources.as_file(BUNDLED / self.file) as path:
            return self.reader(path, **(dict(self.options) | options))


SAMPLES = {
    s.name: s
    for s in (
        Sample(
            "app-events",
            "app-category events of 6,000 users over a week, one category per user (first event)",
            "app_events.csv",
            read_categorical,
            (("column", "app_category"), ("user_column", "user_id"), ("per_user", "first")),
        ),
        Sample(
            "city-points",
            "100,000 synthetic location points over a fictional city, on a 256-cell-wide grid",
            "city_points.csv",
            read_points,
            (("width", 256),),
        ),
    )
}


def load_sample(name: str, **options) -> tuple[Histogram, IngestReport]:
    """A bundled raw-records sample by name (see SAMPLES), with reader options overridden."""
    require(name in SAMPLES, f"unknown sample {name!r}; choose one of {', '.join(SAMPLES)}.")
    return SAMPLES[name].load(**options)
