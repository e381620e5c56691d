"""The Multi-message page's numbers: error against n and the who-can-see-what table."""

import math

import numpy as np
import pytest

from ldpcore.errors import InputError
from ldpcore.oracles.fake_reports import murs_eps_server, murs_eps_users
from ldpcore.systems.multiparty import error_against_n, synthetic_counts, threat_table


def test_single_message_error_needs_many_respondents_multi_message_does_not():
    n_grid = np.geomspace(1e3, 1e7, 9).astype(int)
    curves = error_against_n(1.0, 1e-6, 64, n_grid, "peaked")
    bary = curves["B-ary RR (single message)"]["rmse"]
    assert math.isnan(bary[0]) and not math.isnan(bary[-1])  # the blanket needs gamma < 1
    hadamard = np.array(curves["Hadamard multi-message (tight rho)"]["rmse"])
    assert np.all(np.isfinite(hadamard)) and hadamard.max() / hadamard.min() < 1.1  # flat in n
    paper = np.array(curves["Hadamard multi-message (paper rho)"]["rmse"])
    assert np.all(paper > hadamard)  # the paper's rho adds ~10x more blanket tuples
    tight_msgs = curves["Hadamard multi-message (tight rho)"]["messages"]
    assert all(t < p for t, p in zip(tight_msgs, curves["Hadamard multi-message (paper rho)"]["messages"]))
    assert curves["B-ary RR (single message)"]["messages"][-1] == 1.0
    count_min = np.array(curves["Count-Min multi-message (tight q)"]["rmse"])
    assert np.all(np.isfinite(count_min)) and count_min.max() / count_min.min() < 1.1  # flat in n
    paper_cm = np.array(curves["Count-Min multi-message (paper q)"]["rmse"])
    assert math.isnan(paper_cm[0]) and np.all(count_min[~np.isnan(paper_cm)] < paper_cm[~np.isnan(paper_cm)] / 5)


def test_synthetic_counts():
    assert synthetic_counts(10, 4, "peaked").tolist() == [10, 0, 0, 0]
    assert synthetic_counts(10, 4, "uniform").tolist() == [3, 3, 2, 2]
    with pytest.raises(InputError, match="data shape"):
        synthetic_counts(10, 4, "zipf")


def test_threat_table_uses_the_spec_formulas():
    rows = {r["protocol"].split(" (")[0]: r for r in threat_table(1_000_000, 100, 1e-9, 7.0, 3, 20_000, 1)}
    murs = rows["MURS"]
    assert murs["vs server"] == murs_eps_server(7.0, 1_000_000, 1e-9, 100, 40_000)
    assert murs["vs server + other respondents"] == murs_eps_users(1e-9, 100, 40_000)
    assert murs["vs server + shufflers"] == 7.0
    assert rows["shuffle only"]["vs server + other respondents"] == 7.0
    assert math.isinf(rows["HE aggregation"]["vs server + shufflers"])
    assert rows["MURS"]["vs server"] < rows["shuffle only"]["vs server"]  # fakes add to the blanket
    more = {r["protocol"].split(" (")[0]: r for r in threat_table(1_000_000, 100, 1e-9, 7.0, 3, 20_000, 0)}
    assert more["MURS"]["vs server"] < murs["vs server"]  # no colluder: all 60,000 fakes hidden
    with pytest.raises(InputError, match="colluding shufflers must lie in"):
        threat_table(1_000_000, 100, 1e-9, 7.0, 3, 20_000, 3)
