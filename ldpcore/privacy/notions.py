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
(``replacement_bound``, ldpcore.privacy.dominating). Where only a number is at hand (no bound to build a pair
from), basic composition, (2 eps, 2 delta) (``on_notion``), and the conversion says so.

Local eps under replacement, one rule: an observer's local eps is the zero-out eps times how many of the
respondent's changed bits it sees. Replacing a value changes two bits of a one-hot report (or a fragmented
sketch row); everything one respondent sends holds both (eps_l_inf: 2 eps), one message holds one bin's bit
(eps_l_1, what a captured shuffler sees of attribute fragments: eps). Encodings under replacement already are
left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ldpcore.privacy.bounds import Bound
from ldpcore.privacy.dominating import composed_bound
from ldpcore.privacy.guarantee import Neighbouring

NOTIONS = ("replacement", "native")
ZERO_OUT, REPLACEMENT = Neighbouring.ZERO_OUT, Neighbouring.REPLACE_ONE
CONVERSION = (
    "replacement from zero-out: the two changed bins' channels composed by basic composition, (2 eps, 2 delta), "
    "as no privacy curve is at hand for this number"
)
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


def on_notion(
    eps: float, neighbouring: Neighbouring | str, notion: str = "replacement", delta: float | None = None
) -> OnNotion:
    """A central (eps, delta) stated under `neighbouring` restated in `notion` ("replacement", or "native":
    unchanged), from the number alone: a zero-out guarantee per channel becomes (2 eps, 2 delta). Where the bound
    is at hand, ``replacement_bound`` composes its privacy curve instead (tighter)."""
    neighbouring = _checked(neighbouring, notion)
    if notion == "native" or neighbouring == REPLACEMENT:
        return OnNotion(eps, delta, neighbouring, eps, delta, neighbouring, "")
    return OnNotion(2 * eps, None if delta is None else 2 * delta, REPLACEMENT, eps, delta, neighbouring, CONVERSION)


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


def bound_on_notion(bound: Bound, neighbouring: Neighbouring | str, notion: str) -> Bound:
    """The bound that certifies an encoding of native `neighbouring` in `notion`: the bound itself, or for a zero-out
    encoding under replacement the bound composed over the two changed channels (``replacement_bound``)."""
    return replacement_bound(bound) if channels(neighbouring, notion) == 2 else bound


def central_on_notion(
    bound: Bound, neighbouring: Neighbouring | str, notion: str, eps0: float, n: int, delta: float, k: int | None
) -> OnNotion:
    """The central eps_c of eps0-LDP reports under `bound` at (n, delta), restated in `notion`: a zero-out guarantee
    per channel under replacement through the two channels' dominating pair at the same delta (the bound at hand:
    tighter than (2 eps, 2 delta)), else as the bound states it."""
    native = _checked(neighbouring, notion)
    amp = bound.forward(eps0, n, delta, k)
    if amp.eps_c is None:
        raise ValueError(amp.reason)
    if channels(native, notion) == 1:
        return OnNotion(amp.eps_c, delta, native, amp.eps_c, delta, native, "")
    both = replacement_bound(bound).forward(eps0, n, delta, k)
    assert both.eps_c is not None  # valid wherever the bound itself is
    return OnNotion(both.eps_c, delta, REPLACEMENT, amp.eps_c, delta, native, COMPOSED)


def notions_differ(neighbourings) -> bool:
    """Whether the compared guarantees are stated under more than one notion (then compare as replacement)."""
    return len(set(neighbourings)) > 1
