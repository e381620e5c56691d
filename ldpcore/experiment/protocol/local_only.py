"""The same encoding without a shuffler: every report reaches the server as sent, so the local epsilon is
the whole guarantee. Run at eps_l = eps_c, it shows what the analyst would recover if the reports alone
had to give the central eps_c (the left image of "what each party learns")."""

from __future__ import annotations

import numpy as np

from ldpcore.data.histogram import Histogram
from ldpcore.errors import InputError, check_seed
from ldpcore.experiment.protocol.metrics import error_metrics
from ldpcore.experiment.protocol.run import Cell, Failed, Measured, Method
from ldpcore.experiment.protocol.spec import ProtocolSpec
from ldpcore.oracles import get_encoding
from ldpcore.oracles.base import FrequencyOracle


def local_only_oracle(spec: ProtocolSpec, eps_l: float, d: int) -> tuple[FrequencyOracle, str, str]:
    """(oracle, encoding name, note) of spec's encoding as plain LDP at eps_l (one report, no fragments): the
    encoding that runs in its place without a shuffler (ldpcore.oracles.Encoding.without_shuffler: OLH for
    SOLH, GRR or OLH for MURS, whose hash range and fakes come from their shuffle bounds), at eps_l within
    its float64 limit (Encoding.oracle_at)."""
    encoding = get_encoding(spec.encoding)
    stand_in, params = encoding.without_shuffler(spec.param_dict)
    note = (
        ""
        if stand_in is encoding
        else f"{stand_in.title} stands in for {spec.encoding} (no shuffler, so no fake reports)"
    )
    eps_l = min(float(eps_l), stand_in.eps_limit(d, params))
    return stand_in.oracle_at(eps_l, d, params), stand_in.name, note


def without_shuffler(method: Method, eps_c: float, hist: Histogram, seed: int = 0) -> Cell:
    """method's encoding run without a shuffler at eps_l = eps_c (in the encoding's own notion), on hist.
    The Measured cell's privacy holds eps_l_inf, the notion, the encoding run and a note; Failed where undefined."""
    label = f"{method.label}, no shuffler"
    try:
        seed = check_seed(seed)
        oracle, name, note = local_only_oracle(method.at(eps_c), eps_c, hist.d)
        estimate = oracle.estimate(oracle.sample_aggregate(hist.counts, np.random.default_rng(seed)), hist.n)
        metrics = error_metrics(hist.counts, estimate, hist.max_count, hist.peak if hist.is_image else None)
        metrics["expected_messages"] = oracle.expected_messages()
        privacy = {
            "eps_l_inf": float(eps_c),
            "eps_c": float(eps_c),
            "neighbouring": get_encoding(name).neighbouring,
            "encoding": name,
            "note": note,
        }
        return Measured(label, float(eps_c), seed, estimate, metrics, privacy)
    except InputError as exc:
        return Failed(label, float(eps_c), seed, str(exc))
