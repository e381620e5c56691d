"""Benchmark of every encoding's per-respondent randomizer against a per-respondent Python loop.

The peers this project replaces (pure-LDP, multi-freq-ldpy) randomize one respondent at a time in
Python, drawing that respondent's report with a few numpy calls. The baselines below are minimal
loops of that kind written here, drawing from the same law as the encoding's randomize (same
parameters, one report per respondent, numpy Generator), so that the ratio is the vectorisation
alone. For each registered encoding: the median wall and CPU seconds of randomize(values) and of the
loop on the same values (d = 1,024 values, n = 20,000 respondents, Zipf-like counts, eps = 1; sketches
on k = 16 rows of m = 1,024 cells): a row for each, randomize's as a ratio to the loop's (its inverse, the
speed-up, as a note; goals: benchmarks/goals.toml).
Usage: python benchmarks/bench_randomizers.py [--repeats R] [--n N] [--d D] [--eps E] [--only NAME ...] [--json]
"""

import math
import sys
from collections.abc import Callable

import numpy as np
from _common import Bench, median_seconds  # first: it puts the repository on sys.path

from ldpcore.oracles import ENCODINGS
from ldpcore.oracles.direct import GRR
from ldpcore.oracles.fake_reports import MURS
from ldpcore.oracles.hadamard import Hadamard
from ldpcore.oracles.hashing import OLH, SOLH
from ldpcore.oracles.onehot import OneHot, flip_probability
from ldpcore.oracles.sketches import CountMeanSketch, CountSketch, FragmentedSketch, HadamardCountMeanSketch
from ldpcore.oracles.unary import OUE, SUE

ROWS = ("loop", "randomize")
SKETCH = {"k": 16, "m": 1024}


def build(name: str, eps: float, d: int):
    """The encoding's oracle at local eps (sketches at SKETCH's size)."""
    return {
        "onehot": lambda: OneHot(d=d, p_b=flip_probability(eps)),
        "grr": lambda: GRR.from_eps(eps, d),
        "oue": lambda: OUE.from_eps(eps, d),
        "sue": lambda: SUE.from_eps(eps, d),
        "olh": lambda: OLH.from_eps(eps, d),
        "solh": lambda: SOLH.from_eps(eps, d, g=8),
        "hadamard": lambda: Hadamard.from_eps(eps, d),
        "murs": lambda: MURS.from_eps(eps, d, 3, 1000),
        "sketch-fragments": lambda: FragmentedSketch.from_eps(eps, d, **SKETCH),
        "cms": lambda: CountMeanSketch.from_eps(eps, d, **SKETCH),
        "hcms": lambda: HadamardCountMeanSketch.from_eps(eps, d, **SKETCH),
        "count-sketch": lambda: CountSketch.from_eps(eps, d, **SKETCH),
    }[name]()


# --- the per-respondent loops: one report at a time, as the peers draw them ------------------------


def loop_grr(o: GRR, values, rng):
    out = np.empty(len(values), dtype=np.int64)
    for i, v in enumerate(values):
        out[i] = v if rng.random() < o.p else (v + rng.integers(1, o.d)) % o.d
    return out


def loop_unary(o, values, rng):  # OUE, SUE: bit v w.p. p, every other bit w.p. q
    out = np.empty((len(values), o.d), dtype=bool)
    for i, v in enumerate(values):
        bits = rng.random(o.d) < o.q
        bits[v] = rng.random() < o.p
        out[i] = bits
    return out


def loop_onehot(o: OneHot, values, rng):  # every bit of the one-hot vector flipped w.p. p_b
    out = np.empty((len(values), o.d), dtype=bool)
    for i, v in enumerate(values):
        bits = rng.random(o.d) < o.p_b
        bits[v] = not bits[v]
        out[i] = bits
    return out


def loop_olh(o: OLH, values, rng):  # ideal hash: the respondent's table h(0..d-1), then GRR on [g]
    out = np.empty((len(values), o.d + 1), dtype=np.int64)
    for i, v in enumerate(values):
        table = rng.integers(o.g, size=o.d)
        y = table[v] if rng.random() < o.p else (table[v] + rng.integers(1, o.g)) % o.g
        out[i, :-1], out[i, -1] = table, y
    return out


def loop_hadamard(o: Hadamard, values, rng):  # j uniform on C_v (w.p. p) or on its complement
    out = np.empty(len(values), dtype=np.int64)
    for i, v in enumerate(values):
        w, j = v + 1, int(rng.integers(o.K))
        if (bin(w & j).count("1") % 2 == 0) != (rng.random() < o.p):
            j ^= w & -w
        out[i] = j
    return out


def loop_murs(o: MURS, values, rng):
    inputs = np.concatenate([values, rng.integers(o.d, size=o.fakes)])
    inner: Callable[..., np.ndarray] = loop_grr if isinstance(o.oracle, GRR) else loop_olh
    return rng.permutation(inner(o.oracle, inputs, rng), axis=0)


def loop_bit_sketch(o, values, rng):  # CMS / fragmented sketch: one row, its m bits flipped
    sketch = o._hashed(rng)
    rows, bits = np.empty(len(values), dtype=np.int64), np.empty((len(values), o.m), dtype=bool)
    for i, v in enumerate(values):
        rows[i] = rng.integers(o.k)
        vec = rng.random(o.m) < o.flip
        cell = sketch.hashes.cells(v, rows[i])
        vec[cell] = not vec[cell]
        bits[i] = vec
    return sketch.hash_seed, rows, bits


def loop_hcms(o, values, rng):  # one row, one coordinate (HCMS: a Hadamard coefficient), its sign flipped
    sketch = o._hashed(rng)
    rows, coefs, plus = (np.empty(len(values), dtype=t) for t in (np.int64, np.int64, bool))
    for i, v in enumerate(values):
        rows[i], coefs[i] = rng.integers(o.k), rng.integers(o.m)
        plus[i] = bool(sketch._plus(v, rows[i], coefs[i])) != (rng.random() < o.flip)
    return sketch.hash_seed, rows, coefs, plus


LOOPS: dict[str, Callable[..., object]] = {
    "onehot": loop_onehot,
    "grr": loop_grr,
    "oue": loop_unary,
    "sue": loop_unary,
    "olh": loop_olh,
    "solh": loop_olh,
    "hadamard": loop_hadamard,
    "murs": loop_murs,
    "sketch-fragments": loop_bit_sketch,
    "cms": loop_bit_sketch,
    "hcms": loop_hcms,
    "count-sketch": loop_hcms,  # its report is HCMS's: one signed coordinate of row j
}


def main() -> int:
    bench = Bench(__file__, ROWS, __doc__, repeats=5)
    bench.parser.add_argument("--n", type=int, default=20_000)
    bench.parser.add_argument("--d", type=int, default=1024)
    bench.parser.add_argument("--eps", type=float, default=1.0)
    bench.parser.add_argument("--only", nargs="*", default=None)
    args = bench.parse()
    weights = 1 / np.arange(1, args.d + 1)
    counts = np.random.default_rng(0).multinomial(args.n, weights / weights.sum())
    values = np.repeat(np.arange(args.d), counts)
    bench.note(
        f"d = {args.d:,}, n = {args.n:,}, eps = {args.eps:g}, sketches k = {SKETCH['k']}, m = {SKETCH['m']:,}; "
        f"median of {args.repeats}"
    )
    for name in args.only or ENCODINGS:
        oracle, loop = build(name, args.eps, args.d), LOOPS[name]
        rng = np.random.default_rng(1)
        oracle.randomize(values, rng)  # first call: lazy imports and warm caches, not timed
        fast, fast_cpu, _ = median_seconds(lambda: oracle.randomize(values, rng), args.repeats)
        slow_repeats = max(1, math.ceil(args.repeats / 2))
        slow, slow_cpu, _ = median_seconds(lambda: loop(oracle, values, rng), slow_repeats)
        base = bench.record("loop", f"{name}: per-respondent loop", slow, cpu=slow_cpu, repeats=slow_repeats)
        notes = {"speed-up": slow / fast}
        bench.record(
            "randomize", f"{name}: randomize", fast, cpu=fast_cpu, repeats=args.repeats, baseline=base, notes=notes
        )
    return bench.finish()


if __name__ == "__main__":
    sys.exit(main())
