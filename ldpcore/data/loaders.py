"""Inputs -> a ``Histogram``: images, histogram CSVs, the synthetic heavy-hitter data.

An image is a histogram over its pixels: a pixel of luminance L (0-255) is held by round(L * scale)
respondents (Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar, Thakurta, Encode, Shuffle, Analyze
Privacy Revisited (2020), Sec. VII; the paper's Map uses scale 2.5), so n = the sum of the counts and d =
width * height.

Limits, each checked before the work it bounds: files up to MAX_FILE_BYTES (read in blocks,
refused as soon as the limit is passed), images up to MAX_PIXELS (from the header, before
decoding), CSVs up to MAX_CSV_ROWS rows (counted while reading), every count and n up to
errors.MAX_COUNT (checked before the counts are allocated), counts read exactly (no float).
A protocol accepts at most errors.MAX_N respondents (ldpcore.experiment.spec.plan checks it).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import importlib.resources
import io
import math
import os
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from ldpcore.errors import (
    DECIMAL,
    MAX_COUNT,
    MAX_COUNT_TEXT,
    MAX_D,
    NON_FINITE,
    InputError,
    check_n,
    check_whole,
    require,
    shown,
)

BUNDLED = importlib.resources.files("ldpcore.data") / "bundled"  # package data: the bundled datasets
MAX_PIXELS = MAX_D  # decompression-bomb guard: refuse larger images (50 megapixels)
MAX_FILE_BYTES = 200 * 2**20  # refuse larger files, before parsing them
MAX_CSV_ROWS = 20_000_000
MAX_LINE_BYTES = 64 * 2**10  # a CSV line (a value and its count) is at most 64 KB
MAX_LABEL_BYTES = 1024  # a value's name in a value,count CSV
BLOCK_BYTES = 4 * 2**20  # CSVs are read and parsed this many bytes at a time
CSV_SUFFIXES = ("csv", "txt")  # file names read as histogram CSVs; anything else as an image


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
    """

    counts: np.ndarray
    name: str
    shape: tuple[int, int] | None = None
    peak: float | None = None
    labels: Sequence[str] | None = None
    notes: tuple[str, ...] = field(default=())

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
    def is_image(self) -> bool:
        return self.shape is not None

    @property
    def max_count(self) -> int:
        """The input maximum: estimates are clipped to [0, max_count]."""
        return int(self.counts.max())


# --- reading files -----------------------------------------------------------------------


def source_name(source, name: str | None = None) -> str:
    """The name to show for a source: the given name, a path's file name, an upload's name, else "upload"."""
    if name:
        return str(name)
    if isinstance(source, (str, Path)):
        return Path(source).name
    return str(getattr(source, "name", None) or "upload")


def _blocks(source, name: str) -> Iterator[bytes]:
    """The bytes of a path, bytes or file-like source in blocks of BLOCK_BYTES; refused as soon as
    more than MAX_FILE_BYTES have been read (a path's size is checked before it is opened)."""
    too_big = f"{name} is larger than {MAX_FILE_BYTES // 2**20} MB, the limit for an input file."
    if isinstance(source, (bytes, bytearray, memoryview)):
        view = memoryview(source)
        require(view.nbytes <= MAX_FILE_BYTES, too_big)
        for start in range(0, view.nbytes, BLOCK_BYTES):
            yield bytes(view[start : start + BLOCK_BYTES])
        return
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            require(path.exists(), f"no such file: {path}")
            require(not path.is_dir(), f"{path} is a folder, not a file.")
            require(path.is_file(), f"{path} is not a regular file.")
            require(path.stat().st_size <= MAX_FILE_BYTES, too_big)
            stream: contextlib.AbstractContextManager = open(path, "rb")
        except OSError as exc:
            raise InputError(f"cannot read {path} ({exc.strerror or exc}).") from None
    else:
        stream = contextlib.nullcontext(source)
    total = 0
    try:
        with stream as f:
            while block := f.read(BLOCK_BYTES):
                total += len(block)
                require(total <= MAX_FILE_BYTES, too_big)
                yield bytes(block)
    except OSError as exc:
        raise InputError(f"cannot read {name} ({exc.strerror or exc}).") from None


def read_source(source, allow_empty: bool = False, name: str | None = None) -> tuple[bytes, str]:
    """Bytes and a display name from a path, bytes, or a file-like object (uploads); name (if given)
    is the one shown in messages; allow_empty leaves an empty input to the caller's own message."""
    name = source_name(source, name)
    data = b"".join(_blocks(source, name))
    require(allow_empty or len(data) > 0, f"{name} is empty.")
    return data, name


def read_text(source, allow_empty: bool = False, name: str | None = None) -> tuple[str, str]:
    """UTF-8 text (a BOM allowed) and a display name, for the CSV loaders."""
    data, name = read_source(source, allow_empty, name)
    try:
        return data.decode("utf-8-sig"), name
    except UnicodeDecodeError:
        raise InputError(f"{name} is not a UTF-8 text file.") from None


# --- images --------------------------------------------------------------------------------


def load_image(source, scale: float = 1.0, max_side: int | None = None, name: str | None = None) -> Histogram:
    """Grayscale luminance per pixel = respondents (Erlingsson et al. 2020 Sec. VII).

    scale multiplies luminance before rounding to counts (Map: 2.5). max_side, if given,
    downsamples with box (area) averaging so that mean luminance is preserved.
    Images above MAX_PIXELS are refused from their header, before decoding; the number of
    respondents a pixel and the whole image hold is checked before the counts are allocated.
    """
    require(
        isinstance(scale, (int, float)) and scale > 0 and math.isfinite(scale),
        f"scale must be a finite number > 0 (got {scale}).",
    )
    if max_side is not None:
        max_side = check_whole(max_side, 1, "max_side (pixels)")
    data, name = read_source(source, name=name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own limit is lower
        try:
            img: Image.Image = Image.open(io.BytesIO(data))
        except UnidentifiedImageError:
            raise InputError(f"{name} is not an image Pillow can read (PNG, JPEG, GIF, BMP, TIFF, WebP).") from None
        except Image.DecompressionBombError:
            raise InputError(
                f"{name} has too many pixels: over {2 * (Image.MAX_IMAGE_PIXELS or MAX_PIXELS) / 1e6:.0f} megapixels; "
                f"the limit is {MAX_PIXELS / 1e6:.0f} megapixels ({MAX_PIXELS:,} pixels): downsample it "
                "before loading."
            ) from None
        except (OSError, SyntaxError, ValueError) as exc:
            raise InputError(f"{name} is a truncated or corrupt image ({exc}).") from None
        w, h = img.size
        require(
            w * h <= MAX_PIXELS,
            f"{name} has too many pixels: {w}x{h} = {w * h:,} pixels = {w * h / 1e6:.1f} "
            f"megapixels; the limit is {MAX_PIXELS / 1e6:.0f} megapixels ({MAX_PIXELS:,} "
            "pixels): downsample it before loading.",
        )
        try:
            img.load()
        except (OSError, SyntaxError, ValueError) as exc:
            raise InputError(f"{name} is a truncated or corrupt image ({exc}).") from None
    img = ImageOps.exif_transpose(img)
    notes = []
    if img.mode not in ("I;16", "I;16B", "I;16L"):
        if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
            rgba = img.convert("RGBA")
            base = Image.new("RGBA", rgba.size, (0, 0, 0, 255))
            img = Image.alpha_composite(base, rgba)  # transparent = black = nobody there
            notes.append("transparent pixels were counted as black (no respondents).")
        img = img.convert("L")
    if max_side is not None and max(w, h) > max_side:
        factor = max_side / max(w, h)
        size = (max(1, round(w * factor)), max(1, round(h * factor)))
        if img.mode != "L":  # 16 bits: resampled as floats on the 0-255 scale
            img = Image.fromarray(np.asarray(img, dtype=np.float32) / np.float32(257.0), mode="F")
        img = img.resize(size, Image.Resampling.BOX)
        notes.append(f"downsampled from {w}x{h} to {size[0]}x{size[1]} (max side {max_side} px).")
    counts = _pixel_counts(img, scale, name)
    return Histogram(counts=counts.ravel(), name=name, shape=counts.shape, peak=255.0 * scale, notes=tuple(notes))


def _pixel_counts(img: Image.Image, scale: float, name: str) -> np.ndarray:
    """round(luminance * scale) per pixel as int64, after checking, before allocating them, that no pixel
    and not the whole image holds more than MAX_COUNT respondents (8-bit: n from the image's histogram)."""
    at = f" at scale {scale:g}" if scale != 1 else ""
    if img.mode == "L":
        table = np.rint(np.arange(256) * float(scale))  # = rint(luminance * scale) of each grey level
        per_level = img.histogram()
        levels = [v for v in range(256) if per_level[v]]
        top = table[levels[-1]]
    else:  # 16-bit greys as floats (divided by 257 to 0-255)
        lum = np.asarray(img, dtype=np.float64) / (1.0 if img.mode == "F" else 257.0)
        top = np.rint(lum.max() * scale)
    require(
        top <= MAX_COUNT,
        f"{name}{at} puts {int(top):,} respondents on one pixel; a count must be at "
        f"most {MAX_COUNT_TEXT} (lower the scale).",
    )
    if img.mode == "L":
        n = sum(per_level[v] * int(table[v]) for v in levels)
        counts = table.astype(np.int64)[np.asarray(img)]
    else:
        counts = np.rint(lum * scale)
        n = counts.sum()
    require(
        n <= MAX_COUNT,
        f"{name}{at} holds n = {int(n):,} respondents; n must be at most {MAX_COUNT_TEXT} (lower the scale).",
    )
    if n == 0:
        raise InputError(
            f"{name} has no respondents: every pixel is black."
            if img.getextrema()[1] == 0
            else f"{name} has no respondents{at}: every pixel rounds to 0 (raise the scale)."
        )
    return counts.astype(np.int64, copy=False)


# --- histogram CSVs --------------------------------------------------------------------------


def _parse_count(text: str, line: int, name: str) -> int:
    """One count, read exactly: a whole number in [0, MAX_COUNT] in plain decimal notation (1e3 and 12.0
    are whole numbers; 1_000 is refused)."""
    where, value = f"{name}, line {line}: count", text.strip()
    if not DECIMAL.fullmatch(value):
        finite = value.lower().lstrip("+-") not in NON_FINITE
        raw = finite and not any(c.isdigit() for c in value)  # a word: a header or a record, not a count
        raise InputError(
            f"{where} {shown(value)!r} is not a {'number' if finite else 'finite number'}; counts are "
            "whole numbers such as 12 or 1e3"
            + (
                ". For raw records (one value per row) choose their column: --column NAME on the command "
                "line, 'raw records' in the dashboard."
                if raw
                else "."
            )
        )
    number = Decimal(value)
    require(number >= 0, f"{where} {shown(value)} is negative; counts must be >= 0.")
    require(number.adjusted() < 19 and number <= MAX_COUNT, f"{where} {shown(value)} is above {MAX_COUNT_TEXT}.")
    require(number == number.to_integral_value(), f"{where} {shown(value)} is not a whole number.")
    return int(number)


def _line_blocks(source, name: str) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines (each ending in a newline) and the number of lines before each block;
    a BOM is dropped; refused at the first line longer than MAX_LINE_BYTES or byte that is not UTF-8."""
    rest, lines, first = b"", 0, True
    for chunk in _blocks(source, name):
        if first:
            chunk, first = chunk.removeprefix(codecs.BOM_UTF8), False
        data = rest + chunk
        cut = data.rfind(b"\n") + 1
        block, rest = data[:cut], data[cut:]
        if block:
            yield _utf8(block, name), lines
            lines += block.count(b"\n")
        require(
            len(rest) <= MAX_LINE_BYTES,
            f"{name}, line {lines + 1:,} is longer than {MAX_LINE_BYTES // 1024} KB; "
            "a histogram CSV holds one count (or value,count) per line.",
        )
    if rest:
        yield _utf8(rest + b"\n", name), lines


def _utf8(block: bytes, name: str) -> bytes:
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{name} is not a UTF-8 text file.") from None
    return block


@dataclass
class _CsvState:
    """What the CSV reader knows across blocks: the file's name, its width (1 or 2 columns, from the
    first row) and whether that first row was a header (None until it is read)."""

    name: str
    width: int | None = None
    header: bool | None = None

    def check_width(self, found: int, line: int) -> None:
        if self.width is None:
            require(
                found in (1, 2),
                f"{self.name}, line {line}: expected 1 column (count) or 2 (value,count), found {found}.",
            )
            self.width = found
        require(found == self.width, f"{self.name}, line {line}: expected {self.width} column(s), found {found}.")

    def first_row(self, count_text: str) -> bool:
        """Read the file's first row: True if it is a header (to be dropped). A value,count file's first
        row is a header when its count cell holds no digit and is not nan or inf (e.g. "count")."""
        self.header = (
            self.width == 2
            and not any(c in "0123456789" for c in count_text)
            and (count_text.strip().lower().lstrip("+-") not in ("nan", "inf", "infinity"))
        )
        return self.header


def _running(mask: np.ndarray) -> np.ndarray:
    """How many entries of mask are True before each position (one entry longer than mask; int32: a
    block is far below 2^31 bytes)."""
    out = np.zeros(mask.size + 1, dtype=np.int32)
    np.cumsum(mask, dtype=np.int32, out=out[1:])
    return out


def _fast_block(block: bytes, before: int, state: _CsvState):
    """Parse a block of whole lines without quotes, vectorised: (line numbers, counts, label spans or None).

    Lines of blanks only or starting with '#' are skipped; counts of 1 to 18 ASCII digits are read
    by column arithmetic, any other count cell one by one through _parse_count (which names the line).
    """
    arr = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    starts = np.concatenate(([0], ends[:-1] + 1))
    blank = (arr == 32) | (arr == 9) | (arr == 13) | (arr == 10)
    solid = np.flatnonzero(~blank)  # positions of the other bytes
    solid_before = _running(~blank)
    k0, k1 = solid_before[starts], solid_before[ends]
    rows = np.flatnonzero(k1 > k0)
    rows = rows[arr[solid[k0[rows]]] != ord("#")]
    if rows.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64), None
    lines = before + rows + 1
    first, last, k1 = solid[k0[rows]], solid[k1[rows] - 1], k1[rows]  # first and last non-blank byte of each row
    comma = arr == 44
    commas_before = _running(comma)
    found = commas_before[ends[rows]] - commas_before[starts[rows]] + 1
    state.check_width(int(found[0]), int(lines[0]))
    wrong = np.flatnonzero(found != state.width)  # refused after the counts on the rows above it are checked
    if state.width == 1:
        a, b, spans = first, last + 1, None
    else:
        commas = np.flatnonzero(comma)  # not empty: the first row has its comma (checked above)
        at = commas[np.minimum(commas_before[starts[rows]], commas.size - 1)]  # each row's comma (if it has one)
        after = np.searchsorted(solid, at + 1)  # the first non-blank byte after it, if in the row
        a = np.where(after < k1, solid[np.minimum(after, solid.size - 1)], at + 1)
        b = np.maximum(last + 1, a)
        named = first < at
        label_end = solid[np.searchsorted(solid, at) - 1] + 1  # after the last non-blank byte before the comma
        spans = (np.where(named, first, at), np.where(named, label_end, at))
    if state.header is None and state.first_row(block[a[0] : b[0]].decode()):
        lines, a, b = lines[1:], a[1:], b[1:]
        spans = spans and (spans[0][1:], spans[1][1:])
    digits_before = _running((arr >= 48) & (arr <= 57))
    length = b - a
    fast = (digits_before[b] - digits_before[a] == length) & (length >= 1) & (length <= 18)
    counts = np.zeros(lines.size, dtype=np.int64)
    if fast.any():
        fb, fl = b[fast], length[fast]
        place = np.arange(int(fl.max()))
        inside = place[None, :] < fl[:, None]
        values = np.where(inside, arr[np.where(inside, fb[:, None] - 1 - place[None, :], 0)].astype(np.int64) - 48, 0)
        counts[fast] = values @ (10 ** place.astype(np.int64))
    first_wrong = wrong[0] - (lines.size < found.size) if wrong.size else lines.size  # (a header row was dropped)
    for i in np.flatnonzero(~fast[:first_wrong]):
        counts[i] = _parse_count(block[a[i] : b[i]].decode(), int(lines[i]), state.name)
    if wrong.size:
        state.check_width(int(found[wrong[0]]), int(lines[first_wrong]))
    return lines, counts, spans


def _slow_block(block: bytes, before: int, state: _CsvState):
    """The same for a block holding quotes, through the csv module, row by row: (line numbers, counts,
    the names' UTF-8 bytes)."""
    lines, counts, names = [], [], []
    try:
        for i, row in enumerate(csv.reader(io.StringIO(block.decode())), start=before + 1):
            if not row or not any(c.strip() for c in row) or row[0].lstrip().startswith("#"):
                continue
            state.check_width(len(row), i)
            if state.header is None and state.first_row(row[-1]):
                continue
            lines.append(i)
            counts.append(_parse_count(row[-1], i, state.name))
            names.append(row[0].strip().encode())
    except csv.Error as exc:
        raise InputError(f"{state.name} is not a valid CSV file ({exc}).") from None
    return np.asarray(lines, dtype=np.int64), np.asarray(counts, dtype=np.int64), names


_HASH_TABLE = np.random.default_rng(int.from_bytes(os.urandom(8), "little")).integers(
    0, 2**64, size=(MAX_LABEL_BYTES + 1, 257), dtype=np.uint64
)


def _label_hashes(blob: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each name (the names are blob cut into pieces of these lengths, each at most
    MAX_LABEL_BYTES): the sum of a random number per (position, byte) and one per length (tabulation
    hashing: two different names collide with probability 2^-64, whatever they are)."""
    hashes = _HASH_TABLE[lengths, 256]
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    named = np.flatnonzero(lengths)
    if named.size:
        position = np.arange(blob.size, dtype=np.int32) - np.repeat(offsets[:-1].astype(np.int32), lengths)
        hashes[named] += np.add.reduceat(_HASH_TABLE[position, blob], offsets[named])
    return hashes


def load_csv(source, name: str | None = None) -> Histogram:
    """A histogram CSV: one count per line, or value,count rows (a header line allowed).

    Blank lines and lines starting with '#' are skipped. Counts are whole numbers >= 0, read exactly.
    The file is read in blocks and refused at the first row beyond MAX_CSV_ROWS, the first count above
    MAX_COUNT, or as soon as the counts so far add up to more than MAX_COUNT.
    """
    name = source_name(source, name)
    state = _CsvState(name)
    counts, lines, blobs, lengths, hashes, rows, total, empty = [], [], [], [], [], 0, 0, True
    for block, before in _line_blocks(source, name):
        empty = False
        if b'"' in block:
            block_lines, block_counts, names = _slow_block(block, before, state)
            block_blob, block_lengths = b"".join(names), np.fromiter(map(len, names), np.int64, len(names))
        else:
            block_lines, block_counts, spans = _fast_block(block, before, state)
            if state.width == 2 and block_lines.size:
                block_lengths = spans[1] - spans[0]
                marks = np.zeros(len(block) + 1, dtype=np.int8)
                marks[spans[0]] += 1
                marks[spans[1]] -= 1
                block_blob = np.frombuffer(block, dtype=np.uint8)[np.cumsum(marks[:-1]) > 0].tobytes()
        if block_lines.size == 0:
            continue
        rows += block_lines.size
        if rows > MAX_CSV_ROWS:
            extra = int(block_lines[MAX_CSV_ROWS - rows + block_lines.size])
            raise InputError(
                f"{name} has more than {MAX_CSV_ROWS:,} rows, the limit (row {MAX_CSV_ROWS + 1:,} is "
                f"on line {extra:,})."
            )
        total += exact_total(block_counts)
        require(
            total <= MAX_COUNT,
            f"{name} holds more than {MAX_COUNT:,} respondents within its first {rows:,} rows; "
            f"n must be at most {MAX_COUNT_TEXT}.",
        )
        counts.append(block_counts)
        if state.width == 2:
            long = np.flatnonzero(block_lengths > MAX_LABEL_BYTES)
            if long.size:
                raise InputError(
                    f"{name}, line {int(block_lines[long[0]])}: the value is longer than {MAX_LABEL_BYTES:,} bytes."
                )
            lines.append(block_lines.astype(np.int32))  # a line number is below 2^31 (file size limit)
            blobs.append(block_blob)
            lengths.append(block_lengths.astype(np.int32))
            hashes.append(_label_hashes(np.frombuffer(block_blob, dtype=np.uint8), block_lengths))
    require(not empty, f"{name} is empty.")
    require(rows > 0, f"{name} has a header but no rows." if state.header else f"{name} holds no rows.")
    require(total > 0, f"{name} has no respondents: every count is 0.")
    labels = None
    if state.width == 2:
        labels = Labels(b"".join(blobs), np.concatenate(([0], np.cumsum(np.concatenate(lengths), dtype=np.int64))))
        _check_unique(labels, np.concatenate(hashes), np.concatenate(lines), name)
    return Histogram(counts=np.concatenate(counts), name=name, labels=labels)


def _check_unique(labels: Labels, hashes: np.ndarray, lines: np.ndarray, name: str) -> None:
    """Refuse a value named twice, naming both lines: equal hashes find the candidates, the names decide."""
    order = np.argsort(hashes)
    ordered = hashes[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    del ordered
    if same.size == 0:
        return
    seen: dict[str, int] = {}
    for i in np.unique(np.concatenate((order[same], order[same + 1]))).tolist():  # candidates, in row order
        label = labels[i]
        if label in seen:
            raise InputError(
                f"{name}, line {int(lines[i])}: value {label!r} already appeared on line {int(lines[seen[label]])}."
            )
        seen[label] = i


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
    return Histogram(counts=counts, name=f"heavy hitters (d={d:,}, n={n:,})")


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


def is_csv(name: str) -> bool:
    """Whether a file of this name is read as a histogram CSV (by its suffix, CSV_SUFFIXES) rather than an image."""
    return Path(name).suffix.lower().lstrip(".") in CSV_SUFFIXES


def load_upload(data: bytes, name: str, scale: float = 1.0, max_side: int | None = None) -> Histogram:
    """A file's bytes: a histogram CSV if its name ends in one of CSV_SUFFIXES, else an image;
    messages name the file by name."""
    if is_csv(name):
        return load_csv(data, name=name)
    return load_image(data, scale=scale, max_side=max_side, name=name)


def load_path(path, scale: float = 1.0, max_side: int | None = None) -> Histogram:
    """A CSV (by its suffix, see load_upload; read from the file block by block) or an image file."""
    if is_csv(str(path)):
        return load_csv(path)
    return load_image(path, scale=scale, max_side=max_side)
