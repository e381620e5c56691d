"""Encodings (frequency oracles). Each module has one small shared shape: an oracle
object built from a Plan with sample_aggregate(counts, rng), randomize(values, rng),
aggregate(reports), estimate(aggregate, n), variance(n), expected_messages() and
bits_per_message; report_log_prob(value, reports) where an exact audit is possible.

To add an encoding: write its module and register it in ENCODINGS.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import InputError
from .onehot import OneHot


@dataclass(frozen=True)
class Encoding:
    """A registered encoding: its title for people, how a Plan builds its oracle, the
    amplification bounds that hold for its shuffled channels and the alphabet size k of
    one channel (what a k-RR bound must be told)."""

    name: str
    title: str
    build: Callable  # (plan, d) -> oracle
    accountants: tuple[str, ...]
    channel_k: Callable  # d -> k


# One attribute-fragment channel is binary randomized response (k = 2): the bounds
# for binary RR, for RR-type and for any eps0-LDP randomizer all hold for it.
BINARY_RR_ACCOUNTANTS = ("cheu19", "esa-thm3.1", "tight-binary-rr", "efmrtt19", "fmt21-closed", "fmt21-numeric",
                         "stronger-clone", "blanket-krr", "blanket-hoeffding", "blanket-bennett")


ENCODINGS: dict[str, Encoding] = {e.name: e for e in (
    Encoding("onehot", "One-hot (k-RAPPOR), attribute fragments",
             lambda plan, d: OneHot(d=d, p_b=plan.p_b, tau=plan.spec.tau, p_f=plan.p_f),
             BINARY_RR_ACCOUNTANTS, lambda d: 2),
)}


def get_encoding(name: str) -> Encoding:
    if name not in ENCODINGS:
        raise InputError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}.")
    return ENCODINGS[name]
