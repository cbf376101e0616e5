"""Query parameters that change nothing on a page, learned from the archive.

URL normalization removes *default* query variables (a value that renders the same
whether it is there or not: ``display?id=&sort=ascending`` → ``display``) and
*arbitrary* ones (``display?id=123&fakefoo=fakebar`` → ``display?id=123``); seed:
url-normalization.txt. Which ones they are depends on the site, so they are learned
from the archive's URLs and checked against the stored pages, as DUST rules are:

1. **Evidence.** Two stored URLs that differ in ONE query parameter only form a pair:
   one has ``name=value`` and the other lacks it (a *default* pair), or has another
   value (a *value* pair).
2. **Validation by content.** The stored pages of each pair are compared (up to
   ``max_pairs``, spread over them) by the one "same page" judgement both URL learners
   share (engine/archive/same_page.py: word shingles AND line order, else fingerprints).
3. **Never on a guess.** A rule needs ``min_pairs`` compared pairs, and ONE pair that
   shows another page rejects it. ``name`` is dropped whatever its value when every
   pair of the parameter (default and value pairs, ``min_values`` values at least)
   shows the same page; else ``name=value`` is dropped as a default when every one of
   its default pairs does.
4. **Scope.** The site (registrable domain); a rule whose pairs all lie on one path
   applies to that path only.

>>> from engine.archive.same_page import SamePage
>>> urls = ["https://foo.org/d/?sort=up", "https://foo.org/d/", "https://foo.org/d/?id=1&sort=up",
...         "https://foo.org/d/?id=1", "https://foo.org/d/?sort=down"]
>>> page = {u: ("listing 1 " if "id=1" in u else "listing ") + ("z a" if "down" in u else "a z") for u in urls}
>>> judge = SamePage(lambda u: (page[u], ""))
>>> [(r.name, r.value, r.path) for r in learn_params(urls, judge)]
[('sort', 'up', '/d/')]
>>> apply_params("https://foo.org/d/?id=7&sort=up", learn_params(urls, judge))
'https://foo.org/d/?id=7'
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from engine.archive.dust import host_span, site_of
from engine.archive.same_page import SamePage, spread

Pair = tuple[str, str, str]  # (url, url, path)


@dataclass(frozen=True)
class ParamOptions:
    """Bars of the parameter learner (see the module doc)."""

    min_values: int = 2
    max_pairs: int = 64


@dataclass(frozen=True)
class ParamRule:
    """Drop ``name`` (with ``value``; any value when None) from URLs of ``site``
    (on ``path`` only, unless it is empty); ``pairs``: pairs compared, all the same page.

    >>> ParamRule("foo.org", "sort", "ascending").matches("sort=ascending", "/x/")
    True
    """

    site: str
    name: str
    value: str | None
    path: str = ""
    pairs: int = 0

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ParamRule:
        """Read a stored rule (unknown keys are ignored)."""
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    def matches(self, token: str, path: str) -> bool:
        name, value = name_value(token)
        if name != self.name or (self.path and self.path != path):
            return False
        return self.value is None or self.value == value


# ---------------------------------------------------------------- URL anatomy


def split_query(url: str) -> tuple[str, tuple[str, ...], str]:
    """(everything before the query, the query's parameters, the fragment with its '#').

    >>> split_query("https://e.org/a/?b=1&c#f")
    ('https://e.org/a/', ('b=1', 'c'), '#f')
    """
    head, mark, fragment = url.partition("#")
    base, _, query = head.partition("?")
    return base, tuple(t for t in query.split("&") if t), mark + fragment


def join_query(base: str, tokens: Iterable[str], fragment: str) -> str:
    """The inverse of :func:`split_query`; no '?' for an empty query.

    >>> join_query("https://e.org/a/", [], "")
    'https://e.org/a/'
    """
    query = "&".join(tokens)
    return f"{base}?{query}{fragment}" if query else base + fragment


def name_value(token: str) -> tuple[str, str]:
    """A query parameter's name and value (``""`` for ``id=`` and for ``id``).

    >>> name_value("sort=asc=1"), name_value("flag")
    (('sort', 'asc=1'), ('flag', ''))
    """
    name, _, value = token.partition("=")
    return name, value


def path_of(base: str) -> str:
    """The path of a URL without its query.

    >>> path_of("https://e.org:8080/a/b/")
    '/a/b/'
    """
    return base[host_span(base)[1] :] or "/"


# ---------------------------------------------------------------- application


def apply_params(url: str, rules: Iterable[ParamRule | dict]) -> str:
    """``url`` without the query parameters its site's rules drop (unchanged when none).

    >>> apply_params("https://foo.org/a/?id=&x=1", [{"site": "foo.org", "name": "id", "value": ""}])
    'https://foo.org/a/?x=1'
    """
    base, tokens, fragment = split_query(url)
    if not tokens:
        return url
    site = site_of(base)
    relevant = [r for r in map(_as_rule, rules) if r.site == site]
    if not relevant:
        return url
    path = path_of(base)
    kept = [t for t in tokens if not any(r.matches(t, path) for r in relevant)]
    return url if len(kept) == len(tokens) else join_query(base, kept, fragment)


def _as_rule(rule: ParamRule | dict) -> ParamRule:
    return rule if isinstance(rule, ParamRule) else ParamRule.from_dict(rule)


# ---------------------------------------------------------------- evidence


@dataclass
class Evidence:
    """The pairs of one parameter of one site: default pairs by value, and value pairs."""

    defaults: dict[str, list[Pair]] = field(default_factory=lambda: defaultdict(list))
    values: list[Pair] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # the values that some pair shows

    def all_pairs(self) -> list[Pair]:
        return [p for pairs in self.defaults.values() for p in pairs] + self.values

    def seen_values(self) -> set[str]:
        return set(self.defaults) | self.seen


def evidence(urls: Iterable[str]) -> dict[tuple[str, str], Evidence]:
    """(site, parameter name) -> the URL pairs that differ in that parameter only."""
    by_query = {split_query(url): url for url in dict.fromkeys(urls)}
    found: dict[tuple[str, str], Evidence] = defaultdict(Evidence)
    groups: dict[tuple, list[tuple[str, str]]] = defaultdict(list)
    for (base, tokens, fragment), url in by_query.items():
        site, path = site_of(base), path_of(base)
        for at, token in enumerate(tokens):
            name, value = name_value(token)
            rest = tokens[:at] + tokens[at + 1 :]
            without = by_query.get((base, rest, fragment))
            if without is not None:
                found[site, name].defaults[value].append((url, without, path))
            groups[base, rest, fragment, name].append((value, url))
    for (base, _, _, name), members in groups.items():
        _value_pairs(found[site_of(base), name], sorted(members), path_of(base))
    return dict(found)


def _value_pairs(out: Evidence, members: list[tuple[str, str]], path: str) -> None:
    """Neighbouring members with different values: every URL in at least one pair."""
    for (value_a, url_a), (value_b, url_b) in zip(members, members[1:], strict=False):
        if value_a != value_b:
            out.values.append((url_a, url_b, path))
            out.seen.update((value_a, value_b))


# ---------------------------------------------------------------- validation


def _holds(pairs: list[Pair], judge: SamePage, options: ParamOptions) -> int:
    """How many pairs showed the same page (up to ``max_pairs``, spread); 0 when one did not."""
    return judge.holds((a, b) for a, b, _ in spread(pairs, options.max_pairs))


def _scope(pairs: list[Pair]) -> str:
    paths = {path for _, _, path in pairs}
    return paths.pop() if len(paths) == 1 else ""


# ---------------------------------------------------------------- learning


def learn_params(
    urls: Iterable[str], judge: SamePage, options: ParamOptions | None = None
) -> list[ParamRule]:
    """The validated parameter rules for a URL list (see the module doc), by site and name;
    ``judge`` tells whether two URLs' stored pages are the same page."""
    options = options or ParamOptions()
    rules: list[ParamRule] = []
    for (site, name), found in sorted(evidence(urls).items()):
        rules += _rules_of(site, name, found, judge, options)
    return rules


def _rules_of(site: str, name: str, found: Evidence, judge: SamePage, options) -> list[ParamRule]:
    if len(found.seen_values()) >= options.min_values:
        pairs = found.all_pairs()
        same = _holds(pairs, judge, options)
        if same:
            return [ParamRule(site, name, None, _scope(pairs), same)]
    rules = []
    for value, pairs in sorted(found.defaults.items()):
        same = _holds(pairs, judge, options)
        if same:
            rules.append(ParamRule(site, name, value, _scope(pairs), same))
    return rules
