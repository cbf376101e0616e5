"""Tokenization for titles, bodies and keywords: words, and bigrams for CJK.

Space-separated scripts are split into lower-cased word tokens (letters and
digits, inner apostrophes and hyphens dropped). Han, Hiragana and Katakana
runs have no spaces, so each run becomes overlapping character bigrams (a run
of one character stays one token), the usual segmenter-free indexing of CJK
(as in Lucene's CJKBigramFilter).

>>> tokenize("Die GEMA dreht völlig am Zeiger!")
['die', 'gema', 'dreht', 'völlig', 'am', 'zeiger']
>>> tokenize("网页信息 test")
['网页', '页信', '信息', 'test']
"""

from __future__ import annotations

import re
from collections import Counter

# Han (incl. ext. A and compatibility), Hiragana, Katakana, halfwidth Katakana.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_CJK_RUN = re.compile(rf"^[{_CJK}]+$")
_HAS_CJK = re.compile(rf"[{_CJK}]")


def is_cjk(token: str) -> bool:
    """True for a token made of CJK characters.

    >>> is_cjk("信息"), is_cjk("info")
    (True, False)
    """
    return bool(_CJK_RUN.match(token))


def bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of a CJK run.

    >>> bigrams("网页信息")
    ['网页', '页信', '信息']
    """
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens, CJK runs as bigrams.

    >>> tokenize("It's 2012: Ünïcode-Text")
    ['it', 's', '2012', 'ünïcode', 'text']
    """
    tokens = _TOKEN.findall(text.lower())
    if not _HAS_CJK.search(text):
        return tokens
    out: list[str] = []
    for token in tokens:
        if token[0] >= "\u3040" and is_cjk(token):
            out.extend(bigrams(token))
        else:
            out.append(token)
    return out


def count_tokens(text: str) -> Counter:
    """Token counts of a text.

    >>> count_tokens("a b a")["a"]
    2
    """
    return Counter(tokenize(text))


def text_length(text: str) -> int:
    """Length of a text in characters that carry content (no whitespace).

    >>> text_length(" a  b ")
    2
    """
    return len(text) - text.count(" ") - text.count("\n") - text.count("\t")
