import struct
import zlib

import numpy as np
import pytest
from PIL import Image


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png(width: int, height: int) -> bytes:
    """A valid all-black grayscale PNG of width x height, built without holding it decoded."""
    comp = zlib.compressobj(9)
    row = b"\x00" * (width + 1)
    idat = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


@pytest.fixture
def small_png(tmp_path):
    """A 6x4 gradient PNG (path) with n = sum of luminance."""
    arr = (np.arange(24, dtype=np.uint8).reshape(4, 6) * 10)
    path = tmp_path / "small.png"
    Image.fromarray(arr, mode="L").save(path)
    return path


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium driven by Playwright, shared by the browser tests."""
    from playwright.sync_api import sync_playwright

    from e2e_support import CHROMIUM_ARGS, chromium_path
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()
