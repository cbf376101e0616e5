"""Query parameters that the normalizer drops, and how it matches them.

Tracking parameters are matched by exact, case-sensitive key (query keys are
case-sensitive by our policy, and the analytics tools that read them are
too); session ids are matched in any case (servers write ``JSESSIONID``,
``PHPSESSID``, ``ASPSESSIONIDQASDQ``…).

>>> bool(Dropper(TRACKING, ()).drops("utm_medium=x"))
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

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


def _alternative(name: str, any_case: bool) -> str:
    body = re.escape(name[:-1]) + "[^=&]*" if name.endswith("*") else re.escape(name)
    return f"(?i:{body})" if any_case else body


@dataclass(frozen=True)
class Dropper:
    """Decide which ``key=value`` pairs go: ``find("&" + query)`` looks for a
    candidate in a whole query (quick reject; the literal ``&`` in front lets
    the regex engine skip to each pair instead of trying every position), and
    ``drops(pair)`` matches a single pair.

    >>> bool(Dropper((), SESSION_IDS).drops("CFTOKEN=12")), bool(Dropper((), SESSION_IDS).drops("cfid2=1"))
    (True, False)
    """

    exact: tuple[str, ...]
    any_case: tuple[str, ...]
    find: Callable[[str], re.Match[str] | None] = field(init=False, repr=False, compare=False)
    drops: Callable[[str], re.Match[str] | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [_alternative(n, False) for n in self.exact]
        names += [_alternative(n, True) for n in self.any_case]
        keys = "(?:" + "|".join(names or ["(?!)"]) + ")(?:=|&|$)"
        object.__setattr__(self, "find", re.compile("&" + keys).search)
        object.__setattr__(self, "drops", re.compile(keys).match)

    def filter_pairs(self, pairs: list[str]) -> list[str]:
        """``pairs`` without the dropped ones (the others keep their order).

        >>> Dropper(TRACKING, ()).filter_pairs(["a=1", "utm_source=x", "b=2", "fbclid"])
        ['a=1', 'b=2']
        """
        drops = self.drops
        return [pair for pair in pairs if not drops(pair)]
