"""What an observer of an ESA protocol sees of one respondent, as exact laws: the optional capability of
an encoding that the empirical audits read (ldpcore.experiment.audit).

The observers are those of Erlingsson, Feldman, Mironov, Raghunathan, Song, Talwar, Thakurta, "Encode,
Shuffle, Analyze Privacy Revisited" (2020): the server without a shuffler (one respondent's whole report,
linked to them), a captured shuffler (what of the report reaches it), and the analyst (the shuffled
aggregate of all n respondents). An oracle states what each sees with ``observer_law(observer)``, one of
the laws below or ``Unsupported`` with the reason (ldpcore.oracles.base.observer_law gives every oracle
without the method the default "unsupported, because ..."). The laws are facts of the randomizer alone;
the attacks, Bayes guesses and posteriors built on them are the audit's.

- ``BinLaws``: the observation is one independent part per bin (a bit, or the 1s among the fragments of a
  bin's bit) and the target's value changes only its own bin's part: its law is ``present`` there and
  ``ref`` in every other bin (unary encodings, one-hot reports). Exact attacks, guesses and posteriors.
- ``PairLaws``: (replacement) what tells value v from v' is two independent indicators, the report
  supporting v and supporting v', Bern(present[1]) for the value held and Bern(ref[1]) for the other
  (local hashing under an ideal hash, Hadamard response). The attack only.
- ``ResponseLaws``: k-RR: the report is the value w.p. p and each other of the d values w.p. q. Exact
  attacks for every observer, guesses and posteriors.
- ``CountLaws``: (the analyst) one bin's count in the shuffled aggregate is Bin(c, hi) + Bin(m - c, lo) from
  the m other respondents, c of whom hold the bin's value, plus the target's bit, Bern(present) in its
  value's bin and Bern(ref) in the others; with ``fragments`` = (tau, p_f) each of the tau copies of every
  bit is flipped again w.p. p_f (report fragments, Algorithm 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np


class Observer(StrEnum):
    """Who looks: the server without a shuffler, a captured shuffler, or the analyst of the shuffled aggregate."""

    SERVER = "server"
    SHUFFLER = "shuffler"
    ANALYST = "analyst"


OBSERVERS = tuple(Observer)


@dataclass(frozen=True)
class Unsupported:
    """An optional capability the encoding does not offer, and why (one sentence for people)."""

    reason: str


# what a single-message encoding's local observers see (the shuffler holds the whole report too)
SINGLE_REPORT = {
    Observer.SERVER: "the target's report",
    Observer.SHUFFLER: "the target's report, linked to the target (a single-message encoding: the shuffler holds it "
    "whole)",
}


@dataclass(frozen=True, eq=False)
class BinLaws:
    """Independent per-bin observations (module doc): ref and present are laws over one bin's observation
    (index = the number of 1s seen in the bin). one_bin: the observer sees a single bin (the shuffler of
    that bin's attribute fragment); fragments: the report is this many fragments, laid out (fragments, n, d)
    by randomize, and a captured shuffler sees one of them."""

    ref: np.ndarray
    present: np.ndarray
    sees: str
    one_bin: bool = False
    fragments: int | None = None


@dataclass(frozen=True, eq=False)
class PairLaws:
    """Two independent indicators tell v from v' (module doc): present and ref are Bernoulli laws [1 - x, x].
    A single message: its local observers see SINGLE_REPORT."""

    ref: np.ndarray
    present: np.ndarray


@dataclass(frozen=True)
class ResponseLaws:
    """k-RR on d values: the value w.p. p, each other w.p. q, eps = ln(p/q). A single message: its local
    observers see SINGLE_REPORT."""

    p: float
    q: float
    d: int
    eps: float


@dataclass(frozen=True)
class CountLaws:
    """One bin's count in the shuffled aggregate (module doc)."""

    hi: float
    lo: float
    ref: float
    present: float
    fragments: tuple[int, float] | None = None


Law = BinLaws | PairLaws | ResponseLaws | CountLaws


def bernoulli(x: float) -> np.ndarray:
    """The law [1 - x, x] of an indicator."""
    return np.array([1 - x, x])


def unsupported_analyst(name: str) -> Unsupported:
    """The analyst's law of an encoding whose report supports many values (local hashing, Hadamard response)."""
    return Unsupported(
        f"no exact law of the shuffled {name} aggregate is computed: one report supports many values at once, "
        "so the bins' counts are not independent"
    )
