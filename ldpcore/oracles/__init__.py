"""Encodings (frequency oracles). Each module has one small shared shape: an oracle
object built from a Plan with sample_aggregate(counts, rng), randomize(values, rng),
aggregate(reports), estimate(aggregate, n), variance(n), expected_messages() and
bits_per_message; report_log_prob(value, reports) where an exact audit is possible.

To add an encoding: write its module and register it in ENCODINGS.
Still to register (libraries and tests exist): SOLH and MURS fake reports (their eps_l
comes from their own shuffle formulas), the sketches (no amplification bound is known for
them, seeds/000 Table V) and the multi-message protocols (no local eps).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import InputError
from .direct import GRR
from .hadamard import Hadamard
from .hashing import OLH
from .onehot import OneHot
from .unary import OUE, SUE


@dataclass(frozen=True)
class Encoding:
    """A registered encoding: its title for people, how a Plan builds its oracle, the
    amplification bounds that hold for its shuffled channels and the alphabet size k of
    one channel (what a k-RR bound must be told)."""

    name: str
    title: str
    build: Callable  # (plan, d) -> oracle
    accountants: tuple[str, ...]  # the first is the default
    channel_k: Callable  # d -> k
    neighbouring: str = "replacement"
    fragments: bool = False  # report fragments with a backstop (Algorithm 2) apply


# One attribute-fragment channel is binary randomized response (k = 2): the bounds
# for binary RR, for RR-type and for any eps0-LDP randomizer all hold for it.
BINARY_RR_ACCOUNTANTS = ("cheu19", "esa-thm3.1", "tight-binary-rr", "efmrtt19", "fmt21-closed", "fmt21-numeric",
                         "stronger-clone", "blanket-krr", "blanket-hoeffding", "blanket-bennett")


# Any eps0-LDP randomizer: the generic bounds. GRR is also k-RR (k = d) and RR-type.
GENERIC_ACCOUNTANTS = ("fmt21-numeric", "fmt21-closed", "efmrtt19")
GRR_ACCOUNTANTS = ("stronger-clone", "blanket-krr", "blanket-bennett", "blanket-hoeffding") + GENERIC_ACCOUNTANTS


def _single(cls, accountants, channel_k=lambda d: None) -> Encoding:
    """A single-message oracle calibrated from the plan's local eps (its eps_b)."""
    return Encoding(cls.name, cls.title, lambda plan, d: cls.from_eps(plan.eps_b, d), accountants, channel_k)


ENCODINGS: dict[str, Encoding] = {e.name: e for e in (
    Encoding("onehot", "One-hot (k-RAPPOR), attribute fragments",
             lambda plan, d: OneHot(d=d, p_b=plan.p_b, tau=plan.spec.tau, p_f=plan.p_f),
             BINARY_RR_ACCOUNTANTS, lambda d: 2, neighbouring="removal", fragments=True),
    _single(GRR, GRR_ACCOUNTANTS, channel_k=lambda d: d),
    _single(OUE, GENERIC_ACCOUNTANTS),
    _single(SUE, GENERIC_ACCOUNTANTS),
    _single(OLH, GENERIC_ACCOUNTANTS),  # solh's bound fixes g jointly with eps: not offered here
    _single(Hadamard, GENERIC_ACCOUNTANTS),
)}


def get_encoding(name: str) -> Encoding:
    if name not in ENCODINGS:
        raise InputError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}.")
    return ENCODINGS[name]
