"""The rewrite-suggestion engine: from a failed URL to ranked repaired URLs.

Pipeline (the seed's order, numbered as in issue 3; each candidate stops at
the first step that yields it, the final list merges and ranks them):

1. substitution list: decode escapes/punycode, fold accents, connectors
   (``, & + _`` and spaces) as segment breaks (engine/urls/substitution.py);
2. split subdomain / key / public suffix (tldextract's bundled PSL), strip
   extraneous TLD characters (``.comm``, ``.c0m``);
3. domain dictionary: exact match (bundled top list, the user's own domains,
   accepted corrections);
4. TLD dictionary: the same name under a known TLD (``.cmo`` → ``.com``,
   ``.co`` → ``.com``, ``.com`` → ``.com.br``: the country code left off);
5. spelling: keys within Levenshtein 2 (engine/urls/dictionary.py index),
   ranked by a keyboard-aware typo cost (engine/urls/typos.py);
6. segments: the seed's n-gram segment repair (engine/urls/segments.py),
   only when nothing above is confident;
7. scheme (``htp://``, https for a refused http), ``www`` mistakes, a missing
   dot before the TLD, the referrer's domain;
8. learning: taken corrections first, rejected ones demoted
   (engine/urls/learning.py);
9. a 404 on a live host: the archived copies the host passes in, and known
   URLs of the same site with the nearest path.

Scores are a noisy-channel posterior: each candidate domain weighs
``popularity prior × exp(-β × typo cost)``, normalised against the hypothesis
"the user typed what they meant" (a known domain, or an unknown real one), so
a score reads as the chance the suggestion is right. A URL whose registrable
domain is itself known never gets a different domain at ``confident`` (0.5)
or above: the site may just be down, so retry and archived copies come first.

>>> s = Suggester(DomainDictionary.from_domains(["google.com", "example.org"]))
>>> top = s.suggest(SuggestRequest("http://gogle.com/maps"))[0]
>>> top.url, top.step
('http://google.com/maps', 'spelling')
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import Levenshtein

from engine.errors import InvalidInput, InvalidURL, PageKeeperError
from engine.urls.dictionary import EXTRACT, DomainDictionary, split_host
from engine.urls.keyboard import layout_for_languages
from engine.urls.learning import LearningState
from engine.urls.segments import Lexicon, Segmenter
from engine.urls.substitution import TypedURL, ascii_host, host_variants, read_typed
from engine.urls.typos import typo_cost

ERRORS = ("dns", "refused", "timeout", "http_404", "http_410", "soft_404", "unknown")
NETWORK_ERRORS = ("dns", "refused", "timeout", "unknown")
PAGE_ERRORS = ("http_404", "http_410", "soft_404")
# Firefox's fixup table (browser/components/urlbar) and more: typos of TLDs.
TLD_TYPOS = {
    "cmo": "com", "con": "com", "cpm": "com", "ocm": "com", "vom": "com", "xom": "com",
    "cim": "com", "copm": "com", "comm": "com", "coom": "com", "c0m": "com", "com.": "com",
    "ogr": "org", "rog": "org", "prg": "org", "otg": "org", "orgg": "org", "og": "org",
    "ent": "net", "nte": "net", "ner": "net", "bet": "net", "met": "net", "nett": "net",
    "rdu": "edu", "eud": "edu", "ude": "edu",
}  # fmt: skip
PENDING_MAX = 256  # new user hosts kept in a small index before the big one is rebuilt
SECOND_LEVEL = frozenset({"com", "co", "net", "org", "gov", "edu", "ac", "or", "ne", "go", "gob"})
WWW_TYPOS = ("ww", "wwww", "wwwww", "qww", "wqw", "wwq", "eww", "wew", "wwe", "www2w")


@dataclass(frozen=True)
class SuggestRequest:
    """A failed navigation.

    ``error``: dns, refused, timeout, http_404, http_410, soft_404 (or unknown).
    ``time``: epoch seconds of the failure (the seed's error message carries it;
    no step ranks by it, the host passes it through). ``languages``: the browser's, e.g. ("de-DE", "en"):
    they pick the keyboard layout and favour the country's TLD.
    ``archived``: archive addresses of this URL, newest first (the host fills it).
    """

    url: str
    error: str = "dns"
    referrer: str | None = None
    time: float | None = None
    languages: tuple[str, ...] = ()
    archived: tuple[str, ...] = ()


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
    beta: float = 2.6  # how fast a likelier typo wins: weight = exp(-beta * cost)
    alpha: float = 0.45  # popularity prior: (rank + offset) ** -alpha
    offset: float = 50.0
    unknown_prior_rank: float = 150_000  # the prior of "a real domain we do not know"
    unknown_cost: float = 1.1  # …and its typo cost
    # a real TLD typed for another (misremembered); 0.9 won one tld_swap case per ~120 but
    # lost omission/transposition ones on held-out bench seeds (issue 3)
    tld_swap_cost: float = 1.0
    tld_part_cost: float = 0.35  # the country code left off: .com typed for .com.ar
    known_typed_boost: float = 30.0  # a known typed domain vs a typo for another one
    user_boost: float = 40.0  # the user's own domains (per log visit)
    referrer_boost: float = 30.0
    taken_boost: float = 1e4
    rejected_factor: float = 0.05
    max_variants: int = 6
    max_near: int = 40  # keys looked at per reading (nearest, then most popular)
    segments: bool = True  # step 6, when nothing above scores 0.2
    segment_max_length: int = 14
    lexicon_labels: int = 10_000  # names of the N most popular domains join the lexicon


@dataclass
class _Candidate:
    domain: str  # the registrable domain (or host) proposed
    cost: float
    step: str
    reason: str
    rank: int | None = None  # dictionary rank, None for user/learned domains
    weight: float = 0.0
    sub: str | None = None  # the subdomain to keep; None: the typed one


@dataclass
class _Query:
    """One reading of the typed host: subdomain, key and suffix plus its cost."""

    sub: str
    key: str
    suffix: str
    cost: float
    step: str
    reason: str


@dataclass
class _Context:
    request: SuggestRequest
    typed: TypedURL
    layout: str
    country: str
    typed_domain: str = ""
    typed_known: bool = False  # the host as typed is plausibly right (the null hypothesis)
    domain_known: bool = False  # its registrable domain is known: no other domain at >= 0.5
    www: bool = False
    candidates: dict[str, _Candidate] = field(default_factory=dict)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class Suggester:
    """Ranks repairs of a failed URL (see module doc). Thread-compatible, pure.

    Build once and keep it warm: ``Suggester(DomainDictionary.bundled())``.
    """

    def __init__(
        self,
        dictionary: DomainDictionary | None = None,
        learning: LearningState | dict | None = None,
        options: SuggestOptions | None = None,
    ) -> None:
        self.dictionary = dictionary if dictionary is not None else DomainDictionary.bundled()
        self.options = options or SuggestOptions()
        self.learning = LearningState()
        self._user: dict[str, float] = {}
        self._user_index: DomainDictionary | None = None  # the user's hosts, rebuilt rarely
        self._indexed: set[str] = set()
        self._pending: set[str] = set()  # hosts added since, in their own small index
        self._pending_index: DomainDictionary | None = None
        self._segmenter: Segmenter | None = None
        self._suffix_list: list[tuple[str, int]] | None = None
        self._glue: tuple[dict, dict] | None = None
        self._tld_cache: dict[str, list[tuple[str, float, str]]] = {}
        if learning is not None:
            self.load_learning(learning)

    @classmethod
    def bundled(cls, learning: LearningState | dict | None = None) -> Suggester:
        """A Suggester over the bundled top-100k dictionary."""
        return cls(DomainDictionary.bundled(), learning)

    def warm(self) -> Suggester:
        """Do the lazy one-off work now (suffix table, PSL, user index)."""
        self.dictionary.suffix_counts()
        self.suggest(SuggestRequest("http://warm-up.example/"))
        return self

    # -- learning API (the host persists learning_state()) ------------------
    def load_learning(self, data: LearningState | dict) -> None:
        """Replace the learning state (a LearningState or its to_dict())."""
        self.learning = data if isinstance(data, LearningState) else LearningState.from_dict(data)
        self._reset_user()

    def learning_state(self) -> dict:
        """The learning state as plain JSON-serialisable data."""
        return self.learning.to_dict()

    def add_user_domains(
        self, domains: Iterable[str] | dict[str, int], source: str = "visited"
    ) -> None:
        """Add the user's own hosts: ``visited`` (from the extension) or ``archived``.

        >>> s = Suggester(DomainDictionary.from_domains(["google.com"]))
        >>> s.add_user_domains({"myintranet.example": 3})
        >>> s.suggest(SuggestRequest("http://myintranet.exmaple/"))[0].url
        'http://myintranet.example/'
        """
        counts = domains if isinstance(domains, dict) else dict.fromkeys(domains, 1)
        record = self.learning.archive if source == "archived" else self.learning.visit
        for host, count in counts.items():
            clean = _clean_host(host)
            if clean:
                record(clean, int(count))
                self._note_user(clean, int(count))

    def add_user_urls(self, urls: Iterable[str], source: str = "visited") -> None:
        """Record visited/archived URLs: their hosts and paths (for step 9)."""
        hosts: dict[str, int] = {}
        for url in urls:
            try:
                typed = read_typed(url)
            except PageKeeperError:
                continue
            hosts[typed.host] = hosts.get(typed.host, 0) + 1
            self.learning.add_path(typed.host, typed.rest or "/")
        self.add_user_domains(hosts, source)

    def record_shown(self, url: str, suggestions: Iterable[Suggestion | str]) -> None:
        """Count the suggestions shown for a failed URL (statistics)."""
        typed = _domain_of(url)
        shown = [_domain_of(s.url if isinstance(s, Suggestion) else s) for s in suggestions]
        self.learning.shown(typed, [d for d in shown if d and d != typed])

    def record_outcome(self, url: str, suggestion_url: str, taken: bool) -> None:
        """The user took (or rejected) ``suggestion_url`` for the failed ``url``.

        >>> s = Suggester(DomainDictionary.from_domains(["google.com", "goggle.com"]))
        >>> s.record_outcome("http://gogle.com/", "http://goggle.com/", taken=True)
        >>> s.suggest(SuggestRequest("http://gogle.com/"))[0].step
        'learned'
        """
        typed, chosen = _domain_of(url), _domain_of(suggestion_url)
        if not typed or not chosen or " " in chosen:
            raise InvalidInput("record_outcome needs two web URLs")
        self.learning.record(typed, chosen, taken)
        if taken:
            host = ascii_host(_host_of(suggestion_url)) or chosen
            self.learning.visit(host)
            self._note_user(host, 1)

    # Names the daemon (host/services/navigation.py) calls; same behaviour as above.
    def state(self) -> dict:
        """Alias of :meth:`learning_state`."""
        return self.learning_state()

    def load_state(self, data: LearningState | dict) -> None:
        """Alias of :meth:`load_learning`."""
        self.load_learning(data)

    def record_visit(self, host: str, count: int = 1) -> None:
        """One successful visit of ``host`` (the extension's ``visited``)."""
        self.add_user_domains({host: count})

    def record_choice(self, url: str, suggestion_url: str, taken: bool) -> None:
        """Alias of :meth:`record_outcome`."""
        self.record_outcome(url, suggestion_url, taken)

    def _reset_user(self) -> None:
        """The user's hosts from the learning state; their index is rebuilt lazily."""
        self._user = {}
        for table in (self.learning.visited, self.learning.archived):
            for host, count in table.items():
                self._user[host] = self._user.get(host, 0.0) + count
        self._user_index, self._indexed = None, set()
        self._pending, self._pending_index = set(self._user), None

    def _note_user(self, host: str, count: int) -> None:
        """One more visit: new hosts wait in a small index of their own, so a visit
        never rebuilds the big one (that happens past PENDING_MAX new hosts)."""
        self._user[host] = self._user.get(host, 0.0) + count
        if host not in self._indexed and host not in self._pending:
            self._pending.add(host)
            self._pending_index = None

    def _user_dictionaries(self) -> list[DomainDictionary]:
        if len(self._pending) > PENDING_MAX:
            self._user_index = DomainDictionary.from_domains(self._user)
            self._indexed, self._pending, self._pending_index = set(self._user), set(), None
        if self._pending and self._pending_index is None:
            self._pending_index = DomainDictionary.from_domains(sorted(self._pending))
        return [d for d in (self._user_index, self._pending_index) if d is not None]

    # -- the pipeline -------------------------------------------------------
    def suggest(self, request: SuggestRequest) -> list[Suggestion]:
        """Ranked suggestions for a failed URL; InvalidURL/InvalidInput on bad input."""
        if not isinstance(request, SuggestRequest):
            raise InvalidInput("suggest() takes a SuggestRequest")
        if request.error is None:
            request = SuggestRequest(**{**request.__dict__, "error": "unknown"})
        if request.error not in ERRORS:
            raise InvalidInput(f"unknown error kind {request.error!r}; one of {', '.join(ERRORS)}")
        if isinstance(request.url, str) and _CONTROL.search(request.url):
            # A browser never reports a raw control character in a URL (it percent-encodes
            # them), and WHATWG forbids them in hosts: this is not a mistyped address.
            raise InvalidURL("control character in the URL")
        try:
            return self._suggest(request)
        except PageKeeperError:
            raise
        except (ValueError, UnicodeError, IndexError) as exc:  # malformed input deep inside
            raise InvalidURL(f"cannot read URL: {exc}") from None

    def _suggest(self, request: SuggestRequest) -> list[Suggestion]:
        typed = read_typed(request.url)
        ctx = _Context(request, typed, layout_for_languages(request.languages), _country(request))
        if _is_local(typed.host):
            # an address or localhost names no domain to repair: scheme/archive/paths only
            return _merge(self._extras(ctx, []), self.options.limit)
        queries = self._queries(ctx)
        self._collect(ctx, queries)
        self._learned(ctx)
        self._referrer(ctx)
        out = self._rank(ctx)
        if self.options.segments and not any(s.score >= 0.2 for s in out):
            out = self._with_segments(ctx, queries, out)
        out += self._extras(ctx, out)
        return _merge(out, self.options.limit)

    # step 1, 2, 7: readings of the host
    def _queries(self, ctx: _Context) -> list[_Query]:
        host = ascii_host(ctx.typed.host)  # the dictionary holds IDNs as punycode
        ctx.typed_domain = _registrable(host)
        ctx.domain_known = self._known(ctx.typed_domain) or self._known(host)
        # ww.example.com: the domain is known but this host is a typo of www.example.com
        www_typo = host.partition(".")[0] in WWW_TYPOS and host != ctx.typed_domain
        ctx.typed_known = ctx.domain_known and not www_typo
        queries: list[_Query] = []
        for variant in host_variants(ctx.typed.host)[: self.options.max_variants]:
            step = "substitution" if variant.change else "dictionary"
            queries += self._readings(ctx, variant.host, variant.cost, step, variant.change)
        return queries

    def _readings(self, ctx, host: str, cost: float, step: str, why: str) -> list[_Query]:
        out = []
        for stripped, extra, note in _www_readings(host):
            if note:
                ctx.www = True
            for q in self._split_readings(stripped):
                q.cost += cost + extra
                q.step = (
                    "www"
                    if note and q.step == "dictionary"
                    else (step if q.step == "dictionary" else q.step)
                )
                q.reason = ", ".join(r for r in (why, note, q.reason) if r)
                out.append(q)
        return out

    def _split_readings(self, host: str) -> list[_Query]:
        key, suffix = split_host(host)
        sub, _, name = key.rpartition(".")
        out = [_Query(sub, name, suffix, 0.0, "dictionary", "")]
        unknown = not suffix or suffix not in self.dictionary.suffix_counts()
        if unknown:
            out += self._tld_repairs(sub, name, suffix)
        if sub and (unknown or name in SECOND_LEVEL):
            # a mistyped two-label suffix: bbc.co.uc → bbc.co.uk, x.com.tg → x.com.gt
            head, _, name2 = sub.rpartition(".")
            out += self._tld_repairs(head, name2, f"{name}.{suffix}")
        if "." not in host or not self._known(f"{name}.{suffix}"):
            out += self._missing_dot(host)
        return [q for q in out if q.key]

    def _tld_repairs(self, sub: str, name: str, suffix: str) -> list[_Query]:
        """Step 2/4: extraneous characters in the TLD and known TLD typos."""
        return [
            _Query(sub, name, known, cost, "tld", why)
            for known, cost, why in self._tld_fixes(suffix)
        ]

    def _tld_fixes(self, suffix: str) -> list[tuple[str, float, str]]:
        """Known suffixes near a typed unknown one, cheapest first (cached per suffix)."""
        if suffix in self._tld_cache:
            return self._tld_cache[suffix]
        out = []
        fixed = TLD_TYPOS.get(suffix)
        if fixed:
            out.append((fixed, 0.3, f".{suffix} is a typo of .{fixed}"))
        limit = 1 if len(suffix) <= 3 else 2  # every 2-letter TLD is 2 edits from "ni"
        near = [
            (known, count)
            for known, count in self.dictionary.suffix_counts().most_common()
            if known != fixed and Levenshtein.distance(suffix, known, score_cutoff=limit) <= limit
        ]
        for known, count in near[:40]:
            cost = 0.3 + typo_cost(suffix, known) - 0.1 * math.log10(count)
            out.append((known, max(cost, 0.3), f".{suffix} → .{known}"))
        out.sort(key=lambda fix: fix[1])
        if len(self._tld_cache) > 4096:
            self._tld_cache.clear()
        self._tld_cache[suffix] = out[:6]
        return out[:6]

    def _popular_suffixes(self) -> list[tuple[str, int]]:
        counts = self.dictionary.suffix_counts()
        if self._suffix_list is None:
            self._suffix_list = [(s, c) for s, c in counts.most_common(300) if c >= 3]
        return self._suffix_list

    def _missing_dot(self, host: str) -> list[_Query]:
        """``examplecom`` → ``example.com``, ``amazoncom.mx`` → ``amazon.com.mx`` (step 7)."""
        out = []
        for glued, suffix in self._glued_readings(host):
            sub, _, key = glued.rpartition(".")
            if len(key) < 3:
                continue
            known = bool(self.dictionary.ids_with_key(key))
            why = f"dot missing before .{suffix}"
            out.append(_Query(sub, key, suffix, 0.3 if known else 0.7, "dot", why))
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
            for suffix, _count in self._popular_suffixes():
                flat.setdefault(suffix.replace(".", ""), []).append(suffix)
                first, _, rest = suffix.partition(".")
                if rest:
                    compound.setdefault(rest, []).append((first, suffix))
            self._glue = (flat, compound)
        return self._glue

    # steps 3, 4, 5: candidates from the dictionary and the user's domains
    def _collect(self, ctx: _Context, queries: list[_Query]) -> None:
        seen_keys: set[str] = set()
        exact = math.inf
        for q in sorted(queries, key=lambda q: q.cost):
            if self._exact(ctx, q):
                exact = min(exact, q.cost)
            if q.sub and q.key in SECOND_LEVEL:
                continue  # "com" of x.com.tg is part of a suffix, not a name
            if q.cost >= exact:
                continue  # a cheaper reading already is a known domain: no fuzzy search
            if q.key not in seen_keys and len(seen_keys) < self.options.max_variants:
                seen_keys.add(q.key)
                self._same_key(ctx, q)
                self._spelling(ctx, q)

    def _exact(self, ctx: _Context, q: _Query) -> bool:
        domain = f"{q.key}.{q.suffix}" if q.suffix else q.key
        if domain == ctx.typed_domain and q.step in ("dictionary", "substitution"):
            return False  # the typed domain itself is not a repair (www/scheme fixes are)
        if not self._known(domain):
            return False
        self._add(ctx, domain, q.cost, q.step, q.reason or "known domain", q.sub)
        return True

    def _keys_for(self, source: DomainDictionary, q: _Query) -> list[str]:
        """The user's hosts are indexed whole (``intranet.corp``): query with the subdomain too."""
        if q.sub and source is not self.dictionary:
            return [q.key, f"{q.sub}.{q.key}"]
        return [q.key]

    def _same_key(self, ctx: _Context, q: _Query) -> None:
        for source in self._sources():
            for typed_key in self._keys_for(source, q):
                sub = q.sub if typed_key == q.key else ""  # a whole-host key took the subdomain
                for ident in _siblings(source, source.ids_with_key(typed_key), q.suffix):
                    suffix = source.suffix(ident)
                    if suffix != q.suffix:
                        cost = q.cost + self._suffix_cost(ctx, q.suffix, suffix)
                        why = f".{q.suffix} → .{suffix}"
                        rank = self._rank_in(source, ident)
                        self._add(ctx, source.domain(ident), cost, "tld", why, sub, rank)

    def _spelling(self, ctx: _Context, q: _Query) -> None:
        if len(q.key) < 2:
            return
        for source in self._sources():
            for typed_key in self._keys_for(source, q):
                self._near(ctx, q, source, typed_key)

    def _near(self, ctx: _Context, q: _Query, source: DomainDictionary, typed_key: str) -> None:
        by_key: dict[str, list[int]] = {}
        near = sorted(source.near_keys(typed_key), key=lambda m: (m[1], m[0]))
        for ident, _dist in near:
            by_key.setdefault(source.key(ident), []).append(ident)
        for key, ids in list(by_key.items())[: self.options.max_near]:
            base = q.cost + typo_cost(typed_key, key, ctx.layout)
            for ident in _siblings(source, ids, q.suffix):
                suffix = source.suffix(ident)
                cost = base + (
                    self._suffix_cost(ctx, q.suffix, suffix) if suffix != q.suffix else 0
                )
                why = f"{typed_key} → {key}" + (
                    f", .{q.suffix} → .{suffix}" if suffix != q.suffix else ""
                )
                rank = self._rank_in(source, ident)
                sub = q.sub if typed_key == q.key else ""  # a whole-host key took the subdomain
                self._add(ctx, source.domain(ident), cost, "spelling", why, sub, rank)

    def _suffix_cost(self, ctx: _Context, typed: str, known: str) -> float:
        o = self.options
        cost = _suffix_change_cost(
            typed, known, _is_public_suffix(typed), o.tld_swap_cost, o.tld_part_cost
        )
        if known == ctx.country or known.endswith("." + ctx.country):
            cost -= 0.4
        return max(cost, 0.2)

    def _sources(self) -> list[DomainDictionary]:
        return [self.dictionary, *self._user_dictionaries()]

    def _known(self, domain: str) -> bool:
        return bool(domain) and (domain in self._user or self.dictionary.id_of(domain) is not None)

    def _add(self, ctx, domain: str, cost: float, step: str, reason: str, sub=None, rank=0) -> None:
        """Keep the cheapest way to each domain; ``rank`` 0 means look it up."""
        if domain == ctx.typed_domain and ctx.typed.host in (domain, "www." + domain):
            return
        found = ctx.candidates.get(domain)
        if found is None or cost < found.cost:
            rank = rank or self.dictionary.rank(domain)
            ctx.candidates[domain] = _Candidate(domain, cost, step, reason, rank, sub=sub)

    def _rank_in(self, source: DomainDictionary, ident: int) -> int:
        """The popularity rank of a match (0: from the user's index, look it up)."""
        return ident + 1 if source is self.dictionary else 0

    # step 8: learning
    def _learned(self, ctx: _Context) -> None:
        for domain, counts in self.learning.corrections(ctx.typed_domain).items():
            if counts.get("taken", 0) > counts.get("rejected", 0):
                self._add(ctx, domain, 0.0, "learned", "you chose this correction before")
                ctx.candidates[domain].step = "learned"

    # step 7: the referrer
    def _referrer(self, ctx: _Context) -> None:
        ref = ctx.request.referrer
        if not ref:
            return
        try:
            ref_domain = _registrable(read_typed(ref).host)
        except PageKeeperError:
            return
        typed_key = split_host(ctx.typed_domain)[0] if ctx.typed_domain else ""
        ref_key = split_host(ref_domain)[0]
        dist = Levenshtein.distance(typed_key, ref_key, score_cutoff=2)
        if ref_domain != ctx.typed_domain and dist <= 2:
            cost = typo_cost(typed_key, ref_key, ctx.layout)
            self._add(ctx, ref_domain, cost, "referrer", f"the link was on {ref_domain}")
            cand = ctx.candidates[ref_domain]
            cand.step, cand.reason = "referrer", f"the link was on {ref_domain}"

    # scoring
    def _weight(self, ctx: _Context, cand: _Candidate) -> float:
        o = self.options
        rank = cand.rank if cand.rank is not None else o.unknown_prior_rank / 3
        weight = (rank + o.offset) ** -o.alpha * math.exp(-o.beta * cand.cost)
        visits = self._user.get(cand.domain, 0.0) + self._user.get("www." + cand.domain, 0.0)
        if visits:
            weight *= 1 + o.user_boost * math.log1p(visits)
        if cand.step == "referrer":
            weight *= o.referrer_boost
        counts = self.learning.corrections(ctx.typed_domain).get(cand.domain, {})
        if counts.get("taken", 0) > counts.get("rejected", 0):
            weight *= o.taken_boost
        return weight * o.rejected_factor ** counts.get("rejected", 0)

    def _null_weight(self, ctx: _Context) -> float:
        o = self.options
        if ctx.typed_known:
            rank = self.dictionary.rank(ctx.typed_domain) or o.unknown_prior_rank / 3
            visits = self._user.get(ctx.typed_domain, 0.0) + self._user.get(ctx.typed.host, 0.0)
            return (
                (rank + o.offset) ** -o.alpha
                * o.known_typed_boost
                * (1 + o.user_boost * math.log1p(visits))
            )
        return (o.unknown_prior_rank + o.offset) ** -o.alpha * math.exp(-o.beta * o.unknown_cost)

    def _rank(self, ctx: _Context) -> list[Suggestion]:
        cands = list(ctx.candidates.values())
        for cand in cands:
            cand.weight = self._weight(ctx, cand)
        total = sum(c.weight for c in cands) + self._null_weight(ctx)
        out = []
        for cand in sorted(cands, key=lambda c: -c.weight)[: self.options.limit * 2]:
            score = cand.weight / total
            if ctx.domain_known and cand.domain != ctx.typed_domain:
                # the calibration rule, learned corrections included: a known
                # domain may just be down; a taken correction still ranks above retry
                score = min(score, self.options.confident - 0.05)
            out.append(
                Suggestion(
                    self._url(ctx, cand.domain, cand.sub), min(score, 0.99), cand.step, cand.reason
                )
            )
        return out

    def _url(self, ctx: _Context, domain: str, sub: str | None = None) -> str:
        if sub is None:
            sub = _subdomain(ctx.typed.host, ctx.typed_domain)
        head, dot, tail = sub.partition(".")
        if head in WWW_TYPOS:
            sub = f"www{dot}{tail}"
        if ctx.www and not sub:
            sub = "www"
        host = f"{sub}.{domain}" if sub and not domain.startswith(sub + ".") else domain
        return ctx.typed.with_host(host)

    # step 6
    def _with_segments(
        self, ctx: _Context, queries: list[_Query], out: list[Suggestion]
    ) -> list[Suggestion]:
        if self._segmenter is None:
            self._segmenter = Segmenter(Lexicon.bundled(self._labels()))
        best = min(queries, key=lambda q: q.cost) if queries else None
        if best is None or not best.suffix:
            return out
        if len(best.key) > self.options.segment_max_length:
            return out
        repaired = self._segmenter.repair(best.key.replace("-", ""))
        if repaired is None:
            return out
        name, score = repaired
        domain = f"{name}.{best.suffix}"
        known = self._known(domain)
        value = (0.6 if known else 0.3) * score / 1000
        if ctx.domain_known:
            value = min(value, self.options.confident - 0.05)
        why = f"segments repaired ({best.key} → {name}, n-gram score {score}/1000)"
        return [*out, Suggestion(self._url(ctx, domain), value, "segments", why)]

    def _labels(self) -> tuple[str, ...]:
        """The names of the most popular domains, split at hyphens: the issue's lexicon is
        "words from the dictionary's own labels plus a word-frequency list" (brands and
        names like ``zorbix`` are acceptable segments that no word list holds)."""
        dictionary, out = self.dictionary, {}
        for ident in range(min(len(dictionary), self.options.lexicon_labels)):
            for part in dictionary.key(ident).split("-"):
                if 3 <= len(part) <= 12 and part.isascii() and part.isalpha():
                    out[part] = None
        return tuple(out)

    # steps 7 (scheme) and 9 (retry, archive, nearest known path)
    def _extras(self, ctx: _Context, ranked: list[Suggestion]) -> list[Suggestion]:
        req, typed = ctx.request, ctx.typed
        out = []
        plain = typed.with_host(typed.host)
        if typed.scheme_typo:
            out.append(
                Suggestion(plain, 0.9 if ctx.typed_known else 0.6, "scheme", "scheme repaired")
            )
        if req.error == "refused" and typed.scheme == "http":
            out.append(
                Suggestion(
                    typed.with_host(typed.host, "https"),
                    0.55,
                    "scheme",
                    "the site may only answer on https",
                )
            )
        elif req.error == "refused" and typed.scheme == "https":
            out.append(
                Suggestion(
                    typed.with_host(typed.host, "http"),
                    0.3,
                    "scheme",
                    "the site may only answer on http",
                )
            )
        archived_score = 0.95 if (ctx.typed_known or req.error in PAGE_ERRORS) else 0.45
        for i, url in enumerate(req.archived[:3]):
            out.append(
                Suggestion(
                    url, archived_score - 0.01 * i, "archive", "your archived copy of this page"
                )
            )
        if ctx.typed_known and req.error in NETWORK_ERRORS:
            out.append(Suggestion(plain, 0.4, "retry", "a known site: it may be down for a moment"))
        if req.error in PAGE_ERRORS:
            out += self._nearest_paths(ctx)
        return out

    def _nearest_paths(self, ctx: _Context) -> list[Suggestion]:
        typed = ctx.typed
        paths = self.learning.paths.get(typed.host, [])
        target = typed.rest or "/"
        near = [p for p in paths if p != target and Levenshtein.ratio(target, p) >= 0.5]
        scored = sorted(((path_score(target, p), p) for p in near), reverse=True)[:3]
        return [
            Suggestion(
                typed.with_host(typed.host).replace(target, p, 1)
                if typed.rest
                else typed.with_host(typed.host).rstrip("/") + p,
                0.2 + 0.6 * r,
                "site",
                "a page you visited on this site with the nearest path",
            )
            for r, p in scored
        ]


_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def path_score(target: str, path: str) -> float:
    """How likely ``path`` is the page a 404 on ``target`` meant (0..1): the edit ratio from
    the first segment where they differ, file extensions aside. A typo in a name scores high;
    a different name in the same folder does not, however much of the path they share.

    >>> round(path_score("/docs/instalation", "/docs/installation"), 2)
    0.96
    >>> round(path_score("/notes/heron.html", "/notes/river.html"), 2)
    0.4
    """
    a, b = target.split("/"), path.split("/")
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    rest_a, rest_b = "/".join(a[i:]), "/".join(b[i:])
    return Levenshtein.ratio(_EXTENSION.sub("", rest_a), _EXTENSION.sub("", rest_b))


def _siblings(source: DomainDictionary, ids: list[int], suffix: str, keep: int = 5) -> list[int]:
    """Of domains sharing a key (google.com, google.de, …: ids in rank order),
    the most popular few and the one under the typed suffix. Two hundred
    google.* would otherwise split the probability of "google" between them."""
    chosen = ids[:keep]
    chosen += [i for i in ids[keep:] if source.suffix(i) == suffix][:1]
    return chosen


@lru_cache(maxsize=4096)
def _is_public_suffix(suffix: str) -> bool:
    """A real TLD/public suffix (the PSL), whether or not the dictionary uses it."""
    return bool(suffix) and suffix.isascii() and EXTRACT(f"x.{suffix}").suffix == suffix


@lru_cache(maxsize=65536)
def _suffix_change_cost(
    typed: str, known: str, typed_is_known: bool, swap: float = 1.0, part: float = 0.35
) -> float:
    """The typo cost of ``typed`` for the suffix ``known`` (SuggestOptions' tld_* costs).

    >>> _suffix_change_cost("com", "com.br", True), _suffix_change_cost("fr", "site", True)
    (0.35, 1.0)
    """
    if not typed:
        return 0.8
    if typed_is_known:
        # a real TLD for another: misremembered more often than mistyped, so any
        # two TLDs are equally far apart unless one is a slip of the other (co/com)
        # or the country code was left off (com for com.ar)
        if _country_left_out(typed, known):
            return part
        slip = typo_cost(typed, known)
        return swap - 0.4 + 0.2 * slip if slip <= 1.0 else swap
    return 0.2 + typo_cost(typed, known)


def _country_left_out(typed: str, known: str) -> bool:
    """``known`` is the generic TLD ``typed`` with a country code after it: ``com`` for
    ``com.br``. A country TLD typed (``co``, ``de``) is a choice, not a truncation, and
    ``co`` is also the classic slip of ``com``: those stay ordinary swaps.

    >>> _country_left_out("com", "com.br"), _country_left_out("co", "co.uk"), _country_left_out("com.br", "com")
    (True, False, False)
    """
    head, _, country = known.rpartition(".")
    return head == typed and len(typed) > 2 and len(country) == 2 and country.isalpha()


def _merge(suggestions: list[Suggestion], limit: int) -> list[Suggestion]:
    best: dict[str, Suggestion] = {}
    for s in suggestions:
        if s.url not in best or best[s.url].score < s.score:
            best[s.url] = s
    return sorted(best.values(), key=lambda s: -s.score)[:limit]


def _www_readings(host: str) -> list[tuple[str, float, str]]:
    """The host, and without a mistyped ``www`` (``ww.``, ``wwww.``, ``wwwexample``)."""
    out = [(host, 0.0, "")]
    first, dot, rest = host.partition(".")
    if dot and first in WWW_TYPOS and "." in rest:
        out.append((rest, 0.15, f"'{first}.' is a typo of 'www.'"))
    elif dot and first == "www" and "." in rest:
        out.append((rest, 0.0, ""))
    if host.startswith("www") and not host.startswith("www.") and "." in host[3:]:
        out.append((host[3:].lstrip("-"), 0.25, "dot missing after www"))
    return out


def _is_local(host: str) -> bool:
    """An IP literal or localhost: nothing a domain dictionary can repair.

    >>> _is_local("192.168.1.1"), _is_local("[::1]"), _is_local("localhost"), _is_local("1.example")
    (True, True, True, False)
    """
    host = host.rstrip(".")
    if host.startswith("[") or host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _country(request: SuggestRequest) -> str:
    for lang in request.languages:
        if "-" in lang:
            return lang.rsplit("-", 1)[1].lower()
    return ""


def _registrable(host: str) -> str:
    key, suffix = split_host(host)
    name = key.rpartition(".")[2]
    return f"{name}.{suffix}" if suffix else name


def _subdomain(host: str, registrable: str) -> str:
    host = ascii_host(host)
    if host == registrable or not host.endswith("." + registrable):
        return ""
    sub = host[: -len(registrable) - 1]
    return "www" if sub.split(".")[0] in WWW_TYPOS else sub


def _clean_host(host: str) -> str:
    try:
        return ascii_host(read_typed(host if "//" in host else f"http://{host}").host)
    except PageKeeperError:
        return ""


def _host_of(url: str) -> str:
    try:
        return read_typed(url).host
    except PageKeeperError:
        return ""


def _domain_of(url: str) -> str:
    """The registrable domain as the pipeline keys it (IDNs as punycode, like
    ``ctx.typed_domain``), or "" when the URL names no domain.

    >>> _domain_of("http://www.goögle.com/x"), _domain_of("not a url")
    ('xn--gogle-kua.com', '')
    """
    host = ascii_host(_host_of(url))
    domain = _registrable(host) if host else ""
    return "" if domain.startswith(".") or " " in domain.partition(".")[2] else domain


__all__ = ["DomainDictionary", "SuggestOptions", "SuggestRequest", "Suggester", "Suggestion"]
