"""Sites: the one Public Suffix List and the one "registrable domain" of a host.

The list is tldextract's bundled snapshot, read once: ``suffix_list_urls=()`` means it
never fetches, ``cache_dir=None`` means it never writes a cache file. Lookups use the
ICANN section (a registrable domain is ``bbc.co.uk``, not ``github.io``);
:func:`public_suffixes` adds the private section (``github.io``, ``blogspot.com``) for
rules that must never strip a label off a suffix.

>>> registrable_domain("m.news.example.co.uk:8080"), registrable_domain("127.0.0.1")
('example.co.uk', '127.0.0.1')
"""

from __future__ import annotations

from functools import lru_cache

import tldextract

EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


@lru_cache(maxsize=4096)
def registrable_domain(host: str) -> str:
    """The registrable domain of a host (``m.bbc.co.uk`` → ``bbc.co.uk``); the host itself
    (lower-cased, port cut) when it has none: an IP address, ``localhost``, an unknown TLD.

    >>> registrable_domain("WWW.Example.COM"), registrable_domain("localhost:8080")
    ('example.com', 'localhost')
    """
    bare = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    parts = EXTRACT(bare)
    if parts.domain and parts.suffix:
        return f"{parts.domain}.{parts.suffix}".lower()
    return bare.lower()


@lru_cache(maxsize=1)
def public_suffixes() -> frozenset[str]:
    """Every rule of the list, ICANN and private sections, as written (wildcards ``*.``,
    exceptions ``!``; Unicode rules as Unicode).

    >>> {"co.uk", "github.io"} <= public_suffixes()
    True
    """
    # tldextract exposes both sections only on its extractor object (5.x API).
    return frozenset(EXTRACT._get_tld_extractor().tlds(include_psl_private_domains=True))


@lru_cache(maxsize=4096)
def name_labels(host: str) -> tuple[str, ...]:
    """The labels a host names its site by: those before its public suffix (ICANN section),
    without "www", port or hyphens.

    >>> name_labels("www.wall-street-oasis.co.uk"), name_labels("dlr.skift.com:443")
    (('wallstreetoasis',), ('dlr', 'skift'))
    """
    bare = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    parts = EXTRACT(bare.lower())
    labels = (*parts.subdomain.split("."), parts.domain)
    return tuple(label.replace("-", "") for label in labels if label and label != "www")
