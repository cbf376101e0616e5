"""How a site is named, and whether a text names it: the one place for the extractor's title
rule (a title's segments that only name the site go) and liveness's rules (a headline beside
the site's name; a stored text that never names its site).

* :func:`host_labels`: the labels a page's host names its site by (before the public suffix,
  no "www", no hyphens: :func:`engine.urls.sites.name_labels`), for a page archived in the
  Wayback Machine those of the page it archived;
* :func:`site_words`: the words of ``og:site_name`` and of every label of the host as the URL
  writes it (the extractor's reading; its outputs on the corpora depend on it);
* :func:`names_site`: a title part that holds a label or spells it with its words' starts;
* :func:`spells`: a text whose words, up to four in a row, spell a label.

>>> host_labels("https://web.archive.org/web/2016/http://www.wall-street-oasis.co.uk/x")
('wallstreetoasis',)
>>> sorted(site_words("", "https://www.gnaddrig.de/x"))
['de', 'gnaddrig', 'www']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from urllib.parse import urlsplit

from engine.html.tokens import tokenize
from engine.urls.sites import name_labels
from engine.urls.substitution import fold

# A Wayback Machine address before the archived page's own (``https://web.archive.org/web/<ts>/``).
WAYBACK = re.compile(r"^(?:https?:)?//web\.archive\.org/web/[^/]+/", re.I)
# The host of a URL as the extractor has always read it: up to a ':', '/', '?' or '#'.
_HOST = re.compile(r"^[a-z][a-z0-9+.-]*://([^/:?#]*).*$", re.I | re.S)


def host_labels(url: str) -> tuple[str, ...]:
    """The labels the page's host names its site by; none for no URL."""
    return name_labels(urlsplit(WAYBACK.sub("", url)).hostname or "") if url else ()


def site_words(site_name: str, url: str | None) -> set[str]:
    """Words naming the site: those of ``site_name`` (``og:site_name``) and of the URL's host,
    every label as written ("www" and the suffix too).

    >>> sorted(site_words("Süddeutsche Zeitung", "https://www.sueddeutsche.de/x"))
    ['de', 'sueddeutsche', 'süddeutsche', 'www', 'zeitung']
    """
    names = set(tokenize(site_name))
    if url:
        names.update(tokenize(_HOST.sub(r"\1", url)))
    return names


def names_site(part: str, labels: Iterable[str]) -> bool:
    """Whether a title part names the site: it holds one of its host's labels of 4+ letters,
    or spells one with the starts of at least half its words, in order (an acronym, a
    shortened name).

    >>> names_site("Wall Street Oasis", ["wallstreetoasis"]), names_site("Daily Lodging Report", ["dlr"])
    (True, True)
    >>> names_site("Conejo Valley Adult Education", ["conejoadulted"]), names_site("Go Vote!", ["shoemoney"])
    (True, False)
    """
    letters = folded(part)
    words = tuple(w for w in map(folded, part.split()) if w)
    return any(
        (len(label) >= 4 and label in letters) or 2 * spelled(label, words) >= len(words) > 0
        for label in labels
    )


def spells(text: str, label: str) -> bool:
    """Whether ``label`` is one of the text's words, or up to four of its words in a row
    written together ("The Atlantic" for theatlantic), accents folded as hosts spell them.

    >>> spells("an editor at The Atlantic", "theatlantic"), spells("a shelf", "ikea")
    (True, False)
    """
    words = re.findall(r"[a-z0-9]+", fold(text.lower()))
    return any(
        "".join(words[at : at + size]) == label
        for at in range(len(words))
        for size in range(1, 5)
        if words[at].startswith(label[:1])
    )


def folded(text: str) -> str:
    """Lower-case ASCII letters and digits of a text, folded as host names spell it (accents
    dropped, ß, æ, ø, œ as ss, ae, o, oe: :func:`engine.urls.substitution.fold`).

    >>> folded("Nörd-Republic®"), folded("Lørenskog Straße")
    ('nordrepublic', 'lorenskogstrasse')
    """
    return "".join(c for c in fold(text.lower()) if c.isascii() and c.isalnum())


def spelled(label: str, words: tuple[str, ...]) -> int:
    """The most words whose starts, in order (others skipped), spell ``label``; 0 when none do.

    >>> spelled("osha", ("occupational", "safety", "and", "health", "administration"))
    4
    >>> spelled("osha", ("one", "small", "step"))
    0
    """

    @cache
    def most(at: int, word: int) -> int:  # label[at:] from words[word:]; -1: cannot
        if at == len(label):
            return 0
        best = -1
        for k in range(word, len(words)):
            size = 0
            while size < len(words[k]) and at + size < len(label):
                if words[k][size] != label[at + size]:
                    break
                size += 1
                rest = most(at + size, k + 1)
                best = max(best, rest + 1 if rest >= 0 else -1)
        return best

    return max(most(0, 0), 0)
