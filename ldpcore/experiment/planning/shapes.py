"""Data without data: a shape over d values (uniform, Zipf, geometric), whole counts in proportion to it, and a
histogram by its distinct counts (Groups), the form every predicted error is computed from at a cost
independent of d."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ldpcore.errors import MAX_D, InputError, check_n, check_whole, require


@dataclass(frozen=True)
class Shape:
    """A distribution over d values without data: uniform, zipf (exponent s) or geometric (ratio r)."""

    kind: str
    parameter: float | None = None

    def __post_init__(self):
        require(
            self.kind in ("uniform", "zipf", "geometric"),
            f"shape must be uniform, zipf:S or geometric:R (got {self.kind!r}).",
        )
        if self.kind == "zipf":
            require(
                self.parameter is not None and math.isfinite(self.parameter) and 0 <= self.parameter <= 10,
                f"the Zipf exponent must lie in [0, 10] (got {self.parameter}).",
            )
        if self.kind == "geometric":
            require(
                self.parameter is not None and 0 < self.parameter < 1,
                f"the geometric ratio must lie strictly between 0 and 1 (got {self.parameter}).",
            )

    @classmethod
    def parse(cls, text: str) -> Shape:
        """'uniform', 'zipf:1.1' or 'geometric:0.99'."""
        kind, _, value = str(text).strip().partition(":")
        if kind == "uniform":
            require(not value, f"uniform takes no parameter (got {text!r}).")
            return cls("uniform")
        require(
            kind in ("zipf", "geometric") and bool(value),
            f"shape must be uniform, zipf:S or geometric:R (got {text!r}).",
        )
        try:
            number = float(value)
        except ValueError:
            raise InputError(f"the {kind} parameter must be a number (got {value!r}).") from None
        return cls(kind, number)

    def weights(self, d: int) -> np.ndarray:
        """The shape's probabilities over d values, largest first."""
        d = check_whole(d, 2, "the domain size d", MAX_D)
        i = np.arange(1, d + 1, dtype=np.float64)
        parameter = float(self.parameter) if self.parameter is not None else 0.0  # set for zipf and geometric
        if self.kind == "uniform":
            w = np.ones(d)
        elif self.kind == "zipf":
            w = i**-parameter
        else:
            w = parameter ** (i - 1)
        return w / w.sum()

    def __str__(self) -> str:
        return self.kind if self.parameter is None else f"{self.kind}:{self.parameter:g}"


def scaled_counts(weights: np.ndarray, n: int) -> np.ndarray:
    """Whole counts summing to n in proportion to weights (largest remainders; of equal remainders the larger
    shares first, so that bins of equal weight are interchangeable: scaled_groups gives the same counts)."""
    n = check_n(n)
    w = np.asarray(weights, dtype=np.float64)
    exact = w / w.sum() * n
    counts = np.floor(exact).astype(np.int64)
    short = n - int(counts.sum())
    if short > 0:
        rem = exact - counts
        cut = np.partition(rem, rem.size - short)[rem.size - short]  # the short-th largest remainder
        above = rem > cut
        tied = np.flatnonzero(rem == cut)
        need = short - int(np.count_nonzero(above))  # >= 1: fewer than short remainders exceed the cut
        counts[above] += 1
        counts[tied[np.argpartition(-exact[tied], need - 1)[:need]]] += 1
    return counts


class Groups(NamedTuple):
    """A histogram by its distinct counts: values (ascending, int64), bins (how many of the d bins hold each,
    float64), n = sum(values x bins) and d = sum(bins). Every predicted error is a function of these."""

    values: np.ndarray
    bins: np.ndarray
    n: int
    d: int


def groups_of(counts: np.ndarray) -> Groups:
    """The Groups of a histogram."""
    top = int(counts.max())
    if top <= 4 * counts.size + 1_000_000:  # small counts (images): bincount, O(d + top)
        mult = np.bincount(counts)
        values = np.flatnonzero(mult)
        bins = mult[values]
    else:
        values, bins = np.unique(counts, return_counts=True)
    return Groups(values.astype(np.int64), bins.astype(np.float64), int(counts.sum()), int(counts.size))


def scaled_groups(weights: np.ndarray, bins: np.ndarray, total: float, n: int) -> Groups:
    """The Groups of scaled_counts(w, n) for a w holding bins[i] entries equal to weights[i] (distinct) and
    summing to total (w.sum(), as numpy adds it), in O(len(weights)) instead of O(d): the entries of one weight
    get the same exact share and remainder, so the largest-remainder split is made on the groups in
    scaled_counts' order (remainder, then share, descending), a group cut at most once."""
    exact = weights / total * n  # the same floats as scaled_counts' exact
    floor = np.floor(exact)
    base, held = floor.astype(np.int64), bins.astype(np.int64)
    short = n - int(np.dot(base, held))
    plus = np.zeros_like(held)
    if short > 0:
        order = np.lexsort((-exact, -(exact - floor)))
        before = np.cumsum(held[order]) - held[order]
        plus[order] = np.clip(short - before, 0, held[order])
    values, held = np.concatenate([base, base + 1]), np.concatenate([held - plus, plus])
    values, inverse = np.unique(values[held > 0], return_inverse=True)
    return Groups(values, np.bincount(inverse, weights=held[held > 0]), n, int(bins.sum()))
