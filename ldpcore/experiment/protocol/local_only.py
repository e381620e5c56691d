"""The same encoding without a shuffler: every report reaches the server as sent, so the local epsilon is
the whole guarantee. Run at eps_l = eps_c, it shows what the analyst would recover if the reports alone
had to give the central eps_c (the left image of "what each party learns")."""

from __future__ import annotations

import numpy as np

from ldpcore.data.loaders import Histogram
from ldpcore.errors import MAX_N, InputError, check_seed
from ldpcore.experiment.protocol.metrics import error_metrics
from ldpcore.experiment.protocol.run import Cell, Method
from ldpcore.experiment.protocol.spec import ProtocolSpec, plan
from ldpcore.oracles import get_encoding

# SOLH's and MURS's hash range or fakes come from their shuffle bound: without a shuffler OLH (MURS on GRR:
# GRR) stands in, at the same eps_l
STAND_IN = {"solh": "olh", "murs": "olh"}


def local_only_oracle(spec: ProtocolSpec, eps_l: float, d: int):
    """(oracle, encoding name, note) of spec's encoding as plain LDP at eps_l (one report, no fragments).
    The accountant does not change the oracle, nor does n: plan() is asked at the largest n and a loose
    delta, where the closed-form generic bound is valid for any eps_l the oracle takes."""
    name, params, note = spec.encoding, spec.params, ""
    if name in STAND_IN:
        name = "grr" if spec.param_dict.get("base") == "grr" else STAND_IN[name]
        note = f"{get_encoding(name).title} stands in for {spec.encoding} (no shuffler, so no fake reports)"
        params = ()
    encoding = get_encoding(name)
    eps_l = min(float(eps_l), encoding.eps_limit(d, encoding.check_params(dict(params))))
    local = ProtocolSpec(eps_c=None, eps_l=eps_l, encoding=name, params=params, accountant="fmt21-closed", delta=0.1)
    return plan(local, MAX_N, d).oracle(), name, note


def without_shuffler(method: Method, eps_c: float, hist: Histogram, seed: int = 0) -> Cell:
    """method's encoding run without a shuffler at eps_l = eps_c (in the encoding's own notion), on hist.
    The Cell's privacy holds eps_l_inf, the notion, the encoding run and a note; error where undefined."""
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
        return Cell(label, float(eps_c), seed, estimate, metrics, privacy)
    except InputError as exc:
        return Cell(label, float(eps_c), seed, error=str(exc))
