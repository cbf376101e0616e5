"""Full-text queries: what a person types, as an SQLite FTS5 expression, and the snippet.

The query language: words (all must occur), ``"exact words"`` (a phrase), ``arch*``
(a prefix), ``-word`` / ``-"a phrase"`` (must not occur). Words are matched as the
index's tokenizer (FTS5 ``unicode61``: case and diacritics folded) splits them.
Chinese and Japanese have no spaces, so the index holds each Han/Kana run as
overlapping character bigrams (engine/html/tokens.py), and a CJK run in a query
becomes the phrase of its bigrams (one character: a prefix of the bigrams).

>>> to_fts(parse('river "lower meadow" flood* -drought'))
'"river" AND "lower meadow" AND "flood" * NOT ("drought")'
>>> index_text("東京都の天気予報です")
'東京 京都 都の の天 天気 気予 予報 報で です'
>>> to_fts(parse("天気"))
'"天気"'
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

from engine.errors import InvalidInput
from engine.html.tokens import bigrams

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(rf"[^\W_{_CJK}]+|[{_CJK}]+", re.UNICODE)
MAX_TERMS = 32


@dataclass(frozen=True)
class Term:
    """One part of a query: its tokens, whether it is a phrase, a prefix, excluded."""

    tokens: tuple[str, ...]
    prefix: bool = False
    negative: bool = False


@dataclass(frozen=True)
class Query:
    terms: tuple[Term, ...]

    @property
    def positives(self) -> list[Term]:
        return [t for t in self.terms if not t.negative]


def index_text(text: str) -> str:
    """Text as the index stores it: every CJK run replaced by its bigrams."""
    return _CJK_RUN.sub(lambda m: " " + " ".join(bigrams(m.group())) + " ", text).strip()


def _tokens(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for token in _WORD.findall(text.lower()):
        out.extend(bigrams(token) if _CJK_RUN.fullmatch(token) else [token])
    return tuple(out)


def _pieces(query: str) -> list[tuple[str, bool, bool]]:
    """(text, quoted, negative) parts; InvalidInput for an unbalanced quote."""
    if query.count('"') % 2:
        raise InvalidInput(f'unbalanced quotes in the search {query!r}: close every "')
    pieces = []
    for m in re.finditer(r'(-?)"([^"]*)"|(\S+)', query):
        if m.group(3) is not None:
            word = m.group(3)
            negative = word.startswith("-") and len(word) > 1
            pieces.append((word[1:] if negative else word, False, negative))
        else:
            pieces.append((m.group(2), True, bool(m.group(1))))
    return pieces


def parse(query: str) -> Query:
    """A typed query as terms; InvalidInput when nothing in it can be searched for.

    >>> parse('"open quote')
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: unbalanced quotes in the search '"open quote': close every "
    """
    terms = []
    for text, quoted, negative in _pieces(query):
        prefix = not quoted and text.endswith("*")
        tokens = _tokens(text)
        if not tokens:
            continue
        single_cjk = len(tokens) == 1 and len(tokens[0]) == 1 and _CJK_RUN.fullmatch(tokens[0])
        terms.append(Term(tokens, prefix or bool(single_cjk), negative))
    if not any(not t.negative for t in terms):
        raise InvalidInput(f"nothing to search for in {query!r}: give at least one word")
    if len(terms) > MAX_TERMS:
        raise InvalidInput(f"a search takes at most {MAX_TERMS} words and phrases")
    return Query(tuple(terms))


def _fts_term(term: Term) -> str:
    return f'"{" ".join(term.tokens)}"' + (" *" if term.prefix else "")


def to_fts(query: Query) -> str:
    """The FTS5 MATCH expression (every part quoted: no user text is FTS5 syntax)."""
    positive = " AND ".join(_fts_term(t) for t in query.positives)
    negative = [_fts_term(t) for t in query.terms if t.negative]
    return f"{positive} NOT ({' OR '.join(negative)})" if negative else positive


# -- snippets ----------------------------------------------------------------------------------


def _pattern(term: Term) -> str:
    """Words in a row, with anything but word characters between them."""
    words = r"\W+".join(r"\b" + re.escape(token) for token in term.tokens)
    return words + (r"\w*" if term.prefix else r"\b")


def _cjk_phrase(term: Term) -> str:
    """A CJK phrase's bigrams overlap: match the run they spell, not the bigrams in a row."""
    run = term.tokens[0] + "".join(t[-1] for t in term.tokens[1:])
    return re.escape(run)


def _term_rx(term: Term) -> re.Pattern:

    cjk = all(_CJK_RUN.fullmatch(t) for t in term.tokens)
    return re.compile(_fold(_cjk_phrase(term) if cjk else _pattern(term)), re.IGNORECASE)


def holds(text: str, query: Query) -> bool:
    """Whether ``text`` holds every word or phrase of ``query`` and none it excludes (the
    snippet's reading of a match: case and accents folded, words in a row for a phrase).

    >>> holds("It turned forty-one years old.", parse("forty years"))
    True
    >>> holds("It turned forty-one years old.", parse("forty -old"))
    False
    """
    folded = _fold(" ".join(text.split()))
    return all(bool(_term_rx(t).search(folded)) != t.negative for t in query.terms)


def highlight(text: str, query: Query, width: int = 200) -> tuple[str, list[list[int]]]:
    """A window of ``text`` around the first match and the [start, end) of every match in it.

    >>> highlight("The river rose. The lower meadow flooded.", parse("meadow flood*"), 30)
    ('… lower meadow flooded.', [[8, 14], [15, 22]])
    """
    pats = []
    for term in query.positives:
        cjk = all(_CJK_RUN.fullmatch(t) for t in term.tokens)
        pats.append(_cjk_phrase(term) if cjk else _pattern(term))
    rx = re.compile(_fold("|".join(f"(?:{p})" for p in pats)), re.IGNORECASE)
    text = " ".join(text.split())
    first = rx.search(_fold(text))
    start = max(0, (first.start() if first else 0) - width // 4)
    end = min(len(text), start + width)
    lead, tail = ("…" if start else ""), ("…" if end < len(text) else "")
    window = lead + text[start:end] + tail
    marks = [[m.start(), m.end()] for m in rx.finditer(_fold(window)) if m.end() > m.start()]
    return window, marks


def _fold(text: str) -> str:
    """Each character without its accents, one for one (so match offsets stay valid), as
    the index folds them: ``vollig`` finds and marks ``völlig``.

    >>> _fold("Völlig Ça")
    'Vollig Ca'
    """
    return "".join(unicodedata.normalize("NFD", c)[0] for c in text)


def marked_html(window: str, marks: list[list[int]]) -> str:
    """The snippet as safe HTML with ``<mark>`` around each match.

    >>> marked_html("a <b> c", [[2, 5]])
    'a <mark>&lt;b&gt;</mark> c'
    """
    out, at = [], 0
    for start, end in marks:
        out += [html.escape(window[at:start]), "<mark>", html.escape(window[start:end]), "</mark>"]
        at = end
    out.append(html.escape(window[at:]))
    return "".join(out)
