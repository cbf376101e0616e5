"""Scores of candidate domains: a noisy-channel posterior.

Each candidate weighs ``popularity prior × exp(-β × typo cost)`` (× the user's
visits, the referrer, learned choices), normalised together with the null
hypothesis "the user typed what they meant", so a score reads as the chance the
suggestion is right.

>>> o = SuggestOptions()
>>> near, far = Candidate("a.com", 0.5, "spelling", "", 10), Candidate("b.com", 1.5, "spelling", "", 10)
>>> candidate_weight(o, near, 0, {}) > candidate_weight(o, far, 0, {})
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from engine.urls.dictionary import EXTRACT, DomainDictionary
from engine.urls.typos import costs_more_than, typo_cost


@dataclass(frozen=True)
class Suggestion:
    """One ranked repair: the URL, a calibrated score (0..1), the step, why."""

    url: str
    score: float
    step: str
    reason: str

    def to_dict(self) -> dict:
        """The wire form; the score rounded to 3 places.

        >>> Suggestion("http://a.com/", 0.91234, "tld", "x").to_dict()["score"]
        0.912
        """
        return {
            "url": self.url,
            "score": round(self.score, 3),
            "step": self.step,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class SuggestOptions:
    """Tuning of the ranking; the defaults are what tests/bench measured."""

    limit: int = 5
    confident: float = 0.5  # the error page's big "Did you mean" button
    # a runner-up this close to the top candidate (weight ratio) makes the top one a
    # close call: never on the confident button, whatever its share of the total
    close_call: float = 0.78
    # …or at least this much when the top two are one name under two TLDs, neither typed
    # (``moegirl.co``: moegirl.org.cn or moegirl.icu), where only popularity tells them apart
    sibling_close_call: float = 0.6
    beta: float = 2.6  # how fast a likelier typo wins: weight = exp(-beta * cost)
    alpha: float = 0.45  # popularity prior: (rank + offset) ** -alpha
    offset: float = 50.0
    unknown_prior_rank: float = 150_000  # the prior of "a real domain we do not know"
    unknown_cost: float = 1.1  # …and its typo cost
    # a real TLD typed for another (misremembered); 0.9 won one tld_swap case per ~120 but
    # lost omission/transposition ones on held-out bench seeds
    tld_swap_cost: float = 1.0
    # .com typed for a site under another TLD: the TLD people assume, the commonest swap
    assumed_tld_cost: float = 0.8
    # taken off any TLD change of a name typed as-is that is a known name under another
    # TLD (``sendvid.net`` for sendvid.com): one mistake, the TLD, explains the whole typed
    # text, where a respelling (sendgrid.net) needs the typo to land on another real name
    named_swap_discount: float = 0.2
    tld_part_cost: float = 0.35  # the country code left off: .com typed for .com.ar
    known_typed_boost: float = 30.0  # a known typed domain vs a typo for another one
    user_boost: float = 40.0  # the user's own domains (per log visit)
    referrer_boost: float = 30.0
    taken_boost: float = 1e4
    rejected_factor: float = 0.05
    # "Try again" on the failed address while a suggestion was offered: the site may only have
    # been down, so a retry counts as this share of a rejection (4 retries = 1 rejection)
    retry_weight: float = 0.25
    max_variants: int = 6
    max_near: int = 40  # keys looked at per reading (nearest, then most popular)
    # a reading that already assumes a mistake as costly as a random letter (a connector
    # read as a dot, a repaired TLD with an unknown name) gets one-edit matches, not two
    one_edit_reading_cost: float = 1.0
    # a reading whose letters the substitution step rewrote (digits read as letters, cl as
    # d, rn as m, accents folded) already assumes a look-alike: one edit more, not two
    rewritten_one_edit: bool = True
    # a reading that already assumes a mistake (cost > 0) and leaves a name this short
    # (``et`` of etapp.com read as et.app) is looked up exactly, not respelled
    respelled_min_length: int = 4
    siblings: int = 5  # domains of a near name kept: the most popular, plus the typed suffix's
    far_siblings: int = 1  # …of a name two edits away (another TLD would be a third mistake)
    segments: bool = True  # step 6, when nothing above scores 0.2
    segment_min_length: int = 7  # a shorter name is one word: step 6 only invents names
    segment_max_length: int = 14
    short_far_cost: float = 0.0  # added to two edits on a name under 6 letters
    lexicon_labels: int = 10_000  # names of the N most popular domains join the lexicon


@dataclass(slots=True)
class Candidate:
    """A domain proposed by some step, with its typo cost (before scoring)."""

    domain: str  # the registrable domain (or host) proposed
    cost: float
    step: str
    reason: str
    rank: int | None = None  # dictionary rank, None for user/learned domains
    weight: float = 0.0
    sub: str | None = None  # the subdomain to keep; None: the typed one
    unsure: bool = False  # never at the confident score (two edits on a short name)


def candidate_weight(o: SuggestOptions, cand: Candidate, visits: float, counts: dict) -> float:
    """Prior × channel of one candidate; ``counts``: its taken/rejected record."""
    rank = cand.rank if cand.rank is not None else o.unknown_prior_rank / 3
    weight = (rank + o.offset) ** -o.alpha * math.exp(-o.beta * cand.cost)
    if visits:
        weight *= 1 + o.user_boost * math.log1p(visits)
    if cand.step == "referrer":
        weight *= o.referrer_boost
    if learned(o, counts):
        weight *= o.taken_boost
    return weight * o.rejected_factor ** rejections(o, counts)


def rejections(o: SuggestOptions, counts: dict) -> float:
    """The evidence against a suggestion: its rejections, and each retry as ``o.retry_weight``
    of one.

    >>> rejections(SuggestOptions(), {"rejected": 1, "retried": 2})
    1.5
    """
    return counts.get("rejected", 0) + o.retry_weight * counts.get("retried", 0)


def learned(o: SuggestOptions, counts: dict) -> bool:
    """Whether a correction the user took stays learned: taken more often than the evidence
    against it, so one "Try again" does not undo a correction taken once.

    >>> learned(SuggestOptions(), {"taken": 1, "retried": 1}), learned(SuggestOptions(), {"taken": 1, "rejected": 1})
    (True, False)
    """
    return counts.get("taken", 0) > rejections(o, counts)


def close_call(o: SuggestOptions, weights: list[float], siblings: bool = False) -> bool:
    """Whether the runner-up's weight is at least ``o.close_call`` of the top one's
    (``weights`` highest first): two readings nearly as likely, so neither is confident.
    ``siblings``: the top two are one name under two TLDs, neither typed, where only
    popularity tells them apart; then ``o.sibling_close_call`` of it is enough.

    >>> o = SuggestOptions()
    >>> close_call(o, [1.0, 0.8]), close_call(o, [1.0, 0.7]), close_call(o, [1.0])
    (True, False, False)
    >>> close_call(o, [1.0, 0.7], siblings=True), close_call(o, [1.0, 0.5], siblings=True)
    (True, False)
    """
    if len(weights) < 2:
        return False
    ratio = min(o.close_call, o.sibling_close_call) if siblings else o.close_call
    return weights[1] >= ratio * weights[0]


def null_weight(o: SuggestOptions, known: bool, rank: int | None, visits: float) -> float:
    """The weight of "typed what they meant": a known domain's own prior × a boost,
    an unknown one that of a real domain ranked ``unknown_prior_rank``."""
    if known:
        prior_rank = rank or o.unknown_prior_rank / 3
        return (
            (prior_rank + o.offset) ** -o.alpha
            * o.known_typed_boost
            * (1 + o.user_boost * math.log1p(visits))
        )
    return (o.unknown_prior_rank + o.offset) ** -o.alpha * math.exp(-o.beta * o.unknown_cost)


def siblings(source: DomainDictionary, ids: list[int], suffix: str, keep: int = 5) -> list[int]:
    """Of domains sharing a key (google.com, google.de, …: ids in rank order),
    the most popular few and the one under the typed suffix. Two hundred
    google.* would otherwise split the probability of "google" between them."""
    chosen = ids[:keep]
    if len(ids) - keep > SCAN_SIBLINGS:  # google.*: one lookup, not two hundred suffixes
        ident = source.id_of(f"{source.key(ids[0])}.{suffix}")
        if ident is not None and ident not in chosen:
            chosen.append(ident)
        return chosen
    chosen += [i for i in ids[keep:] if source.suffix(i) == suffix][:1]
    return chosen


SCAN_SIBLINGS = 6  # past this many more domains of a key, look the typed suffix's up
ASSUMED_TLD = "com"  # typed when the real TLD is not remembered


@lru_cache(maxsize=4096)
def is_public_suffix(suffix: str) -> bool:
    """A real TLD/public suffix (the PSL), whether or not the dictionary uses it."""
    return bool(suffix) and suffix.isascii() and EXTRACT(f"x.{suffix}").suffix == suffix


@lru_cache(maxsize=65536)
def suffix_change_cost(
    typed: str,
    known: str,
    typed_is_known: bool,
    swap: float = 1.0,
    part: float = 0.35,
    assumed: float | None = None,
) -> float:
    """The typo cost of ``typed`` for the suffix ``known`` (SuggestOptions' tld_* costs;
    ``assumed``: the swap's cost when ``.com`` was typed, ``swap`` when None).

    >>> suffix_change_cost("com", "com.br", True), suffix_change_cost("fr", "site", True)
    (0.35, 1.0)
    >>> suffix_change_cost("com", "org", True, assumed=0.8), suffix_change_cost("org", "com", True, assumed=0.8)
    (0.8, 1.0)
    """
    if not typed:
        return 0.8
    if typed_is_known:
        # a real TLD for another: misremembered more often than mistyped, so any
        # two TLDs are equally far apart unless one is a slip of the other (co/com)
        # or the country code was left off (com for com.ar)
        if country_left_out(typed, known):
            return part
        far = assumed if assumed is not None and typed == ASSUMED_TLD else swap
        if costs_more_than(typed, known, 1.0):
            return far  # most pairs of TLDs: not worth an alignment
        slip = typo_cost(typed, known)
        return swap - 0.4 + 0.2 * slip if slip <= 1.0 else far
    return 0.2 + typo_cost(typed, known)


def country_left_out(typed: str, known: str) -> bool:
    """``known`` is the generic TLD ``typed`` with a country code after it: ``com`` for
    ``com.br``. A country TLD typed (``co``, ``de``) is a choice, not a truncation, and
    ``co`` is also the classic slip of ``com``: those stay ordinary swaps.

    >>> country_left_out("com", "com.br"), country_left_out("co", "co.uk"), country_left_out("com.br", "com")
    (True, False, False)
    """
    head, _, country = known.rpartition(".")
    return head == typed and len(typed) > 2 and len(country) == 2 and country.isalpha()


def merge(suggestions: list[Suggestion], limit: int) -> list[Suggestion]:
    """The best score per URL, highest first, at most ``limit``."""
    best: dict[str, Suggestion] = {}
    for s in suggestions:
        if s.url not in best or best[s.url].score < s.score:
            best[s.url] = s
    return sorted(best.values(), key=lambda s: -s.score)[:limit]
