"""Histogram CSVs -> a ``Histogram``: one count per line, or value,count rows (a header line allowed),
read in blocks of whole lines, vectorised where a block holds no quote, counts read exactly (no float).
Refused at the first row beyond MAX_CSV_ROWS, the first count above errors.MAX_COUNT, a line longer than
MAX_LINE_BYTES, a value longer than MAX_LABEL_BYTES or named twice."""

from __future__ import annotations

import codecs
import csv
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from ldpcore.data.histogram import Histogram, Labels, exact_total
from ldpcore.data.sources import blocks, source_name
from ldpcore.errors import DECIMAL, MAX_COUNT, MAX_COUNT_TEXT, NON_FINITE, InputError, require, shown

MAX_CSV_ROWS = 20_000_000
MAX_LINE_BYTES = 64 * 2**10  # a CSV line (a value and its count) is at most 64 KB
MAX_LABEL_BYTES = 1024  # a value's name in a value,count CSV


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
    for chunk in blocks(source, name):
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

    def first_row(self, value_text: str, count_text: str) -> bool:
        """Read the file's first row: True if it is a header (to be dropped). A value,count file's first
        row is a header when its count cell holds no digit and is not nan or inf (e.g. "count"). A header
        naming a latitude and a longitude column (as read_points finds them) is refused: those are points."""
        self.header = (
            self.width == 2
            and not any(c in "0123456789" for c in count_text)
            and (count_text.strip().lower().lstrip("+-") not in ("nan", "inf", "infinity"))
        )
        if self.header:
            from ldpcore.data.ingest.rules import point_columns  # (the ingest package, imported only here)

            lat, lon = point_columns([value_text, count_text])
            if lat is not None and lon is not None:
                raise InputError(
                    f"{self.name} holds latitude/longitude points (columns {lat.strip()!r} and {lon.strip()!r}), "
                    "not value,count rows: read it as points (--grid N, or --lat/--lon, on the command line; "
                    "'points' in the dashboard)."
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
    value = block[spans[0][0] : spans[1][0]].decode() if spans else ""
    if state.header is None and state.first_row(value, block[a[0] : b[0]].decode()):
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
            if state.header is None and state.first_row(row[0], row[-1]):
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
    return Histogram(counts=np.concatenate(counts), name=name, labels=labels, cell="value")


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
