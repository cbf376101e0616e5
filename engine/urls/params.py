"""Query parameters that the normalizer drops, and how it matches them.

Tracking parameters are matched by exact, case-sensitive key (query keys are
case-sensitive by our policy, and the analytics tools that read them are
too); session ids are matched in any case (servers write ``JSESSIONID``,
``PHPSESSID``, ``ASPSESSIONIDQASDQ``…).

>>> Dropper(TRACKING, ()).drops("utm_medium=x")
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Click ids and campaign tags (the list). Keys ending in "*" are prefixes.
TRACKING = (
    "utm_*",
    "fbclid",
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "msclkid",
    "yclid",
    "twclid",
    "ttclid",
    "igshid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "mkt_tok",
    "__twitter_impression",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
)

# Opt-in: referral and share tags that some sites do read (so not in archive).
TRACKING_EXTENDED = (
    "ref",
    "ref_src",
    "ref_url",
    "referrer",
    "spm",
    "scm",
    "cmpid",
    "icid",
    "s_cid",
    "_openstat",
    "hsCtaTracking",
    "si",
    "srsltid",
    "_branch_match_id",
    "rb_clickid",
    "wt_mc",
    "WT.mc_id",
    "ncid",
    "sr_share",
    "ef_id",
    "s_kwcid",
    "epik",
    "pk_*",
    "mtm_*",
    "hmb_*",
)

# Opt-in: session ids (matched in any case).
SESSION_IDS = (
    "jsessionid",
    "phpsessid",
    "aspsessionid*",
    "sid_*",
    "sessionid",
    "session_id",
    "cfid",
    "cftoken",
    "zenid",
    "oscsid",
)


@dataclass(frozen=True)
class Dropper:
    """Decide whether a ``key=value`` pair goes, with a one-regex quick reject.

    >>> Dropper((), SESSION_IDS).drops("CFTOKEN=12")
    True
    """

    exact: tuple[str, ...]
    any_case: tuple[str, ...]

    def __post_init__(self) -> None:
        names = [
            re.escape(n.rstrip("*")) + ("" if n.endswith("*") else "(?:=|&|$)") for n in self.exact
        ]
        folded = [
            "(?i:" + re.escape(n.rstrip("*")) + ("" if n.endswith("*") else "(?:=|&|$)") + ")"
            for n in self.any_case
        ]
        pattern = "(?:^|&)(?:" + "|".join(names + folded or ["(?!)"]) + ")"
        object.__setattr__(self, "_hint", re.compile(pattern))
        object.__setattr__(self, "_exact", frozenset(n for n in self.exact if n[-1] != "*"))
        object.__setattr__(self, "_prefix", tuple(n[:-1] for n in self.exact if n[-1] == "*"))
        lower = [n.lower() for n in self.any_case]
        object.__setattr__(self, "_lower", frozenset(n for n in lower if n[-1] != "*"))
        object.__setattr__(self, "_lower_prefix", tuple(n[:-1] for n in lower if n[-1] == "*"))

    def maybe(self, query: str) -> bool:
        """Quick reject: can any pair of ``query`` be dropped?"""
        return self._hint.search(query) is not None

    def drops(self, pair: str) -> bool:
        """Whether this one ``key=value`` pair is dropped."""
        key = pair.partition("=")[0]
        if key in self._exact or key.startswith(self._prefix):
            return True
        if not self._lower and not self._lower_prefix:
            return False
        key = key.lower()
        return key in self._lower or key.startswith(self._lower_prefix)

    def filter(self, query: str) -> str:
        """``query`` without the dropped pairs (others keep their order).

        >>> Dropper(TRACKING, ()).filter("a=1&utm_source=x&b=2")
        'a=1&b=2'
        """
        if not self._hint.search(query):
            return query
        return "&".join([pair for pair in query.split("&") if not self.drops(pair)])
