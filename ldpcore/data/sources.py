"""The bytes of an input, from a path, bytes or a file-like object (an upload), read in blocks and refused
as soon as they pass MAX_FILE_BYTES, with the name messages show for it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from ldpcore.errors import InputError, require

MAX_FILE_BYTES = 200 * 2**20  # refuse larger files, before parsing them
BLOCK_BYTES = 4 * 2**20  # CSVs are read and parsed this many bytes at a time


def source_name(source, name: str | None = None) -> str:
    """The name to show for a source: the given name, a path's file name, an upload's name, else "upload"."""
    if name:
        return str(name)
    if isinstance(source, (str, Path)):
        return Path(source).name
    return str(getattr(source, "name", None) or "upload")


def blocks(source, name: str) -> Iterator[bytes]:
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
    data = b"".join(blocks(source, name))
    require(allow_empty or len(data) > 0, f"{name} is empty.")
    return data, name


def read_text(source, allow_empty: bool = False, name: str | None = None) -> tuple[str, str]:
    """UTF-8 text (a BOM allowed) and a display name, for the CSV loaders."""
    data, name = read_source(source, allow_empty, name)
    try:
        return data.decode("utf-8-sig"), name
    except UnicodeDecodeError:
        raise InputError(f"{name} is not a UTF-8 text file.") from None
