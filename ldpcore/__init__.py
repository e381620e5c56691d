"""ldpcore: what anonymous local differential privacy costs and buys.

The Encode-Shuffle-Analyze protocols of Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar and
Thakurta (Encode, Shuffle, Analyze Privacy Revisited, 2020) and their relatives: encodings with
their local and central guarantees, the amplification-by-shuffling bounds, an exact simulator of the
aggregates, error metrics and empirical audits. A notebook needs only the names below::

    import ldpcore
    horse = ldpcore.load_dataset("horse")
    spec = ldpcore.ProtocolSpec(encoding="onehot", eps_c=1.0, delta=5e-8)
    plan = ldpcore.plan(spec, horse.n, horse.d)
    result = ldpcore.run(spec, horse, seed=0)

The subpackages show the layers: data < privacy < oracles < experiment < systems (imports only go
downward; see docs/architecture.md). Names are imported on first use, so `import ldpcore` is cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.9.0"

# public name -> the module that defines it
_API = {
    "InputError": "ldpcore.errors",
    "DATASETS": "ldpcore.data.datasets",
    "Histogram": "ldpcore.data.histogram",
    "load_dataset": "ldpcore.data.datasets",
    "load_image": "ldpcore.data.images",
    "load_csv": "ldpcore.data.histogram_csv",
    "load_path": "ldpcore.data.loaders",
    "read_categorical": "ldpcore.data.ingest",
    "read_numeric": "ldpcore.data.ingest",
    "read_points": "ldpcore.data.ingest",
    "read_counts": "ldpcore.data.ingest",
    "BOUNDS": "ldpcore.privacy.bounds",
    "Bound": "ldpcore.privacy.bounds",
    "Amplification": "ldpcore.privacy.bounds",
    "get_bound": "ldpcore.privacy.bounds",
    "BoundName": "ldpcore.privacy.bounds",
    "Neighbouring": "ldpcore.privacy.guarantee",
    "Guarantee": "ldpcore.privacy.guarantee",
    "FrequencyOracle": "ldpcore.oracles.base",
    "ENCODINGS": "ldpcore.oracles",
    "get_encoding": "ldpcore.oracles",
    "ProtocolSpec": "ldpcore.experiment.protocol.spec",
    "Plan": "ldpcore.experiment.protocol.spec",
    "plan": "ldpcore.experiment.protocol.spec",
    "run": "ldpcore.experiment.protocol.run",
    "Result": "ldpcore.experiment.protocol.run",
    "run_central": "ldpcore.experiment.protocol.run",
    "paper_methods": "ldpcore.experiment.protocol.run",
    "sweep": "ldpcore.experiment.protocol.run",
    "run_audit": "ldpcore.experiment.audit",
}
__all__ = [
    "__version__",
    "InputError",
    "DATASETS",
    "Histogram",
    "load_dataset",
    "load_image",
    "load_csv",
    "load_path",
    "read_categorical",
    "read_numeric",
    "read_points",
    "read_counts",
    "BOUNDS",
    "Bound",
    "Amplification",
    "get_bound",
    "BoundName",
    "Neighbouring",
    "Guarantee",
    "FrequencyOracle",
    "ENCODINGS",
    "get_encoding",
    "ProtocolSpec",
    "Plan",
    "plan",
    "run",
    "Result",
    "run_central",
    "paper_methods",
    "sweep",
    "run_audit",
]

if TYPE_CHECKING:
    from ldpcore.data.datasets import DATASETS, load_dataset
    from ldpcore.data.histogram import Histogram
    from ldpcore.data.histogram_csv import load_csv
    from ldpcore.data.images import load_image
    from ldpcore.data.ingest import read_categorical, read_counts, read_numeric, read_points
    from ldpcore.data.loaders import load_path
    from ldpcore.errors import InputError
    from ldpcore.experiment.audit import run_audit
    from ldpcore.experiment.protocol.run import Result, paper_methods, run, run_central, sweep
    from ldpcore.experiment.protocol.spec import Plan, ProtocolSpec, plan
    from ldpcore.oracles import ENCODINGS, get_encoding
    from ldpcore.oracles.base import FrequencyOracle
    from ldpcore.privacy.bounds import BOUNDS, Amplification, Bound, BoundName, get_bound
    from ldpcore.privacy.guarantee import Guarantee, Neighbouring


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first use (PEP 562)."""
    if name not in _API:
        raise AttributeError(f"module 'ldpcore' has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
