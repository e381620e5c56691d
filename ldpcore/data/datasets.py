"""The bundled datasets (package data in ldpcore/data/bundled, read through importlib.resources): three
images standing in for the paper's Horse, Child and Map, and the seeded heavy-hitter data of Table III."""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass

import numpy as np

from ldpcore.data.histogram import Histogram
from ldpcore.data.images import load_image
from ldpcore.errors import MAX_D, check_n, check_whole, require

BUNDLED = importlib.resources.files("ldpcore.data") / "bundled"  # package data: the bundled datasets


def synthetic_heavy_hitters(
    rng: np.random.Generator,
    d: int = 1_778_120,
    n: int = 203_950_512,
    hitters: int = 100,
    hitter_share: float = 0.4,
    exponent: float = 1.35,
) -> Histogram:
    """Heavy hitters mixed with a power law, like Erlingsson et al. 2020 Table III.

    ``hitters`` values share ``hitter_share`` of the reports (weights Zipf(1) over the
    hitters); the other values follow p(x) ~ x^-exponent by rank. Values are numbered by
    rank (value 0 is the most likely). Counts are one multinomial draw of n reports.
    """
    hitters = check_whole(hitters, 1, "hitters")
    d = check_whole(d, hitters + 1, f"d (it must exceed the {hitters:,} heavy hitters)", MAX_D)
    n = check_n(n)
    require(0 <= hitter_share < 1, f"hitter_share must lie in [0, 1) (got {hitter_share}).")
    head = 1.0 / np.arange(1, hitters + 1)
    tail = np.arange(1, d - hitters + 1, dtype=np.float64) ** -exponent
    probs = np.concatenate([hitter_share * head / head.sum(), (1 - hitter_share) * tail / tail.sum()])
    counts = rng.multinomial(n, probs / probs.sum())
    return Histogram(counts=counts, name=f"heavy hitters (d={d:,}, n={n:,})", cell="value")


@dataclass(frozen=True)
class Dataset:
    """A bundled input: an asset image or a seeded generator, with the paper's delta."""

    name: str
    description: str
    delta: float
    file: str | None = None
    scale: float = 1.0

    def load(self, max_side: int | None = None, seed: int = 0) -> Histogram:
        if self.file is not None:
            return load_image((BUNDLED / self.file).read_bytes(), scale=self.scale, max_side=max_side, name=self.name)
        return synthetic_heavy_hitters(np.random.default_rng(seed))


DATASETS = {
    d.name: d
    for d in (
        Dataset("horse", "sparse white sketch on black (stands in for the paper's Horse)", 5e-8, "horse.png"),
        Dataset("child", "dense portrait without black pixels (stands in for Child)", 5e-9, "child.png"),
        Dataset("map", "city lights, luminance x2.5 (stands in for Map)", 5e-10, "map.png", 2.5),
        Dataset("heavy-hitters", "about 100 heavy hitters mixed with a power law x^-1.35 (Table III)", 5e-10),
    )
}


def load_dataset(name: str, max_side: int | None = None, seed: int = 0) -> Histogram:
    """A bundled dataset by name (see DATASETS)."""
    require(name in DATASETS, f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}.")
    return DATASETS[name].load(max_side=max_side, seed=seed)
