"""Repeated collection: the same protocol run T times on the same respondents (docs/composition.md).

Each round draws fresh randomness; the respondent's value and the others' data may change between rounds. One
respondent's data differing between two sequences of datasets makes each round a pair of neighbours (or of
equal datasets), each dominated by the round's dominating pair, so the T-fold product of that pair dominates the
whole collection (adaptive composition of dominating pairs; ldpcore.privacy.dominating). With one-hot under
replacement a round changes two channels, so the product has 2T factors.

``rounds_forward`` gives the total (eps_c, delta) after T rounds at a local eps0 per round; ``rounds_inverse`` the
largest eps0 per round whose T rounds fit a total budget. Both state, at the same eps0, the per-round eps_c at
delta/T and what basic and advanced composition of per-round guarantees would certify (ldpcore.privacy.composition):
the PLD total is never above them by construction of the comparison's inputs (the same bound, the same delta).
"""

from __future__ import annotations

from dataclasses import dataclass

from ldpcore.errors import check_delta, check_eps, check_whole
from ldpcore.privacy.bounds import Bound
from ldpcore.privacy.composition import Composition, advanced_composition, basic_composition
from ldpcore.privacy.dominating import composed_bound
from ldpcore.privacy.guarantee import Guarantee, Neighbouring, PairKind
from ldpcore.privacy.notions import REPLACEMENT, replacement_bound

MAX_ROUNDS = 100_000  # rounds composed at most (the composed distribution has 64 T + 1 points)
ROUNDS = "rounds"
COMPARE_RTOL = 1e-6  # the per-round eps_c beside the total: certified, at most this relative above the smallest


@dataclass(frozen=True)
class Rounds:
    """T collections at local eps0 per round, with bound `bound` over n respondents: the total (eps_c, delta) by
    the T-fold product of the round's dominating pair (total), one round's eps_c at delta/T (per_round), basic
    composition of that per-round guarantee (basic) and advanced composition of the per-round guarantee at
    delta/(2T) with delta' = delta/2 (advanced); pair: where the round's dominating pair came from. valid False
    (total not valid) with the reason where the bound certifies nothing here."""

    rounds: int
    bound: str
    neighbouring: Neighbouring
    n: int
    eps0: float | None
    total: Guarantee
    per_round: Guarantee
    basic: Composition | None
    advanced: Composition | None
    pair: PairKind | None
    channels: int = 1

    @property
    def valid(self) -> bool:
        return self.total.valid

    @property
    def reason(self) -> str:
        return self.total.reason

    @property
    def eps_c_total(self) -> float | None:
        return self.total.value

    @property
    def delta_total(self) -> float:
        return self.total.delta

    @property
    def eps_c_per_round(self) -> float | None:
        return self.per_round.value


def round_bound(bound: Bound, channels: int = 1) -> Bound:
    """The bound of one round: the bound itself, or over the two channels of a replacement (channels 2)."""
    return bound if channels == 1 else replacement_bound(bound)


def collection_bound(bound: Bound, rounds: int, channels: int = 1) -> Bound:
    """The bound of `rounds` collections (one round: ``round_bound``, not a pair built from it), each reaching
    `channels` of the bound's channels: the rounds x channels-fold product of the bound's dominating pair."""
    if rounds == 1:
        return round_bound(bound, channels)
    if channels == 1:
        return composed_bound(bound, rounds, bound.neighbouring, ROUNDS)
    return composed_bound(
        bound, channels * rounds, REPLACEMENT, f"channels ({channels} changed bins in each of {rounds} {ROUNDS})"
    )


def rounds_at(
    bound: Bound, rounds: int, channels: int, eps0: float, n: int, delta: float, k: int | None, total: Guarantee
) -> Rounds:
    """The Rounds record at eps0 with its total, and the per-round, basic and advanced numbers beside it."""
    one = round_bound(bound, channels)
    per = one.forward(eps0, n, delta / rounds, k, COMPARE_RTOL)
    half = one.forward(eps0, n, delta / (2 * rounds), k, COMPARE_RTOL)
    basic = basic_composition(per.eps_c, delta / rounds, rounds) if per.eps_c is not None else None
    advanced = (
        advanced_composition(half.eps_c, delta / (2 * rounds), rounds, delta / 2) if half.eps_c is not None else None
    )
    kind = PairKind.CURVE if bound.curve_fn is not None else PairKind.POINTS
    return Rounds(rounds, bound.name, one.neighbouring, n, eps0, total, per.guarantee, basic, advanced, kind, channels)


def rounds_forward(
    bound: Bound, eps0: float, n: int, delta: float, rounds: int, k: int | None = None, channels: int = 1
) -> Rounds:
    """The total (eps_c, delta) of `rounds` collections at local eps0 each (channels: how many of the bound's
    channels one round's neighbouring change reaches, 2 for one-hot under replacement)."""
    eps0, delta = check_eps(eps0, "eps0"), check_delta(delta)
    rounds, channels = check_whole(rounds, 1, "rounds", MAX_ROUNDS), check_whole(channels, 1, "channels", 2)
    every = collection_bound(bound, rounds, channels)
    amp = every.forward(eps0, n, delta, k)
    total = amp.guarantee
    if not total.valid:
        return Rounds(rounds, bound.name, every.neighbouring, n, eps0, total, total, None, None, None, channels)
    return rounds_at(bound, rounds, channels, eps0, n, delta, k, total)


def rounds_inverse(
    bound: Bound, eps_c: float, n: int, delta: float, rounds: int, k: int | None = None, channels: int = 1
) -> Rounds:
    """The largest local eps0 per round whose `rounds` collections together certify (eps_c, delta)."""
    eps_c, delta = check_eps(eps_c, "eps_c"), check_delta(delta)
    rounds, channels = check_whole(rounds, 1, "rounds", MAX_ROUNDS), check_whole(channels, 1, "channels", 2)
    every = collection_bound(bound, rounds, channels)
    amp = every.inverse(eps_c, n, delta, k)
    total = amp.guarantee
    if amp.eps0 is None or not total.valid:
        return Rounds(rounds, bound.name, every.neighbouring, n, None, total, total, None, None, None, channels)
    return rounds_at(bound, rounds, channels, amp.eps0, n, delta, k, total)
