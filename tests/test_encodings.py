"""Every registered encoding runs end to end: plan (accountant), exact simulation, estimate,
metrics; the measured raw error matches the analytic variance; the CLI and spec agree."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ldpcore.data import load_dataset
from ldpcore.errors import InputError
from ldpcore.experiment import paper_methods, run
from ldpcore.oracles import ENCODINGS
from ldpcore.protocol import ProtocolSpec

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def small_horse():
    return load_dataset("horse", max_side=64)  # d = 3,520 bins, n = 76,876


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_runs_with_the_analytic_error_and_a_certified_eps_c(small_horse, encoding):
    spec = ProtocolSpec(eps_c=1.0, delta=1e-6, encoding=encoding)
    results = [run(spec, small_horse, seed=s) for s in range(10)]
    r = results[0]
    assert r.plan.spec.accountant == ENCODINGS[encoding].accountants[0]
    assert r.plan.eps_c <= 1.0 and r.plan.as_dict()["neighbouring"] == ENCODINGS[encoding].neighbouring
    mean = np.mean([x.metrics["rmse_raw"] for x in results])
    assert abs(mean / r.analytic_std - 1) < 0.05
    assert r.estimate.shape == (small_horse.d,) and r.metrics["expected_messages"] >= 1


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_per_respondent_path_runs_for_every_encoding(encoding):
    tiny = load_dataset("horse", max_side=12)
    r = run(ProtocolSpec(eps_c=5.0, delta=1e-3, encoding=encoding), tiny, seed=1, per_respondent=True)
    assert np.isfinite(r.metrics["rmse_raw"])


def test_fragments_and_accountants_are_checked_per_encoding():
    with pytest.raises(InputError, match="report fragments \\(tau\\) apply to the one-hot encoding only"):
        ProtocolSpec(eps_c=1.0, encoding="grr", tau=4)
    with pytest.raises(InputError, match="the accountant cheu19 does not hold for the oue encoding"):
        ProtocolSpec(eps_c=1.0, encoding="oue", accountant="cheu19")
    labels = [m.label for m in paper_methods(ProtocolSpec(eps_c=1.0, encoding="grr"))]
    assert labels == ["Central Gaussian (no LDP)", ENCODINGS["grr"].title]


def test_cli_oracles_and_run_encoding():
    out = subprocess.run([sys.executable, "-m", "ldpcore", "oracles", "--json"], cwd=ROOT, capture_output=True,
                         text=True)
    names = [e["name"] for e in json.loads(out.stdout)["encodings"]]
    assert names == list(ENCODINGS)
    out = subprocess.run([sys.executable, "-m", "ldpcore", "run", "--dataset", "horse", "--max-side", "64",
                          "--encoding", "oue", "--eps-c", "1", "--json"], cwd=ROOT, capture_output=True, text=True)
    rec = json.loads(out.stdout)
    assert rec["encoding"] == "oue" and rec["accountant"] == "fmt21-numeric" and rec["expected_messages"] == 1.0
