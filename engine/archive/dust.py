"""DUST rules: different URLs with similar text, learned from the archive's URL list.

After DustBuster (Bar-Yossef, Keidar & Schonfeld, "Do not crawl in the DUST",
WWW 2007; seed: url-normalization.txt, "Normalization based on URL lists"):

1. **Candidates.** Every URL of a site is cut at token boundaries (between two
   characters unless both are letters or digits). For each short substring α
   between two boundaries, the *envelope* (prefix, suffix) around it goes into a
   bucket. Two URLs in one bucket differ only by α ↔ β: that pair *supports*
   the substitution rule α → β. Huge buckets are skipped, as in DustBuster.
2. **Validation.** For the best-supported rules, up to ``checks_per_rule`` URL
   pairs the rule explains (spread over them) are compared by *content*, with the
   "same page" judgement the parameter learner uses (engine/archive/same_page.py:
   word shingles AND line order, else fingerprints). A rule is kept when at least
   ``min_pairs`` of them show the same page and NONE shows another page (a
   ``/comments`` → ```` rule whose pair shows more paragraphs would merge two
   pages: never on a guess), and it explains enough pairs that no better rule
   already explains.
3. **Application.** :func:`apply_rules` rewrites a URL with its site's rules,
   always toward the shorter form (``story?id=X`` → ``story_X``, ``m.host`` →
   ``host``, ``…/x.amp`` → ``…/x``, ``…/amp/`` → ``…/``).

Rules are plain dicts (:meth:`DustRule.to_dict`), stored in the archive's state.

>>> urls = [f"https://foo.org/story?id={n}" for n in "abc"] + [f"https://foo.org/story_{n}" for n in "abc"]
>>> judge = SamePage(lambda url: (f"story {url[-1]} told in full", ""))
>>> [(r.find, r.replace) for r in learn_rules(urls, judge)]
[('story?id=', 'story_')]
>>> apply_rules("https://foo.org/story/?id=q", learn_rules(urls, judge))  # an archive key in, one out
'https://foo.org/story_q/'
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from engine.archive.same_page import SamePage, spread
from engine.errors import InvalidURL, TooLarge
from engine.urls.normalize import profile_key
from engine.urls.sites import registrable_domain


@dataclass(frozen=True)
class DustOptions:
    """Knobs of the learner (DustBuster's, scaled to a personal archive).

    ``max_substring`` / ``max_tokens``: the longest α or β considered;
    ``max_bucket``: envelopes shared by more URLs are ignored;
    ``min_support``: URL pairs a rule must explain (beyond better rules);
    ``max_candidates``: rules validated at most; ``checks_per_rule``: pairs
    compared per rule (all must show the same page, see :class:`SamePage`);
    ``max_urls_per_site``: larger sites are sampled.
    """

    max_substring: int = 16
    max_tokens: int = 4
    max_bucket: int = 12
    min_support: int = 2
    max_candidates: int = 200
    checks_per_rule: int = 16
    max_urls_per_site: int = 5000


DEFAULT_DUST = DustOptions()


@dataclass(frozen=True)
class DustRule:
    """Replace ``find`` by ``replace`` in the ``part`` ("host" or "rest") of URLs of ``site``.

    >>> DustRule("foo.org", "rest", "?id=", "_", support=3).to_dict()["find"]
    '?id='
    """

    site: str
    part: str
    find: str
    replace: str
    support: int = 0
    checked: int = 0
    valid: int = 0

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> DustRule:
        """Read a stored rule (unknown keys are ignored, so old stores stay readable)."""
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


@dataclass
class _Candidate:
    rule: DustRule
    pairs: set[tuple[str, str]] = field(default_factory=set)

    @property
    def specificity(self) -> int:
        return len(self.rule.find) + len(self.rule.replace)


# ---------------------------------------------------------------- URL anatomy

_TRAILING_SLASH = re.compile(r"(?<=[^/])/(?=$|[?#])")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


def host_span(url: str) -> tuple[int, int]:
    """Start and end of the host (with port) in a URL; (0, 0) when there is no authority.

    >>> url = "https://m.example.com:8080/a?b"
    >>> url[slice(*host_span(url))]
    'm.example.com:8080'
    """
    scheme = _SCHEME.match(url)
    if not scheme:
        return 0, 0
    start = scheme.end()
    end = len(url)
    for stop in "/?#":
        found = url.find(stop, start)
        if found != -1:
            end = min(end, found)
    return start, end


def site_of_host(host: str) -> str:
    """The registrable domain of a host (``m.bbc.co.uk`` → ``bbc.co.uk``); the host if none.

    >>> site_of_host("m.news.example.co.uk:8080")
    'example.co.uk'
    """
    return registrable_domain(host)


def site_of(url: str) -> str:
    """The site a URL belongs to (rules are learned and applied per site).

    >>> site_of("https://amp.example.com/x")
    'example.com'
    """
    start, end = host_span(url)
    return site_of_host(url[start:end].lower())


def learning_form(url: str) -> str:
    """The URL as the learner sees it: without the trailing slash the archive key adds.

    >>> learning_form("https://foo.org/story/?id=1"), learning_form("https://foo.org/")
    ('https://foo.org/story?id=1', 'https://foo.org/')
    """
    start, end = host_span(url)
    return url[:end] + _TRAILING_SLASH.sub("", url[end:], count=1)


def boundaries(text: str) -> list[int]:
    """Token boundaries: positions not between two letters/digits.

    >>> boundaries("ab?id=1")
    [0, 2, 3, 5, 6, 7]
    """
    alnum = [ch.isalnum() for ch in text]
    return [0] + [i for i in range(1, len(text)) if not (alnum[i - 1] and alnum[i])] + [len(text)]


# ---------------------------------------------------------------- learning


def candidate_rules(urls: Iterable[str], options: DustOptions | None = None) -> list[_Candidate]:
    """Step 1: substitution rules supported by URL pairs of one site, best supported first."""
    options = options or DEFAULT_DUST
    by_site: dict[str, list[str]] = defaultdict(list)
    for url in dict.fromkeys(urls):
        by_site[site_of(url)].append(url)
    found: dict[DustRule, _Candidate] = {}
    for site, members in by_site.items():
        if len(members) >= 2:
            _site_candidates(site, members[: options.max_urls_per_site], options, found)
    ranked = [c for c in found.values() if len(c.pairs) >= options.min_support]
    for candidate in ranked:
        candidate.rule = _with_support(candidate.rule, len(candidate.pairs))
    ranked.sort(key=lambda c: (-len(c.pairs), -c.specificity, c.rule.find, c.rule.replace))
    return ranked


def _with_support(rule: DustRule, support: int) -> DustRule:
    return DustRule(rule.site, rule.part, rule.find, rule.replace, support)


def _site_candidates(
    site: str, urls: list[str], options: DustOptions, found: dict[DustRule, _Candidate]
) -> None:
    buckets: dict[int, list[tuple[str, str, str, str]]] = defaultdict(list)
    for url in urls:
        form = learning_form(url)
        for envelope, alpha, part in _envelopes(form, options):
            buckets[envelope].append((alpha, part, form, url))
    for bucket in buckets.values():
        if 2 <= len(bucket) <= options.max_bucket:
            _pair_up(site, bucket, found)


def _envelopes(form: str, options: DustOptions) -> Iterable[tuple[int, str, str]]:
    """(hash of the envelope, α, part) for every short boundary-aligned substring α."""
    host_start, host_end = host_span(form)
    cuts = boundaries(form)
    for a, i in enumerate(cuts):
        if i < host_start:
            continue
        for j in cuts[a : a + options.max_tokens + 1]:
            if j - i > options.max_substring:
                break
            part = "host" if j <= host_end else "rest" if i >= host_end else None
            if part:
                yield hash((form[:i], form[j:], part)), form[i:j], part


def _pair_up(site: str, bucket: list, found: dict[DustRule, _Candidate]) -> None:
    for n, (alpha, part, form_a, url_a) in enumerate(bucket):
        for beta, _, form_b, url_b in bucket[n + 1 :]:
            if alpha == beta or form_a == form_b or (alpha.isdigit() and beta.isdigit()):
                continue
            if is_parameter_edit(alpha, beta):
                continue  # engine/archive/param_rules.py learns these, every pair compared
            rule, pair = _directed(site, part, alpha, beta, url_a, url_b)
            found.setdefault(rule, _Candidate(rule)).pairs.add(pair)


_PARAMETER = re.compile(r"[?&][^?&=#]+=[^?&#]*|[^?&=#]+=[^?&#]*&")


def is_parameter_edit(alpha: str, beta: str) -> bool:
    """True when one side is a whole query parameter and the other is empty.

    >>> is_parameter_edit("&sort=desc", ""), is_parameter_edit("?id=", "_")
    (True, False)
    """
    return (not beta and bool(_PARAMETER.fullmatch(alpha))) or (
        not alpha and bool(_PARAMETER.fullmatch(beta))
    )


def _directed(site, part, alpha, beta, url_a, url_b) -> tuple[DustRule, tuple[str, str]]:
    """Rewrite toward the shorter form (ties: the smaller string): canonical forms stay stable."""
    if (len(beta), beta) > (len(alpha), alpha):
        alpha, beta, url_a, url_b = beta, alpha, url_b, url_a
    return DustRule(site, part, alpha, beta), (url_a, url_b)


def learn_rules(
    urls: Iterable[str], judge: SamePage, options: DustOptions | None = None
) -> list[DustRule]:
    """Steps 1 and 2: the validated rules for a URL list; ``judge`` tells whether two
    URLs' stored pages are the same page (None: it cannot tell, no stored content)."""
    options = options or DEFAULT_DUST
    kept: list[DustRule] = []
    explained: set[tuple[str, str]] = set()
    for candidate in candidate_rules(urls, options)[: options.max_candidates]:
        fresh = candidate.pairs - explained
        if len(fresh) < options.min_support:
            continue
        rule = _validate(candidate, sorted(fresh), judge, options)
        if rule is not None:
            kept.append(rule)
            explained |= candidate.pairs
    return kept


def _validate(
    candidate: _Candidate, pairs: list[tuple[str, str]], judge: SamePage, options: DustOptions
) -> DustRule | None:
    """The rule with its figures when its sampled pairs all show the same page, else None."""
    sample = spread(pairs, options.checks_per_rule)
    same = judge.holds(sample)
    if not same:
        return None
    rule = candidate.rule
    return DustRule(rule.site, rule.part, rule.find, rule.replace, len(pairs), same, same)


# ---------------------------------------------------------------- application


def apply_rules(url: str, rules: Iterable[DustRule | dict], profile: str = "archive") -> str:
    """The canonical form of ``url`` under its site's rules (unchanged when none applies).

    The result is a key again (normalized with ``profile``) when a rule applied.

    >>> apply_rules("https://m.example.com/a", [{"site": "example.com", "part": "host",
    ...     "find": "m.", "replace": ""}])
    'https://example.com/a/'
    """
    site = site_of(url)
    relevant = [r for r in map(_as_rule, rules) if r.site == site]
    if not relevant:
        return url
    form = learning_form(url)
    rewritten = form
    for rule in relevant:
        rewritten = substitute(rewritten, rule)
    if rewritten == form:
        return url
    return _as_key(rewritten, profile)


def _as_rule(rule: DustRule | dict) -> DustRule:
    return rule if isinstance(rule, DustRule) else DustRule.from_dict(rule)


def substitute(form: str, rule: DustRule) -> str:
    """Replace every boundary-aligned ``rule.find`` inside the rule's part of the URL.

    >>> substitute("https://x.org/a.amp", DustRule("x.org", "rest", ".amp", ""))
    'https://x.org/a'
    >>> substitute("https://x.org/camp", DustRule("x.org", "rest", "amp", ""))
    'https://x.org/camp'
    """
    host_start, host_end = host_span(form)
    lo, hi = (host_start, host_end) if rule.part == "host" else (host_end, len(form))
    if not rule.find:
        return form  # insertions are never canonical: rules point to the shorter form
    cuts = set(boundaries(form))
    out, pos = [], lo
    at = form.find(rule.find, lo, hi)
    while at != -1:
        end = at + len(rule.find)
        if at in cuts and end in cuts:
            out.append(form[pos:at] + rule.replace)
            pos = end
            at = form.find(rule.find, end, hi)
        else:
            at = form.find(rule.find, at + 1, hi)
    return form[:lo] + "".join(out) + form[pos:] if out else form


def _as_key(url: str, profile: str) -> str:

    try:
        return profile_key(url, profile)
    except (InvalidURL, TooLarge):  # the rewrite is no URL, or over the normalizer's cap
        return url


# ---------------------------------------------------------------- the archive's content


class StoredContent:
    """Content of the archive's URLs, from their newest stored versions (cached).

    ``newest(url)`` names the version that holds a URL's content (None: none stored);
    engine/archive/keys.py passes the newest version of each profile key.
    """

    def __init__(self, store, newest: Callable[[str], str | None]) -> None:
        self.store = store
        self.newest = newest
        self._cache: dict[str, tuple[str, str]] = {}

    def content(self, key: str) -> tuple[str, str]:
        """(main text, fingerprint) of a URL's newest stored version; empty when none."""
        if key not in self._cache:
            reg_id = self.newest(key)
            self._cache[key] = self._load(reg_id) if reg_id else ("", "")
        return self._cache[key]

    def _load(self, reg_id: str) -> tuple[str, str]:
        return self._blob_text("extracts", reg_id, "text"), self._blob_text(
            "fingerprints", reg_id, "fp"
        )

    def _blob_text(self, table: str, reg_id: str, field_name: str) -> str:
        row = self.store.row(table, reg_id) or {}
        digest = row.get(field_name)
        return self.store.get_blob(digest).decode("utf-8", "replace") if digest else ""
