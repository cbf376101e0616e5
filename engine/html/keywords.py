"""Step 7: keywords with weights, and the stop words they skip, per language.

Two modes:

* ``"body"`` (default): terms chosen so that they represent the *whole* body.
  The body is cut into ``sections`` equal runs of tokens and the best terms
  (by damped frequency, title words boosted) are taken round-robin from each
  run, so a teaser or the first paragraph alone can only match a fraction.
* ``"seed"``: the page-detection method's method, title words and terms of the summary only.
  Kept for comparison (bench_liveness.py shows why it is not the default).

Stop words come from ``engine/data/stopwords/<lang>.txt``; the language is the
one whose list covers most tokens of the text. CJK bigrams touching a
one-character stop word (的, 了, 是 …) are dropped too.

>>> [w for w, _ in keywords("Katzen jagen Mäuse. Katzen schlafen viel.", "Katzen", KeywordOptions(limit=2))]
['katzen', 'schlafen']
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engine.html.tokens import is_cjk, tokenize

LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "zh")


@dataclass
class KeywordOptions:
    """How many keywords, from where, and how the title is boosted.

    >>> KeywordOptions().mode
    'body'
    """

    mode: str = "body"  # "body" | "seed"
    limit: int = 30
    sections: int = 4
    title_boost: float = 2.0
    min_length: int = 3
    # Terms that also occur in the page's template (text outside the body: menus, sidebars,
    # footers) say little about the article; their score is multiplied by this.
    template_factor: float = 0.0
    # ... unless the template holds a copy of the body: when at least this share of the body's
    # terms occur outside it (a quoted first post, a markdown copy in a <pre>, a second
    # rendering for small screens), the shared terms are the page's own and are kept.
    template_copy: float = 0.9


@cache
def stopwords(lang: str) -> frozenset[str]:
    """The stop words of one language (bundled data).

    >>> "und" in stopwords("de")
    True
    """
    path = resources.files("engine") / "data" / "stopwords" / f"{lang}.txt"
    return frozenset(w for w in path.read_text("utf-8").split() if w)


def detect_language(tokens: list[str]) -> str:
    """The language whose stop words cover most of ``tokens``.

    >>> detect_language("the cat and the hat".split())
    'en'
    """
    sample = tokens[:2000]
    wide = [t for t in sample if t[0] >= "\u3040"]  # only these can be CJK
    if wide and sum(1 for t in wide if is_cjk(t)) * 2 > len(sample):
        return "zh"
    hits = dict.fromkeys(LANGUAGES, 0)
    table = _language_table()
    for token, n in Counter(sample).items():
        for lang in table.get(token, ()):
            hits[lang] += n
    return max(hits, key=hits.__getitem__) if any(hits.values()) else "en"


@cache
def _language_table() -> dict[str, tuple[str, ...]]:
    """stop word → the languages listing it (one lookup per token instead of eight)."""
    table: dict[str, tuple[str, ...]] = {}
    for lang in LANGUAGES:
        for word in stopwords(lang):
            table[word] = table.get(word, ()) + (lang,)
    return table


@cache
def _stop_chars() -> frozenset[str]:
    return frozenset(w for w in stopwords("zh") if len(w) == 1)


def is_term(token: str, stop: frozenset[str], min_length: int = 3) -> bool:
    """True for a token worth keeping as a keyword.

    >>> is_term("the", stopwords("en")), is_term("2012", frozenset()), is_term("网页", frozenset())
    (False, False, True)
    """
    if token in stop or token.isdigit():
        return False
    if token[0] >= "\u3040" and is_cjk(
        token
    ):  # a bigram of two Hiragana is almost always grammar (の, たり, ます…)
        kana_only = all("\u3040" <= c <= "\u309f" for c in token)
        return len(token) == 2 and not kana_only and not (_stop_chars() & set(token))
    return len(token) >= min_length


def distinct_terms(tokens: list[str], stop: frozenset[str], min_length: int = 3) -> set[str]:
    """The distinct tokens that are terms (:func:`is_term`), each checked once.

    >>> sorted(distinct_terms(["the", "cat", "cat", "2012", "网页"], frozenset({"the"})))
    ['cat', '网页']
    """
    return {
        t
        for t in set(tokens).difference(stop)
        if (
            is_term(t, stop, min_length)
            if t[0] >= "\u3040"
            else len(t) >= min_length and not t.isdigit()
        )
    }


def terms(text: str, stop: frozenset[str], min_length: int = 3) -> list[str]:
    """The keyword-worthy tokens of a text, in order.

    >>> terms("The cat sat on the mat", stopwords("en"))
    ['cat', 'sat', 'mat']
    """
    return [t for t in tokenize(text) if is_term(t, stop, min_length)]


def _scores(tokens: list[str], title: set[str], boost: float) -> dict[str, float]:
    counts = Counter(tokens)
    return {
        word: (1.0 + math.log(n)) * (boost if word in title else 1.0) for word, n in counts.items()
    }


def _round_robin(ranked: list[list[str]], limit: int) -> list[str]:
    chosen: dict[str, None] = {}
    for depth in range(max((len(r) for r in ranked), default=0)):
        for words in ranked:
            if depth < len(words):
                chosen.setdefault(words[depth])
            if len(chosen) >= limit:
                return list(chosen)
    return list(chosen)


def _normalize(words: list[str], scores: dict[str, float]) -> list[tuple[str, float]]:
    total = sum(scores[w] for w in words) or 1.0
    return [(w, round(scores[w] / total, 6)) for w in words]


def body_keywords(
    body: str,
    title: str,
    options: KeywordOptions,
    template: str = "",
    language: str = "",
    tokens: list[str] | None = None,
) -> list[tuple[str, float]]:
    """Terms spread over the whole body, weighted by damped frequency.

    >>> [w for w, _ in body_keywords("alpha beta gamma delta", "", KeywordOptions(limit=2, sections=2))]
    ['alpha', 'gamma']
    >>> [w for w, _ in body_keywords("alpha beta", "", KeywordOptions(limit=1), template="alpha")]
    ['beta']
    >>> [w for w, _ in body_keywords("alpha beta", "", KeywordOptions(), template="alpha beta")]
    ['alpha', 'beta']
    """
    tokens = tokenize(body) if tokens is None else tokens
    stop = stopwords(language or detect_language(tokens))
    good = distinct_terms(tokens, stop, options.min_length)
    tokens = [t for t in tokens if t in good]
    title_words = set(terms(title, stop, options.min_length))
    scores = _scores(tokens, title_words, options.title_boost)
    shared = set(tokenize(template)) & scores.keys()  # the keys are terms already
    if len(shared) < options.template_copy * len(scores):
        for word in shared:
            scores[word] *= options.template_factor
    if options.template_factor == 0.0:
        tokens = [t for t in tokens if scores[t] > 0]
    size = max(1, math.ceil(len(tokens) / max(1, options.sections)))
    ranked = []
    for start in range(0, len(tokens), size):
        part = dict.fromkeys(tokens[start : start + size])  # stable: ties keep page order
        ranked.append(sorted(part, key=scores.__getitem__, reverse=True)[: options.limit])
    return _normalize(_round_robin(ranked, options.limit), scores)


def seed_keywords(summary: str, title: str, options: KeywordOptions) -> list[tuple[str, float]]:
    """The page-detection method's keywords: title words found in the summary, then summary terms.

    >>> [w for w, _ in seed_keywords("cats chase mice; cats nap", "Cats", KeywordOptions(limit=2))]
    ['cats', 'chase']
    """
    stop = stopwords(detect_language(tokenize(summary)))
    tokens = terms(summary, stop, options.min_length)
    title_words = set(terms(title, stop, options.min_length))
    scores = _scores(tokens, title_words, options.title_boost)
    ranked = sorted(dict.fromkeys(tokens), key=lambda w: -scores[w])
    return _normalize(ranked[: options.limit], scores)


def keywords(
    body: str,
    title: str,
    options: KeywordOptions | None = None,
    summary: str = "",
    template: str = "",
    language: str = "",
    tokens: list[str] | None = None,
) -> list[tuple[str, float]]:
    """Keywords of a page in the configured mode, weights summing to 1.

    ``template`` is the page's text outside the body (see KeywordOptions.template_factor);
    ``tokens`` are the body's tokens when the caller has them (saves a tokenization).

    >>> round(sum(w for _, w in keywords("one two three", "")), 3)
    1.0
    """
    options = options or KeywordOptions()
    if options.mode == "seed":
        return seed_keywords(summary or body, title, options)
    return body_keywords(body, title, options, template, language, tokens)
