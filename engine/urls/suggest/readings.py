"""Readings of a typed host: where its subdomain, name and suffix may be cut, and
which suffix it may have meant, each reading with a typo cost (steps 2, 4, 7).

A reading is a :class:`Query`; the pipeline looks each one up in the domain
dictionaries (exact, same name under another suffix, spelling).

>>> from engine.urls.dictionary import DomainDictionary
>>> reader = HostReader(DomainDictionary.from_domains(["google.com"]), lambda d: False)
>>> [(q.key, q.suffix, q.step) for q in reader.split("google.cmo")]
[('google', 'cmo', 'dictionary'), ('google', 'com', 'tld')]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from engine.urls.dictionary import DomainDictionary, split_host
from engine.urls.typos import typo_cost

# Firefox's fixup table (browser/components/urlbar) and more: typos of TLDs.
TLD_TYPOS = {
    "cmo": "com", "con": "com", "cpm": "com", "ocm": "com", "vom": "com", "xom": "com",
    "cim": "com", "copm": "com", "comm": "com", "coom": "com", "c0m": "com", "com.": "com",
    "ogr": "org", "rog": "org", "prg": "org", "otg": "org", "orgg": "org", "og": "org",
    "ent": "net", "nte": "net", "ner": "net", "bet": "net", "met": "net", "nett": "net",
    "rdu": "edu", "eud": "edu", "ude": "edu",
}  # fmt: skip
SECOND_LEVEL = frozenset({"com", "co", "net", "org", "gov", "edu", "ac", "or", "ne", "go", "gob"})
WWW_TYPOS = ("ww", "wwww", "wwwww", "qww", "wqw", "wwq", "eww", "wew", "wwe", "www2w")


@dataclass
class Query:
    """One reading of the typed host: subdomain, key and suffix plus its cost."""

    sub: str
    key: str
    suffix: str
    cost: float
    step: str
    reason: str
    stray: bool = False  # a dot typed inside a name: its DNS failure is evidence of the typo
    typed_suffix: str = ""  # a repaired suffix's typed one (edu.com read as edu.co); else suffix

    @property
    def shown_suffix(self) -> str:
        """The suffix a reason names as typed: what the user typed, not a repaired reading
        of it (harvard.edu.com → harvard.edu is ".edu.com → .edu", not ".edu.co → .edu")."""
        return self.typed_suffix or self.suffix


# What each reading costs (the units of engine/urls/typos.py: 1.0 is a random letter)
STRAY_DOT_COST = 0.3  # face.book.com: one stray character
SUFFIX_IN_NAME_COST = 0.3  # githubcom.com, wikipedia-org.com: a dot left out or mistyped
UNKNOWN_HEAD_COST = 0.5  # …when what is left of the name is no known name
KEPT_SUBDOMAIN_COST = 0.5  # a reading that keeps a subdomain a stray dot may have made


class HostReader:
    """Cuts typed hosts into readings (see module doc); caches per suffix.

    ``known(domain)``: is this domain known (bundled dictionary or the user's)?
    """

    def __init__(self, dictionary: DomainDictionary, known: Callable[[str], bool]) -> None:
        self.dictionary = dictionary
        self.known = known
        self._suffix_list: list[tuple[str, int]] | None = None
        self._glue: tuple[dict, dict] | None = None
        self._tld_cache: dict[str, list[tuple[str, float, str]]] = {}
        self._ranked: tuple[list[str], list[tuple[str, int]]] | None = None

    def readings(self, host: str, cost: float, step: str, why: str) -> tuple[list[Query], bool]:
        """The readings of one host variant, and whether a ``www`` typo was read."""
        out, www = [], False
        for stripped, extra, note in www_readings(host):
            www = www or bool(note)
            for q in self.split(stripped):
                q.cost += cost + extra
                q.step = (
                    "www"
                    if note and q.step == "dictionary"
                    else (step if q.step == "dictionary" else q.step)
                )
                q.reason = ", ".join(r for r in (why, note, q.reason) if r)
                out.append(q)
        return out, www

    def split(self, host: str) -> list[Query]:
        """The host as cut by the PSL, plus repaired suffixes and a missing dot."""
        key, suffix = split_host(host)
        sub, _, name = key.rpartition(".")
        out = [Query(sub, name, suffix, 0.0, "dictionary", "")]
        unknown = not suffix or suffix not in self.dictionary.suffix_counts()
        if unknown:
            out += self._tld_repairs(sub, name, suffix)
        if sub and (unknown or name in SECOND_LEVEL):
            # a mistyped two-label suffix: bbc.co.uc → bbc.co.uk, x.com.tg → x.com.gt
            head, _, name2 = sub.rpartition(".")
            out += self._tld_repairs(head, name2, f"{name}.{suffix}")
        if "." not in host or not self.known(f"{name}.{suffix}"):
            out += self._missing_dot(host)
            out += self._suffix_in_name(sub, name, suffix)
        stray = self._stray_dot(sub, name, suffix) if sub else []
        if stray:
            # the subdomain is likelier a piece of the name: keeping it costs a little
            for q in out:
                q.cost += KEPT_SUBDOMAIN_COST if q.sub else 0.0
        return [q for q in out + stray if q.key]

    def _stray_dot(self, sub: str, name: str, suffix: str) -> list[Query]:
        """``face.book.com`` → ``facebook.com``: the name's last two labels joined, when
        that is a known name (a real subdomain is kept by the null hypothesis)."""
        head, _, last = sub.rpartition(".")
        if last in WWW_TYPOS or last == "www" or not self.dictionary.has_key(last + name):
            return []
        why = f"a stray dot in '{last}.{name}'"
        return [Query(head, last + name, suffix, STRAY_DOT_COST, "dot", why, stray=True)]

    def _suffix_in_name(self, sub: str, name: str, suffix: str) -> list[Query]:
        """The TLD typed into the name, the browser adding ``.com`` after it:
        ``githubcom.com`` → github.com, ``wikipedia-org.com`` → wikipedia.org,
        ``bbc-co-uk.com`` → bbc.co.uk."""
        if suffix != "com":
            return []  # a TLD the user typed: googlecom.eg is a dot missing before .com.eg
        flat = self._suffix_tables()[0]
        out = []
        cuts = _name_suffix_cuts(name, flat)
        head, tail = name[:-2], name[-2:]
        if (head, tail, "glued") not in cuts and self.known(f"{head}.{tail}"):
            cuts.append((head, tail, "glued"))  # a rarer country code onto a known domain
        for head, real, how in cuts:
            if len(head) < 2:
                continue
            if len(real) < 3 and how == "glued" and not self.known(f"{head}.{real}"):
                continue  # a 2-letter tail glued to a name is mostly a word's end (linkedin)
            known = self.dictionary.has_key(head)
            cost = SUFFIX_IN_NAME_COST + (0.0 if known else UNKNOWN_HEAD_COST)
            why = f".{real} typed into the name" + (" with a hyphen" if how == "hyphen" else "")
            out.append(Query(sub, head, real, cost, "dot", why))
        out.sort(key=lambda q: q.cost)
        return out[:2]

    def _tld_repairs(self, sub: str, name: str, suffix: str) -> list[Query]:
        """Step 2/4: extraneous characters in the TLD and known TLD typos."""
        return [
            Query(sub, name, known, cost, "tld", why, typed_suffix=suffix)
            for known, cost, why in self.tld_fixes(suffix)
        ]

    def tld_fixes(self, suffix: str) -> list[tuple[str, float, str]]:
        """Known suffixes near a typed unknown one, cheapest first (cached per suffix)."""
        if suffix in self._tld_cache:
            return self._tld_cache[suffix]
        out = []
        fixed = TLD_TYPOS.get(suffix)
        if fixed:
            out.append((fixed, 0.3, f".{suffix} is a typo of .{fixed}"))
        limit = 1 if len(suffix) <= 3 else 2  # every 2-letter TLD is 2 edits from "ni"
        ranked = self._ranked_suffixes()
        # one C loop over every known suffix, then back into popularity order
        found = process.extract(
            suffix, ranked[0], scorer=Levenshtein.distance, score_cutoff=limit, limit=None
        )
        near = [ranked[1][i] for i in sorted(i for known, _, i in found if known != fixed)]
        for known, count in near[:40]:
            cost = 0.3 + typo_cost(suffix, known) - 0.1 * math.log10(count)
            out.append((known, max(cost, 0.3), f".{suffix} → .{known}"))
        out.sort(key=lambda fix: fix[1])
        if len(self._tld_cache) > 4096:
            self._tld_cache.clear()
        self._tld_cache[suffix] = out[:6]
        return out[:6]

    def _ranked_suffixes(self) -> tuple[list[str], list[tuple[str, int]]]:
        """Every known suffix, most used first: the names, and (name, count) pairs."""
        if self._ranked is None:
            pairs = self.dictionary.suffix_counts().most_common()
            self._ranked = ([known for known, _ in pairs], pairs)
        return self._ranked

    def popular_suffixes(self) -> list[tuple[str, int]]:
        """The dictionary's suffixes used by 3+ domains, most used first (at most 300)."""
        counts = self.dictionary.suffix_counts()
        if self._suffix_list is None:
            self._suffix_list = [(s, c) for s, c in counts.most_common(300) if c >= 3]
        return self._suffix_list

    def _missing_dot(self, host: str) -> list[Query]:
        """``examplecom`` → ``example.com``, ``amazoncom.mx`` → ``amazon.com.mx`` (step 7)."""
        out = []
        for glued, suffix in self._glued_readings(host):
            sub, _, key = glued.rpartition(".")
            if len(key) < 3:
                continue
            known = self.dictionary.has_key(key)
            why = f"dot missing before .{suffix}"
            out.append(Query(sub, key, suffix, 0.3 if known else 0.7, "dot", why))
        out.sort(key=lambda q: q.cost)
        return [q for q in out if q.cost < 0.5] or out[:2]

    def _glued_readings(self, host: str) -> list[tuple[str, str]]:
        """(what stands before the suffix, suffix) when a dot was left out:
        ``www.google`` in ``www.googlecom``; ``amazon`` in ``amazoncom.mx``."""
        flat, compound = self._suffix_tables()
        out = []
        for n in range(2, min(10, len(host) - 1)):
            tail = host[-n:]
            if host[-n - 1] != ".":
                out += [(host[:-n], suffix) for suffix in flat.get(tail, ())]
        head, _, last = host.rpartition(".")
        for first, suffix in compound.get(last, ()):
            if head.endswith(first) and head[: -len(first)][-1:] not in ("", "."):
                out.append((head[: -len(first)], suffix))
        return [(g, s) for g, s in out if g and not g.endswith(".")]

    def _suffix_tables(self) -> tuple[dict, dict]:
        if self._glue is None:
            flat: dict[str, list[str]] = {}
            compound: dict[str, list[tuple[str, str]]] = {}
            for suffix, _count in self.popular_suffixes():
                flat.setdefault(suffix.replace(".", ""), []).append(suffix)
                first, _, rest = suffix.partition(".")
                if rest:
                    compound.setdefault(rest, []).append((first, suffix))
            self._glue = (flat, compound)
        return self._glue


def _name_suffix_cuts(name: str, flat: dict[str, list[str]]) -> list[tuple[str, str, str]]:
    """(head, suffix, how) for a popular suffix at the end of ``name``, glued to it or
    after a hyphen; ``flat``: suffixes by their dotless spelling (``couk`` → co.uk).

    >>> _name_suffix_cuts("bbc-co-uk", {"couk": ["co.uk"], "uk": ["uk"]})
    [('bbc-co', 'uk', 'hyphen'), ('bbc', 'co.uk', 'hyphen')]
    """
    out = []
    parts = name.split("-")
    for k in (1, 2):
        tail = ".".join(parts[-k:])
        if len(parts) > k and tail in flat.get(tail.replace(".", ""), ()):
            out.append(("-".join(parts[:-k]), tail, "hyphen"))
    for n in range(2, min(7, len(name) - 1)):
        if not name[:-n].endswith("-"):
            out += [(name[:-n], real, "glued") for real in flat.get(name[-n:], ())]
    return out


def www_readings(host: str) -> list[tuple[str, float, str]]:
    """The host, and without a mistyped ``www`` (``ww.``, ``wwww.``, ``wwwexample``).

    >>> [h for h, _, _ in www_readings("ww.example.com")]
    ['ww.example.com', 'example.com']
    """
    out = [(host, 0.0, "")]
    first, dot, rest = host.partition(".")
    if dot and first in WWW_TYPOS and "." in rest:
        out.append((rest, 0.15, f"'{first}.' is a typo of 'www.'"))
    elif dot and first == "www" and "." in rest:
        out.append((rest, 0.0, ""))
    if host.startswith("www") and not host.startswith("www.") and "." in host[3:]:
        out.append((host[3:].lstrip("-"), 0.25, "dot missing after www"))
    return out
