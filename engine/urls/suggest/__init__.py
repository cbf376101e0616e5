"""The rewrite-suggestion engine: from a failed URL to ranked repaired URLs.

``pipeline`` runs the steps (``Suggester``), ``readings`` cuts the typed host into
readings, ``ranking`` scores the candidates.

>>> s = Suggester(DomainDictionary.from_domains(["google.com"]))
>>> s.suggest(SuggestRequest("http://gogle.com/"))[0].url
'http://google.com/'
"""

from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest.pipeline import (
    ERRORS,
    NETWORK_ERRORS,
    PAGE_ERRORS,
    Suggester,
    SuggestRequest,
    _domain_of,
    path_score,
)
from engine.urls.suggest.ranking import Suggestion, SuggestOptions

__all__ = [
    "ERRORS",
    "NETWORK_ERRORS",
    "PAGE_ERRORS",
    "DomainDictionary",
    "SuggestOptions",
    "SuggestRequest",
    "Suggester",
    "Suggestion",
    "_domain_of",
    "path_score",
]
