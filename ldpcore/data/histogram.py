"""The data layer's one result: a ``Histogram``, counts of respondents over a domain of d values, with
an optional 2-D shape for images and the value names of a value,count table (``Labels``, stored compactly).
Every count and n is at most errors.MAX_COUNT, checked by the constructor and summed exactly."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ldpcore.errors import MAX_COUNT, MAX_COUNT_TEXT, MAX_D, require


def exact_total(counts: np.ndarray) -> int:
    """The exact sum of non-negative integer counts, never wrapped around: a float sum decides first
    whether the total is far beyond MAX_COUNT (then that float is returned; it can only be refused), and
    the int64 sum, exact below 2^63, gives every total that could be accepted."""
    approx = float(np.sum(counts, dtype=np.float64))
    return int(approx) if approx > 1.5 * MAX_COUNT else int(np.sum(counts, dtype=np.int64))


class Labels(Sequence):
    """The value names of a value,count CSV, stored compactly (one UTF-8 buffer and the offsets of
    the names in it): 20 million names take about 10 bytes each plus their text, not a Python
    string each."""

    def __init__(self, blob: bytes, offsets: np.ndarray):
        self._blob, self._offsets = blob, np.asarray(offsets, dtype=np.int64)
        self._offsets.flags.writeable = False

    def __len__(self) -> int:
        return self._offsets.size - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = range(len(self))[i]
        return self._blob[self._offsets[i] : self._offsets[i + 1]].decode()

    def __iter__(self) -> Iterator[str]:
        blob, offsets = self._blob, self._offsets.tolist()
        return (blob[a:b].decode() for a, b in zip(offsets[:-1], offsets[1:]))

    def __eq__(self, other) -> bool:
        if isinstance(other, Labels):
            return self._blob == other._blob and np.array_equal(self._offsets, other._offsets)
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # equal to any sequence with its items: not hashable

    @classmethod
    def of(cls, names) -> Labels:
        encoded = [str(x).encode() for x in names]
        return cls(b"".join(encoded), np.cumsum([0] + [len(e) for e in encoded]))


@dataclass(frozen=True)
class Histogram:
    """Counts of respondents over a domain of d values.

    counts: int64 array of length d (read-only). shape: (height, width) for images, else None.
    peak: the largest value the input could hold (255 * scale for images); PSNR uses it.
    labels: the value names of a value,count CSV (a Labels sequence), else None (values are 0..d-1).
    notes: what the loader did that the user should know (e.g. downsampling).
    count_unit, cell: what one count is and what one bin is, in words, set by the loader (respondents per
    category, per value, per cell of a grid; an image's gray levels per pixel): an error per bin is in `unit`.
    """

    counts: np.ndarray
    name: str
    shape: tuple[int, int] | None = None
    peak: float | None = None
    labels: Sequence[str] | None = None
    notes: tuple[str, ...] = field(default=())
    count_unit: str = "respondents"
    cell: str = "bin"

    def __post_init__(self):
        counts = np.asarray(self.counts)
        require(counts.ndim == 1 and counts.size > 0, "a histogram needs at least one bin.")
        require(counts.size <= MAX_D, f"a histogram has at most {MAX_D:,} bins (got {counts.size:,}).")
        require(np.issubdtype(counts.dtype, np.integer), "histogram counts must be whole numbers.")
        require(bool((counts >= 0).all()), "histogram counts must be >= 0.")
        largest = int(counts.max())
        require(largest <= MAX_COUNT, f"{self.name}: a count of {largest:,} is above {MAX_COUNT_TEXT}.")
        total = exact_total(counts)
        require(total > 0, f"{self.name} has no respondents (every count is 0).")
        require(total <= MAX_COUNT, f"{self.name} holds n = {total:,} respondents; n must be at most {MAX_COUNT_TEXT}.")
        if self.shape is not None:
            require(self.shape[0] * self.shape[1] == counts.size, "image shape does not match the counts.")
        if self.labels is not None:
            require(len(self.labels) == counts.size, "there must be one label per count.")
            if not isinstance(self.labels, Labels):
                object.__setattr__(self, "labels", Labels.of(self.labels))
        counts = counts.astype(np.int64, copy=False).view()
        counts.flags.writeable = False  # shared between runs and sessions: never changed in place
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "_n", total)
        if self.peak is None:
            object.__setattr__(self, "peak", float(largest))

    @property
    def n(self) -> int:
        """Number of respondents (exact), counted once by the constructor."""
        n: int = self.__dict__["_n"]
        return n

    @property
    def d(self) -> int:
        """Domain size (bins)."""
        return int(self.counts.size)

    @property
    def unit(self) -> str:
        """The unit of a count and of an error per bin: "respondents per category", "gray levels per pixel"."""
        return f"{self.count_unit} per {self.cell}"

    @property
    def is_image(self) -> bool:
        return self.shape is not None

    @property
    def max_count(self) -> int:
        """The input maximum: estimates are clipped to [0, max_count]."""
        return int(self.counts.max())
