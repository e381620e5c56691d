"""A run's files: the run record as strict JSON, and original.png, reconstruction.png, estimate.csv and
run.json written into an output folder."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

from ldpcore.errors import InputError, require


def to_json(record: object) -> str:
    """JSON with NaN/inf written as null (strict JSON)."""

    def clean(x):
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, np.generic):
            return clean(x.item())
        return x

    return json.dumps(clean(record), indent=2)


def _named(path: Path) -> str:
    """A folder as a message names it: whole up to 120 characters, else its start and its length."""
    text = str(path)
    return text if len(text) <= 120 else f"{text[:60]}... ({len(text):,} characters)"


def output_folder(out) -> Path:
    """The folder out, made if needed, checked to take files; InputError (naming out and the reason)
    if it is empty, a file or cannot be made or written (a name too long, ...), before any work is done for it."""
    require(str(out).strip() != "", "the output folder is empty; give a folder (it is made if needed).")
    out = Path(out)
    try:
        if out.exists() and not out.is_dir():
            raise InputError(f"the output folder {_named(out)} is a file; give a folder (it is made if needed).")
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot make the output folder {_named(out)} ({exc.strerror or exc}).") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in the output folder {_named(out)} (permission denied).")
    return out


def write_run(result, record: dict, out: Path, std_error: np.ndarray | None) -> list[Path]:
    """original.png, reconstruction.png, estimate.csv (with every bin's std_error and interval) and run.json (the
    record, result.as_dict() with uncertainty(std_error)) in the folder out (made if needed); InputError if they
    cannot be written. A post-processed run (result.postprocessed) writes its post-processed estimate (the picture
    and the CSV, whose intervals are then empty: std_error None)."""
    from ldpcore.export.estimates import estimate_csv_chunks  # here, not at import: to_json needs neither
    from ldpcore.export.images import png_bytes, render

    out = output_folder(out)
    hist = result.histogram
    estimate = result.estimate if result.postprocessed is None else result.postprocessed.estimate
    files = {
        "original.png": lambda: [png_bytes(render(hist))],
        "reconstruction.png": lambda: [png_bytes(render(hist, estimate))],
        "estimate.csv": lambda: (chunk.encode() for chunk in estimate_csv_chunks(hist, estimate, std_error)),
        "run.json": lambda: [to_json(record).encode()],
    }
    for name, parts in files.items():
        try:
            with open(out / name, "wb") as f:
                for part in parts():
                    f.write(part)
        except OSError as exc:
            raise InputError(f"cannot write {out / name} ({exc.strerror or exc}).") from None
    return [out / name for name in files]
