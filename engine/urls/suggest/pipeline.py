"""The rewrite-suggestion engine: from a failed URL to ranked repaired URLs.

Pipeline (the URL-rewriting method's order, numbered as the method's steps; each candidate stops at
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
6. segments: the URL-rewriting method's n-gram segment repair (engine/urls/segments.py),
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

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import Levenshtein

from engine.errors import InvalidInput, InvalidURL, PageKeeperError
from engine.urls.dictionary import SHORT_KEY, DomainDictionary, split_host
from engine.urls.keyboard import layout_for_languages
from engine.urls.learning import LearningState
from engine.urls.segments import Lexicon, Segmenter
from engine.urls.substitution import (
    CONNECTOR_RUN,
    CONNECTORS,
    TypedURL,
    ascii_host,
    host_variants,
    is_local,
    read_typed,
    typed_address,
)
from engine.urls.suggest.ranking import (
    Candidate,
    Suggestion,
    SuggestOptions,
    candidate_weight,
    close_call,
    is_public_suffix,
    learned,
    merge,
    null_weight,
    siblings,
    suffix_change_cost,
)
from engine.urls.suggest.readings import SECOND_LEVEL, WWW_TYPOS, HostReader, Query
from engine.urls.typos import typo_cost, typo_costs

# The one list of error kinds: the extension (extension/lib/net-errors.js) sends only these,
# which tests/engine/urls/test_suggest_errors.py checks by reading that file.
ERRORS = (
    "dns", "refused", "reset", "timeout", "unreachable",
    "http_404", "http_410", "soft_404", "unknown",
)  # fmt: skip
NETWORK_ERRORS = ("dns", "refused", "reset", "timeout", "unreachable", "unknown")
# What a retry of a known site may expect, by kind (a name that resolved, then failed).
RETRY_REASONS = {
    "reset": "a known site: the connection broke off, a reload may get through",
    "unreachable": "a known site: no route to it now, check the network and try again",
}
RETRY_REASON = "a known site: it may be down for a moment"
PAGE_ERRORS = ("http_404", "http_410", "soft_404")
SEGMENTS_JOINED_COST = 0.2  # the cost of a connector read as nothing (substitution.py)
PENDING_MAX = 256  # new user hosts kept in a small index before the big one is rebuilt


@dataclass(frozen=True)
class SuggestRequest:
    """A failed navigation.

    ``error``: one of :data:`ERRORS` (dns, refused, reset, timeout, unreachable,
    http_404, http_410, soft_404, or unknown).
    ``time``: epoch seconds of the failure (the URL-rewriting method's error message carries it;
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
    candidates: dict[str, Candidate] = field(default_factory=dict)


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
        self.reader = HostReader(self.dictionary, self._known)
        if learning is not None:
            self.load_learning(learning)

    @classmethod
    def bundled(cls, learning: LearningState | dict | None = None) -> Suggester:
        """A Suggester over the bundled top-100k dictionary."""
        return cls(DomainDictionary.bundled(), learning)

    def warm(self) -> Suggester:
        """Do the lazy one-off work now (suffix table, PSL, user index)."""
        self.dictionary.suffix_counts()
        self._lexicon()
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

    def record_outcome(
        self, url: str, suggestion_url: str, taken: bool, retried: bool = False
    ) -> None:
        """The user took (or rejected) ``suggestion_url`` for the failed ``url``; ``retried``:
        passed over it by trying ``url`` again (weak evidence against it, not a rejection).

        >>> s = Suggester(DomainDictionary.from_domains(["google.com", "goggle.com"]))
        >>> s.record_outcome("http://gogle.com/", "http://goggle.com/", taken=True)
        >>> s.suggest(SuggestRequest("http://gogle.com/"))[0].step
        'learned'
        """
        typed, chosen = _domain_of(url), _domain_of(suggestion_url)
        if not typed or not chosen or " " in chosen:
            raise InvalidInput("record_outcome needs two web URLs")
        self.learning.record(typed, chosen, taken, retried)
        if taken and not retried:
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

    def record_choice(
        self, url: str, suggestion_url: str, taken: bool, retried: bool = False
    ) -> None:
        """Alias of :meth:`record_outcome`."""
        self.record_outcome(url, suggestion_url, taken, retried)

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
        typed = typed_address(request.url)
        ctx = _Context(request, typed, layout_for_languages(request.languages), _country(request))
        if is_local(typed.host) or request.error in PAGE_ERRORS:
            # an address or localhost names no domain to repair, and a 404, 410 or soft 404
            # came from a server that answered under this very name: scheme/archive/paths only
            return merge(self._extras(ctx, []), self.options.limit)
        queries = self._queries(ctx)
        self._collect(ctx, queries)
        self._connected_words(ctx)
        self._learned(ctx)
        self._referrer(ctx)
        out = self._rank(ctx)
        if self.options.segments and not any(s.score >= 0.2 for s in out):
            out = self._with_segments(ctx, queries, out)
        out += self._extras(ctx, out)
        return merge(out, self.options.limit)

    # step 1, 2, 7: readings of the host
    def _queries(self, ctx: _Context) -> list[Query]:
        host = ascii_host(ctx.typed.host)  # the dictionary holds IDNs as punycode
        ctx.typed_domain = _registrable(host)
        ctx.domain_known = self._known(ctx.typed_domain) or self._known(host)
        # ww.example.com: the domain is known but this host is a typo of www.example.com
        www_typo = host.partition(".")[0] in WWW_TYPOS and host != ctx.typed_domain
        ctx.typed_known = ctx.domain_known and not www_typo
        queries: list[Query] = []
        for variant in host_variants(ctx.typed.host)[: self.options.max_variants]:
            step = "substitution" if variant.change else "dictionary"
            queries += self._readings(ctx, variant.host, variant.cost, step, variant.change)
        if ctx.request.error == "dns" and not self._known(host) and any(q.stray for q in queries):
            # an unknown subdomain of a known site does not resolve, and with its last dot
            # taken out it is a known name (face.book.com): a typo, not a site that is down
            ctx.typed_known = ctx.domain_known = False
        return queries

    def _readings(self, ctx, host: str, cost: float, step: str, why: str) -> list[Query]:
        queries, www = self.reader.readings(host, cost, step, why)
        ctx.www = ctx.www or www
        return queries

    # steps 3, 4, 5: candidates from the dictionary and the user's domains
    def _collect(self, ctx: _Context, queries: list[Query]) -> None:
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

    def _exact(self, ctx: _Context, q: Query) -> bool:
        domain = f"{q.key}.{q.suffix}" if q.suffix else q.key
        if domain == ctx.typed_domain and q.step in ("dictionary", "substitution"):
            return False  # the typed domain itself is not a repair (www/scheme fixes are)
        if not self._known(domain):
            return False
        self._add(ctx, domain, q.cost, q.step, q.reason or "known domain", q.sub)
        return True

    def _keys_for(self, source: DomainDictionary, q: Query) -> list[str]:
        """The user's hosts are indexed whole (``intranet.corp``): query with the subdomain too."""
        if q.sub and source is not self.dictionary:
            return [q.key, f"{q.sub}.{q.key}"]
        return [q.key]

    def _same_key(self, ctx: _Context, q: Query) -> None:
        named = q.cost == 0 and not ctx.domain_known and is_public_suffix(q.suffix)
        discount = self.options.named_swap_discount if named else 0.0
        for source in self._sources():
            for typed_key in self._keys_for(source, q):
                sub = q.sub if typed_key == q.key else ""  # a whole-host key took the subdomain
                for ident in siblings(source, source.ids_with_key(typed_key), q.suffix):
                    suffix = source.suffix(ident)
                    if suffix != q.suffix:
                        cost = q.cost + self._suffix_cost(ctx, q.suffix, suffix, discount)
                        why = f".{q.shown_suffix} → .{suffix}"
                        rank = self._rank_in(source, ident)
                        self._add(ctx, source.domain(ident), cost, "tld", why, sub, rank)

    def _spelling(self, ctx: _Context, q: Query) -> None:
        if len(q.key) < 2:
            return
        if q.cost > 0 and len(q.key) < self.options.respelled_min_length:
            return  # a mistake already assumed, and too few letters left to recognise
        for source in self._sources():
            for typed_key in self._keys_for(source, q):
                self._near(ctx, q, source, typed_key)

    def _near(self, ctx: _Context, q: Query, source: DomainDictionary, typed_key: str) -> None:
        # a reading that already assumes a costly mistake gets one more edit, not two
        most = 1 if q.cost >= self.options.one_edit_reading_cost else 2
        if q.step == "substitution" and self.options.rewritten_one_edit:
            most = 1  # letters already rewritten (1 read as l, cl as d): one edit more
        mine = source is self.dictionary
        sub = q.sub if typed_key == q.key else ""  # a whole-host key took the subdomain
        suffix_costs: dict[str, float] = {q.suffix: 0.0}  # per reading: its typed suffix
        candidates, layout, o = ctx.candidates, ctx.layout, self.options
        near = source.nearest_keys(typed_key, o.max_near, most)
        typos = typo_costs(typed_key, [key for key, _, _ in near], layout)
        text, offsets = source.text, source.offsets  # source.domain(), inline
        for (key, dist, ids), typo in zip(near, typos, strict=True):
            # two edits on a short name: never a confident match
            far = dist > 1 and min(len(typed_key), len(key)) < SHORT_KEY
            base = q.cost + typo
            if far:
                base += o.short_far_cost
            keep = o.far_siblings if dist > 1 else o.siblings
            chosen = ids if len(ids) == 1 and keep else siblings(source, ids, q.suffix, keep)
            for ident in chosen:
                domain = text[offsets[ident] : offsets[ident + 1] - 1]
                suffix = domain[len(key) + 1 :]  # every domain of the key starts with it
                extra = suffix_costs.get(suffix)
                if extra is None:
                    extra = suffix_costs[suffix] = self._suffix_cost(ctx, q.suffix, suffix)
                cost = base + extra
                found = candidates.get(domain)
                if found is None or cost <= found.cost:  # else _add keeps what it has
                    typed = q.shown_suffix
                    why = f"{typed_key} → {key}" + (
                        f", .{typed} → .{suffix}" if suffix != typed else ""
                    )
                    rank = ident + 1 if mine else 0
                    self._add(ctx, domain, cost, "spelling", why, sub, rank, unsure=far)

    def _suffix_cost(self, ctx: _Context, typed: str, known: str, discount: float = 0.0) -> float:
        """The cost of ``known``'s suffix for a typed ``typed``, less ``discount`` (a name typed
        as-is that is known under another TLD: the TLD misremembered), never under 0.2."""
        o = self.options
        cost = suffix_change_cost(
            typed,
            known,
            is_public_suffix(typed),
            o.tld_swap_cost,
            o.tld_part_cost,
            o.assumed_tld_cost,
        )
        if known == ctx.country or known.endswith("." + ctx.country):
            cost -= 0.4
        return max(cost - discount, 0.2)

    def _sources(self) -> list[DomainDictionary]:
        return [self.dictionary, *self._user_dictionaries()]

    def _known(self, domain: str) -> bool:
        return bool(domain) and (domain in self._user or self.dictionary.id_of(domain) is not None)

    def _add(
        self, ctx, domain: str, cost: float, step: str, reason: str, sub=None, rank=0, unsure=False
    ) -> None:
        """Keep the cheapest way to each domain, and whether that way is ``unsure`` (two
        edits on a short name): a cheaper sure way to the same domain (``3lfit`` → 3lift,
        one swap) is not capped because a costlier reading (``elfit``) is two edits from
        it, whichever reading comes first; on a tie the sure way wins. ``rank`` 0 means
        look it up."""
        if domain == ctx.typed_domain and ctx.typed.host in (domain, "www." + domain):
            return
        found = ctx.candidates.get(domain)
        if found is None or cost < found.cost:
            rank = rank or self.dictionary.rank(domain)
            ctx.candidates[domain] = Candidate(
                domain, cost, step, reason, rank, sub=sub, unsure=unsure
            )
        elif cost == found.cost and not unsure:
            found.unsure = False

    def _rank_in(self, source: DomainDictionary, ident: int) -> int:
        """The popularity rank of a match (0: from the user's index, look it up)."""
        return ident + 1 if source is self.dictionary else 0

    # step 8: learning
    def _learned(self, ctx: _Context) -> None:
        for domain, counts in self.learning.corrections(ctx.typed_domain).items():
            if learned(self.options, counts):
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
    def _weight(self, cand: Candidate, corrections: dict) -> float:
        """A candidate's weight; ``corrections``: those learned for the typed domain."""
        user = self._user
        visits = user.get(cand.domain, 0.0) + user.get("www." + cand.domain, 0.0) if user else 0.0
        return candidate_weight(self.options, cand, visits, corrections.get(cand.domain, {}))

    def _null_weight(self, ctx: _Context) -> float:
        visits = self._user.get(ctx.typed_domain, 0.0) + self._user.get(ctx.typed.host, 0.0)
        rank = self.dictionary.rank(ctx.typed_domain) if ctx.typed_known else None
        return null_weight(self.options, ctx.typed_known, rank, visits)

    def _rank(self, ctx: _Context) -> list[Suggestion]:
        cands = list(ctx.candidates.values())
        corrections = self.learning.corrections(ctx.typed_domain)
        for cand in cands:
            cand.weight = self._weight(cand, corrections)
        total = sum(c.weight for c in cands) + self._null_weight(ctx)
        out = []
        ranked = sorted(cands, key=lambda c: -c.weight)[: self.options.limit * 2]
        close = close_call(self.options, [c.weight for c in ranked[:2]], _tld_siblings(ranked))
        for cand in ranked:
            score = cand.weight / total
            if cand.unsure or (ctx.domain_known and cand.domain != ctx.typed_domain):
                # the calibration rule, learned corrections included: a known
                # domain may just be down; a taken correction still ranks above retry
                score = min(score, self.options.confident - 0.05)
            elif close and score >= self.options.confident:
                # a close call (only the top one can pass the button): under it, still
                # ranked above its runner-up
                score = max(min(score, self.options.confident - 0.05), ranked[1].weight / total)
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
        self, ctx: _Context, queries: list[Query], out: list[Suggestion]
    ) -> list[Suggestion]:
        segmenter = self._segments()
        best = min(queries, key=lambda q: q.cost) if queries else None
        if best is None or not best.suffix:
            return out
        if not self.options.segment_min_length <= len(best.key) <= self.options.segment_max_length:
            return out
        repaired = segmenter.repair(best.key.replace("-", ""))
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

    def _lexicon(self) -> Lexicon:
        return self._segments().lexicon

    def _segments(self) -> Segmenter:
        if self._segmenter is None:
            self._segmenter = Segmenter(Lexicon.bundled(self._labels()))
        return self._segmenter

    def _connected_words(self, ctx: _Context) -> None:
        """Segments looked up on their own: ``terra+world.com`` names the words terra and
        world; when each is a word (or a known name) the joined and the hyphenated name
        are candidates even if no dictionary holds them, and a connector read as a dot
        (terra.world.com → terra.uworld.com) no longer wins by default."""
        if not any(c in ctx.typed.host for c in CONNECTORS):
            return
        key, suffix = split_host(CONNECTOR_RUN.sub("-", ascii_host(ctx.typed.host)))
        words = key.rpartition(".")[2].split("-")
        lexicon = self._lexicon()
        if not suffix or len(words) < 2 or not all(w in lexicon for w in words):
            return
        forms = [f"{glue.join(words)}.{suffix}" for glue in ("", "-")]
        if any(self._known(form) for form in forms):
            return  # the substitution step has it, at its own popularity
        why = f"the words {' + '.join(words)}"
        for form, cost in zip(
            forms, (SEGMENTS_JOINED_COST, SEGMENTS_JOINED_COST + 0.1), strict=True
        ):
            self._add(ctx, form, cost, "segments", why)

    def _labels(self) -> tuple[str, ...]:
        """The names of the most popular domains, split at hyphens: the issue's lexicon is
        "words from the dictionary's own labels plus a word-frequency list" (brands and
        names like ``zorbix`` are acceptable segments that no word list holds)."""
        dictionary = self.dictionary
        out: dict[str, None] = {}
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
        if req.error == "refused" and not typed.port:
            out += _other_scheme(typed)
        archived_score = 0.95 if (ctx.typed_known or req.error in PAGE_ERRORS) else 0.45
        for i, url in enumerate(req.archived[:3]):
            out.append(
                Suggestion(
                    url, archived_score - 0.01 * i, "archive", "your archived copy of this page"
                )
            )
        if ctx.typed_known and req.error in NETWORK_ERRORS:
            reason = RETRY_REASONS.get(req.error, RETRY_REASON)
            out.append(Suggestion(plain, 0.4, "retry", reason))
        if ctx.typed_known and req.error == "dns" and self._unknown_subdomain(ctx):
            out.append(_home_page(typed, ctx.typed_domain))
        if req.error in PAGE_ERRORS:
            out += self._nearest_paths(ctx)
        return out

    def _unknown_subdomain(self, ctx: _Context) -> bool:
        """The host is a subdomain (not ``www``) of a known site, and not itself known."""
        host = ascii_host(ctx.typed.host)
        if host in (ctx.typed_domain, "www." + ctx.typed_domain) or not ctx.typed_domain:
            return False
        return not self._known(host)

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


def _tld_siblings(ranked: list[Candidate]) -> bool:
    """Whether the top two candidates are one name under two TLDs, both a TLD swap of the
    typed name (``moegirl.co``: moegirl.org.cn or moegirl.icu): only popularity tells them
    apart."""
    if len(ranked) < 2 or ranked[0].step != "tld" or ranked[1].step != "tld":
        return False
    return split_host(ranked[0].domain)[0] == split_host(ranked[1].domain)[0]


def _home_page(typed: TypedURL, domain: str) -> Suggestion:
    """The known site's home page, for a subdomain of it that no name server knows: the
    subdomain may be new, retired or mistyped; the site is a place to look from. Below the
    retry (the user's network may be what failed), never a confident repair.

    >>> _home_page(read_typed("https://shop.example.com/cart"), "example.com").url
    'https://example.com/'
    """
    home = TypedURL(typed.scheme, domain, typed.port, "/")
    return Suggestion(home.with_host(domain), 0.3, "site", f"the home page of {domain}")


def _other_scheme(typed: TypedURL) -> list[Suggestion]:
    """A refused connection on the scheme's default port: the other scheme's port may
    answer. (On an explicit port the other scheme would knock on the same refused port:
    the caller does not ask.)

    >>> [s.url for s in _other_scheme(read_typed("http://example.com/a"))]
    ['https://example.com/a']
    """
    if typed.scheme == "http":
        why = "the site may only answer on https"
        return [Suggestion(typed.with_host(typed.host, "https"), 0.55, "scheme", why)]
    why = "the site may only answer on http"
    return [Suggestion(typed.with_host(typed.host, "http"), 0.3, "scheme", why)]


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
