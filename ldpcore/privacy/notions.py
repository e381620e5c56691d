"""The neighbouring notions and the conversions between them (docs/notions.md).

- replace-one (``Neighbouring.REPLACE_ONE``, "replacement"): one respondent's value replaced by another. GRR, the
  unary and hashing encodings, Hadamard response and the single-message sketches are defined under it.
- zero-out (``Neighbouring.ZERO_OUT``): one respondent's value replaced by the null value, whose report is the
  randomized all-zeros report. One-hot with attribute fragments and the fragmented sketch are accounted under it,
  per shuffled channel: the respondent's bit in one bin is 1 rather than 0.
- add/remove-one (dp_accounting's ADD_OR_REMOVE_ONE): a respondent's reports present or absent in every channel;
  no accountant here states it.

Central eps under replacement, for a zero-out guarantee per channel: replacing v by v' changes two bins, whose
channels are independent given the others' data (c holders of v, c' of v', c + c' <= n - 1), each dominated by
the channel's dominating pair, so the pair's two-fold product dominates the release
(``replacement_bound``, ldpcore.privacy.dominating). Basic composition, (2 eps, 2 delta), is not used: every
zero-out number here comes with the bound that certifies it (a plan, a cell, a planner row), and the central
Gaussian baseline is restated exactly (``gaussian_on_notion``).

Local eps under replacement, one rule: an observer's local eps is the zero-out eps times how many of the
respondent's changed bits it sees. Replacing a value changes two bits of a one-hot report (or a fragmented
sketch row); everything one respondent sends holds both (eps_l_inf: 2 eps), one message holds one bin's bit
(eps_l_1, what a captured shuffler sees of attribute fragments: eps). Encodings under replacement already are
left as they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from ldpcore.privacy.bounds import Bound
from ldpcore.privacy.central import gaussian_eps
from ldpcore.privacy.dominating import composed_bound
from ldpcore.privacy.guarantee import Neighbouring

NOTIONS = ("replacement", "native")
ZERO_OUT, REPLACEMENT = Neighbouring.ZERO_OUT, Neighbouring.REPLACE_ONE
LOCAL_CONVERSION = "replacement from zero-out: the observer sees both changed bits, 2 eps"
CHANNELS = "changed bins' channels"
COMPOSED = "replacement from zero-out: the two changed bins' channels composed through the accountant's dominating pair"


class Seen(StrEnum):
    """What an observer of the local reports sees of one respondent (the local eps it faces)."""

    REPORT = "everything one respondent sends"  # eps_l_inf: both changed bits under replacement
    MESSAGE = "one message"  # eps_l_1: one bin's bit


@dataclass(frozen=True)
class OnNotion:
    """An epsilon (and delta, None for a local guarantee) in the comparison's notion, with the native one.

    eps, delta, neighbouring: as compared; native_eps, native_delta, native_neighbouring: as the encoding
    or accountant states them; conversion: the words of the conversion ("" when none was needed)."""

    eps: float
    delta: float | None
    neighbouring: Neighbouring
    native_eps: float
    native_delta: float | None
    native_neighbouring: Neighbouring
    conversion: str

    @property
    def converted(self) -> bool:
        return bool(self.conversion)


def _checked(neighbouring: Neighbouring | str, notion: str) -> Neighbouring:
    if neighbouring not in (ZERO_OUT, REPLACEMENT):
        raise ValueError(f"neighbouring must be zero-out ({ZERO_OUT.value!r}) or replacement (got {neighbouring!r})")
    if notion not in NOTIONS:
        raise ValueError(f"notion must be one of {', '.join(NOTIONS)} (got {notion!r})")
    return Neighbouring(neighbouring)


def local_on_notion(eps: float, neighbouring: Neighbouring | str, notion: str, seen: Seen) -> OnNotion:
    """A local eps stated under `neighbouring` restated in `notion`: under replacement a zero-out eps doubles for an
    observer of the whole report (both changed bits) and stays for one message (one bit)."""
    neighbouring = _checked(neighbouring, notion)
    if notion == "native" or neighbouring == REPLACEMENT:
        return OnNotion(eps, None, neighbouring, eps, None, neighbouring, "")
    if seen is Seen.MESSAGE:
        words = "replacement from zero-out: one message holds one bin's bit, eps unchanged"
        return OnNotion(eps, None, REPLACEMENT, eps, None, neighbouring, words)
    return OnNotion(2 * eps, None, REPLACEMENT, eps, None, neighbouring, LOCAL_CONVERSION)


def replacement_eps(eps: float, neighbouring: Neighbouring | str) -> float:
    """The local eps of a whole report under replacement (zero-out: 2 eps)."""
    return local_on_notion(eps, neighbouring, "replacement", Seen.REPORT).eps


def replacement_bound(bound: Bound) -> Bound:
    """The bound of one zero-out channel applied to the two channels a replacement changes: forward and inverse
    through the two-fold product of the channel's dominating pair (its privacy curve, or its closed form at several
    deltas), trivial bound 2 eps0."""
    return composed_bound(bound, 2, REPLACEMENT, CHANNELS)


def channels(neighbouring: Neighbouring | str, notion: str) -> int:
    """How many of its accountant's channels one neighbouring change in `notion` reaches: 2 for a zero-out
    guarantee per channel read under replacement, else 1."""
    return 2 if _checked(neighbouring, notion) == ZERO_OUT and notion == "replacement" else 1


def gaussian_on_notion(eps: float, sigma: float, delta: float, notion: str) -> OnNotion:
    """The central Gaussian baseline's eps (noise sigma, L2 sensitivity 1: one count removed, zero-out) in
    `notion`: under replacement one count goes down and another up, sensitivity sqrt(2), at the same delta."""
    if _checked(ZERO_OUT, notion) and notion == "native":
        return OnNotion(eps, delta, ZERO_OUT, eps, delta, ZERO_OUT, "")
    words = "replacement from zero-out: the same Gaussian noise at L2 sensitivity sqrt(2) (one count down, one up)"
    return OnNotion(gaussian_eps(sigma, delta, math.sqrt(2)), delta, REPLACEMENT, eps, delta, ZERO_OUT, words)


def notions_differ(neighbourings) -> bool:
    """Whether the compared guarantees are stated under more than one notion (then compare as replacement)."""
    return len(set(neighbourings)) > 1
